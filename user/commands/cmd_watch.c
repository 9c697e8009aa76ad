// SPDX-License-Identifier: GPL-2.0-only
/* sclat watch: print outliers live, as text columns or JSON lines. */
#include <argp.h>
#include "util/compiler.h"
#include "args.h"
#include "commands.h"
#include "trace_run.h"
#include "outputs/watch_printer.h"
#include "policy/policy.h"

struct watch {
	struct trace_options tracing;
	struct watch_printer printer;
};

static const char watch_doc[] =
	"Print syscalls slower than their threshold, live, until Ctrl-C, --duration or the "
	"end of COMMAND, and why each was slow: where its time went (cpu, runq, sleep, io), "
	"the kernel function it waited in, what it waited on, who woke it.\n"
	"\n"
	"EXAMPLES:\n"
	"    sclat watch                        # every process, default policy\n"
	"    sclat watch --threshold 2ms        # 2 ms for every syscall\n"
	"    sclat watch -p 1234 --json         # pid 1234 and children, JSON\n"
	"    sclat watch -- make -j2            # a command and all its children\n"
	"\v"
	"DUR is a number and a unit: ns, us, ms or s (250us, 1.5ms, 2s). The exit status is "
	"COMMAND's when one is given.";

static const struct argp_option watch_options[] = {
	{ "json", 'j', NULL, 0, "One JSON object per line", 0 },
	{ "summary", 's', NULL, 0,
	  "At the end, calls and outliers per syscall (JSON: one last {\"summary\":...} line)", 0 },
	{},
};

static error_t watch_parse(int key, char *arg __always_unused, struct argp_state *state)
{
	struct watch *w = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &w->tracing;
		break;
	case 'j':
		w->printer.json = true;
		break;
	case 's':
		w->printer.summary = true;
		break;
	case ARGP_KEY_ARG:
		trace_options_command(&w->tracing, state);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child watch_children[] = {
	{ &trace_argp, 0, NULL, 0 },
	{},
};

static const struct argp watch_argp = {
	.options = watch_options,
	.parser = watch_parse,
	.args_doc = "[-- COMMAND [ARGS...]]",
	.doc = watch_doc,
	.children = watch_children,
};

int cmd_watch(int argc, char **argv)
{
	struct watch w = {};
	struct policy *policy;
	const char *policy_file;
	struct output out;

	if (args_parse(&watch_argp, argc, argv, ARGP_IN_ORDER, &w))
		return 2;
	/* A bad policy stops us before anything is started or attached. */
	policy = trace_policy(&w.tracing, &policy_file);
	if (!policy)
		return 1;
	watch_printer_output(&w.printer, &out);
	return trace_run(&w.tracing, policy, policy_file, &out);
}
