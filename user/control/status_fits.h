/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What each threshold of `sclat status` stands on, beyond its estimate: the
 * rate it aims at and, for a false_alarm rule, the tail it was fitted to.
 */
#ifndef SCLAT_STATUS_FITS_H
#define SCLAT_STATUS_FITS_H

#include <stdio.h>
#include "controller/status.h"

/*
 * ,"learned_ns":N (null: off),"target_rate":R,"fit":{...} or null: members of
 * a row's JSON object.
 */
void status_basis_json(const struct syscall_status *s, FILE *f);

/* The syscalls and classes whose threshold came from a fitted tail, a line each; or nothing. */
void status_fits_text(const struct controller_status *st, FILE *f);

#endif
