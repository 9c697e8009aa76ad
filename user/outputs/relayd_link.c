// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <netdb.h>
#include <poll.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "relayd_link.h"
#include "util/log.h"
#include "util/proc_stat.h"

#define LINK_MAX_SOCKETS	  64 /* of one consumer daemon, to the relayd */
#define LINK_MAX_DAEMONS	  4  /* consumer daemons of one session daemon */
#define TCP_ESTABLISHED		  1  /* the st column of /proc/net/tcp, and idiag_state */
#define RELAYD_CONNECT_TIMEOUT_MS 3000

/* A TCP connection: its addresses as /proc/net/tcp prints them, which sock_diag takes. */
struct link_socket {
	unsigned long inode;
	unsigned int state;
	int family;
	__u32 src[4], dst[4]; /* network order, one word for IPv4 */
	unsigned int sport, dport;
};

struct relayd_link {
	pid_t sessiond;
	pid_t daemons[LINK_MAX_DAEMONS]; /* its consumer daemons, as last found */
	int nr_daemons;
	unsigned int ports[2];
	unsigned long before[LINK_MAX_SOCKETS * LINK_MAX_DAEMONS];
	size_t nr_before;
	struct link_socket ours[LINK_MAX_SOCKETS];
	size_t nr_ours;
	int diag_fd; /* NETLINK_SOCK_DIAG, when the consumer daemon shares our network */
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

/* Connect to host:port within the timeout; 0 or a negative errno. */
static int tcp_probe(const char *host, const char *port)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	int err = -EHOSTUNREACH, fd, soerr;
	socklen_t len = sizeof(soerr);
	struct pollfd pfd;

	if (getaddrinfo(host, port, &hints, &res))
		return -ENXIO;
	for (ai = res; ai; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) {
			err = 0;
		} else if (errno == EINPROGRESS) {
			pfd = (struct pollfd){ .fd = fd, .events = POLLOUT };
			if (poll(&pfd, 1, RELAYD_CONNECT_TIMEOUT_MS) != 1)
				err = -ETIMEDOUT;
			else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) || soerr)
				err = -(soerr ? soerr : errno);
			else
				err = 0;
		} else {
			err = -errno;
		}
		close(fd);
		if (!err)
			break;
	}
	freeaddrinfo(res);
	return err;
}

int relayd_probe(const char *url, bool quiet)
{
	unsigned int ctrl, data;
	char host[256], port[16];
	int err;

	if (relayd_url_parse(url, host, sizeof(host), &ctrl, &data))
		return 0;
	snprintf(port, sizeof(port), "%u", ctrl);
	err = tcp_probe(host, port);
	if (err && !quiet)
		log_err("%s: cannot reach lttng-relayd at %s port %s: %s", url, host, port,
			err == -ENXIO ? "unknown host" : strerror(-err));
	return err;
}

/* Whether process pid is a consumer daemon of session daemon sessiond (its child). */
static bool consumerd_of(pid_t pid, pid_t sessiond)
{
	struct proc_stat st;

	return !proc_stat_read(pid, &st) && st.ppid == sessiond &&
	       !strcmp(st.comm, "lttng-consumerd");
}

/* The consumer daemons of l->sessiond: those last found while they live, else a search. */
static int consumerds(struct relayd_link *l)
{
	struct dirent *de;
	DIR *d;
	int i;

	for (i = 0; i < l->nr_daemons; i++)
		if (!consumerd_of(l->daemons[i], l->sessiond))
			break;
	if (l->nr_daemons && i == l->nr_daemons)
		return l->nr_daemons;
	/* All of /proc: a few ms, only when a daemon came or went. */
	l->nr_daemons = 0;
	d = opendir("/proc");
	while (d && l->nr_daemons < LINK_MAX_DAEMONS && (de = readdir(d)))
		if (de->d_name[0] >= '1' && de->d_name[0] <= '9' &&
		    consumerd_of(atoi(de->d_name), l->sessiond))
			l->daemons[l->nr_daemons++] = atoi(de->d_name);
	if (d)
		closedir(d);
	return l->nr_daemons;
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

/* One line of /proc/net/tcp or tcp6: 0, or -1 for another line (the header). */
static int tcp_line_parse(const char *line, int family, struct link_socket *sk)
{
	char src[40], dst[40];
	int i, words = family == AF_INET ? 1 : 4;

	memset(sk, 0, sizeof(*sk));
	if (sscanf(line,
		   " %*u: %39[0-9A-Fa-f]:%x %39[0-9A-Fa-f]:%x %x %*x:%*x %*x:%*x %*x %*u %*u %lu",
		   src, &sk->sport, dst, &sk->dport, &sk->state, &sk->inode) != 6 ||
	    strlen(src) != 8U * words || strlen(dst) != 8U * words)
		return -1;
	/* Each 32-bit word as the kernel holds it, printed in hex. */
	for (i = 0; i < words; i++) {
		sscanf(src + 8 * i, "%8x", &sk->src[i]);
		sscanf(dst + 8 * i, "%8x", &sk->dst[i]);
	}
	sk->family = family;
	return 0;
}

/*
 * The TCP sockets of pid whose remote port is one of ports, in its network
 * namespace. A few ms: /proc/net/tcp walks the whole connection table.
 */
static size_t relayd_sockets(pid_t pid, const unsigned int ports[2], struct link_socket *out,
			     size_t max)
{
	static const struct {
		const char *name;
		int family;
	} tables[] = { { "tcp", AF_INET }, { "tcp6", AF_INET6 } };
	char path[64], line[512];
	unsigned long *inodes;
	size_t nr_inodes, n = 0, t;
	FILE *f;

	inodes = socket_inodes(pid, &nr_inodes);
	if (!inodes)
		return 0;
	for (t = 0; t < 2; t++) {
		snprintf(path, sizeof(path), "/proc/%d/net/%s", pid, tables[t].name);
		f = fopen(path, "re");
		if (!f)
			continue;
		while (n < max && fgets(line, sizeof(line), f)) {
			if (tcp_line_parse(line, tables[t].family, &out[n]) ||
			    (out[n].dport != ports[0] && out[n].dport != ports[1]) ||
			    !bsearch(&out[n].inode, inodes, nr_inodes, sizeof(*inodes), cmp_ulong))
				continue;
			n++;
		}
		fclose(f);
	}
	free(inodes);
	return n;
}

/*
 * The state of one connection, asked of the kernel by its addresses (an exact
 * lookup, not a walk of the table): its TCP state, or -ENOENT when it is gone
 * (or another socket has its addresses now), or another -errno.
 */
static int diag_state(int fd, const struct link_socket *sk)
{
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 req;
	} q = {
		.nlh = { .nlmsg_len = sizeof(q),
			 .nlmsg_type = SOCK_DIAG_BY_FAMILY,
			 .nlmsg_flags = NLM_F_REQUEST },
		.req = { .sdiag_family = sk->family,
			 .sdiag_protocol = IPPROTO_TCP,
			 .idiag_states = ~0U,
			 .id = { .idiag_sport = htons(sk->sport),
				 .idiag_dport = htons(sk->dport),
				 .idiag_cookie = { INET_DIAG_NOCOOKIE, INET_DIAG_NOCOOKIE } } },
	};
	union {
		struct nlmsghdr nlh;
		char buf[8192];
	} a;
	struct inet_diag_msg *m;
	struct nlmsgerr *e;
	ssize_t n;

	memcpy(q.req.id.idiag_src, sk->src, sizeof(sk->src));
	memcpy(q.req.id.idiag_dst, sk->dst, sizeof(sk->dst));
	if (send(fd, &q, sizeof(q), 0) != sizeof(q))
		return -errno;
	n = recv(fd, &a, sizeof(a), 0);
	if (n < 0)
		return -errno;
	if (!NLMSG_OK(&a.nlh, (size_t)n))
		return -EIO;
	if (a.nlh.nlmsg_type == NLMSG_ERROR) {
		e = NLMSG_DATA(&a.nlh);
		return e->error ? e->error : -EIO;
	}
	if (a.nlh.nlmsg_type != SOCK_DIAG_BY_FAMILY)
		return -EIO;
	m = NLMSG_DATA(&a.nlh);
	return m->idiag_inode == sk->inode ? (int)m->idiag_state : -ENOENT;
}

/* Whether process pid lives in this process's network namespace. */
static bool same_network(pid_t pid)
{
	char path[64], mine[64] = "", theirs[64] = "";

	snprintf(path, sizeof(path), "/proc/%d/ns/net", pid);
	return readlink("/proc/self/ns/net", mine, sizeof(mine) - 1) > 0 &&
	       readlink(path, theirs, sizeof(theirs) - 1) > 0 && !strcmp(mine, theirs);
}

/* The connections of every consumer daemon of l->sessiond to the relayd, up to max. */
static size_t link_sockets(struct relayd_link *l, struct link_socket *out, size_t max)
{
	int i, nr = consumerds(l);
	size_t n = 0;

	for (i = 0; i < nr; i++)
		n += relayd_sockets(l->daemons[i], l->ports, out + n, max - n);
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
	l->diag_fd = -1;
	if (relayd_url_parse(url, host, sizeof(host), &l->ports[0], &l->ports[1])) {
		l->ports[0] = RELAYD_CONTROL_PORT;
		l->ports[1] = RELAYD_DATA_PORT;
	}
	l->nr_before = link_sockets(l, now, LINK_MAX_SOCKETS * LINK_MAX_DAEMONS);
	if (l->nr_before > LINK_MAX_SOCKETS * LINK_MAX_DAEMONS)
		l->nr_before = LINK_MAX_SOCKETS * LINK_MAX_DAEMONS;
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

/* The session's connections: the new ones since relayd_link_open(), once they exist. */
static void link_find(struct relayd_link *l)
{
	struct link_socket now[LINK_MAX_SOCKETS * LINK_MAX_DAEMONS];
	size_t n, i;

	n = link_sockets(l, now, LINK_MAX_SOCKETS * LINK_MAX_DAEMONS);
	for (i = 0; i < n && l->nr_ours < LINK_MAX_SOCKETS; i++)
		if (!inode_in(now[i].inode, l->before, l->nr_before))
			l->ours[l->nr_ours++] = now[i];
	/* From then on, a lookup per connection instead of a walk of the table. */
	if (l->nr_ours && l->nr_daemons && same_network(l->daemons[0]))
		l->diag_fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
}

/* The states of the session's connections, from /proc: the slow way. */
static enum relayd_link_state link_walk(struct relayd_link *l)
{
	struct link_socket now[LINK_MAX_SOCKETS * LINK_MAX_DAEMONS];
	size_t n, i, j;

	n = link_sockets(l, now, LINK_MAX_SOCKETS * LINK_MAX_DAEMONS);
	for (i = 0; i < l->nr_ours; i++) {
		for (j = 0; j < n && now[j].inode != l->ours[i].inode; j++)
			;
		if (j == n || now[j].state != TCP_ESTABLISHED)
			return RELAYD_LINK_LOST;
	}
	return RELAYD_LINK_UP;
}

enum relayd_link_state relayd_link_check(struct relayd_link *l)
{
	size_t i;
	int state;

	if (!l || !l->sessiond)
		return RELAYD_LINK_UNKNOWN;
	if (!l->nr_ours)
		link_find(l);
	if (!l->nr_ours)
		return RELAYD_LINK_UNKNOWN;
	if (l->diag_fd < 0)
		return link_walk(l);
	for (i = 0; i < l->nr_ours; i++) {
		state = diag_state(l->diag_fd, &l->ours[i]);
		if (state == -ENOENT || (state >= 0 && state != TCP_ESTABLISHED))
			return RELAYD_LINK_LOST;
		/* sock_diag refused (no privilege?): the slow way from now on. */
		if (state < 0) {
			close(l->diag_fd);
			l->diag_fd = -1;
			return link_walk(l);
		}
	}
	return RELAYD_LINK_UP;
}

void relayd_link_close(struct relayd_link *l)
{
	if (!l)
		return;
	if (l->diag_fd >= 0)
		close(l->diag_fd);
	free(l);
}
