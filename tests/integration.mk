# SPDX-License-Identifier: GPL-2.0-only
# Integration tests: pytest with Debian's python3 (python3-bt2 lives there).
# They load the real BPF programs and run real LTTng sessions: root required.
# tests/lttng-world gives them LTTng daemons of their own, in a private mount
# namespace: a daemon already running here, or another run of the tests, is
# never stopped or killed by them.
PYTEST_ARGS	?=

.PHONY: check-integration
check-integration: build
	$(Q)tests/lttng-world $(PYTHON) -m pytest -q -rs tests/integration $(PYTEST_ARGS)

CHECK_TARGETS	+= check-integration
