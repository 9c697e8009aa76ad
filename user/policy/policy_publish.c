// SPDX-License-Identifier: GPL-2.0-only
/* The current policy, published with RCU (urcu-memb) to the controller and the control socket. */
#include <stdlib.h>
#include <urcu/urcu-memb.h>
#include "policy.h"

static struct policy *policy_published;

struct policy *policy_current(void)
{
	return rcu_dereference(policy_published);
}

__u64 policy_current_interval_ns(void)
{
	const struct policy *p;
	__u64 ns = 1000000000ULL;

	urcu_memb_read_lock();
	p = policy_current();
	if (p && p->interval_ns)
		ns = p->interval_ns;
	urcu_memb_read_unlock();
	return ns;
}

static void policy_free_rcu(struct rcu_head *head)
{
	free(caa_container_of(head, struct policy, rcu));
}

void policy_publish(struct policy *p)
{
	struct policy *old = rcu_xchg_pointer(&policy_published, p);

	/* Readers may still hold the old one: free it after a grace period. */
	if (old)
		urcu_memb_call_rcu(&old->rcu, policy_free_rcu);
}
