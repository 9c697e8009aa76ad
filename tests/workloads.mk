# SPDX-License-Identifier: GPL-2.0-only
# Workload programs for the tests and benchmarks: tests/workloads/NAME.c -> .output/workloads/NAME
WORKLOAD_SRCS	:= $(wildcard tests/workloads/*.c)
WORKLOAD_BINS	:= $(patsubst tests/workloads/%.c,$(OUTPUT)/workloads/%,$(WORKLOAD_SRCS))

$(OUTPUT)/workloads:
	$(Q)mkdir -p $@

$(OUTPUT)/workloads/%: tests/workloads/%.c | $(OUTPUT)/workloads
	$(call msg,CC,$@)
	$(Q)$(CC) -g -O2 $(WORKLOAD_CFLAGS) -Wall -Wextra $< -o $@ -lpthread -lm

# Built like Debian's binaries, without frame pointers: what a user-stack unwinder meets.
$(OUTPUT)/workloads/waits: WORKLOAD_CFLAGS := -fomit-frame-pointer

ALL_TARGETS	+= $(WORKLOAD_BINS)
