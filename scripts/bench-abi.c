// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ABI sizes scripts/bench's memory model needs, as key=value lines; each
 * argument, a CPU count, adds the number of wakers' notes for it (wake_slots_N).
 */
#include <stdio.h>
#include <stdlib.h>
#include "sclat_abi.h"

int main(int argc, char **argv)
{
	int i;

	printf("hist_slots=%u\n", SCLAT_HIST_SLOTS);
	printf("hist_buckets=%u\n", SCLAT_HIST_BUCKETS);
	printf("hist_bytes=%zu\n", sizeof(struct sclat_hist));
	printf("max_syscalls=%u\n", SCLAT_MAX_SYSCALLS);
	printf("shared_bytes=%zu\n", sizeof(struct sclat_shared));
	printf("event_bytes=%zu\n", sizeof(struct sclat_event));
	printf("kstack_bytes=%zu\n", sizeof(struct sclat_kstack));
	printf("cpu_page_bytes=%u\n", SCLAT_CPU_PAGE_SIZE);
	printf("wake_slot_bytes=%u\n", SCLAT_WAKE_SLOT_BYTES);
	for (i = 1; i < argc; i++)
		printf("wake_slots_%s=%u\n", argv[i], sclat_wake_slots((__u32)atoi(argv[i])));
	return 0;
}
