/* SPDX-License-Identifier: GPL-2.0-only */
/* The version sclat reports (sclat --version, sclat:session_begin). */
#ifndef SCLAT_VERSION_H
#define SCLAT_VERSION_H

#define SCLAT_VERSION "0.1.0"

#endif
