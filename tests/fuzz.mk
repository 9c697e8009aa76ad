# SPDX-License-Identifier: GPL-2.0-only
# Fuzzing and sanitizers.
#
# libFuzzer targets (clang -fsanitize=fuzzer,address,undefined), tests/fuzz/fuzz_NAME.c ->
# .output/fuzz/fuzz_NAME, each built from the sources it tests (instrumented, not the
# libraries) and fed from its checked-in corpus, tests/fuzz/corpus/NAME/ (tests/fuzz/seed-corpus
# writes the seeds; an input that once crashed stays there). What a run finds is kept in
# .output/fuzz/corpus/NAME/; a crash is written to .output/fuzz/crash-NAME-*.
#
#   make fuzz          each target FUZZ_SECONDS (default 60)
#   make check-fuzz    each target FUZZ_CHECK_SECONDS (default 5), part of make check;
#                      units and control FUZZ_QUICK_SECONDS (default 3)
#   make check-asan    the unit tests built with ASan and UBSan, part of make check
FUZZ_CC			?= clang
FUZZ_SECONDS		?= 60
# make check replays the checked-in corpus, which holds what longer runs found (merged
# with -merge=1: 200 to 500 inputs each for the policy parser, the trace readers and top's
# frames), and fuzzes a little beyond it; long runs are make fuzz. Replayed, that corpus
# covers more than 10 s of fuzzing from the corpus before it did (edges: report 1050
# against 1027, kernelize 737 against 724, top_frame 164 against 151, policy 355 against
# 354), so 5 s a target keep what make check covered, in 18 s against 35. From their
# corpus, the duration and control-request parsers reach all the coverage they will
# within 3 s (measured: no new edge after 130k runs, at 50-80k runs a second).
FUZZ_CHECK_SECONDS	?= 5
FUZZ_QUICK		:= units control
FUZZ_QUICK_SECONDS	?= 3
FUZZ_DIR		:= $(OUTPUT)/fuzz
FUZZ_TARGETS		:= policy units control report kernelize top_frame
FUZZ_BINS		:= $(patsubst %,$(FUZZ_DIR)/fuzz_%,$(FUZZ_TARGETS))
SANITIZE		:= -fsanitize=address,undefined -fno-sanitize-recover=all \
			   -fno-omit-frame-pointer
FUZZ_CFLAGS		:= -g -O1 -fsanitize=fuzzer $(SANITIZE) -std=gnu11 -D_GNU_SOURCE -Wall \
			   -Ishm -Iuser -I$(OUTPUT) -Itests/fuzz -I$(BT2_DIR)/common \
			   -I$(BT2_DIR)/report -I$(BT2_DIR)/kernelize \
			   $(shell $(PKG_CONFIG) --cflags babeltrace2 inih liburcu-memb 2>/dev/null)

FUZZ_UTIL		:= $(wildcard user/util/*.c) $(OUTPUT)/syscall_table.c \
			   $(OUTPUT)/syscall_args_table.c
# All of user/policy but the publication (RCU), which the parser does not need.
FUZZ_SRCS_policy	:= $(filter-out user/policy/policy_publish.c,$(wildcard user/policy/*.c)) \
			   $(FUZZ_UTIL)
FUZZ_LIBS_policy	:= $(shell $(PKG_CONFIG) --libs inih 2>/dev/null) -lm
FUZZ_SRCS_units		:= user/util/duration.c user/util/size.c
FUZZ_LIBS_units		:= -lm
FUZZ_SRCS_control	:= user/control/control_protocol.c
FUZZ_SRCS_top_frame	:= user/control/top_frame_parse.c user/util/escape.c
FUZZ_SRCS_report	:= tests/fuzz/trace_source.c $(filter-out $(BT2_DIR)/plugin.c,$(BT2_SRCS)) \
			   $(wildcard user/trace/*.c) \
			   $(FUZZ_UTIL)
FUZZ_LIBS_report	:= $(shell $(PKG_CONFIG) --libs babeltrace2 2>/dev/null) -lm
FUZZ_SRCS_kernelize	:= $(FUZZ_SRCS_report)
FUZZ_LIBS_kernelize	:= $(FUZZ_LIBS_report)
FUZZ_HDRS		:= $(wildcard shm/*.h user/*/*.h $(BT2_DIR)/*/*.h tests/fuzz/*.h)

define fuzz_target
$(FUZZ_DIR)/fuzz_$(1): tests/fuzz/fuzz_$(1).c $(FUZZ_SRCS_$(1)) $(FUZZ_HDRS) | $(OUTPUT)/sysconfdir.h
	$$(call msg,FUZZ-CC,$$@)
	$(Q)mkdir -p $$(@D)
	$(Q)$(FUZZ_CC) $(FUZZ_CFLAGS) $$(filter %.c,$$^) $(FUZZ_LIBS_$(1)) -o $$@
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call fuzz_target,$(t))))

.PHONY: fuzz-build
fuzz-build: $(FUZZ_BINS)

.PHONY: fuzz
fuzz: $(FUZZ_BINS)
	$(Q)tests/fuzz/run $(FUZZ_DIR) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

.PHONY: check-fuzz
check-fuzz: $(FUZZ_BINS)
	$(Q)tests/fuzz/run $(FUZZ_DIR) $(FUZZ_CHECK_SECONDS) \
		$(foreach t,$(FUZZ_TARGETS),$(t)$(if $(filter $(t),$(FUZZ_QUICK)),:$(FUZZ_QUICK_SECONDS)))

# The unit tests again, every object built with the sanitizers in a tree of its own.
.PHONY: asan-build check-asan
asan-build:
	$(Q)CFLAGS="-g -O1 $(SANITIZE)" $(MAKE) --no-print-directory OUTPUT=$(OUTPUT)/asan unit

check-asan: asan-build
	$(call msg,ASAN,$(OUTPUT)/asan)
	$(Q)CFLAGS="-g -O1 $(SANITIZE)" $(MAKE) --no-print-directory OUTPUT=$(OUTPUT)/asan \
		check-unit

CHECK_BUILDS	+= asan-build fuzz-build

CHECK_TARGETS	+= check-asan check-fuzz
