/* SPDX-License-Identifier: GPL-2.0-only */
/* Whether a CTF trace's metadata file is whole, without parsing it. */
#ifndef SCLAT_CTF_METADATA_H
#define SCLAT_CTF_METADATA_H

/*
 * What is wrong with DIR/metadata: NULL when it is a regular file, not empty
 * and, when packetized, holding every packet its headers announce; else
 * "empty", "ends inside a packet", "not a regular file (a FIFO)", ...
 */
const char *ctf_metadata_problem(const char *dir);

/* Whether DIR/metadata is whole (ctf_metadata_problem() finds nothing): 0, or -1. */
int ctf_metadata_whole(const char *dir);

#endif
