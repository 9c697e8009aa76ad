// SPDX-License-Identifier: GPL-2.0-only
/*
 * Steal time (kern-bpf/steal.bpf.h): where a CPU's KVM steal clock is, as
 * the kernel's BTF places it (probes_steal_from_rq), and what the BPF side
 * reads there, against the kernel's own account of each CPU's steal time
 * (/proc/stat). On a KVM guest whose host gives a steal clock, the two must
 * agree; anywhere else sclat must read no steal at all.
 */
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif
#include "kernel/probes_steal.h"
#include "unit.h"
#include "steal_check.skel.h"

/* /proc/stat's ticks are USER_HZ, 100 on every architecture sclat runs on. */
#define TICK_NS 10000000ULL
/*
 * How far the kernel's account may lag the clock: it takes steal in at a
 * tick (or an idle exit), at most a tick's length each time.
 */
#define LAG_NS	60000000ULL

/* Whether this is a KVM guest whose host offers a steal clock (KVM_FEATURE_STEAL_TIME). */
static bool kvm_steal_clock(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned int eax, ebx, ecx, edx;
	char sig[13];

	__cpuid(0x40000000, eax, ebx, ecx, edx);
	memcpy(sig, &ebx, 4);
	memcpy(sig + 4, &ecx, 4);
	memcpy(sig + 8, &edx, 4);
	sig[12] = '\0';
	if (strcmp(sig, "KVMKVMKVM") || eax < 0x40000001)
		return false;
	__cpuid(0x40000001, eax, ebx, ecx, edx);
	return eax & (1U << 5);
#else
	return false;
#endif
}

/* Whether the kernel accounts steal time (not booted with no-steal-acc). */
static bool steal_accounted(void)
{
	char line[4096] = "";
	FILE *f = fopen("/proc/cmdline", "r");

	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = '\0';
		fclose(f);
	}
	return !strstr(line, "no-steal-acc");
}

/* CPU cpu's steal time in /proc/stat, in ns (USER_HZ ticks); -1 if not found. */
static long long proc_stat_steal(int cpu)
{
	char line[512], name[16];
	unsigned long long v[8];
	long long steal = -1;
	FILE *f = fopen("/proc/stat", "r");

	if (!f)
		return -1;
	snprintf(name, sizeof(name), "cpu%d ", cpu);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, strlen(name)) &&
		    sscanf(line + strlen(name), "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
			   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) == 8)
			steal = (long long)(v[7] * TICK_NS);
	fclose(f);
	return steal;
}

/* The kernel's BTF places the runqueues and the steal clock: found, or 0 with no KVM guest support.
 */
static void test_distance_from_the_kernel_btf(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	long long d;

	if (!CHECK(btf, "no vmlinux BTF"))
		return;
	d = probes_steal_from_rq(btf);
	if (btf__find_by_name_kind(btf, "kvm_steal_time", BTF_KIND_STRUCT) > 0 &&
	    btf__find_by_name_kind(btf, "steal_time", BTF_KIND_VAR) > 0)
		CHECK(d != 0, "the kernel has steal_time, and no distance was found");
	else
		CHECK_EQ_U64(d, 0);
	btf__free(btf);
	CHECK_EQ_U64(probes_steal_from_rq(NULL), 0);
}

/*
 * A BTF with a struct kvm_steal_time whose first member is named member, a
 * struct rq, and the variables runqueues at 4096 and, with steal, steal_time
 * at 64; in a per-CPU section when percpu.
 */
static struct btf *percpu_btf(const char *member, bool steal, bool percpu)
{
	struct btf *btf = btf__new_empty();
	int u64, st, rq, st_var = 0, rq_var;

	u64 = btf__add_int(btf, "u64", 8, 0);
	st = btf__add_struct(btf, "kvm_steal_time", 64);
	btf__add_field(btf, member, u64, 0, 0);
	rq = btf__add_struct(btf, "rq", 4096);
	if (steal)
		st_var = btf__add_var(btf, "steal_time", BTF_VAR_GLOBAL_ALLOCATED, st);
	rq_var = btf__add_var(btf, "runqueues", BTF_VAR_GLOBAL_ALLOCATED, rq);
	if (percpu) {
		btf__add_datasec(btf, ".data..percpu", 8192);
		if (steal)
			btf__add_datasec_var_info(btf, st_var, 64, 64);
		btf__add_datasec_var_info(btf, rq_var, 4096, 4096);
	}
	return btf;
}

/* Without the per-CPU section, one of the two variables or the counter: no distance. */
static void test_no_distance_without_both(void)
{
	struct btf *btf;

	btf = percpu_btf("steal", true, false);
	CHECK_EQ_U64(probes_steal_from_rq(btf), 0);
	btf__free(btf);
	btf = percpu_btf("steal", false, true);
	CHECK_EQ_U64(probes_steal_from_rq(btf), 0);
	btf__free(btf);
	/* A struct of that name whose first member is not the counter. */
	btf = percpu_btf("version", true, true);
	CHECK_EQ_U64(probes_steal_from_rq(btf), 0);
	btf__free(btf);
	/* Both: the steal clock's offset less the runqueues'. */
	btf = percpu_btf("steal", true, true);
	CHECK_EQ_U64(probes_steal_from_rq(btf), (unsigned long long)(64 - 4096));
	btf__free(btf);
}

/*
 * On each CPU, the clock sclat reads against the kernel's account of that
 * CPU's steal: never less, and ahead by no more than the account's lag and
 * its rounding to ticks. Without a steal clock, sclat reads 0.
 */
static void test_clock_agrees_with_the_kernel(void)
{
	struct btf *btf = btf__load_vmlinux_btf();
	struct steal_check_bpf *s = steal_check_bpf__open();
	bool clock = kvm_steal_clock() && steal_accounted();
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	int cpu, err;

	if (!CHECK(btf && s, "no vmlinux BTF, or the BPF object"))
		goto out;
	s->rodata->steal_from_rq = probes_steal_from_rq(btf);
	err = steal_check_bpf__load(s);
	if (!CHECK(!err, "loading: %s", strerror(-err)))
		goto out;
	s->bss->target_tgid = getpid();
	err = steal_check_bpf__attach(s);
	if (!CHECK(!err, "attaching: %s", strerror(-err)))
		goto out;
	for (cpu = 0; cpu < ncpus && cpu < 64; cpu++) {
		cpu_set_t set;
		long long before, after;
		unsigned int seen = s->bss->seen;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			continue;
		before = proc_stat_steal(cpu);
		syscall(SYS_getppid);
		after = proc_stat_steal(cpu);
		if (!CHECK(s->bss->seen != seen && s->bss->cpu == (unsigned int)cpu,
			   "CPU %d: no sys_enter seen there", cpu))
			continue;
		if (!clock) {
			CHECK_EQ_U64(s->bss->clock_ns, 0);
			continue;
		}
		CHECK(s->bss->at != 0, "CPU %d: its steal clock was not found", cpu);
		CHECK(before >= 0 && (long long)s->bss->clock_ns >= before,
		      "CPU %d: steal clock %llu ns, behind the kernel's account %lld ns", cpu,
		      (unsigned long long)s->bss->clock_ns, before);
		CHECK((long long)s->bss->clock_ns < after + (long long)(TICK_NS + LAG_NS),
		      "CPU %d: steal clock %llu ns, ahead of the kernel's account %lld ns", cpu,
		      (unsigned long long)s->bss->clock_ns, after);
	}
out:
	steal_check_bpf__destroy(s);
	btf__free(btf);
}

int main(void)
{
	RUN(test_distance_from_the_kernel_btf);
	RUN(test_no_distance_without_both);
	RUN(test_clock_agrees_with_the_kernel);
	return unit_done();
}
