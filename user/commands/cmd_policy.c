// SPDX-License-Identifier: GPL-2.0-only
/* sclat policy check|show|set|load: check a policy file, or tune the running tracer. */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "args.h"
#include "commands.h"
#include "control/control_client.h"
#include "control/control_protocol.h"
#include "policy/policy.h"

#define REQUEST_MAX 4000

struct policy_opts {
	struct control_target target;
	const char *action;
	bool all;
	const char *file;
	char request[REQUEST_MAX];
	size_t len;
	int pairs;
};

static const char policy_usage[] =
	"Usage: sclat policy ACTION [OPTION...]\n"
	"\n"
	"Check a threshold policy file, or show and change the policy of the running\n"
	"tracer without restarting it.\n"
	"\n"
	"Actions:\n"
	"  check [FILE]               validate FILE (default: the policy watch and record\n"
	"                             use) and print its effective table\n"
	"  show                       print the running tracer's policy (INI)\n"
	"  set [--syscall NAME] KEY=VALUE...\n"
	"                             change keys of [default], [global] or one syscall\n"
	"  load FILE                  replace the running policy with FILE\n"
	"\n"
	"'sclat policy ACTION --help' describes each action.\n";

static const char check_doc[] =
	"Validate a policy file and print the effective per-syscall table. Without FILE, the "
	"policy sclat watch and sclat record use when given neither --policy nor --threshold: "
	"the file $" POLICY_ENV " names, else " POLICY_INSTALLED " if it exists, else the "
	"built-in policy; the first line says which. Exit status 0 when the policy is valid, "
	"1 when not (the reason on stderr, with file and line).\n"
	"\n"
	"EXAMPLES:\n"
	"    sclat policy check                  # what watch and record would use\n"
	"    sclat policy check my.ini\n"
	"    sclat policy check --all my.ini     # every syscall, not only exceptions\n"
	"\v"
	"The table has a \"(default)\" row for [default], then one row per syscall that a "
	"[syscall NAME] section changes (with --all: every syscall this machine has).";

static const char show_doc[] =
	"Print the running tracer's policy as an INI file that --policy and 'sclat policy "
	"load' read back.\n"
	"\n"
	"EXAMPLES:\n"
	"    sclat policy show > now.ini\n"
	"    sclat policy show --pid 4242";

static const char set_doc[] =
	"Change the running tracer's policy. Keys of [global] (interval, half_life, budget) "
	"and of [default] apply as they are; after --syscall NAME, keys apply to that syscall. "
	"All pairs apply or none: an invalid one leaves the policy as it was, and says why. "
	"The controller uses the new policy from its next interval.\n"
	"\n"
	"EXAMPLES:\n"
	"    sclat policy set --syscall read quantile=0.9999\n"
	"    sclat policy set --syscall futex mode=adaptive margin=2\n"
	"    sclat policy set interval=500ms budget=200\n"
	"    sclat policy set --syscall write mode=static initial=1ms";

static const char load_doc[] =
	"Replace the running tracer's policy with FILE. An invalid file is refused with the "
	"reason, and the running policy stays.\n"
	"\n"
	"EXAMPLES:\n"
	"    sclat policy load ./quiet.ini\n"
	"\v"
	"The tracer itself reads FILE. SIGHUP to the tracer reloads the policy file it started "
	"with (its --policy FILE, or the default file; not the built-in policy).";

enum {
	OPT_ALL = 'a',
	OPT_SYSCALL = 0x100,
};

static const struct argp_option check_options[] = {
	{ "all", OPT_ALL, NULL, 0, "List every syscall", 0 },
	{},
};

static const struct argp_option set_options[] = {
	{ "syscall", OPT_SYSCALL, "NAME", 0, "Apply the KEY=VALUE pairs after it to NAME", 0 },
	{},
};

static bool request_add(struct policy_opts *o, const char *word)
{
	size_t len = strlen(word);

	if (o->len + len + 2 > sizeof(o->request))
		return false;
	o->request[o->len++] = ' ';
	memcpy(o->request + o->len, word, len + 1);
	o->len += len;
	return true;
}

static error_t policy_parse(int key, char *arg, struct argp_state *state)
{
	struct policy_opts *o = state->input;
	const char *action = o->action;

	switch (key) {
	case ARGP_KEY_INIT:
		if (strcmp(action, "check")) /* the others talk to a tracer */
			state->child_inputs[0] = &o->target;
		if (!strcmp(action, "set"))
			o->len = snprintf(o->request, sizeof(o->request), "policy set");
		break;
	case OPT_ALL:
		o->all = true;
		break;
	case OPT_SYSCALL:
		if (!request_add(o, "--syscall") || !request_add(o, arg))
			argp_failure(state, 2, 0, "too many settings at once");
		break;
	case ARGP_KEY_ARG:
		if (!strcmp(action, "set")) {
			const char *eq = strchr(arg, '=');

			if (!eq || eq == arg || !eq[1] || strpbrk(arg, " \t\n"))
				argp_failure(state, 2, 0,
					     "\"%s\": expected KEY=VALUE "
					     "(e.g. quantile=0.999)",
					     arg);
			if (o->pairs == CONTROL_MAX_PAIRS || !request_add(o, arg))
				argp_failure(state, 2, 0, "too many settings at once (at most %d)",
					     CONTROL_MAX_PAIRS);
			o->pairs++;
		} else if ((!strcmp(action, "check") || !strcmp(action, "load")) && !o->file) {
			o->file = arg;
		} else {
			argp_failure(state, 2, 0, "unexpected argument \"%s\"", arg);
		}
		break;
	case ARGP_KEY_END:
		if (!strcmp(action, "load") && !o->file)
			argp_failure(state, 2, 0, "a policy FILE is needed");
		if (!strcmp(action, "set") && !o->pairs)
			argp_failure(state, 2, 0, "nothing to set: give KEY=VALUE pairs");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child control_children[] = {
	{ &control_argp, 0, NULL, 0 },
	{},
};

static int policy_check(struct policy_opts *o)
{
	const char *file;
	char err[512];
	struct policy *p = o->file ? policy_load(o->file, err, sizeof(err))
				   : policy_default(&file, err, sizeof(err));

	if (!p) {
		fprintf(stderr, "sclat: %s\n", err);
		return 1;
	}
	policy_write_table(p, o->all, stdout);
	policy_free(p);
	return 0;
}

static int policy_load_remote(struct policy_opts *o)
{
	char path[PATH_MAX], request[PATH_MAX + 16];

	/* The tracer has its own working directory: send it an absolute path. */
	if (!realpath(o->file, path)) {
		fprintf(stderr, "sclat: %s: %s\n", o->file, strerror(errno));
		return 1;
	}
	if (strchr(path, '\n')) {
		fprintf(stderr, "sclat: %s: a newline in the path\n", o->file);
		return 1;
	}
	snprintf(request, sizeof(request), "policy load %s", path);
	return control_request(&o->target, request, stdout);
}

int cmd_policy(int argc, char **argv)
{
	static const struct {
		const char *action, *args, *doc;
		const struct argp_option *options;
	} actions[] = {
		{ "check", "[FILE]", check_doc, check_options },
		{ "show", NULL, show_doc, NULL },
		{ "set", "[--syscall NAME] KEY=VALUE...", set_doc, set_options },
		{ "load", "FILE", load_doc, NULL },
	};
	struct argp argp = { .parser = policy_parse };
	struct policy_opts o = {};
	char name[48];
	size_t i;

	if (argc < 2) {
		fprintf(stderr, "sclat: policy: which action? (check, show, set or load; "
				"'sclat policy --help' describes them)\n");
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		fputs(policy_usage, stdout);
		return 0;
	}
	for (i = 0; i < sizeof(actions) / sizeof(actions[0]); i++)
		if (!strcmp(argv[1], actions[i].action))
			break;
	if (i == sizeof(actions) / sizeof(actions[0])) {
		fprintf(stderr, "sclat: policy: unknown action \"%s\" (check, show, set or load)\n",
			argv[1]);
		return 2;
	}
	o.action = actions[i].action;
	snprintf(name, sizeof(name), "sclat policy %s", actions[i].action);
	argv[1] = name;
	argp.options = actions[i].options;
	argp.args_doc = actions[i].args;
	argp.doc = actions[i].doc;
	/* check runs here: it talks to no tracer. */
	argp.children = strcmp(actions[i].action, "check") ? control_children : NULL;
	if (args_parse(&argp, argc - 1, argv + 1, ARGP_IN_ORDER, &o))
		return 2;

	if (!strcmp(actions[i].action, "check"))
		return policy_check(&o);
	if (!strcmp(actions[i].action, "set"))
		return control_request(&o.target, o.request, stdout);
	if (!strcmp(actions[i].action, "load"))
		return policy_load_remote(&o);
	return control_request(&o.target, "policy show", stdout);
}
