/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * sclat's diagnostics on stderr: one prefix ("sclat: "), one line per call,
 * written whole (threads never interleave within a message), and a level.
 * Errors, warnings and notes always show; debug messages only with -v (or
 * SCLAT_DEBUG in the environment). Data goes to stdout, never through here.
 *
 *	log_err("policy.ini:12: unknown key \"%s\"", key);
 *
 * The format has neither the prefix nor the final newline.
 */
#ifndef SCLAT_LOG_H
#define SCLAT_LOG_H

#include <stdarg.h>
#include <stdbool.h>

enum log_level {
	LOG_ERR,  /* what failed, on what input, what to do */
	LOG_WARN, /* the run goes on, with something less */
	LOG_NOTE, /* what the user should know: where the trace is, what was chosen */
	LOG_DEBUG /* -v: what a developer or a bug report wants */
};

/* The program's name in the prefix (default "sclat"); a string that lives as long. */
void log_set_prefix(const char *name);
/* Messages above level are dropped; LOG_NOTE by default, LOG_DEBUG with SCLAT_DEBUG set. */
void log_set_level(enum log_level level);
bool log_enabled(enum log_level level);

void log_vmsg(enum log_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));
void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define log_err(...)   log_msg(LOG_ERR, __VA_ARGS__)
#define log_warn(...)  log_msg(LOG_WARN, __VA_ARGS__)
#define log_note(...)  log_msg(LOG_NOTE, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_DEBUG, __VA_ARGS__)

#endif
