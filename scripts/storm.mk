# SPDX-License-Identifier: GPL-2.0-only
# make storm: the outlier-storm benchmark of `sclat record` (root; see scripts/storm --help).
STORM_ARGS	?=

.PHONY: storm
storm: build
	$(Q)scripts/storm $(STORM_ARGS)
