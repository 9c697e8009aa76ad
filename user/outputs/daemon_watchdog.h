/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A bound on every wait for the LTTng daemons. liblttng-ctl waits for the
 * session daemon's answer without a bound, restarting after signals, and the
 * session daemon itself waits on a relay daemon that stopped (SIGSTOP) or a
 * port that accepts and says nothing: sclat record would hang in its set-up
 * or its stop, deaf to Ctrl-C. A thread of the watchdog times each such
 * wait: it says which daemon does not answer after DAEMON_WATCHDOG_NOTE_S,
 * and ends the process, saying what is lost, after DAEMON_WATCHDOG_GIVE_UP_S
 * or at a stop signal (Ctrl-C) that comes while it waits. The BPF programs
 * go with the process (their links are its file descriptors) and what the
 * session daemon keeps is ended by the next sclat (trace_session_reap()).
 */
#ifndef SCLAT_DAEMON_WATCHDOG_H
#define SCLAT_DAEMON_WATCHDOG_H

#define DAEMON_WATCHDOG_NOTE_S	  5
#define DAEMON_WATCHDOG_GIVE_UP_S 60

struct daemon_watchdog;

/*
 * Start a watchdog; stops() counts the stop signals the process took so far
 * (NULL: none are counted). NULL (and nothing watched) if no thread can start.
 */
struct daemon_watchdog *daemon_watchdog_start(int (*stops)(void));

/*
 * A wait begins: what (a phrase: "stopping session \"x\""), on whom (a
 * daemon, as the user knows it), and the exit status if it is given up, then
 * after the message lost (what the user loses, or NULL). w may be NULL. The
 * strings must last until daemon_watchdog_done().
 */
void daemon_watchdog_wait(struct daemon_watchdog *w, const char *what, const char *who,
			  const char *lost, int status);

/* The wait is over. */
void daemon_watchdog_done(struct daemon_watchdog *w);

void daemon_watchdog_stop(struct daemon_watchdog *w);

#endif
