# SPDX-License-Identifier: GPL-2.0-only
# Helpers of scripts/bench: the floor loader (libbpf only: no other library
# starts threads in it) and the ABI sizes of the memory model.
BENCH_BINS	:= $(OUTPUT)/bench/floor $(OUTPUT)/bench/abi

$(OUTPUT)/bench:
	$(Q)mkdir -p $@

$(OUTPUT)/bench/floor: scripts/bench-floor.c $(OUTPUT)/floor.skel.h | $(OUTPUT)/bench
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< $(shell $(PKG_CONFIG) --libs libbpf) -o $@

$(OUTPUT)/bench/abi: scripts/bench-abi.c shm/sclat_abi.h | $(OUTPUT)/bench
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< -o $@

ALL_TARGETS	+= $(BENCH_BINS)
