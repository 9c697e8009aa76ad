// SPDX-License-Identifier: GPL-2.0-only
#include <signal.h>
#include <stddef.h>
#include "interrupts.h"
#include "traced_command.h"
#include "util/compiler.h"

/* The first SIGINT or SIGTERM, whether the kernel sent it (a terminal's Ctrl-C), and how many. */
static volatile sig_atomic_t stop_signal, stop_by_tty, stops;

static void on_stop_signal(int sig, siginfo_t *info, void *uctx __always_unused)
{
	if (!stop_signal) {
		stop_signal = sig;
		stop_by_tty = info && info->si_code == SI_KERNEL;
	}
	stops++;
}

/* A SIGHUP while no control thread serves it: the policy is being read or the run ends. */
static void on_early_hup(int sig __always_unused)
{
}

void run_interrupts_hold(void)
{
	/*
	 * SA_RESTART: a write of outliers to a full pipe resumes after the
	 * handler instead of failing with EINTR and losing them. The loop waits in
	 * epoll_wait, which is never restarted: it still sees the signal at once.
	 */
	struct sigaction sa = { .sa_sigaction = on_stop_signal,
				.sa_flags = SA_RESTART | SA_SIGINFO },
			 hup = { .sa_handler = on_early_hup, .sa_flags = SA_RESTART }, old;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* Started ignoring hangups (nohup), it keeps doing so until the control thread. */
	if (!sigaction(SIGHUP, NULL, &old) && old.sa_handler != SIG_IGN)
		sigaction(SIGHUP, &hup, NULL);
}

int run_interrupted(void)
{
	return stop_signal;
}

int run_stops(void)
{
	return stops;
}

int run_interrupts_command_end(struct traced_command *cmd)
{
	int sig = stop_signal ? stop_signal : SIGTERM;

	return traced_command_finish(cmd, sig, stop_signal == SIGINT && stop_by_tty, &stops);
}
