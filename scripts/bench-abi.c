// SPDX-License-Identifier: GPL-2.0-only
/* The ABI sizes scripts/bench's memory model needs, as key=value lines. */
#include <stdio.h>
#include "sclat_abi.h"

int main(void)
{
	printf("hist_slots=%u\n", SCLAT_HIST_SLOTS);
	printf("hist_buckets=%u\n", SCLAT_HIST_BUCKETS);
	printf("hist_bytes=%zu\n", sizeof(struct sclat_hist));
	printf("max_syscalls=%u\n", SCLAT_MAX_SYSCALLS);
	printf("shared_bytes=%zu\n", sizeof(struct sclat_shared));
	printf("event_bytes=%zu\n", sizeof(struct sclat_event));
	printf("kstack_bytes=%zu\n", sizeof(struct sclat_kstack));
	return 0;
}
