# SPDX-License-Identifier: GPL-2.0-only
# Trace Compass: sclat-lami (LAMI 1.0 external analysis) and the XML pattern analysis.
TC_DIR		:= tracer-plugins/tracecompass
TC_LAMI		:= $(TC_DIR)/sclat-lami
# The LAMI tables are the plugin's: the same objects, compiled once. A trace
# reader: the babeltrace2 graph front and the utilities, nothing of the tracer.
TC_LAMI_OBJS	:= $(call BT2_OBJ,$(BT2_DIR)/common/lami.c)

$(TC_LAMI): $(TC_DIR)/lami.c $(TC_LAMI_OBJS) $(LIBTRACE) $(LIBUTIL)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -I$(BT2_DIR)/common $^ $(shell $(PKG_CONFIG) --libs babeltrace2) -o $@

.PHONY: install-tracecompass
install-tracecompass: $(TC_LAMI)
	$(Q)install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/sclat/tracecompass
	$(Q)install -m 0755 $(TC_LAMI) $(DESTDIR)$(PREFIX)/bin/sclat-lami
	$(Q)install -m 0644 $(TC_DIR)/sclat-analysis.xml $(DESTDIR)$(PREFIX)/share/sclat/tracecompass/

ALL_TARGETS	+= $(TC_LAMI)
INSTALL_TARGETS	+= install-tracecompass
CLEAN_EXTRA	+= $(TC_LAMI)
