/* SPDX-License-Identifier: GPL-2.0-only */
/* Compiler annotations, as the kernel spells them. */
#ifndef SCLAT_COMPILER_H
#define SCLAT_COMPILER_H

/* A parameter a callback's signature imposes and this callback does not need. */
#ifndef __always_unused
#define __always_unused __attribute__((unused))
#endif

#endif
