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
# It finds a thread's wakers' note slot as sclat does (shm/sclat_abi.h).
$(OUTPUT)/workloads/waits: WORKLOAD_CFLAGS := -fomit-frame-pointer -Ishm
$(OUTPUT)/workloads/waits: shm/sclat_abi.h

# An application with an lttng-ust provider of its own (flight_tp.h).
$(OUTPUT)/workloads/flight: tests/workloads/flight.c tests/workloads/flight_tp.h | $(OUTPUT)/workloads
	$(call msg,CC,$@)
	$(Q)$(CC) -g -O2 -Wall -Wextra -Itests/workloads $< -o $@ \
		$(shell $(PKG_CONFIG) --cflags --libs lttng-ust) -ldl -lpthread

# A FUSE file system whose reads are slow by design (libfuse3).
$(OUTPUT)/workloads/slowfs: tests/workloads/slowfs.c | $(OUTPUT)/workloads
	$(call msg,CC,$@)
	$(Q)$(CC) -g -O2 -Wall -Wextra $< -o $@ $(shell $(PKG_CONFIG) --cflags --libs fuse3)

# A 32-bit (ia32) program, with binutils alone: the 32-bit ABI tests run it.
$(OUTPUT)/workloads/nanosleep32: tests/workloads/nanosleep32.S | $(OUTPUT)/workloads
	$(call msg,AS,$@)
	$(Q)$(CC) -E -P $< | as --32 -o $@.o - && ld -m elf_i386 $@.o -o $@ && rm -f $@.o

ALL_TARGETS	+= $(WORKLOAD_BINS) $(OUTPUT)/workloads/nanosleep32

# The workloads that make stalls on demand share the helper that answers them.
$(OUTPUT)/workloads/mixed $(OUTPUT)/workloads/titled: tests/workloads/stall.h \
	tests/workloads/monotonic.h
$(OUTPUT)/workloads/pauses: tests/workloads/monotonic.h

# The unwinding tests' known stack: built without frame pointers (what Debian
# ships), and once more with frame pointers and no CFI at all, for the
# frame-pointer fallback (no -g either: .debug_frame is CFI too).
$(OUTPUT)/workloads/callchain: tests/workloads/callchain.c | $(OUTPUT)/workloads
	$(call msg,CC,$@)
	$(Q)$(CC) -g -O2 -fomit-frame-pointer -Wall -Wextra $< -o $@ -lpthread

$(OUTPUT)/workloads/callchain-fp: tests/workloads/callchain.c | $(OUTPUT)/workloads
	$(call msg,CC,$@)
	$(Q)$(CC) -O2 -fno-omit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables \
		-Wall -Wextra $< -o $@ -lpthread

ALL_TARGETS	+= $(OUTPUT)/workloads/callchain-fp
