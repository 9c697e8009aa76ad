/* SPDX-License-Identifier: GPL-2.0-only */
/* The running tracer's status as `sclat status` shows it: JSON or a table. */
#ifndef SCLAT_STATUS_RENDER_H
#define SCLAT_STATUS_RENDER_H

#include <stdio.h>
#include "controller/controller.h"
#include "policy/policy.h"

/*
 * Written by the tracer's control thread. p is the current policy (for the
 * modes; may be NULL), source the file it came from.
 */
void status_write_json(const struct controller_status *st, const struct policy *p,
		       const char *source, FILE *f);
void status_write_text(const struct controller_status *st, const struct policy *p,
		       const char *source, FILE *f);

#endif
