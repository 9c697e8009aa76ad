// SPDX-License-Identifier: GPL-2.0-only
/* The LTTng session daemon: started, found, stopped, and this process registered with it. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <lttng/lttng.h>
#include "lttng_sessiond.h"
#include "session_owner.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/proc_stat.h"

extern char **environ;

/* How long this process may take to register with a daemon it did not find at startup. */
#define REGISTER_TIMEOUT_MS    5000
#define DAEMON_STOP_TIMEOUT_MS 10000

void sessiond_rundir(char *buf, size_t len)
{
	const char *home = getenv("LTTNG_HOME");

	if (geteuid() == 0)
		snprintf(buf, len, "/var/run/lttng");
	else
		snprintf(buf, len, "%s/.lttng", home ? home : getenv("HOME") ? getenv("HOME") : "");
}

pid_t sessiond_pid_read(void)
{
	char dir[PATH_MAX - 32], path[PATH_MAX];
	long pid = 0;
	FILE *f;

	sessiond_rundir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/lttng-sessiond.pid", dir);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (fscanf(f, "%ld", &pid) != 1)
		pid = 0;
	fclose(f);
	return (pid_t)pid;
}

static bool process_gone(pid_t pid)
{
	struct proc_stat st;

	if (kill(pid, 0) && errno == ESRCH)
		return true;
	/* A zombie nobody reaped yet is gone for our purpose. */
	return proc_stat_read(pid, &st) || st.state == 'Z';
}

/*
 * Start a session daemon of our own. --daemonize returns once the daemon
 * accepts clients; it wakes the lttng-ust listener threads of running
 * processes (this one) through the shared wait futex, so they register.
 */
int sessiond_start(pid_t *ours)
{
	char *argv[] = { "lttng-sessiond", "--daemonize", "--no-kernel", NULL };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, dfl;
	int status = 0, err, waited;
	pid_t pid, got;

	/* Its messages are for a terminal it no longer has: one line of ours says it all. */
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	/*
	 * A process group of its own, so that a Ctrl-C meant for sclat does not
	 * stop it halfway through starting; and none of sclat's ignored signals.
	 */
	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	sigaddset(&dfl, SIGHUP);
	posix_spawnattr_init(&attr);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF |
						POSIX_SPAWN_SETSIGMASK);
	posix_spawnattr_setpgroup(&attr, 0);
	posix_spawnattr_setsigdefault(&attr, &dfl);
	posix_spawnattr_setsigmask(&attr, &none);
	err = posix_spawnp(&pid, argv[0], &fa, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	if (err) {
		log_err("cannot start lttng-sessiond: %s (install lttng-tools)", strerror(err));
		return -err;
	}
	/* A signal sclat holds (Ctrl-C) must not leave the daemon's parent unreaped. */
	do
		got = waitpid(pid, &status, 0);
	while (got < 0 && errno == EINTR);
	if (got == pid && WIFEXITED(status) && !WEXITSTATUS(status)) {
		*ours = sessiond_pid_read();
		if (lttng_session_daemon_alive() == 1)
			return 0;
		log_err("started lttng-sessiond but it does not answer");
		return -ECONNREFUSED;
	}
	/* Another one started meanwhile (another sclat, say): use it, it is not ours. */
	for (waited = 0; waited < 1000; waited += 20) {
		if (lttng_session_daemon_alive() == 1)
			return 0;
		sleep_ms(20);
	}
	log_err("lttng-sessiond --daemonize failed (exit status %d); run it by hand "
		"to see why",
		WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	return -ECHILD;
}

void sessiond_stop(pid_t *pid)
{
	struct lttng_session *list = NULL;
	int waited, n;

	if (*pid <= 0)
		return;
	n = lttng_list_sessions(&list);
	free(list);
	if (n > 0) {
		*pid = 0;
		return;
	}
	if (kill(*pid, SIGTERM) == 0)
		for (waited = 0; waited < DAEMON_STOP_TIMEOUT_MS && !process_gone(*pid);
		     waited += 20)
			sleep_ms(20);
	*pid = 0;
}

/*
 * The daemon only pushes a session to the applications registered with it:
 * wait until this process's sclat provider is listed, so that the events
 * fired right after start are recorded.
 */
int sessiond_registration_wait(void)
{
	struct lttng_domain dom = { .type = LTTNG_DOMAIN_UST };
	struct lttng_event *events = NULL;
	struct lttng_handle *h;
	pid_t self = getpid();
	int n, i, waited;

	h = lttng_create_handle(NULL, &dom);
	if (!h)
		return -ENOMEM;
	for (waited = 0; waited <= REGISTER_TIMEOUT_MS; waited += 20) {
		n = lttng_list_tracepoints(h, &events);
		for (i = 0; i < n; i++)
			if (events[i].pid == self &&
			    !strcmp(events[i].name, "sclat:syscall_outlier"))
				break;
		free(events);
		events = NULL;
		if (n >= 0 && i < n) {
			lttng_destroy_handle(h);
			return 0;
		}
		sleep_ms(20);
	}
	lttng_destroy_handle(h);
	log_err("this process did not register with lttng-sessiond within %d ms "
		"(is LTTNG_UST_DEBUG or a LTTNG_HOME mismatch in the way?)",
		REGISTER_TIMEOUT_MS);
	return -ETIMEDOUT;
}

void sessiond_reap(const struct session_owner_record *gone)
{
	struct lttng_session *list = NULL;
	pid_t pid = gone->daemon_pid;
	int n, waited;

	/* The very daemon it started (pids are reused), and the one we talk to. */
	if (!pid || pid != sessiond_pid_read() || process_start_time(pid) != gone->daemon_start)
		return;
	n = lttng_list_sessions(&list);
	free(list);
	if (n || kill(pid, SIGTERM))
		return;
	for (waited = 0; waited < DAEMON_STOP_TIMEOUT_MS && !process_gone(pid); waited += 20)
		sleep_ms(20);
	log_note("stopped lttng-sessiond (pid %d), which sclat %d started and left", pid,
		 gone->pid);
}
