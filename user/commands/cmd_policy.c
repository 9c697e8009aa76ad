// SPDX-License-Identifier: GPL-2.0-only
/* sclat policy check|show|set|load: check a policy file, or tune the running tracer. */
#include <argp.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "args.h"
#include "commands.h"
#include "control_options.h"
#include "control/control_protocol.h"
#include "policy/policy.h"
#include "trace/trace_fence.h"
#include "trace/trace_graph.h"
#include "util/syscall_names.h"
#include "util/log.h"

#define REQUEST_MAX 4000

struct policy_opts {
	struct control_target target;
	const char *action;
	bool all;
	bool learned;
	bool replace; /* load: the file in place of the running policy */
	const char *file;
	char request[REQUEST_MAX];
	size_t len;
	int pairs;
	const char *syscall_bare; /* the last --syscall NAME, while no pair has followed it */
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
	"  show [--learned]           print the running tracer's policy (INI); with\n"
	"                             --learned, its learned thresholds as initial values\n"
	"  from-trace TRACE           the same, from the thresholds a trace recorded\n"
	"  set [--syscall NAME] KEY=VALUE...\n"
	"                             change keys of [default], [global] or one syscall\n"
	"  load [--replace] FILE      merge FILE into the running policy (--replace: FILE\n"
	"                             alone in its place); says what it turns on and off\n"
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
	"load' read back. With --learned, every adaptive syscall past min_samples gets the "
	"threshold the tracer learned as its initial value (and half the samples behind it as "
	"min_samples, but for a syscall with classes, whose classes arm on the policy's), with "
	"comments saying where it came from: another host started with --policy FILE emits from its first seconds what "
	"this one emits in its steady state, instead of a burst while it learns.\n"
	"\n"
	"EXAMPLES:\n"
	"    sclat policy show > now.ini\n"
	"    sclat policy show --pid 4242\n"
	"    sclat policy show --learned > learned.ini   # then, on another host:\n"
	"    sclat record --policy learned.ini -- ./app";

static const char from_trace_doc[] =
	"Print, as an INI policy file, the policy a trace was recorded with (its "
	"sclat:session_begin), each adaptive syscall whose threshold was learned starting at "
	"the last threshold learned (its last sclat:threshold_update of its own, not of a class, "
	"with an estimate): what "
	"'sclat policy show --learned' would have printed at the end of that run. TRACE is "
	"searched for the sclat trace, which must be of one host.\n"
	"\n"
	"EXAMPLES:\n"
	"    sclat policy from-trace ./sclat-trace-20250101-120000 > learned.ini\n"
	"    sclat record --policy learned.ini -- ./app";

static const char set_doc[] =
	"Change the running tracer's policy. Keys of [global] (interval, half_life, budget, "
	"classes, max_classes, class_cells, class_idle, sample, min_latency) and of [default] apply "
	"as they are; after --syscall NAME, keys apply to that syscall. "
	"All pairs apply or none: an invalid one leaves the policy as it was, and says why. "
	"The controller uses the new policy from its next interval.\n"
	"\n"
	"EXAMPLES:\n"
	"    sclat policy set --syscall read quantile=0.9999\n"
	"    sclat policy set --syscall futex mode=off\n"
	"    sclat policy set interval=500ms budget=200\n"
	"    sclat policy set --syscall write mode=static initial=1ms";

static const char load_doc[] =
	"Merge FILE into the running tracer's policy: the keys FILE sets change, everything "
	"else stays as it runs ([syscall NAME] sections FILE does not name, such as the "
	"built-in policy's mode = off for nanosleep and accept, among them). With --replace, "
	"FILE alone is the policy, as --policy FILE makes it at start (a key it leaves out "
	"has its built-in value, a syscall section it lacks is gone). The answer names the "
	"syscalls the change turns on (\"now on: ...\") and off (\"now off: ...\"). An "
	"invalid file is refused with the reason, and the running policy stays; so is one "
	"that the tracer's kernel maps, sized when it started, cannot hold (classes in a "
	"tracer started without them, more class_cells).\n"
	"\n"
	"EXAMPLES:\n"
	"    sclat policy load ./floor.ini             # its keys; the rest stays\n"
	"    sclat policy load --replace ./quiet.ini   # quiet.ini alone\n"
	"\v"
	"The tracer itself reads FILE. SIGHUP to the tracer reloads the policy file it started "
	"with, whole, as --replace does (its --policy FILE, or the default file; not the "
	"built-in policy).";

enum {
	OPT_ALL = 'a',
	OPT_SYSCALL = 0x100,
	OPT_LEARNED,
	OPT_REPLACE,
};

static const struct argp_option check_options[] = {
	{ "all", OPT_ALL, NULL, 0, "List every syscall", 0 },
	{},
};

static const struct argp_option show_options[] = {
	{ "learned", OPT_LEARNED, NULL, 0, "The learned thresholds as initial values", 0 },
	{},
};

static const struct argp_option load_options[] = {
	{ "replace", OPT_REPLACE, NULL, 0,
	  "FILE alone in place of the running policy, not merged into it", 0 },
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

/* A --syscall no pair followed (see CONTROL_BARE_SYSCALL) ends the parse. */
static void syscall_bare_check(struct argp_state *state, const struct policy_opts *o)
{
	if (o->syscall_bare)
		argp_failure(state, 2, 0, "--syscall %s: " CONTROL_BARE_SYSCALL, o->syscall_bare);
}

static error_t policy_parse(int key, char *arg, struct argp_state *state)
{
	struct policy_opts *o = state->input;
	const char *action = o->action;

	switch (key) {
	case ARGP_KEY_INIT:
		/* The others talk to a tracer. */
		if (strcmp(action, "check") && strcmp(action, "from-trace"))
			state->child_inputs[0] = &o->target;
		if (!strcmp(action, "set"))
			o->len = snprintf(o->request, sizeof(o->request), "policy set");
		break;
	case OPT_ALL:
		o->all = true;
		break;
	case OPT_LEARNED:
		o->learned = true;
		break;
	case OPT_REPLACE:
		o->replace = true;
		break;
	case OPT_SYSCALL:
		if (!arg[0] || strpbrk(arg, " \t\n"))
			argp_failure(state, 2, 0, "--syscall \"%s\": not a syscall name", arg);
		syscall_bare_check(state, o);
		o->syscall_bare = arg;
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
			o->syscall_bare = NULL;
		} else if ((!strcmp(action, "check") || !strcmp(action, "load") ||
			    !strcmp(action, "from-trace")) &&
			   !o->file) {
			o->file = arg;
		} else {
			argp_failure(state, 2, 0, "unexpected argument \"%s\"", arg);
		}
		break;
	case ARGP_KEY_END:
		if (!strcmp(action, "load") && !o->file)
			argp_failure(state, 2, 0, "a policy FILE is needed");
		if (!strcmp(action, "from-trace") && !o->file)
			argp_failure(state, 2, 0, "which trace? (sclat policy from-trace TRACE)");
		if (!strcmp(action, "set") && !o->pairs)
			argp_failure(state, 2, 0, "nothing to set: give KEY=VALUE pairs");
		syscall_bare_check(state, o);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static int policy_check(struct policy_opts *o)
{
	const char *file;
	char err[512];
	struct policy *p = o->file ? policy_load(o->file, err, sizeof(err))
				   : policy_default(&file, err, sizeof(err));

	if (!p) {
		log_err("%s", err);
		return 1;
	}
	policy_write_table(p, o->all, stdout);
	policy_free(p);
	return 0;
}

static int policy_load_remote(struct policy_opts *o)
{
	const char *verb = o->replace ? "policy replace " : "policy load ";
	char path[PATH_MAX], request[PATH_MAX + 16];

	/* The tracer has its own working directory: send it an absolute path. */
	if (!realpath(o->file, path)) {
		log_err("%s: %s", o->file, strerror(errno));
		return 1;
	}
	if (strchr(path, '\n')) {
		log_err("%s: a newline in the path", o->file);
		return 1;
	}
	/* The tracer takes one line of at most CONTROL_REQUEST_MAX, newline and NUL included. */
	if ((size_t)snprintf(request, sizeof(request), "%s%s", verb, path) >=
	    CONTROL_REQUEST_MAX - 1) {
		log_err("%s: a path of more than %zu bytes", o->file,
			CONTROL_REQUEST_MAX - 2 - strlen(verb));
		return 1;
	}
	return control_request(&o->target, request, stdout);
}

static uint64_t value_u64(const bt_value *map, const char *key)
{
	const bt_value *v = bt_value_map_borrow_entry_value_const(map, key);

	if (v && bt_value_is_unsigned_integer(v))
		return bt_value_integer_unsigned_get(v);
	if (v && bt_value_is_signed_integer(v))
		return (uint64_t)bt_value_integer_signed_get(v);
	return 0;
}

/* Write the policy of the host's tracer with its learned thresholds; 0 or 1 (said why). */
static int learned_write(const char *trace, const bt_value *host)
{
	const bt_value *policy = bt_value_map_borrow_entry_value_const(host, "policy");
	const bt_value *list = bt_value_map_borrow_entry_value_const(host, "learned");
	const char *name = bt_value_string_get(bt_value_map_borrow_entry_value_const(host, "host"));
	uint64_t i, n = list ? bt_value_array_get_length(list) : 0;
	struct policy_learned *l = calloc(n + 1, sizeof(*l));
	char src[PATH_MAX + 64], origin[PATH_MAX + 128], err[512];
	struct policy *p = NULL;
	size_t nr_learned = 0;
	FILE *f = NULL;
	int ret = 1;

	if (!l)
		goto out;
	if (!policy) {
		log_err("%s: no sclat:session_begin (the policy it was recorded with)", trace);
		goto out;
	}
	snprintf(src, sizeof(src), "%s (sclat:session_begin)", trace);
	p = policy_load_text(src, bt_value_string_get(policy), strlen(bt_value_string_get(policy)),
			     err, sizeof(err));
	if (!p) {
		log_err("%s", err);
		goto out;
	}
	for (i = 0; i < n; i++) {
		const bt_value *row = bt_value_array_borrow_element_by_index_const(list, i);
		const char *syscall =
			bt_value_string_get(bt_value_map_borrow_entry_value_const(row, "syscall"));
		int nr = syscall_nr(syscall);

		/* A syscall this machine does not know cannot be in a policy here. */
		if (nr < 0) {
			log_warn("%s: %s: not a syscall of this machine, left out", trace, syscall);
			continue;
		}
		l[nr_learned++] = (struct policy_learned){
			.nr = nr,
			.threshold_ns = value_u64(row, "threshold-ns"),
			.estimate_ns = value_u64(row, "estimate-ns"),
			.quantile = bt_value_real_get(
				bt_value_map_borrow_entry_value_const(row, "quantile")),
			.samples = value_u64(row, "samples"),
		};
	}
	snprintf(origin, sizeof(origin), "the tracer on %s that recorded %s", name, trace);
	ret = policy_write_learned(p, l, nr_learned, origin, stdout) ? 1 : 0;
out:
	if (f)
		fclose(f);
	policy_free(p);
	free(l);
	return ret;
}

/* sclat policy from-trace: the learned thresholds a trace of one host recorded. */
static int policy_from_trace_read(void *arg)
{
	const char *trace = arg;
	struct graph_ctx g = { .trace = trace };
	const bt_value *res = NULL, *hosts;
	int ret = 1;

	if (graph_source(&g) || graph_query(&g, "sclat.learned", &res)) {
		log_err("%s", g.err);
		goto out;
	}
	hosts = bt_value_map_borrow_entry_value_const(res, "hosts");
	if (bt_value_array_get_length(hosts) != 1) {
		log_err("%s: holds the traces of %llu hosts: name the trace of one of "
			"them",
			trace, (unsigned long long)bt_value_array_get_length(hosts));
		goto out;
	}
	ret = learned_write(trace, bt_value_array_borrow_element_by_index_const(hosts, 0));
out:
	bt_value_put_ref(res);
	graph_free(&g);
	return ret;
}

/* In a child process (trace_fenced()), as babeltrace2 may crash on a corrupt trace. */
static int policy_from_trace(const char *trace)
{
	char why[256];
	int ret = trace_fenced((char *const *)&trace, 1, policy_from_trace_read, (void *)trace, why,
			       sizeof(why));

	if (ret < 0)
		log_err("%s: %s", trace, why);
	return ret < 0 ? 1 : ret;
}

int cmd_policy(int argc, char **argv)
{
	static const struct {
		const char *action, *args, *doc;
		const struct argp_option *options;
	} actions[] = {
		{ "check", "[FILE]", check_doc, check_options },
		{ "show", NULL, show_doc, show_options },
		{ "set", "[--syscall NAME] KEY=VALUE...", set_doc, set_options },
		{ "load", "FILE", load_doc, load_options },
		{ "from-trace", "TRACE", from_trace_doc, NULL },
	};
	struct argp argp = { .parser = policy_parse };
	struct policy_opts o = {};
	char name[48];
	size_t i;

	if (argc < 2) {
		log_err("policy: which action? (check, show, set, load or from-trace; "
			"'sclat policy --help' describes them)");
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
		log_err("policy: unknown action \"%s\" (check, show, set, load or from-trace)",
			argv[1]);
		return 2;
	}
	o.action = actions[i].action;
	snprintf(name, sizeof(name), "sclat policy %s", actions[i].action);
	argv[1] = name;
	argp.options = actions[i].options;
	argp.args_doc = actions[i].args;
	argp.doc = actions[i].doc;
	/* check and from-trace run here: they talk to no tracer. */
	argp.children =
		strcmp(actions[i].action, "check") && strcmp(actions[i].action, "from-trace")
			? control_children
			: NULL;
	if (args_parse(&argp, argc - 1, argv + 1, ARGP_IN_ORDER, &o))
		return 2;

	if (!strcmp(actions[i].action, "check"))
		return policy_check(&o);
	if (!strcmp(actions[i].action, "set"))
		return control_request(&o.target, o.request, stdout);
	if (!strcmp(actions[i].action, "load"))
		return policy_load_remote(&o);
	if (!strcmp(actions[i].action, "from-trace"))
		return policy_from_trace(o.file);
	return control_request(&o.target, o.learned ? "policy show learned" : "policy show",
			       stdout);
}
