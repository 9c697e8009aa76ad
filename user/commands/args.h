/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Command-line parsing as sclat wants it: argp, with every usage error as one
 * line on stderr ("sclat watch: unrecognized option '--bogus'"), like sclat's
 * other bad input; argp alone adds a "Try ... --help" line. (Their exit
 * status, 2 rather than argp's 64, is set once for every command in main().)
 */
#ifndef SCLAT_ARGS_H
#define SCLAT_ARGS_H

#include <argp.h>

/* argp_parse() of argp with the rule above; returns what argp_parse() does. */
error_t args_parse(const struct argp *argp, int argc, char **argv, unsigned int flags, void *input);

#endif
