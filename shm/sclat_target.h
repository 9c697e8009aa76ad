/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The target part of an outlier record (shm/sclat_abi.h, SCLAT_PART_TARGET):
 * what the syscall waited on, and the rules that say which argument names
 * it. Bump SCLAT_ABI_VERSION whenever a byte here moves.
 */
#ifndef SCLAT_ABI_TARGET_H
#define SCLAT_ABI_TARGET_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* What a syscall's target is. */
enum sclat_target_kind {
	SCLAT_TARGET_NONE,
	SCLAT_TARGET_FILE,   /* a file, directory or device: str[0] is its path */
	SCLAT_TARGET_PIPE,   /* an anonymous pipe: ino */
	SCLAT_TARGET_SOCKET, /* family, type, protocol, addresses and ports; AF_UNIX: paths */
	SCLAT_TARGET_ANON,   /* an anonymous inode: str[0] is its name ("[eventfd]") */
	SCLAT_TARGET_PATH,   /* a path argument: str[1], relative to the directory str[0] */
};

#define SCLAT_TARGET_TRUNCATED 0x1 /* a string was cut at its bound: its start is missing */
#define SCLAT_TARGET_DELETED   0x2 /* the file has no name left (unlinked) */
#define SCLAT_TARGET_IN_DIR    0x4 /* PATH: str[0] is its directory (empty: the root) */

/* Bytes of the two strings of a target, together. */
#define SCLAT_TARGET_STR_MAX 768

/*
 * What an outlier's syscall waited on: the file behind its fd argument, or
 * its path argument. Two strings follow, str_len[0] then str_len[1] bytes. A
 * path (FILE, and the directory of PATH) is its names from the file up,
 * each ending in a NUL: "data\0tmp\0var\0" is /var/tmp/data. AF_UNIX
 * sockets: the local then the peer's sun_path bytes (abstract ones start
 * with a NUL). ANON: the name. PATH: the argument as the caller gave it.
 */
struct sclat_target {
	__u16 kind;  /* enum sclat_target_kind */
	__u16 flags; /* SCLAT_TARGET_* */
	__s32 fd;    /* the fd argument; PATH: its directory fd (AT_FDCWD: the cwd) */
	__u64 ino;
	__u32 dev;   /* the filesystem's device (kernel dev_t) */
	__u32 magic; /* the filesystem's magic */
	/* Sockets. Ports in host order, addresses in network order. */
	__u16 family;
	__u16 type; /* SOCK_STREAM, SOCK_DGRAM, ... */
	__u16 protocol;
	__u16 local_port;
	__u16 peer_port;
	__u16 str_len[2];
	__u16 __pad;
	__u8 local_addr[16]; /* AF_INET: the first 4 bytes */
	__u8 peer_addr[16];
	char str[];
};

/* Which argument of a syscall names its target (rodata, one per syscall). */
enum sclat_target_rule_kind {
	SCLAT_RULE_NONE,
	SCLAT_RULE_FD,	 /* args[arg] is a file descriptor */
	SCLAT_RULE_PATH, /* args[arg] points to a path, relative to the directory fd args[dirfd] */
	SCLAT_RULE_EXEC, /* an exec: the new executable (the path argument is gone at exit) */
};

#define SCLAT_RULE_NO_DIRFD 0xff

struct sclat_target_rule {
	__u8 kind; /* enum sclat_target_rule_kind */
	__u8 arg;
	__u8 dirfd; /* SCLAT_RULE_NO_DIRFD: relative to the cwd */
	__u8 __pad;
};

#endif
