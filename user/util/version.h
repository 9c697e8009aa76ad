/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef SCLAT_VERSION_H
#define SCLAT_VERSION_H

#define SCLAT_VERSION "0.1.0"

#endif
