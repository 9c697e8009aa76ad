// SPDX-License-Identifier: GPL-2.0-only
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include "target.h"
#include "util/syscall_args.h"
#include "util/syscall_names.h"

/*
 * The argument names the kernel's syscall trace events give a path a call
 * acts on, the directory fd it is relative to, and a file descriptor it
 * reads, writes or waits on, in order of preference.
 */
static const char *const path_args[] = { "filename", "pathname",    "path",
					 "oldname",  "specialfile", NULL };
static const char *const dirfd_args[] = { "dfd", "olddfd", "from_dfd", NULL };
static const char *const fd_args[] = { "fd",	 "fd_in", "fdin",  "in_fd", "epfd",	   "oldfd",
				       "fildes", "ufd",	  "pidfd", "fs_fd", "fanotify_fd", NULL };

/* The index of the first argument of a named in names with that pointerness, or -1. */
static int arg_named(const struct syscall_args *a, const char *const *names, bool pointer)
{
	unsigned int i;

	for (; *names; names++)
		for (i = 0; i < a->nr_args && i < SCLAT_NR_ARGS; i++)
			if (a->arg[i].pointer == pointer && !strcmp(a->arg[i].name, *names))
				return i;
	return -1;
}

static struct sclat_target_rule rule_of(const struct syscall_args *a)
{
	struct sclat_target_rule r = { .dirfd = SCLAT_RULE_NO_DIRFD };
	int i;

	if (arg_named(a, (const char *const[]){ "argv", NULL }, true) >= 0) {
		r.kind = SCLAT_RULE_EXEC;
	} else if ((i = arg_named(a, path_args, true)) >= 0) {
		r.kind = SCLAT_RULE_PATH;
		r.arg = i;
		i = arg_named(a, dirfd_args, false);
		if (i >= 0)
			r.dirfd = i;
	} else if ((i = arg_named(a, fd_args, false)) >= 0) {
		r.kind = SCLAT_RULE_FD;
		r.arg = i;
	}
	return r;
}

void target_rules_build(struct sclat_target_rule *rules)
{
	unsigned int i;
	int nr;

	memset(rules, 0, SCLAT_MAX_SYSCALLS * sizeof(*rules));
	for (i = 0; i < syscall_args_count; i++) {
		nr = syscall_nr(syscall_args_table[i].syscall);
		if (nr >= 0 && nr < SCLAT_MAX_SYSCALLS)
			rules[nr] = rule_of(&syscall_args_table[i]);
	}
}

/* Text appended to a bounded buffer; what does not fit is cut. */
struct text {
	char *buf;
	size_t len, used;
};

static void text_add(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (t->used >= t->len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(t->buf + t->used, t->len - t->used, fmt, ap);
	va_end(ap);
	if (n > 0)
		t->used = t->used + n < t->len ? t->used + n : t->len - 1;
}

/* A path given as its names from the file up, each ending in a NUL (struct sclat_target). */
static void text_add_path(struct text *t, const char *names, size_t len, bool truncated)
{
	const char *end = names + len, *p;

	if (truncated)
		text_add(t, "...");
	if (!len) {
		text_add(t, "/");
		return;
	}
	/* From the root down: the last name first. */
	while (end > names) {
		p = end - 1;
		while (p > names && p[-1])
			p--;
		text_add(t, "/%.*s", (int)(end - 1 - p), p);
		end = p;
	}
}

static void text_add_addr(struct text *t, int family, const __u8 *addr, __u16 port)
{
	char ip[INET6_ADDRSTRLEN];

	if (!inet_ntop(family, addr, ip, sizeof(ip)))
		snprintf(ip, sizeof(ip), "?");
	text_add(t, family == AF_INET6 ? "[%s]:%u" : "%s:%u", ip, port);
}

static const char *inet_protocol_name(const struct sclat_target *tg)
{
	if (tg->type == SOCK_RAW)
		return "RAW";
	switch (tg->protocol) {
	case IPPROTO_TCP:
		return "TCP";
	case IPPROTO_UDP:
		return "UDP";
	case IPPROTO_SCTP:
		return "SCTP";
	case IPPROTO_ICMP:
	case IPPROTO_ICMPV6:
		return "ICMP";
	case IPPROTO_MPTCP:
		return "MPTCP";
	}
	return "IP";
}

/* A sun_path: abstract names (a leading NUL) as @name, like ss and lsof. */
static void text_add_sun_path(struct text *t, const char *p, size_t len)
{
	if (len && !p[0])
		text_add(t, "@%.*s", (int)len - 1, p + 1);
	else
		text_add(t, "%.*s", (int)strnlen(p, len), p);
}

static void text_add_socket(struct text *t, const struct sclat_target *tg)
{
	const __u8 zero[16] = {};
	size_t alen = tg->family == AF_INET ? 4 : 16;

	if (tg->family == AF_INET || tg->family == AF_INET6) {
		text_add(t, "socket:%s ", inet_protocol_name(tg));
		text_add_addr(t, tg->family, tg->local_addr, tg->local_port);
		/* An unconnected socket has no peer. */
		if (tg->peer_port || memcmp(tg->peer_addr, zero, alen)) {
			text_add(t, "->");
			text_add_addr(t, tg->family, tg->peer_addr, tg->peer_port);
		}
	} else if (tg->family == AF_UNIX && (tg->str_len[0] || tg->str_len[1])) {
		text_add(t, "socket:UNIX ");
		text_add_sun_path(t, tg->str, tg->str_len[0]);
		if (tg->str_len[1]) {
			text_add(t, "->");
			text_add_sun_path(t, tg->str + tg->str_len[0], tg->str_len[1]);
		}
	} else if (tg->family == AF_UNIX) {
		text_add(t, "socket:UNIX:[%llu]", (unsigned long long)tg->ino);
	} else if (tg->family == AF_NETLINK) {
		text_add(t, "socket:NETLINK:[%llu]", (unsigned long long)tg->ino);
	} else {
		text_add(t, "socket:[%llu]", (unsigned long long)tg->ino);
	}
}

const char *target_format(const struct sclat_target *tg, size_t len, char *buf, size_t buflen)
{
	struct text t = { .buf = buf, .len = buflen };
	bool truncated;

	if (!buflen || len < sizeof(*tg) ||
	    len - sizeof(*tg) < (size_t)tg->str_len[0] + tg->str_len[1])
		return NULL;
	buf[0] = '\0';
	truncated = tg->flags & SCLAT_TARGET_TRUNCATED;
	switch (tg->kind) {
	case SCLAT_TARGET_FILE:
		text_add_path(&t, tg->str, tg->str_len[0], truncated);
		if (tg->flags & SCLAT_TARGET_DELETED)
			text_add(&t, " (deleted)");
		break;
	case SCLAT_TARGET_PIPE:
		text_add(&t, "pipe:[%llu]", (unsigned long long)tg->ino);
		break;
	case SCLAT_TARGET_SOCKET:
		text_add_socket(&t, tg);
		break;
	case SCLAT_TARGET_ANON:
		text_add(&t, "anon_inode:%.*s", (int)strnlen(tg->str, tg->str_len[0]), tg->str);
		break;
	case SCLAT_TARGET_PATH:
		if (!tg->str_len[1])
			return NULL;
		if (tg->flags & SCLAT_TARGET_IN_DIR) {
			text_add_path(&t, tg->str, tg->str_len[0], truncated);
			/* The root's path is "/" already. */
			if (t.used != 1)
				text_add(&t, "/");
		}
		text_add(&t, "%.*s", (int)strnlen(tg->str + tg->str_len[0], tg->str_len[1]),
			 tg->str + tg->str_len[0]);
		break;
	default:
		return NULL;
	}
	return buf;
}
