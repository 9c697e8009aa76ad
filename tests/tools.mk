# SPDX-License-Identifier: GPL-2.0-only
# Test tools: tests/tools/NAME.c -> .output/tests/NAME, programs that the
# integration tests and benchmarks run (they load tests/bpf/ objects).
TOOL_SRCS	:= $(wildcard tests/tools/*.c)
TOOL_BINS	:= $(patsubst tests/tools/%.c,$(OUTPUT)/tests/%,$(TOOL_SRCS))

# The skeletons by name: tests/unit.mk's list is not defined yet when this file is read.
$(OUTPUT)/tests/%: tests/tools/%.c $(SCLAT_LIBS) \
		$(patsubst tests/bpf/%.bpf.c,$(OUTPUT)/tests/%.skel.h,$(wildcard tests/bpf/*.bpf.c)) \
		| $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Itests/bpf -I$(OUTPUT)/tests $< $(SCLAT_LIBS) $(LDLIBS) -o $@

ALL_TARGETS	+= $(TOOL_BINS)
