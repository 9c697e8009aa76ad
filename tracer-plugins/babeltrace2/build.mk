# SPDX-License-Identifier: GPL-2.0-only
# The babeltrace2 plugin "sclat": .output/plugins/babeltrace-plugin-sclat.so, loadable with
# `babeltrace2 --plugin-path=.output/plugins`, installed where babeltrace2 finds system plugins.
BT2_DIR		:= tracer-plugins/babeltrace2
BT2_PLUGIN_DIR	:= $(OUTPUT)/plugins
BT2_PLUGIN	:= $(BT2_PLUGIN_DIR)/babeltrace-plugin-sclat.so
# The aggregation and trace reading code (common/) is shared with tracer-plugins/tracecompass;
# the utilities (durations, names, JSON) are user/util's, linked from libsclat-util.a, and
# the graph front (one source per trace) user/trace's, from libsclat-trace.a.
BT2_SRCS	:= $(wildcard $(BT2_DIR)/*.c $(BT2_DIR)/common/*.c $(BT2_DIR)/report/*.c \
			      $(BT2_DIR)/outliers/*.c $(BT2_DIR)/kernelize/*.c)
BT2_OBJ		= $(patsubst %.c,$(BT2_PLUGIN_DIR)/obj/%.o,$(1))
BT2_CFLAGS	:= $(CFLAGS) -fPIC -I$(BT2_DIR)/common -I$(BT2_DIR)/report -I$(BT2_DIR)/outliers \
		   -I$(BT2_DIR)/kernelize
# Where babeltrace2 looks for system plugins (it has no PREFIX-relative path).
BT2_MULTIARCH	:= $(shell $(CC) -print-multiarch 2>/dev/null)
BT2_SYS_PLUGINDIR ?= $(or $(shell $(PKG_CONFIG) --variable=plugindir babeltrace2 2>/dev/null),\
			  /usr/lib/$(BT2_MULTIARCH)/babeltrace2/plugins)

$(BT2_PLUGIN_DIR)/obj/%.o: %.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(BT2_CFLAGS) -MMD -MP -c $< -o $@

-include $(shell find $(BT2_PLUGIN_DIR)/obj -name '*.d' 2>/dev/null)

$(BT2_PLUGIN): $(call BT2_OBJ,$(BT2_SRCS)) $(LIBTRACE) $(LIBUTIL)
	$(call msg,LINK,$@)
	$(Q)$(CC) -shared $(CFLAGS) $^ $(shell $(PKG_CONFIG) --libs babeltrace2) -lm -o $@

.PHONY: install-bt2-plugin
install-bt2-plugin: $(BT2_PLUGIN)
	$(Q)install -d $(DESTDIR)$(BT2_SYS_PLUGINDIR)
	$(Q)install -m 0644 $(BT2_PLUGIN) $(DESTDIR)$(BT2_SYS_PLUGINDIR)/

ALL_TARGETS	+= $(BT2_PLUGIN)
INSTALL_TARGETS	+= install-bt2-plugin
