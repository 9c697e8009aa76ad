/* SPDX-License-Identifier: GPL-2.0-only */
/* LTTng's packet index files (DIR/index/STREAM.idx), checked before a reader trusts them. */
#ifndef SCLAT_CTF_INDEX_H
#define SCLAT_CTF_INDEX_H

#include <stddef.h>

/*
 * Whether every index file of the CTF trace directory dir describes its data
 * stream exactly: packets one after the other from offset 0 to the end of
 * the stream file, sizes and times that make sense. babeltrace2 2.0 trusts
 * an index it can parse, and aborts on one that points past its stream.
 * Returns 0 (no index is fine), or -1 with the first bad file and why in
 * why ("index/sclat_0.idx: packet 2 ends beyond sclat_0").
 */
int ctf_index_check(const char *dir, char *why, size_t len);

/*
 * The trace of dir, without its index: a new directory under $TMPDIR (or
 * /tmp) of symbolic links to dir's metadata and data streams, its path in
 * out. Returns 0 or a negative errno; ctf_index_bypass_remove() removes it.
 */
int ctf_index_bypass(const char *dir, char *out, size_t len);
void ctf_index_bypass_remove(const char *bypass);

#endif
