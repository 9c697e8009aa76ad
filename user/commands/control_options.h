/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the commands that talk to a running tracer share (`sclat status`,
 * `sclat top`, `sclat policy show|set|load`): --pid and --socket, which
 * choose the tracer, as their argp child.
 */
#ifndef SCLAT_CONTROL_OPTIONS_H
#define SCLAT_CONTROL_OPTIONS_H

#include <argp.h>
#include "control/control_client.h"

/* The children of such a command's argp: control_argp, fed the target its parser gives. */
extern const struct argp_child control_children[];

/*
 * The keys that a command of these taking no argument handles as the others
 * do: at ARGP_KEY_INIT, target is given to control_argp; an argument is
 * refused. Any other key: ARGP_ERR_UNKNOWN (call it from the parser's default).
 */
error_t control_options_parse(int key, char *arg, struct argp_state *state,
			      struct control_target *target);

#endif
