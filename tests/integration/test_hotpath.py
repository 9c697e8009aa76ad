# SPDX-License-Identifier: GPL-2.0-only
"""The hot path under attack: threads that block, migrate, get signalled, exec,
exit and come and go, checked against what the workload knows it did.

The syscall in flight sits in a per-CPU record from sys_enter to sys_exit;
sched_switch parks it in the task's storage when the task leaves its CPU. If a
record were lost, left stale or given to the wrong task, a call would go
uncounted, be counted twice or under another number, or come out with a latency
it cannot have. tests/workloads/churn.c counts every call it makes on purpose,
by number; in mix mode it also tags each call (sixth argument register, which
the kernel ignores and sclat records as args[5]) and times it from userspace.
"""
import collections
import errno
import json
import mmap
import os
import signal
import struct
import subprocess
import time

import pytest

from conftest import (SCLAT, Watch, bpf_links, bpftool_list, fdinfo_ids_of, fully_attached,
                      json_lines, possible_cpus, prog_ids_of, run_sclat, sclat_progs, wait_until,
                      workload)

NR_MAX = 512


def churn_report(path):
    """(calls made per syscall number, summed over process images; the images' lines;
    the tagged calls as dicts)."""
    made, images, calls = {}, [], []
    with open(path) as f:
        for line in f:
            rec = json.loads(line)
            if "counts" in rec:
                images.append(rec)
                for nr, n in rec["counts"].items():
                    made[int(nr)] = made.get(int(nr), 0) + n
            else:
                tid, nr, tag, t0, t1, ret, sleep_ns = rec["call"]
                calls.append(dict(tid=tid, nr=nr, tag=tag, t0=t0, t1=t1, ret=ret,
                                  sleep_ns=sleep_ns))
    return made, images, calls


def outliers_and_summary(stdout):
    lines = json_lines(stdout)
    summaries = [l["summary"] for l in lines if "summary" in l]
    assert len(summaries) == 1, stdout[-2000:]
    return [l for l in lines if "latency_ns" in l], summaries[0]


def calls_by_nr(summary):
    return {s["nr"]: s["calls"] for s in summary["per_syscall"]}


def nr_named(summary, name):
    return {s["syscall"]: s["nr"] for s in summary["per_syscall"]}.get(name)


def count_mismatches(made, counted):
    """{nr: (made, counted)} wherever sclat's count differs from the workload's."""
    return {nr: (n, counted.get(nr, 0)) for nr, n in made.items() if counted.get(nr, 0) != n}


def impossible_latencies(outliers, start_ns, end_ns):
    """Outliers that do not fit in [start_ns, end_ns] or fall below their threshold."""
    return [e for e in outliers
            if not (start_ns <= e["ts_ns"] and e["ts_ns"] + e["latency_ns"] <= end_ns
                    and e["latency_ns"] >= e["threshold_ns"])]


def watch_command(*args, timeout=60, env=None):
    """Run `sclat watch --json --summary ARGS`; (result, monotonic ns before, after)."""
    start = time.monotonic_ns()
    r = run_sclat("watch", "--json", "--summary", *args, timeout=timeout, env=env)
    return r, start, time.monotonic_ns()


def watch_around(command, *args, env=None):
    """Run command while `sclat watch --json --summary ARGS` runs, started before it and
    stopped after it; (sclat's result, monotonic ns before, after)."""
    start = time.monotonic_ns()
    p = subprocess.Popen([SCLAT, "watch", "--json", "--summary", *args],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert wait_until(lambda: fully_attached(p.pid), timeout=20), "sclat never attached"
        assert subprocess.run(command, timeout=60).returncode == 0, command
    finally:
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
    return subprocess.CompletedProcess(p.args, p.returncode, out, err), start, \
        time.monotonic_ns()


# --- 1 and 2: exact counts and per-call latencies under blocking and migration ----------

@pytest.fixture(scope="module", params=[("tp_btf", "pid"), ("tp_btf_bounded", "pid"),
                                        ("raw_tp", "pid"), ("tp_btf", "comm")],
                ids=["tp_btf", "tp_btf_bounded", "raw_tp", "tp_btf-comm"])
def mix(request, root, tmp_path_factory):
    """One `churn mix` run under `sclat watch --threshold 1ns`: every call is an outlier,
    so each tagged call can be matched with sclat's record of it. The scope is the command
    (task storage created at the first sys_enter) or --comm (created by sched_switch when
    a call first leaves its CPU)."""
    attach, scope = request.param
    report = tmp_path_factory.mktemp("mix") / "report"
    env = dict(os.environ, SCLAT_ATTACH=attach)
    # 50000 outliers of up to ~1 KiB each, and a user stack (up to 8 KiB) for 100 a second
    # per CPU: 32M filled up when the consumer fell behind on a loaded machine.
    args = ["--threshold", "1ns", "--buffer-size", "128M"]
    command = [workload("churn"), "mix", "--iters", "3000", "--report", str(report)]
    if scope == "pid":
        r, start, end = watch_command(*args, "--", *command, env=env)
    else:
        r, start, end = watch_around(command, *args, "--comm", "churn", env=env)
    assert r.returncode == 0, r.stderr
    outliers, summary = outliers_and_summary(r.stdout)
    made, _, calls = churn_report(report)
    # Everything must reach userspace for a call-by-call comparison: none dropped or
    # throttled, and every outlier the kernel emitted printed.
    assert summary["drops"] == 0 and summary["throttled"] == 0, summary
    assert len(outliers) == summary["outliers"], (len(outliers), summary["outliers"])
    return dict(outliers=outliers, summary=summary, made=made, calls=calls, start=start,
                end=end, attach=attach)


def test_mix_counts_exact(mix):
    """8 threads futex-ping-ponging, reading a pipe another writes, sleeping, polling,
    yielding, grinding /dev/zero and moving themselves between CPUs: for every syscall
    they make, sclat counts exactly the calls made."""
    made, summary = mix["made"], mix["summary"]
    assert len(made) >= 15 and sum(made.values()) > 50000, made
    counted = calls_by_nr(summary)
    assert count_mismatches(made, counted) == {}
    # syscall(-1), made after waits, is no call: not under 511, where -1 would be masked to.
    assert NR_MAX - 1 not in counted
    assert summary["syscalls"] == sum(counted.values())


def test_mix_latency_of_each_call(mix):
    """Each tagged call comes out once, from its thread, with its return value, inside
    the workload's own timing of it, and no shorter than the sleep it completed."""
    by_tag = {}
    for e in mix["outliers"]:
        by_tag.setdefault((e["nr"], e["args"][5]), []).append(e)
    wrong = []
    for c in mix["calls"]:
        got = by_tag.pop((c["nr"], c["tag"]), [])
        if len(got) != 1:
            wrong.append(("reported %d times" % len(got), c))
            continue
        e = got[0]
        if (e["tid"], e["ret"]) != (c["tid"], c["ret"]):
            wrong.append(("tid/ret %s/%s" % (e["tid"], e["ret"]), c))
        # sys_enter comes after the workload's first clock read, sys_exit before its second.
        if not (c["t0"] <= e["ts_ns"] and e["ts_ns"] + e["latency_ns"] <= c["t1"]):
            wrong.append(("entry %+d ns, exit %+d ns of the workload's" %
                          (e["ts_ns"] - c["t0"], e["ts_ns"] + e["latency_ns"] - c["t1"]), c))
        # A sleep or a wait that timed out lasted at least what it asked for.
        if c["ret"] in (0, -errno.EAGAIN) and e["latency_ns"] < c["sleep_ns"]:
            wrong.append(("latency %d ns" % e["latency_ns"], c))
    assert wrong == [], "%d of %d calls: %s" % (len(wrong), len(mix["calls"]), wrong[:10])
    # No record of a call the workload did not make: every call of these numbers is tagged.
    phantoms = [es for (nr, _), es in by_tag.items() if nr in mix["made"]]
    assert phantoms == []
    assert impossible_latencies(mix["outliers"], mix["start"], mix["end"]) == []


def breakdown_errors(e):
    """What is wrong with an outlier's breakdown: its parts are spans of one chain of
    timestamps from entry to exit, so they add up to the latency (more only by what two
    CPUs' clocks disagree, kept under 1 %), and a call that never switched ran all along."""
    b = e["breakdown"]
    total = b["on_cpu_ns"] + b["runqueue_ns"] + b["sleep_ns"] + b["io_wait_ns"]
    if not 0 <= total - e["latency_ns"] <= e["latency_ns"] / 100:
        return "parts add up to %d" % total
    if e["switches"] == 0 and b["on_cpu_ns"] != e["latency_ns"]:
        return "off its CPU without a switch"
    if e["switches"] and b["on_cpu_ns"] == e["latency_ns"]:
        return "switched but never off its CPU"
    return None


def test_mix_breakdown_of_each_call(mix):
    """Through blocking, migration and ping-pong, each call's on-CPU, runqueue, sleep and
    I/O time add up to its latency; the waits that timers end name an interrupt as their
    waker, the futex waits a thread of the workload (tp_btf: raw_tp sees no wake-ups)."""
    wrong = [(breakdown_errors(e), e) for e in mix["outliers"] if breakdown_errors(e)]
    assert wrong == [], "%d of %d: %s" % (len(wrong), len(mix["outliers"]), wrong[:5])
    switched = [e for e in mix["outliers"] if e["switches"]]
    assert len(switched) > 10000, len(switched)
    wakers = {}
    for e in switched:
        if e["waker"]:
            wakers.setdefault(e["syscall"], set()).add(e["waker"]["comm"])
    if mix["attach"] == "raw_tp":
        assert wakers == {}
        return
    assert wakers["nanosleep"] == wakers["clock_nanosleep"] == {"[interrupt]"}, wakers
    futex_wait = [k for k in wakers if k in ("futex_wait", "syscall_455")]
    assert futex_wait and wakers[futex_wait[0]] == {"churn"}, wakers


# A threshold no call of churn's run reaches: longer than watch_command lets the run last
# (60 s). At 10 s, the main thread's join of its workers on a loaded machine was a 10.4 s
# futex outlier.
NEVER_REACHED = "120s"


def check_churn_counted_once(tmp_path, policy_text):
    """`churn mix` under policy_text, whose thresholds it never reaches: no outlier, and
    every call it made counted once, in its syscall's count and in the total."""
    policy = tmp_path / "policy.ini"
    policy.write_text(policy_text)
    report = tmp_path / "report"
    r, _, _ = watch_command("--policy", str(policy), "--", workload("churn"), "mix",
                            "--iters", "3000", "--report", str(report))
    assert r.returncode == 0, r.stderr
    outliers, summary = outliers_and_summary(r.stdout)
    made, _, _ = churn_report(report)
    assert sum(made.values()) > 50000, made
    assert outliers == [] and summary["outliers"] == 0, [
        {k: o.get(k) for k in ("syscall", "pid", "tid", "comm", "class", "latency_ns",
                               "threshold_ns", "ts_ns", "breakdown")} for o in outliers[:3]]
    counted = calls_by_nr(summary)
    assert count_mismatches(made, counted) == {}
    assert summary["syscalls"] == sum(counted.values())


def test_counts_exact_on_the_short_path(root, tmp_path):
    """Calls under their threshold take each CPU's short path: their latency waits in a
    list of 128 on the CPU's page, moved into the histograms by the call that fills it
    (shm/sclat_abi.h, struct sclat_cpu_lane), 1 in 16 of them under their floor (the
    default sample). The same churn mix, under thresholds it never reaches, with the
    lanes set after the first 100 ms interval: every call is counted once, sampled or not,
    the ones in a list that never filled up too."""
    check_churn_counted_once(tmp_path, "[global]\ninterval = 100ms\n[default]\n"
                             "mode = static\ninitial = %s\ninflight_after = off\n" %
                             NEVER_REACHED)


@pytest.mark.parametrize("sample", [1, 16])
def test_classed_counts_exact_on_the_short_path(root, tmp_path, sample):
    """The same, with every syscall's calls split by process and kind of file
    (classes = process,fd): a classed call under its threshold takes the short path
    too, counted in its class's histogram through the same pending list (1 in 16 of
    those under the classes' lowest threshold, with sample = 16). Every call is counted
    once in its syscall's count, whichever class and path it took, sampled or not."""
    check_churn_counted_once(tmp_path, "[global]\ninterval = 100ms\nclasses = process,fd\n"
                             "sample = %d\n"
                             "[default]\nmode = adaptive\ninitial = %s\n"
                             "min_samples = 1000000000\ninflight_after = off\n" %
                             (sample, NEVER_REACHED))


def lanes_slot_of(pid, nr):
    """slot_of[nr] in each CPU's lane (struct sclat_cpu_lane) of the tracer pid: 0 while
    syscall nr's calls take the long path on that CPU. The lanes are at the start of the
    CPUs' pages, cpu_pages, last in the BPF object's .bss."""
    for mid in fdinfo_ids_of(pid, "map_id"):
        info = json.loads(subprocess.run(["bpftool", "-j", "map", "show", "id", str(mid)],
                                         capture_output=True, text=True, check=True).stdout)
        if info.get("name", "").endswith(".bss"):
            break
    else:
        raise AssertionError("sclat %d holds no .bss map" % pid)
    v = json.loads(subprocess.run(["bpftool", "-j", "map", "lookup", "id", str(mid), "key",
                                   "0", "0", "0", "0"], capture_output=True, text=True,
                                  check=True).stdout)
    pages = [var["cpu_pages"] for var in v["formatted"]["value"][".bss"] if "cpu_pages" in var]
    assert pages and len(pages[0]) == possible_cpus(), pages and len(pages[0])
    return [page["lane"]["slot_of"][nr] for page in pages[0]]


@pytest.mark.parametrize("attach,enter,exit_", [
    (None, "sclat_enter_btf", "sclat_exit_btf"),
    ("tp_btf_bounded", "sclat_enter_bounded", "sclat_exit_bounded"),
    ("raw_tp", "sclat_enter_raw", "sclat_exit_raw")])
def test_the_syscall_programs_of_each_kind(root, attach, enter, exit_):
    """sclat attaches the tp_btf programs that index the CPUs' pages unchecked (this
    kernel's verifier knows the CPU number's range); SCLAT_ATTACH picks the bounded ones
    (for a verifier before Linux 6.10) or raw_tp's. Each kind has its own sys_enter and
    sys_exit programs attached, and .bss holds a page for each possible CPU."""
    env = dict(os.environ)
    env.pop("SCLAT_ATTACH", None)
    if attach:
        env["SCLAT_ATTACH"] = attach
    p = subprocess.Popen([SCLAT, "watch", "--threshold", "10s"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, env=env)
    try:
        links = wait_until(lambda: fully_attached(p.pid), timeout=20)
        assert links, "sclat never attached"
        names = {prog["id"]: prog.get("name") for prog in bpftool_list("prog")}
        kernel = bpf_links()
        attached = {names.get(kernel.get(link)) for link in links}
        assert {enter, exit_} <= attached, attached
        assert len(lanes_slot_of(p.pid, 39)) == possible_cpus()
    finally:
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=30)
    assert p.returncode == 0, err


def test_a_syscall_first_seen_soon_takes_the_short_path(root, tmp_path):
    """A syscall sclat had not seen takes the long path, two more pages per call, until
    every CPU's lane knows its slot. The controller looks for new slots between its
    intervals: with a 10 s interval, a syscall first made after the tracer started is on
    every CPU's short path within a few seconds, before the interval ends, and
    each of its calls is counted once, from both paths."""
    policy = tmp_path / "policy.ini"
    policy.write_text("[global]\ninterval = 10s\n[default]\nmode = static\ninitial = 10s\n"
                      "inflight_after = off\n")
    nr = 148  # sched_rr_get_interval: nothing else in this process makes it
    p = subprocess.Popen([SCLAT, "watch", "--json", "--summary", "--policy", str(policy),
                          "-p", str(os.getpid())], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        assert wait_until(lambda: fully_attached(p.pid), timeout=20), "sclat never attached"
        started = time.monotonic()
        assert lanes_slot_of(p.pid, nr) == [0] * possible_cpus()
        for _ in range(2000):
            os.sched_rr_get_interval(0)
        # Soon on a loaded machine too, and before the interval (10 s) ends.
        assert wait_until(lambda: 0 not in lanes_slot_of(p.pid, nr), timeout=5), \
            lanes_slot_of(p.pid, nr)
        assert time.monotonic() - started < 8
        for _ in range(2000):
            os.sched_rr_get_interval(0)
    finally:
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
    assert p.returncode == 0, err
    _, summary = outliers_and_summary(out)
    assert calls_by_nr(summary).get(nr) == 4000, summary


def counted(w, syscall, calls):
    """The status of syscall in the running Watch w once it has counted calls."""
    def status():
        st = w.try_status()
        s = st and {s["syscall"]: s for s in st["syscalls"]}.get(syscall)
        return s if s and s["calls"] >= calls else None
    s = wait_until(status, timeout=20, step=0.1)
    assert s, "%s never counted %d calls" % (syscall, calls)
    return s


def counted_then_done(w, syscall, calls):
    """The status of syscall in the running Watch w once it has counted calls, then w's
    command run to its end (w stopped whatever happens)."""
    try:
        s = counted(w, syscall, calls)
        assert w.wait(30) == 0, "".join(w.stderr)
    finally:
        w.stop()
    return s


def test_the_short_path_places_each_call_in_its_bucket(root, tmp_path):
    """Calls under their threshold reach the histograms through each CPU's pending list,
    whose flush finds a short call's bucket in a table userspace fills before load: the
    median getppid sclat learns from them lies between the cost of two clock reads and
    the whole loop iteration the workload times, never 0 (an empty table's bucket)."""
    policy = tmp_path / "policy.ini"
    policy.write_text("[global]\ninterval = 200ms\n[default]\nmode = static\n"
                      "initial = 10s\ninflight_after = off\n")
    w = Watch(dict(os.environ, SCLAT_RUN_DIR=str(tmp_path)), "--policy", str(policy), "--",
              workload("nsper"), "getppid", "--duration", "3", "--warmup", "0.5")
    g = counted_then_done(w, "getppid", 200_000)
    assert g["outliers"] == 0, g
    timed = [l for _, l in w.lines if l.startswith("workload=getppid")]
    assert len(timed) == 1, w.lines
    per_call = float(dict(kv.split("=") for kv in timed[0].split())["ns_per_op"])
    assert 20 <= g["p50_ns"] <= per_call, (g, per_call)


@pytest.mark.parametrize("sample", [16, 1])
def test_calls_under_the_body_are_sampled(root, tmp_path, sample):
    """A call under its syscall's floor goes into the histogram 1 in `sample` (at random,
    for that many), and is counted all the same. For a syscall without classes the floor
    is its body: once its window holds 1000 calls (none before), the quantile that
    leaves ten times its threshold quantile's share above (p99 for 0.999), rounded up to
    16 ns, so that the tail where the threshold is learnt goes in call by call. A busy
    getppid's floor is then between its median and its p99.9 (the window moves between
    the controller's reads), not its threshold's (10 s, the most a floor holds: about
    1 ms); with sample = 1 there is none. Its calls are counted exactly either way
    (test_counts_exact_on_the_short_path)."""
    policy = tmp_path / "policy.ini"
    policy.write_text("[global]\ninterval = 200ms\nsample = %d\nclasses = none\n"
                      "[default]\nmode = adaptive\n"
                      "quantile = 0.999\ninitial = 10s\nmin_samples = 1000000000\n"
                      "inflight_after = off\n" % sample)
    w = Watch(dict(os.environ, SCLAT_RUN_DIR=str(tmp_path)), "--policy", str(policy), "--",
              workload("nsper"), "getppid", "--duration", "3", "--warmup", "0.5")
    try:
        counted(w, "getppid", 200_000)
        time.sleep(0.5)
        st = w.status()
        assert w.wait(30) == 0, "".join(w.stderr)
    finally:
        w.stop()
    assert st["sample"] == sample, st["sample"]
    g = {s["syscall"]: s for s in st["syscalls"]}["getppid"]
    if sample == 1:
        assert g["sampled_under_ns"] == 0, g
        return
    assert g["p50_ns"] <= g["sampled_under_ns"] <= g["p999_ns"] + 16, g
    assert g["sampled_under_ns"] < 0xffff << 4, g


def test_calls_of_2_32_ns_and_more_go_the_long_way(root, tmp_path):
    """The pending list holds latencies below 2^32 ns (about 4.29 s), and the short path's
    copy of each threshold is capped there: a longer call goes the long way, judged
    against the real threshold. Under a static threshold of 4.6 s, once clock_nanosleep
    is on the short path (50 short sleeps, then a wait until every CPU's lane has it), a
    sleep of 4.32 s is counted in its own bucket and is no outlier (a loaded machine may
    wake it late by up to 280 ms), and one of 4.8 s is an outlier. Cut to their low 32 bits
    they would be calls of 25 ms and 505 ms."""
    policy = tmp_path / "policy.ini"
    policy.write_text("[global]\ninterval = 200ms\n[default]\nmode = static\ninitial = 10s\n"
                      "inflight_after = off\n[syscall clock_nanosleep]\nmode = static\n"
                      "initial = 4600ms\n")
    # The long sleeps wait for the go file (select(), not a sleep of its own).
    go = tmp_path / "go"
    sleeps = ("import os, select, sys, time\nfor _ in range(50): time.sleep(0.001)\n"
              "while not os.path.exists(sys.argv[1]): select.select([], [], [], 0.01)\n"
              "time.sleep(4.32); time.sleep(4.8)")
    w = Watch(dict(os.environ, SCLAT_RUN_DIR=str(tmp_path)), "--summary", "--policy",
              str(policy), "--", "/usr/bin/python3", "-c", sleeps, str(go))
    try:
        # The long sleeps begin once clock_nanosleep is on every CPU's short path.
        nr = counted(w, "clock_nanosleep", 50)["nr"]
        assert wait_until(lambda: 0 not in lanes_slot_of(w.proc.pid, nr), timeout=20), \
            lanes_slot_of(w.proc.pid, nr)
        go.write_text("")
    except BaseException:
        w.stop()
        raise
    first = counted_then_done(w, "clock_nanosleep", 51)
    assert first["calls"] == 51 and first["outliers"] == 0, first
    assert 4.0e9 <= first["p999_ns"] <= 5.0e9, first
    slow = [e for e in w.outliers() if e.get("syscall") == "clock_nanosleep"]
    assert len(slow) == 1 and 4.8e9 <= slow[0]["latency_ns"] <= 5.3e9, slow
    summary = [e["summary"] for _, e in w.find(lambda e: "summary" in e)]
    assert len(summary) == 1, w.events
    calls = {s["syscall"]: s["calls"] for s in summary[0]["per_syscall"]}
    assert calls.get("clock_nanosleep") == 52, summary


# --- 3: signals, restarts, execve, exit_group ------------------------------------------

def test_signals_exec_and_exit_group(root, tmp_path):
    """Reads restarted by SA_RESTART and failed with EINTR, sleeps cut short, a sleep
    stopped and continued in restart_syscall, the rt_sigreturn of every handler, a failed
    execve, an execve from a thread while three others are blocked, then exit_group while
    threads are blocked: the counts match (execve once more: sclat's own exec of the
    command), the calls that never return are not counted, and each blocked call is an
    outlier of a latency that fits in the run."""
    report = tmp_path / "report"
    r, start, end = watch_command("--threshold", "1us", "--", workload("churn"), "signals",
                                  "--report", str(report))
    assert r.returncode == 0, r.stderr
    outliers, summary = outliers_and_summary(r.stdout)
    made, images, _ = churn_report(report)
    # The stopper child, and the process before and after its execve.
    assert sorted(collections.Counter(i["pid"] for i in images).values()) == [1, 2], images
    counted = calls_by_nr(summary)
    execve = nr_named(summary, "execve")
    made[execve] += 1
    assert count_mismatches(made, counted) == {}
    named = {s["syscall"] for s in summary["per_syscall"]}
    assert not named & {"exit", "exit_group"}, summary
    assert impossible_latencies(outliers, start, end) == []
    assert {e["threshold_ns"] for e in outliers} == {1000}
    # Every wait was seen blocked (through /proc) before it was ended: all are outliers.
    for name in ("readv", "nanosleep", "restart_syscall", "ppoll"):
        nr = nr_named(summary, name)
        slow = [e for e in outliers if e["nr"] == nr]
        assert len(slow) == made[nr], (name, slow)


# --- 4: thousands of short-lived threads -----------------------------------------------

SPAWN_THREADS = 5000


def spawn_checked(r, report, start, end):
    assert r.returncode == 0, r.stderr
    outliers, summary = outliers_and_summary(r.stdout)
    made, _, _ = churn_report(report)
    assert len(made) == 3 and min(made.values()) >= SPAWN_THREADS, made
    assert count_mismatches(made, calls_by_nr(summary)) == {}
    assert impossible_latencies(outliers, start, end) == []
    assert not {s["syscall"] for s in summary["per_syscall"]} & {"exit", "exit_group"}


def test_thread_churn_pid_scope(root, tmp_path):
    """5000 threads, each 3 getppid and a sched_yield, 8 alive at a time: exact counts,
    and pthread_create's clone3 counted once, in the parent (the child returns from it
    without having entered it)."""
    report = tmp_path / "report"
    r, start, end = watch_command("--threshold", "1ms", "--", workload("churn"), "spawn",
                                  "--threads", str(SPAWN_THREADS), "--report", str(report))
    spawn_checked(r, report, start, end)


def test_thread_churn_comm_scope(root, tmp_path):
    """The same with --comm: no scope decision at sys_enter, so a thread's storage is
    first created by sched_switch, for the exiting ones in their last switch."""
    report = tmp_path / "report"
    r, start, end = watch_around([workload("churn"), "spawn", "--threads", str(SPAWN_THREADS),
                                  "--report", str(report)], "--threshold", "1ms",
                                 "--comm", "churn")
    spawn_checked(r, report, start, end)


# --- 5: attach and detach under load ----------------------------------------------------

class Busy:
    """`churn busy`: threads calling getppid, sched_yield, nanosleep and sched_setaffinity,
    counting each call started and finished in a file this reads."""

    def __init__(self, path, *args, threads=3):
        self.path = str(path)
        self.proc = subprocess.Popen([workload("churn"), "busy", "--threads", str(threads),
                                      "--counters", self.path, *args],
                                     stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout.readline() == "ready\n"

    def counters(self):
        """({nr: calls started}, {nr: calls finished})."""
        with open(self.path, "rb") as f:
            m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
            finished = struct.unpack_from("<%dQ" % NR_MAX, m, 8 * NR_MAX)
            started = struct.unpack_from("<%dQ" % NR_MAX, m, 0)
            m.close()
        return ({nr: n for nr, n in enumerate(started) if n},
                {nr: n for nr, n in enumerate(finished) if n})

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)


@pytest.fixture
def busy_pair(root, tmp_path):
    """Two busy processes: one to trace, one beside it making the same calls."""
    inside = Busy(tmp_path / "inside")
    try:
        outside = Busy(tmp_path / "outside")
    except BaseException:
        inside.stop()
        raise
    yield inside, outside
    inside.stop()
    outside.stop()


def attached_ids(p):
    """The ids of the programs and links sclat process p holds once all are attached."""
    links = wait_until(lambda: fully_attached(p.pid), timeout=20)
    assert links, "sclat never attached its programs"
    return prog_ids_of(p.pid) & set(sclat_progs()), links


def left_behind(progs, links):
    def left():
        return (progs & set(sclat_progs())) | (links & set(bpf_links()))
    wait_until(lambda: not left(), timeout=10)
    return left()


def test_attach_detach_under_load(busy_pair, tmp_path):
    """10 sclat runs against busy multi-threaded processes: by -p on a process already
    running (stopped by SIGINT or SIGTERM), and with a busy command of its own while
    both run beside it. Never a call more than the traced process made while sclat ran;
    exactly its calls when it ran under sclat from start to end; never a program or a
    link left once sclat is gone."""
    inside, outside = busy_pair
    for i in range(10):
        if i % 2 == 0:
            _, finished_before = inside.counters()
            p = subprocess.Popen([SCLAT, "watch", "--json", "--summary", "--threshold", "1s",
                                  "-p", str(inside.proc.pid)], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
            try:
                progs, links = attached_ids(p)
                time.sleep(0.2)
            finally:
                p.send_signal(signal.SIGINT if i % 4 == 0 else signal.SIGTERM)
                out, err = p.communicate(timeout=30)
            started_after, _ = inside.counters()
            assert p.returncode == 0, err
            _, summary = outliers_and_summary(out)
            counted = calls_by_nr(summary)
            window = {nr: n - finished_before.get(nr, 0) for nr, n in started_after.items()}
            over = {nr: (counted.get(nr, 0), n) for nr, n in window.items()
                    if counted.get(nr, 0) > n}
            assert over == {}, "run %d: counted more than made: %s" % (i, over)
            assert sum(counted.get(nr, 0) for nr in window) > 0, (i, summary)
        else:
            counters = tmp_path / ("own-%d" % i)
            p = subprocess.Popen([SCLAT, "watch", "--json", "--summary", "--threshold", "1s",
                                  "--", workload("churn"), "busy", "--threads", "3",
                                  "--duration-ms", "300", "--counters", str(counters)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            try:
                progs, links = attached_ids(p)
            finally:
                out, err = p.communicate(timeout=30)
            assert p.returncode == 0, err
            _, summary = outliers_and_summary(out)
            with open(counters, "rb") as f:
                raw = f.read()
            started = struct.unpack_from("<%dQ" % NR_MAX, raw, 0)
            made = {nr: n for nr, n in enumerate(started) if n}
            assert len(made) == 4, made
            assert count_mismatches(made, calls_by_nr(summary)) == {}, "run %d" % i
        assert left_behind(progs, links) == set(), "run %d" % i
