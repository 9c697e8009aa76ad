// SPDX-License-Identifier: GPL-2.0-only
#include "control_options.h"

const struct argp_child control_children[] = {
	{ &control_argp, 0, NULL, 0 },
	{},
};

error_t control_options_parse(int key, char *arg, struct argp_state *state,
			      struct control_target *target)
{
	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = target;
		break;
	case ARGP_KEY_ARG:
		argp_failure(state, 2, 0, "unexpected argument \"%s\"", arg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}
