// SPDX-License-Identifier: GPL-2.0-only
/*
 * What user/explain makes of an outlier's record: its target as text, its
 * kernel stack symbolized (from a kallsyms file of our own), its parts walked
 * and a malformed one refused, which syscall argument names a target, and
 * the user stack as the outlier line shows it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>
#include "unit.h"
#include "explain/explain.h"
#include "explain/ksyms.h"
#include "explain/target.h"
#include "sclat_ustack.h"
#include "util/syscall_names.h"

/* A target part with its strings, as the BPF side writes it. */
struct target_buf {
	struct sclat_target tg;
	char str[SCLAT_TARGET_STR_MAX];
};

static size_t target_set_str(struct target_buf *t, const char *s0, size_t n0, const char *s1,
			     size_t n1)
{
	memcpy(t->str, s0, n0);
	memcpy(t->str + n0, s1, n1);
	t->tg.str_len[0] = n0;
	t->tg.str_len[1] = n1;
	return sizeof(t->tg) + n0 + n1;
}

static const char *format(struct target_buf *t, size_t len)
{
	static char buf[EXPLAIN_TARGET_LEN];

	return target_format(&t->tg, len, buf, sizeof(buf));
}

static void test_target_files(void)
{
	struct target_buf t = { .tg.kind = SCLAT_TARGET_FILE };
	size_t len;

	len = target_set_str(&t, "data\0tmp\0var\0", 13, "", 0);
	CHECK_STR(format(&t, len), "/var/tmp/data");
	t.tg.flags = SCLAT_TARGET_DELETED;
	CHECK_STR(format(&t, len), "/var/tmp/data (deleted)");
	t.tg.flags = SCLAT_TARGET_TRUNCATED;
	CHECK_STR(format(&t, len), ".../var/tmp/data");
	t.tg.flags = 0;
	len = target_set_str(&t, "", 0, "", 0);
	CHECK_STR(format(&t, len), "/");
	/* Strings longer than the part are a malformed part. */
	len = target_set_str(&t, "data\0tmp\0var\0", 13, "", 0);
	CHECK(!format(&t, len - 1), "a part shorter than its strings was read");
}

static void test_target_pipes_and_anon(void)
{
	struct target_buf t = { .tg.kind = SCLAT_TARGET_PIPE, .tg.ino = 38211 };
	size_t len = target_set_str(&t, "", 0, "", 0);

	CHECK_STR(format(&t, len), "pipe:[38211]");
	t.tg.kind = SCLAT_TARGET_ANON;
	len = target_set_str(&t, "[eventfd]", 10, "", 0);
	CHECK_STR(format(&t, len), "anon_inode:[eventfd]");
	t.tg.kind = SCLAT_TARGET_NONE;
	CHECK(!format(&t, len), "no target formatted as one");
}

static void test_target_sockets(void)
{
	struct target_buf t = { .tg.kind = SCLAT_TARGET_SOCKET };
	size_t len = target_set_str(&t, "", 0, "", 0);

	t.tg.family = AF_INET;
	t.tg.type = SOCK_STREAM;
	t.tg.protocol = 6;
	t.tg.local_port = 5432;
	t.tg.peer_port = 40112;
	inet_pton(AF_INET, "127.0.0.1", t.tg.local_addr);
	inet_pton(AF_INET, "10.1.2.3", t.tg.peer_addr);
	CHECK_STR(format(&t, len), "socket:TCP 127.0.0.1:5432->10.1.2.3:40112");

	t.tg.family = AF_INET6;
	inet_pton(AF_INET6, "::1", t.tg.local_addr);
	inet_pton(AF_INET6, "fe80::1", t.tg.peer_addr);
	CHECK_STR(format(&t, len), "socket:TCP [::1]:5432->[fe80::1]:40112");

	/* Unconnected: no peer to name. */
	t.tg.family = AF_INET;
	memset(t.tg.local_addr, 0, sizeof(t.tg.local_addr));
	inet_pton(AF_INET, "127.0.0.1", t.tg.local_addr);
	t.tg.type = SOCK_DGRAM;
	t.tg.protocol = 17;
	t.tg.peer_port = 0;
	memset(t.tg.peer_addr, 0, sizeof(t.tg.peer_addr));
	CHECK_STR(format(&t, len), "socket:UDP 127.0.0.1:5432");

	/* AF_UNIX: paths, abstract ones as @name; nameless ones by inode. */
	t.tg.family = AF_UNIX;
	t.tg.ino = 77;
	len = target_set_str(&t, "", 0, "/run/db.sock", 12);
	CHECK_STR(format(&t, len), "socket:UNIX ->/run/db.sock");
	len = target_set_str(&t, "\0bus", 4, "", 0);
	CHECK_STR(format(&t, len), "socket:UNIX @bus");
	len = target_set_str(&t, "", 0, "", 0);
	CHECK_STR(format(&t, len), "socket:UNIX:[77]");
}

static void test_target_paths(void)
{
	struct target_buf t = { .tg.kind = SCLAT_TARGET_PATH };
	size_t len;

	len = target_set_str(&t, "", 0, "/etc/passwd", 12);
	CHECK_STR(format(&t, len), "/etc/passwd");
	/* Relative to its directory (the cwd, or the directory fd). */
	t.tg.flags = SCLAT_TARGET_IN_DIR;
	len = target_set_str(&t, "tmp\0var\0", 8, "data", 5);
	CHECK_STR(format(&t, len), "/var/tmp/data");
	/* Relative to the root. */
	len = target_set_str(&t, "", 0, "etc", 4);
	CHECK_STR(format(&t, len), "/etc");
	/* Relative to a directory that could not be read: as given. */
	t.tg.flags = 0;
	CHECK_STR(format(&t, len), "etc");
}

/* Which argument of which syscall names its target, from the tracefs formats. */
static void test_target_rules(void)
{
	struct sclat_target_rule rules[SCLAT_MAX_SYSCALLS];
	int read_nr = syscall_nr("read"), openat = syscall_nr("openat"),
	    execve = syscall_nr("execve"), getpid = syscall_nr("getpid");

	target_rules_build(rules);
	if (access("/sys/kernel/tracing/events/syscalls/sys_enter_read", F_OK)) {
		printf("  (no syscall events in tracefs at build time: no rules to check)\n");
		return;
	}
	CHECK_EQ_INT(rules[read_nr].kind, SCLAT_RULE_FD);
	CHECK_EQ_INT(rules[read_nr].arg, 0);
	CHECK_EQ_INT(rules[openat].kind, SCLAT_RULE_PATH);
	CHECK_EQ_INT(rules[openat].arg, 1);
	CHECK_EQ_INT(rules[openat].dirfd, 0);
	CHECK_EQ_INT(rules[execve].kind, SCLAT_RULE_EXEC);
	CHECK_EQ_INT(rules[getpid].kind, SCLAT_RULE_NONE);
	if (syscall_nr("open") >= 0) {
		CHECK_EQ_INT(rules[syscall_nr("open")].kind, SCLAT_RULE_PATH);
		CHECK_EQ_INT(rules[syscall_nr("open")].dirfd, SCLAT_RULE_NO_DIRFD);
	}
}

static char kallsyms[] = "/tmp/sclat-test-kallsyms-XXXXXX";

static void kallsyms_write(const char *text)
{
	int fd = mkstemp(kallsyms);

	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		fprintf(stderr, "%s: %s\n", kallsyms, strerror(errno));
	close(fd);
}

static const char ksyms_text[] = "ffffffff81000000 T _stext\n"
				 "ffffffff81000100 d some_data\n"
				 "ffffffff81001000 t anon_pipe_read\n"
				 "ffffffff81002000 T vfs_read\n"
				 "ffffffff81003000 T __schedule\n"
				 "ffffffff81003800 T schedule_timeout\n"
				 "ffffffffc0001000 t ext4_sync_file\t[ext4]\n";

static void test_ksyms(void)
{
	struct ksyms *k = ksyms_load(kallsyms);
	char buf[EXPLAIN_FRAME_LEN];

	if (!CHECK(k, "ksyms_load(%s): %s", kallsyms, strerror(errno)))
		return;
	CHECK(ksyms_format(k, 0xffffffff81001393ULL, buf, sizeof(buf)), "no symbol");
	CHECK_STR(buf, "anon_pipe_read+0x393");
	ksyms_format(k, 0xffffffff81002000ULL, buf, sizeof(buf));
	CHECK_STR(buf, "vfs_read+0x0");
	/* Data symbols are not functions: the address belongs to _stext. */
	ksyms_format(k, 0xffffffff81000180ULL, buf, sizeof(buf));
	CHECK_STR(buf, "_stext+0x180");
	ksyms_format(k, 0xffffffffc0001025ULL, buf, sizeof(buf));
	CHECK_STR(buf, "ext4_sync_file+0x25 [ext4]");
	/* Before the first symbol: the address itself. */
	CHECK(!ksyms_format(k, 0xffffffff80000000ULL, buf, sizeof(buf)), "a symbol below all");
	CHECK_STR(buf, "0xffffffff80000000");
	ksyms_free(k);
}

/* kernel.kptr_restrict shows every address as 0: no symbols to load. */
static void test_ksyms_hidden(void)
{
	char path[] = "/tmp/sclat-test-kallsyms0-XXXXXX";
	const char *text = "0000000000000000 T _stext\n0000000000000000 t vfs_read\n";
	int fd = mkstemp(path);
	struct ksyms *k;

	if (!CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text), "%s", path))
		return;
	close(fd);
	errno = 0;
	k = ksyms_load(path);
	CHECK(!k && errno == ENOENT, "loaded %p, errno %d", (void *)k, errno);
	ksyms_free(k);
	unlink(path);
}

/* A record as the ring buffer hands it: header, target part, kernel stack part. */
struct record {
	struct sclat_event e;
	char parts[1024];
};

static size_t part_add(struct record *r, size_t off, __u16 kind, const void *data, __u32 len)
{
	struct sclat_part *p = (void *)(r->parts + off);

	p->kind = kind;
	p->len = len;
	memcpy(p + 1, data, len);
	return off + SCLAT_PART_SIZE(len);
}

static void test_explain_record(void)
{
	static struct explanation x;
	struct record r = {};
	struct target_buf t = { .tg.kind = SCLAT_TARGET_PIPE, .tg.ino = 12 };
	struct sclat_kstack ks = { .depth = 3,
				   .ip = { 0xffffffff81003010ULL, 0xffffffff81001393ULL,
					   0xffffffff81002040ULL } };
	struct sclat_wait wait = {
		.breakdown = { .on_cpu_ns = 100, .sleep_ns = 900 },
		.switches = 1,
		.waker = { .pid = 5, .tid = 6, .context = SCLAT_WAKER_TASK, .comm = "writer" },
	};
	struct explain *xp;
	__u32 unknown = 42;
	size_t off = 0, len = target_set_str(&t, "", 0, "", 0);

	if (!CHECK(!explain_open(&xp, kallsyms), "explain_open"))
		return;
	r.e.latency_ns = 1000;
	r.e.explain_ns = 777;
	off = part_add(&r, off, SCLAT_PART_WAIT, &wait, sizeof(wait));
	off = part_add(&r, off, SCLAT_PART_TARGET, &t, len);
	/* A kind this reader does not know is skipped: later sclat versions may add some. */
	off = part_add(&r, off, 99, &unknown, sizeof(unknown));
	off = part_add(&r, off, SCLAT_PART_KSTACK, &ks,
		       offsetof(struct sclat_kstack, ip) + 3 * sizeof(ks.ip[0]));
	CHECK_EQ_INT(explain_outlier(xp, &r.e, sizeof(r.e) + off, &x), 0);
	CHECK(x.has_target, "no target");
	CHECK_STR(x.target, "pipe:[12]");
	CHECK_EQ_U64(x.kstack_depth, 3);
	CHECK_STR(x.kstack[0], "__schedule+0x10");
	CHECK_STR(x.kstack[1], "anon_pipe_read+0x393");
	CHECK_EQ_U64(x.kstack_ip[2], 0xffffffff81002040ULL);
	/* Where it waited: the first frame that is not the scheduler's. */
	{
		char stack[EXPLAIN_WHY_TEXT_LEN];
		struct outlier_why why;
		const char *frame;
		size_t len = 0;

		explanation_why(&x, &why, stack, sizeof(stack));
		CHECK_STR(why.kernel_stack, "__schedule+0x10;anon_pipe_read+0x393;vfs_read+0x40");
		frame = outlier_why_wait_frame(&why, &len);
		CHECK(frame && len == strlen("anon_pipe_read+0x393") &&
			      !strncmp(frame, "anon_pipe_read+0x393", len),
		      "wait frame %.*s", (int)len, frame ? frame : "");
		CHECK_STR(why.target, "pipe:[12]");
	}
	CHECK(x.has_waker && x.waker.tid == 6, "waker %u", x.waker.tid);
	CHECK_STR(x.waker.comm, "writer");
	CHECK_EQ_U64(x.bpf_ns, 777);
	{
		struct outlier_why why = { .on_cpu_ns = 100, .sleep_ns = 900 };
		uint64_t ns;

		CHECK_STR(outlier_why_main_part(&why, &ns), "sleep");
		CHECK_EQ_U64(ns, 900);
	}
	{
		/*
		 * A call that never left its CPU: its time there less what interrupts
		 * and the host took, unless one of those is the larger.
		 */
		struct outlier_why why = { .on_cpu_ns = 7200, .irq_ns = 50, .steal_ns = 7100 };
		uint64_t ns;

		CHECK_STR(outlier_why_main_part(&why, &ns), "steal");
		CHECK_EQ_U64(ns, 7100);
		why.steal_ns = 1000;
		CHECK_STR(outlier_why_main_part(&why, &ns), "cpu");
		CHECK_EQ_U64(ns, 6150);
		why.irq_ns = 4000;
		CHECK_STR(outlier_why_main_part(&why, &ns), "irq");
		CHECK_EQ_U64(ns, 4000);
		/* Both together past the time on the CPU (they may overlap): no cpu part. */
		why = (struct outlier_why){ .on_cpu_ns = 100, .irq_ns = 80, .steal_ns = 90 };
		CHECK_STR(outlier_why_main_part(&why, &ns), "steal");
		CHECK_EQ_U64(ns, 90);
	}

	/* A part that runs past the record: refused, and nothing made of it. */
	CHECK_EQ_INT(explain_outlier(xp, &r.e, sizeof(r.e) + off - 8, &x), -EINVAL);
	CHECK_EQ_U64(x.kstack_depth, 0);
	/* A record with no parts: it ran on its CPU all along. */
	CHECK_EQ_INT(explain_outlier(xp, &r.e, sizeof(r.e), &x), 0);
	CHECK(!x.has_target && !x.kstack_depth && !x.has_waker && !x.switches,
	      "parts out of nothing");
	CHECK_EQ_U64(x.breakdown.on_cpu_ns, 1000);
	CHECK_EQ_U64(x.breakdown.sleep_ns + x.breakdown.runqueue_ns + x.breakdown.io_wait_ns, 0);
	/* An interrupt woke it: no task to name. */
	wait.waker = (struct sclat_waker){ .context = SCLAT_WAKER_INTERRUPT };
	part_add(&r, 0, SCLAT_PART_WAIT, &wait, sizeof(wait));
	CHECK_EQ_INT(explain_outlier(xp, &r.e, sizeof(r.e) + SCLAT_PART_SIZE(sizeof(wait)), &x), 0);
	CHECK_STR(x.waker.comm, "[interrupt]");
	CHECK(x.has_waker && !x.waker.tid, "interrupt waker tid %u", x.waker.tid);
	explain_close(xp);
}

/* The user stack part points into the record, and one that claims more than it holds is refused. */
static void test_user_stack_part(void)
{
	static struct explanation x;
	static struct record r;
	static struct sclat_ustack u;
	size_t len = offsetof(struct sclat_ustack, stack) + 64, off;

	u.size = 64;
	u.regs[SCLAT_USTACK_REG_IP] = 0x401000;
	off = part_add(&r, 0, SCLAT_PART_USTACK, &u, len);
	CHECK_EQ_INT(explain_outlier(NULL, &r.e, sizeof(r.e) + off, &x), 0);
	CHECK(x.ustack_capture && x.ustack_capture->regs[SCLAT_USTACK_REG_IP] == 0x401000,
	      "no capture");
	CHECK(!x.user_stack && !x.user_stack_dropped, "unwound before the worker");
	u.size = 65;
	off = part_add(&r, 0, SCLAT_PART_USTACK, &u, len);
	CHECK_EQ_INT(explain_outlier(NULL, &r.e, sizeof(r.e) + off, &x), -EINVAL);
	CHECK(!x.ustack_capture, "a capture past its part");
}

static const char *line_of(const struct outlier_why *why, bool json)
{
	static char buf[4096];
	struct outlier_line o = { .syscall = "read", .comm = "app", .comm_len = 3, .why = why };
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	if (json)
		outlier_line_json(f, &o);
	else
		outlier_line_text(f, &o);
	fclose(f);
	return buf;
}

/* WHY ends with the program's own frame past libc's; JSON has every frame. */
static void test_user_stack_line(void)
{
	struct outlier_why why = {
		.sleep_ns = 10,
		.kernel_stack = "",
		.user_stack = "read+0x12 (libc.so.6);slow_read+0x1f (waits) tests/workloads/"
			      "waits.c:99;handle_request+0x9 (waits);main+0x30 (waits)",
	};
	const char *frame;
	size_t len = 0;

	frame = outlier_why_caller_frame(&why, &len);
	CHECK(frame && !strncmp(frame, "slow_read+0x1f (waits)", strlen("slow_read+0x1f (waits)")),
	      "caller %.*s", (int)len, frame ? frame : "");
	CHECK(strstr(line_of(&why, false), " <- read() <- slow_read (waits)\n"), "%s",
	      line_of(&why, false));
	CHECK(strstr(line_of(&why, true),
		     ",\"user_stack\":[\"read+0x12 (libc.so.6)\",\"slow_read+0x1f (waits) "
		     "tests/workloads/waits.c:99\",\"handle_request+0x9 (waits)\",\"main+0x30 "
		     "(waits)\"],\"user_stack_dropped\":false,\"off_cpu\":null,"),
	      "%s", line_of(&why, true));
	/* A stripped program: its frame is binary+offset. */
	why.user_stack = "fsync+0x17 (libc.so.6);dd+0x3a1c;__libc_start_call_main+0x7a (libc.so.6)";
	CHECK(strstr(line_of(&why, false), " <- read() <- dd+0x3a1c\n"), "%s",
	      line_of(&why, false));
	/* All in libc, or none: nothing to add. */
	why.user_stack = "syscall+0x1d (libc.so.6);0x7f0000001000";
	CHECK(!outlier_why_caller_frame(&why, &len), "a libc or unmapped frame as the caller");
	why.user_stack = NULL;
	why.user_stack_dropped = true;
	CHECK(strstr(line_of(&why, true), ",\"user_stack\":[],\"user_stack_dropped\":true,"), "%s",
	      line_of(&why, true));
}

/* The stretches off the CPU: times after the entry, the waker's, the ones beyond the list. */
static void test_off_cpu_part(void)
{
	static struct explanation x;
	struct record r = {};
	struct sclat_off_cpu_list l = {
		.count = 17,
		.waker_index = 1,
		.span = { { .out_ns = 1010,
			    .in_ns = 1200,
			    .cpu = 0,
			    .in_cpu = 1,
			    .kind = SCLAT_OFF_CPU_RUNQUEUE },
			  { .out_ns = 1300,
			    .wake_ns = 5300,
			    .in_ns = 5310,
			    .cpu = 1,
			    .in_cpu = 0,
			    .kind = SCLAT_OFF_CPU_SLEEP } },
	};
	size_t head = offsetof(struct sclat_off_cpu_list, span), len;

	r.e.entry_ns = 1000;
	r.e.latency_ns = 9000;
	len = part_add(&r, 0, SCLAT_PART_OFF_CPU, &l, sizeof(l));
	CHECK_EQ_INT(explain_outlier(NULL, &r.e, sizeof(r.e) + len, &x), 0);
	CHECK_EQ_U64(x.off_cpu_listed, SCLAT_OFF_CPU_MAX);
	CHECK_EQ_U64(x.off_cpu_unlisted, 2);
	CHECK_EQ_INT(x.off_cpu_waker, 1);
	CHECK_EQ_U64(x.off_cpu[0].out_ns, 10);
	CHECK(!x.off_cpu[0].woken, "preempted, yet woken");
	CHECK_EQ_U64(x.off_cpu[0].in_ns, 200);
	CHECK_EQ_U64(x.off_cpu[0].in_cpu, 1);
	CHECK(x.off_cpu[1].woken && x.off_cpu[1].wake_ns == 4300, "wake %llu",
	      (unsigned long long)x.off_cpu[1].wake_ns);
	CHECK_EQ_U64(x.off_cpu[1].kind, OUTLIER_OFF_CPU_SLEEP);
	{
		char text[EXPLAIN_WHY_TEXT_LEN];
		struct outlier_why why;

		explanation_why(&x, &why, text, sizeof(text));
		CHECK(strstr(line_of(&why, true),
			     ",\"off_cpu\":[{\"cpu\":0,\"kind\":\"runqueue\",\"out_ns\":10,"
			     "\"wake_ns\":null,\"in_ns\":200,\"in_cpu\":1,\"by_waker\":false},"
			     "{\"cpu\":1,\"kind\":\"sleep\",\"out_ns\":300,\"wake_ns\":4300,"
			     "\"in_ns\":4310,\"in_cpu\":0,\"by_waker\":true},"),
		      "%s", line_of(&why, true));
		CHECK(strstr(line_of(&why, true), "],\"off_cpu_unlisted\":2}"), "%s",
		      line_of(&why, true));
	}

	/* Two stretches in all: two listed, and a waker beyond them is none. */
	l.count = 2;
	l.waker_index = SCLAT_OFF_CPU_NONE;
	len = part_add(&r, 0, SCLAT_PART_OFF_CPU, &l, head + 2 * sizeof(l.span[0]));
	CHECK_EQ_INT(explain_outlier(NULL, &r.e, sizeof(r.e) + len, &x), 0);
	CHECK_EQ_U64(x.off_cpu_listed, 2);
	CHECK_EQ_U64(x.off_cpu_unlisted, 0);
	CHECK_EQ_INT(x.off_cpu_waker, -1);
	/* A part shorter than the stretches it counts is refused. */
	len = part_add(&r, 0, SCLAT_PART_OFF_CPU, &l, head + sizeof(l.span[0]));
	CHECK_EQ_INT(explain_outlier(NULL, &r.e, sizeof(r.e) + len, &x), -EINVAL);
	/* None without the part: it never left its CPU. */
	CHECK_EQ_INT(explain_outlier(NULL, &r.e, sizeof(r.e), &x), 0);
	CHECK_EQ_U64(x.off_cpu_listed, 0);
}

int main(void)
{
	kallsyms_write(ksyms_text);
	RUN(test_target_files);
	RUN(test_target_pipes_and_anon);
	RUN(test_target_sockets);
	RUN(test_target_paths);
	RUN(test_target_rules);
	RUN(test_ksyms);
	RUN(test_ksyms_hidden);
	RUN(test_explain_record);
	RUN(test_off_cpu_part);
	RUN(test_user_stack_part);
	RUN(test_user_stack_line);
	unlink(kallsyms);
	return unit_done();
}
