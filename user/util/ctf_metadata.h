/* SPDX-License-Identifier: GPL-2.0-only */
/* Whether a CTF trace's metadata file is whole, without parsing it. */
#ifndef SCLAT_CTF_METADATA_H
#define SCLAT_CTF_METADATA_H

/*
 * Whether DIR/metadata is whole: not empty and, when packetized, holding
 * every packet its headers announce. 0, or -1.
 */
int ctf_metadata_whole(const char *dir);

#endif
