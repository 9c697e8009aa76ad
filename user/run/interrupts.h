/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Ctrl-C and SIGTERM during a run: from run_interrupts_hold() on they stop
 * the run, or what comes before it, instead of killing sclat; the command
 * then ends with the signal that stopped the run.
 */
#ifndef SCLAT_RUN_INTERRUPTS_H
#define SCLAT_RUN_INTERRUPTS_H

struct traced_command;

/*
 * From now on SIGINT and SIGTERM stop the run, or what comes before it,
 * instead of killing sclat, and a SIGHUP before the control thread serves
 * it is ignored. run_trace() holds them itself; a command that makes a
 * session first holds them earlier, and asks run_interrupted() before going
 * on.
 */
void run_interrupts_hold(void);

/* The first SIGINT or SIGTERM's number since they were held; 0: none. */
int run_interrupted(void);

/* How many SIGINT and SIGTERM came since they were held. */
int run_stops(void);

/*
 * End the traced command with the signal that stopped the run (SIGTERM when
 * none did: the run ended by itself); its exit status as a shell gives it.
 */
int run_interrupts_command_end(struct traced_command *cmd);

#endif
