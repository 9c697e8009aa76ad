/* SPDX-License-Identifier: GPL-2.0-only */
/* `sclat status`: the running tracer's status as JSON or as a table. */
#ifndef SCLAT_STATUS_H
#define SCLAT_STATUS_H

#include <stdio.h>
#include "controller.h"
#include "policy.h"

/*
 * Written by the tracer's control thread. p is the current policy (for the
 * modes; may be NULL), source the file it came from.
 */
void status_write_json(const struct controller_status *st, const struct policy *p,
		       const char *source, FILE *f);
void status_write_text(const struct controller_status *st, const struct policy *p,
		       const char *source, FILE *f);

#endif
