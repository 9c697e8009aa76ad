// SPDX-License-Identifier: GPL-2.0-only
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "session_owner.h"

#define OWNERS_DIR	"sclat"
#define OWNERS_MAX	256 /* records looked at in one pass */
#define RECORD_TEXT_MAX (SESSION_OWNER_NAME_MAX + 128)

struct session_owner {
	int fd;
	char path[PATH_MAX + 16];
};

static int record_write(int fd, const struct session_owner_record *r)
{
	char text[RECORD_TEXT_MAX];
	int len;

	len = snprintf(text, sizeof(text),
		       "pid %d\ncreated %llu\ndaemon %d %llu\njoined %d\nclaimed %llu\n"
		       "session %s\n",
		       r->pid, (unsigned long long)r->created, r->daemon_pid, r->daemon_start,
		       r->joined, (unsigned long long)r->claimed, r->session);
	if (len < 0 || len >= (int)sizeof(text))
		return -ENAMETOOLONG;
	if (ftruncate(fd, 0) || pwrite(fd, text, len, 0) != len)
		return -errno;
	return 0;
}

static int record_read(int fd, struct session_owner_record *r)
{
	char text[RECORD_TEXT_MAX], *name, *claimed;
	unsigned long long created, at;
	ssize_t n;
	int joined;

	memset(r, 0, sizeof(*r));
	n = pread(fd, text, sizeof(text) - 1, 0);
	if (n <= 0)
		return -EINVAL;
	text[n] = '\0';
	name = strstr(text, "\nsession ");
	if (sscanf(text, "pid %d\ncreated %llu\ndaemon %d %llu\njoined %d\n", &r->pid, &created,
		   &r->daemon_pid, &r->daemon_start, &joined) != 5 ||
	    !name)
		return -EINVAL;
	/* An older sclat's record has no claim time. */
	claimed = strstr(text, "\nclaimed ");
	if (claimed && claimed < name && sscanf(claimed, "\nclaimed %llu", &at) == 1)
		r->claimed = at;
	name += strlen("\nsession ");
	name[strcspn(name, "\n")] = '\0';
	snprintf(r->session, sizeof(r->session), "%s", name);
	r->created = created;
	r->joined = joined;
	return 0;
}

int session_owner_claim(struct session_owner **op, const char *rundir,
			const struct session_owner_record *r)
{
	char dir[PATH_MAX], tmp[PATH_MAX + 32];
	struct session_owner *o;
	int err;

	*op = NULL;
	if ((size_t)snprintf(dir, sizeof(dir), "%s/" OWNERS_DIR, rundir) >= sizeof(dir))
		return -ENAMETOOLONG;
	if (mkdir(dir, 0700) && errno != EEXIST)
		return -errno;
	o = calloc(1, sizeof(*o));
	if (!o)
		return -ENOMEM;
	snprintf(o->path, sizeof(o->path), "%s/%d", dir, getpid());
	snprintf(tmp, sizeof(tmp), "%s.new", o->path);
	/*
	 * Locked before it gets its name: a reaper never sees it unlocked. Not
	 * inherited by the daemon sclat starts, or the lock would outlive sclat.
	 */
	o->fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (o->fd < 0) {
		err = -errno;
		free(o);
		return err;
	}
	err = flock(o->fd, LOCK_EX | LOCK_NB) ? -errno : record_write(o->fd, r);
	if (!err && rename(tmp, o->path))
		err = -errno;
	if (err) {
		unlink(tmp);
		close(o->fd);
		free(o);
		return err;
	}
	*op = o;
	return 0;
}

int session_owner_update(struct session_owner *o, const struct session_owner_record *r)
{
	return o ? record_write(o->fd, r) : 0;
}

void session_owner_release(struct session_owner *o)
{
	if (!o)
		return;
	unlink(o->path);
	close(o->fd);
	free(o);
}

void session_owners_gone(const char *rundir, session_owner_gone_fn fn, void *ctx)
{
	struct session_owner_record *live = NULL, *gone = NULL;
	int *gone_fd = NULL, nr_live = 0, nr_gone = 0, fd, i;
	struct session_owners_live l;
	char dir[PATH_MAX], path[PATH_MAX + NAME_MAX + 2];
	struct dirent *de;
	DIR *d;

	snprintf(dir, sizeof(dir), "%s/" OWNERS_DIR, rundir);
	d = opendir(dir);
	if (!d)
		return;
	live = calloc(OWNERS_MAX, sizeof(*live));
	gone = calloc(OWNERS_MAX, sizeof(*gone));
	gone_fd = calloc(OWNERS_MAX, sizeof(*gone_fd));
	while (live && gone && gone_fd && (de = readdir(d)) && nr_live + nr_gone < OWNERS_MAX) {
		/* PID only: a PID.new is a record being made. */
		if (strspn(de->d_name, "0123456789") != strlen(de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			continue;
		if (flock(fd, LOCK_EX | LOCK_NB)) {
			if (!record_read(fd, &live[nr_live]))
				nr_live++;
			close(fd);
			continue;
		}
		/* Gone. A record that cannot be read names nothing to end: it just goes. */
		if (record_read(fd, &gone[nr_gone])) {
			unlink(path);
			close(fd);
			continue;
		}
		gone_fd[nr_gone++] = fd;
	}
	closedir(d);
	l = (struct session_owners_live){ .r = live, .n = nr_live };
	for (i = 0; i < nr_gone; i++) {
		fn(&gone[i], &l, ctx);
		snprintf(path, sizeof(path), "%s/%d", dir, gone[i].pid);
		unlink(path);
		close(gone_fd[i]);
	}
	free(live);
	free(gone);
	free(gone_fd);
}
