/* SPDX-License-Identifier: GPL-2.0-only */
/* Kernel addresses to function names, from /proc/kallsyms. */
#ifndef SCLAT_KSYMS_H
#define SCLAT_KSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct ksyms;

/*
 * The text symbols of the running kernel and its modules, read once from
 * path (/proc/kallsyms). NULL with errno set when it cannot be read, or
 * ENOENT when it shows no addresses (kernel.kptr_restrict).
 */
struct ksyms *ksyms_load(const char *path);

/*
 * addr as "function+0xoff", or "function+0xoff [module]", into buf; false
 * (buf holds the address in hex) when no symbol covers it, or k is NULL. An
 * address outside the symbols known reloads them, at most once every 5 s:
 * modules come and go.
 */
bool ksyms_format(struct ksyms *k, __u64 addr, char *buf, size_t len);

void ksyms_free(struct ksyms *k);

#endif
