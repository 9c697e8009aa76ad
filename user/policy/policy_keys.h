/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The keys of a policy file: each key's name, the sections it may stand in,
 * and the bit that marks it set. Its table is in policy_keys.c.
 */
#ifndef SCLAT_POLICY_KEYS_H
#define SCLAT_POLICY_KEYS_H

#include <stdbool.h>
#include "policy.h"

/* Keys of [global] alone; their bits are apart from the rule keys' (enum policy_key). */
#define GLOBAL_KEY_INTERVAL    (1U << 16)
#define GLOBAL_KEY_HALF_LIFE   (1U << 17)
#define GLOBAL_KEY_BUDGET      (1U << 18)
#define GLOBAL_KEY_CLASS_CELLS (1U << 19)
#define GLOBAL_KEY_CLASS_IDLE  (1U << 20)
#define GLOBAL_KEY_SAMPLE      (1U << 21)
#define GLOBAL_KEY_MIN_LATENCY (1U << 22)
#define GLOBAL_KEY_JUDGE       (1U << 23)

enum policy_section {
	SECT_NONE,
	SECT_GLOBAL,
	SECT_DEFAULT,
	SECT_SYSCALL,
};

/* The sections a key may stand in. */
#define IN_GLOBAL  (1U << SECT_GLOBAL)
#define IN_DEFAULT (1U << SECT_DEFAULT)
#define IN_SYSCALL (1U << SECT_SYSCALL)
#define IN_ANY	   (IN_GLOBAL | IN_DEFAULT | IN_SYSCALL)

struct policy_keydesc {
	const char *name;
	unsigned int bit;
	unsigned int sections; /* IN_* */
	bool rule;	       /* a key of struct policy_rule ([global]'s go to [default]'s rule) */
};

/* The key of that name, or NULL. */
const struct policy_keydesc *policy_key_find(const char *name);

/* The key nearest to name among those of the sections (IN_*), or NULL: "did you mean". */
const char *policy_key_nearest(const char *name, unsigned int sections);

/* The sections a key belongs in, as an error says it. */
const char *policy_key_sections(const struct policy_keydesc *k);

#endif
