// SPDX-License-Identifier: GPL-2.0-only
/* sclat: adaptive syscall latency tracer. Dispatches to the subcommands. */
#include <argp.h>
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "run/traced_command.h"
#include "sclat_abi.h"
#include "util/log.h"
#include "util/version.h"

static const struct subcommand {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *summary;
} subcommands[] = {
	{ "watch", cmd_watch, "print syscall latency outliers live" },
	{ "record", cmd_record, "record outliers into an LTTng trace" },
	{ "status", cmd_status, "show the running tracer's statistics and thresholds" },
	{ "top", cmd_top, "show the running tracer live, sorted as in top" },
	{ "policy", cmd_policy, "check a policy file; show or change the running policy" },
	{ "report", cmd_report, "summarize the outliers of a recorded trace" },
	{ "convert", cmd_convert, "convert a trace for Trace Compass's system call views" },
};

#define NR_SUBCOMMANDS (sizeof(subcommands) / sizeof(subcommands[0]))

static void usage(void)
{
	size_t i;

	printf("Usage: sclat COMMAND [OPTION...]\n\n"
	       "Adaptive syscall latency tracer: BPF measures every syscall, only the\n"
	       "outliers leave the kernel.\n\nCommands:\n");
	for (i = 0; i < NR_SUBCOMMANDS; i++)
		printf("  %-10s %s\n", subcommands[i].name, subcommands[i].summary);
	printf("\n'sclat COMMAND --help' describes each command; 'sclat --version' prints the\n"
	       "version.\n");
}

int main(int argc, char **argv)
{
	char name[32];
	size_t i;

	/* Before any is changed: what a traced command inherits from sclat's caller. */
	traced_command_signals_save();
	/* A usage error exits 2 whatever noticed it, argp included (its default is 64). */
	argp_err_exit_status = 2;
	if (argc < 2) {
		char names[128] = "";
		size_t len = 0;

		for (i = 0; i < NR_SUBCOMMANDS; i++)
			len += snprintf(names + len, sizeof(names) - len, "%s%s", i ? ", " : "",
					subcommands[i].name);
		log_err("missing command (%s); 'sclat --help' describes them", names);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage();
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("sclat %s (ABI %d)\n", SCLAT_VERSION, SCLAT_ABI_VERSION);
		return 0;
	}
	for (i = 0; i < NR_SUBCOMMANDS; i++) {
		if (strcmp(argv[1], subcommands[i].name))
			continue;
		/* argp names the program after argv[0]: "sclat watch". */
		snprintf(name, sizeof(name), "sclat %s", subcommands[i].name);
		argv[1] = name;
		return subcommands[i].run(argc - 1, argv + 1);
	}
	log_err("unknown command \"%s\"; 'sclat --help' lists them", argv[1]);
	return 2;
}
