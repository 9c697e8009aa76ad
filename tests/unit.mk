# SPDX-License-Identifier: GPL-2.0-only
# Unit tests: tests/unit/test_*.c, each a program linked with the sclat library.
UNIT_SRCS	:= $(wildcard tests/unit/test_*.c)
UNIT_BINS	:= $(patsubst tests/unit/%.c,$(OUTPUT)/tests/%,$(UNIT_SRCS))

$(OUTPUT)/tests:
	$(Q)mkdir -p $@

# BPF objects that unit tests run in the kernel: tests/bpf/NAME.bpf.c -> NAME.skel.h
$(OUTPUT)/tests/%.bpf.o: tests/bpf/%.bpf.c $(OUTPUT)/vmlinux.h \
		$(wildcard shm/*.h kern-bpf/*.bpf.h tests/bpf/*.h) | $(OUTPUT)/tests
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -Itests/bpf -c $< -o $@

$(OUTPUT)/tests/%.skel.h: $(OUTPUT)/tests/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@.tmp && mv $@.tmp $@

TEST_SKELS	:= $(patsubst tests/bpf/%.bpf.c,$(OUTPUT)/tests/%.skel.h,$(wildcard tests/bpf/*.bpf.c))

# Plugin code a test needs besides the libraries (the plugin links libsclat-util.a only).
UNIT_PLUGIN_test_aggregate := $(wildcard tracer-plugins/babeltrace2/common/agg*.c)

$(OUTPUT)/tests/test_aggregate: $(UNIT_PLUGIN_test_aggregate)
UNIT_PLUGIN_test_html_text := tracer-plugins/babeltrace2/report/render_html_text.c
$(OUTPUT)/tests/test_html_text: $(UNIT_PLUGIN_test_html_text)

$(OUTPUT)/tests/%: tests/unit/%.c $(wildcard tests/unit/*.h) $(SCLAT_LIBS) $(TEST_SKELS) \
		   $(wildcard kern-bpf/*.bpf.h) | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) -Itests/unit -Itests/bpf -Ikern-bpf -I$(OUTPUT)/tests \
		-Itracer-plugins/babeltrace2/common $< $(UNIT_PLUGIN_$*) $(SCLAT_LIBS) $(LDLIBS) -o $@

.PHONY: unit
unit: $(UNIT_BINS)

CHECK_BUILDS	+= unit

# Every test program runs even when one fails; the target fails if any did.
.PHONY: check-unit
check-unit: $(UNIT_BINS)
	$(Q)fail=0; for t in $(UNIT_BINS); do \
		echo "== $$t"; $$t || fail=1; \
	done; exit $$fail

CHECK_TARGETS	+= check-unit
