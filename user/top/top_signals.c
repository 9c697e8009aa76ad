// SPDX-License-Identifier: GPL-2.0-only
/*
 * The signals that end `sclat top`: caught (never SA_RESTART, so that a wait
 * ends), written to a pipe that its waits poll, so that every exit goes
 * through its one cleanup path and the terminal is restored.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include "top.h"

static const int stop_signals[] = { SIGINT, SIGTERM, SIGHUP };
#define NR_STOP_SIGNALS (int)(sizeof(stop_signals) / sizeof(stop_signals[0]))

static int wake[2] = { -1, -1 };
static volatile sig_atomic_t caught;
static struct sigaction old[NR_STOP_SIGNALS];

static void on_stop(int sig)
{
	int saved = errno;
	ssize_t n;

	if (!caught)
		caught = sig;
	n = write(wake[1], "s", 1);
	(void)n;
	errno = saved;
}

int top_signals_open(void)
{
	struct sigaction sa = { .sa_handler = on_stop };
	int i;

	if (wake[0] < 0 && pipe2(wake, O_CLOEXEC | O_NONBLOCK))
		return -errno;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < NR_STOP_SIGNALS; i++)
		sigaction(stop_signals[i], &sa, &old[i]);
	return wake[0];
}

int top_signal_caught(void)
{
	return caught;
}

void top_signals_close(void)
{
	int i;

	if (wake[0] < 0)
		return;
	for (i = 0; i < NR_STOP_SIGNALS; i++)
		sigaction(stop_signals[i], &old[i], NULL);
	close(wake[0]);
	close(wake[1]);
	wake[0] = wake[1] = -1;
}
