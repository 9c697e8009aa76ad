// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "relayd_link.h"

#define LINK_MAX_SOCKETS 64 /* of one consumer daemon, to the relayd */
#define LINK_MAX_DAEMONS 4  /* consumer daemons of one session daemon */
#define TCP_ESTABLISHED	 1  /* the st column of /proc/net/tcp */

struct link_socket {
	unsigned long inode;
	unsigned int state;
};

struct relayd_link {
	pid_t sessiond;
	unsigned int ports[2];
	unsigned long before[LINK_MAX_SOCKETS * LINK_MAX_DAEMONS];
	size_t nr_before;
	unsigned long ours[LINK_MAX_SOCKETS];
	size_t nr_ours;
};

int relayd_url_parse(const char *url, char *host, size_t len, unsigned int *ctrl,
		     unsigned int *data)
{
	const char *p = strstr(url, "://"), *end;
	unsigned int port[2] = { RELAYD_CONTROL_PORT, RELAYD_DATA_PORT };
	char *next;
	size_t n;
	int i;

	if (!p)
		return -EINVAL;
	p += 3;
	if (*p == '[') {
		end = strchr(++p, ']');
		if (!end)
			return -EINVAL;
		n = end++ - p;
	} else {
		n = strcspn(p, ":/");
		end = p + n;
	}
	if (!n || n >= len)
		return -EINVAL;
	memcpy(host, p, n);
	host[n] = 0;
	for (i = 0; i < 2 && *end == ':'; i++) {
		unsigned long v = strtoul(end + 1, &next, 10);

		if (next == end + 1 || !v || v > 65535)
			break;
		port[i] = v;
		end = next;
	}
	*ctrl = port[0];
	*data = port[1];
	return 0;
}

/* The consumer daemons of a session daemon: its children named lttng-consumerd. */
static int consumerds(pid_t sessiond, pid_t *out, int max)
{
	char path[300], comm[32], line[512];
	struct dirent *de;
	int n = 0, ppid;
	DIR *d = opendir("/proc");
	FILE *f;

	while (d && n < max && (de = readdir(d))) {
		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		f = fopen(path, "re");
		if (!f)
			continue;
		if (fgets(line, sizeof(line), f) &&
		    sscanf(line, "%*d (%31[^)]) %*c %d", comm, &ppid) == 2 && ppid == sessiond &&
		    !strcmp(comm, "lttng-consumerd"))
			out[n++] = atoi(de->d_name);
		fclose(f);
	}
	if (d)
		closedir(d);
	return n;
}

static int cmp_ulong(const void *a, const void *b)
{
	unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;

	return x < y ? -1 : x > y;
}

/* The inodes of the sockets process pid holds, sorted; NULL when none or unreadable. */
static unsigned long *socket_inodes(pid_t pid, size_t *n)
{
	char path[300], target[64];
	unsigned long *inodes = NULL, *grown, ino;
	size_t cap = 0;
	struct dirent *de;
	ssize_t len;
	DIR *d;

	*n = 0;
	snprintf(path, sizeof(path), "/proc/%d/fd", pid);
	d = opendir(path);
	while (d && (de = readdir(d))) {
		snprintf(path, sizeof(path), "/proc/%d/fd/%s", pid, de->d_name);
		len = readlink(path, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = 0;
		if (sscanf(target, "socket:[%lu]", &ino) != 1)
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			grown = realloc(inodes, cap * sizeof(*inodes));
			if (!grown)
				break;
			inodes = grown;
		}
		inodes[(*n)++] = ino;
	}
	if (d)
		closedir(d);
	if (inodes)
		qsort(inodes, *n, sizeof(*inodes), cmp_ulong);
	return inodes;
}

/* The TCP sockets of pid whose remote port is one of ports, in its network namespace. */
static size_t relayd_sockets(pid_t pid, const unsigned int ports[2], struct link_socket *out,
			     size_t max)
{
	static const char *const tables[] = { "tcp", "tcp6" };
	char path[64], line[512];
	unsigned long *inodes, ino;
	unsigned int rport, state;
	size_t nr_inodes, n = 0, t;
	FILE *f;

	inodes = socket_inodes(pid, &nr_inodes);
	if (!inodes)
		return 0;
	for (t = 0; t < 2; t++) {
		snprintf(path, sizeof(path), "/proc/%d/net/%s", pid, tables[t]);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (n < max && fgets(line, sizeof(line), f)) {
			if (sscanf(line,
				   " %*u: %*[0-9A-Fa-f]:%*x %*[0-9A-Fa-f]:%x %x %*x:%*x %*x:%*x "
				   "%*x %*u %*u %lu",
				   &rport, &state, &ino) != 3 ||
			    (rport != ports[0] && rport != ports[1]) ||
			    !bsearch(&ino, inodes, nr_inodes, sizeof(*inodes), cmp_ulong))
				continue;
			out[n++] = (struct link_socket){ .inode = ino, .state = state };
		}
		fclose(f);
	}
	free(inodes);
	return n;
}

/* The connections of every consumer daemon of l->sessiond to the relayd, up to max. */
static size_t link_sockets(const struct relayd_link *l, struct link_socket *out, size_t max)
{
	pid_t pids[LINK_MAX_DAEMONS];
	int i, nr = consumerds(l->sessiond, pids, LINK_MAX_DAEMONS);
	size_t n = 0;

	for (i = 0; i < nr; i++)
		n += relayd_sockets(pids[i], l->ports, out + n, max - n);
	return n;
}

struct relayd_link *relayd_link_open(pid_t sessiond, const char *url)
{
	struct link_socket now[LINK_MAX_SOCKETS * LINK_MAX_DAEMONS];
	struct relayd_link *l = calloc(1, sizeof(*l));
	char host[256];
	size_t i;

	if (!l)
		return NULL;
	l->sessiond = sessiond;
	if (relayd_url_parse(url, host, sizeof(host), &l->ports[0], &l->ports[1])) {
		l->ports[0] = RELAYD_CONTROL_PORT;
		l->ports[1] = RELAYD_DATA_PORT;
	}
	l->nr_before = link_sockets(l, now, LINK_MAX_SOCKETS * LINK_MAX_DAEMONS);
	for (i = 0; i < l->nr_before; i++)
		l->before[i] = now[i].inode;
	return l;
}

static bool inode_in(unsigned long ino, const unsigned long *set, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (set[i] == ino)
			return true;
	return false;
}

enum relayd_link_state relayd_link_check(struct relayd_link *l)
{
	struct link_socket now[LINK_MAX_SOCKETS * LINK_MAX_DAEMONS];
	size_t n, i, j;

	if (!l || !l->sessiond)
		return RELAYD_LINK_UNKNOWN;
	n = link_sockets(l, now, LINK_MAX_SOCKETS * LINK_MAX_DAEMONS);
	/* Ours are the ones that came with the session. */
	if (!l->nr_ours)
		for (i = 0; i < n && l->nr_ours < LINK_MAX_SOCKETS; i++)
			if (!inode_in(now[i].inode, l->before, l->nr_before))
				l->ours[l->nr_ours++] = now[i].inode;
	if (!l->nr_ours)
		return RELAYD_LINK_UNKNOWN;
	for (i = 0; i < l->nr_ours; i++) {
		for (j = 0; j < n && now[j].inode != l->ours[i]; j++)
			;
		if (j == n || now[j].state != TCP_ESTABLISHED)
			return RELAYD_LINK_LOST;
	}
	return RELAYD_LINK_UP;
}

void relayd_link_close(struct relayd_link *l)
{
	free(l);
}
