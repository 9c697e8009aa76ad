/* SPDX-License-Identifier: GPL-2.0-only */
/* The subcommands of sclat: each takes argv from the subcommand's name on. */
#ifndef SCLAT_COMMANDS_H
#define SCLAT_COMMANDS_H

int cmd_watch(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_policy(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_convert(int argc, char **argv);

#endif
