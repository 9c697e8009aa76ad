# SPDX-License-Identifier: GPL-2.0-only
"""Every outlier explains itself: where its time went, who woke it, where in the kernel it
waited and on what, in `sclat watch --json` and in the trace of `sclat record`.

tests/workloads/waits.c makes syscalls that are slow for a known reason and writes down
what it knows (tids, the pipe's inode, the file, the ports); each scenario runs once under
each command, and both outputs must tell the same story.
"""
import json
import os
import re
import shutil
import subprocess
import time

import pytest

from conftest import (BREAKDOWN, SCLAT, Trace, Watch, back_unseen, json_lines, kernel_events,
                      possible_cpus, run_sclat, trace_outlier, wait_until, workload)



def facts_of(path):
    with open(path) as f:
        return json.loads(f.readline())


def run_both(tmp_path, scenario, *args, threshold="5ms"):
    """`waits SCENARIO ARGS` under `sclat watch --json` then under `sclat record`:
    [(what the workload knows, its outliers)] for the JSON, then for the trace."""
    runs = []
    for how in ("watch", "record"):
        facts = tmp_path / ("%s-facts" % how)
        cmd = [workload("waits"), scenario, *args, "--report", str(facts)]
        if how == "watch":
            r = run_sclat("watch", "--json", "--threshold", threshold, "--", *cmd)
            assert r.returncode == 0, r.stderr
            outliers = [e for e in json_lines(r.stdout) if "latency_ns" in e]
        else:
            out = tmp_path / "trace"
            r = run_sclat("record", "-o", str(out), "--threshold", threshold, "--", *cmd)
            assert r.returncode == 0, r.stderr
            trace = Trace(out, keep={"sclat:syscall_outlier"})
            outliers = [trace_outlier(e["fields"]) for e in trace.events]
            # Frames and raw addresses, one for one: a trace can be symbolized elsewhere.
            for f in outliers:
                assert len(f["kernel_stack_ips"]) == len(f["kernel_stack"]), f
                assert all(ip for ip in f["kernel_stack_ips"]), f
                for key in ("user_stack_ips", "user_stack_offsets"):
                    assert len(f[key]) == len(f["user_stack"]), f
                for key in ("user_stack_binaries", "user_stack_build_ids"):
                    assert len(f[key].split(";")) == len(f["user_stack"]) or \
                        not f["user_stack"], f
        known = facts_of(facts)
        if how == "record":
            known["trace"] = str(tmp_path / "trace")
        runs.append((known, outliers))
    return runs


def the_call(outliers, syscall, tid):
    calls = [e for e in outliers if e["syscall"] == syscall and e["tid"] == tid]
    assert len(calls) == 1, (syscall, tid, outliers)
    return calls[0]


def parts_add_up(e):
    """The four parts of the breakdown (on a CPU, on a runqueue, asleep, in I/O wait) add up
    to the latency, within 1 %; the time in interrupts and the host's (steal) are part of the
    time on a CPU. (Summed with the four, the 1 % hid it until a call's interrupts took 1.7 %
    of its time.)"""
    total = sum(e["breakdown"][k] for k in BREAKDOWN[:4])
    return abs(total - e["latency_ns"]) <= e["latency_ns"] / 100 and \
        e["breakdown"]["irq_ns"] <= e["breakdown"]["on_cpu_ns"] and \
        e["breakdown"]["steal_ns"] <= e["breakdown"]["on_cpu_ns"]


def parts(e):
    """What an assertion on parts_add_up() shows: the latency, its parts, its stretches."""
    return json.dumps([e["latency_ns"], e["breakdown"], e.get("switches"), e.get("off_cpu"),
                       e.get("off_cpu_unlisted"), e.get("tid"), e.get("ts_ns")])


def on_cpu_of_stretches(e):
    """The time on a CPU between its listed stretches off the CPU: entry to the first
    switch out, each switch in to the next switch out, the last switch in to the exit."""
    on, since = 0, 0
    for s in e["off_cpu"]:
        on += s["out_ns"] - since
        since = s["in_ns"]
    return on + e["latency_ns"] - since


def stretches_are_listed(e):
    """Its first 15 stretches off the CPU are listed, in time order, the rest counted."""
    listed = e["off_cpu"]
    assert len(listed) == min(e["switches"], 15), e
    assert e["off_cpu_unlisted"] == e["switches"] - len(listed), e
    links = [0]
    for s in listed:
        links += [s["out_ns"]] + ([s["wake_ns"]] if s["wake_ns"] is not None else []) + \
            [s["in_ns"]]
    assert links == sorted(links) and links[-1] <= e["latency_ns"], e
    return listed


def thread_on_cpu(kernel, tid, begin, end):
    """What a converted kernel trace says of thread tid from begin to end: its sched_switch
    events in and out ((ts, cpu, prev_state) each), and how long it was current on a CPU."""
    ins, outs, on, since = [], [], 0, None
    for n, ts, cpu, p, _ in kernel:
        if n != "sched_switch" or ts > end:
            continue
        if p["next_tid"] == tid and p["prev_tid"] != tid:
            if ts >= begin:
                ins.append((ts, cpu))
            since = ts
        elif p["prev_tid"] == tid and p["next_tid"] != tid:
            if ts >= begin:
                outs.append((ts, cpu, p["prev_state"]))
            if since is not None and ts > begin:
                on += ts - max(since, begin)
            since = None
    if since is not None:
        on += end - max(since, begin)
    return ins, outs, on


def has_frame(stack, function):
    """Whether a symbolized kernel stack ("function+0xoff [module]") has a frame in function,
    or in one named after it (6.18's anon_pipe_read for pipe_read)."""
    return any(function in frame.split("+")[0] for frame in stack)


@pytest.fixture(scope="module")
def pipe_runs(root, lttng_daemon, tmp_path_factory):
    lttng_daemon.start()
    return run_both(tmp_path_factory.mktemp("pipe"), "pipe")


def test_pipe_reader_sleeps_and_names_its_writer_and_pipe(pipe_runs):
    """A read of a pipe that a writer thread fills 20 ms later: the read slept for nearly
    all of it, on the pipe's real inode, in pipe_read, and the writer woke it."""
    for facts, outliers in pipe_runs:
        e = the_call(outliers, "read", facts["reader_tid"])
        assert e["latency_ns"] >= 15_000_000, e
        assert e["breakdown"]["sleep_ns"] >= 0.95 * e["latency_ns"], e
        assert parts_add_up(e), parts(e)
        assert e["switches"] >= 1, e
        assert e["target"] == "pipe:[%d]" % facts["pipe_ino"], e
        assert e["waker"] == {"pid": e["pid"], "tid": facts["writer_tid"], "comm": "writer"}, e
        assert has_frame(e["kernel_stack"], "pipe_read"), e["kernel_stack"]


def test_pipe_reader_lists_when_it_slept_and_where(pipe_runs):
    """The read left its CPU (the one the workload pinned it to) as soon as it found the
    pipe empty, asleep until the writer's write woke it 20 ms later, and came back there:
    so say watch's JSON and the trace, and the time on the CPU around it is on_cpu_ns."""
    for facts, outliers in pipe_runs:
        e = the_call(outliers, "read", facts["reader_tid"])
        listed = stretches_are_listed(e)
        woken = [s for s in listed if s["by_waker"]]
        assert len(woken) == 1, e
        s = woken[0]
        assert s["kind"] == "sleep" and s["out_ns"] < 1_000_000, e
        assert s["wake_ns"] >= 15_000_000 and s["in_ns"] >= s["wake_ns"], e
        assert s["cpu"] == s["in_cpu"] == facts["cpu"] == e["cpu"], e
        assert on_cpu_of_stretches(e) == e["breakdown"]["on_cpu_ns"], e


def test_converted_trace_shows_the_pipe_reader_asleep_until_its_writer(pipe_runs, tmp_path):
    """sclat convert places the read's real switches: its thread is switched out of its CPU
    (prev_state S) within 1 ms of the read's entry, woken at the recorded time by the writer
    (sched_waking names it), and switched back in on its CPU when the trace says."""
    facts, outliers = pipe_runs[1]
    e = the_call(outliers, "read", facts["reader_tid"])
    s = [s for s in e["off_cpu"] if s["by_waker"]][0]
    out = tmp_path / "kernel"
    r = run_sclat("convert", facts["trace"], "-o", str(out))
    assert r.returncode == 0, r.stderr
    kernel = kernel_events(out)
    entry, exit_ = e["entry_ts"], e["entry_ts"] + e["latency_ns"]
    ins, outs, _ = thread_on_cpu(kernel, e["tid"], entry, exit_)
    assert (entry + s["out_ns"], facts["cpu"], 1) in outs, outs
    assert outs[0][0] - entry < 1_000_000, outs
    assert (entry + s["in_ns"], facts["cpu"]) in ins, ins
    assert s["in_ns"] - s["out_ns"] >= 15_000_000, s
    wakes = [(n, ts, cpu, p) for n, ts, cpu, p, _ in kernel
             if n in ("sched_waking", "sched_wakeup") and p["tid"] == e["tid"]]
    assert [(n, ts) for n, ts, _, _ in wakes] == [("sched_waking", entry + s["wake_ns"]),
                                                    ("sched_wakeup", entry + s["wake_ns"])]
    waking = wakes[0][3]
    assert (waking["waker_tid"], waking["waker_comm"]) == (facts["writer_tid"], "writer")
    assert waking["target_cpu"] == facts["cpu"]


@pytest.fixture(scope="module")
def fsync_runs(root, lttng_daemon, tmp_path_factory):
    lttng_daemon.start()
    tmp = tmp_path_factory.mktemp("fsync")
    # /var/tmp is on disk where /tmp may be a tmpfs, whose fsync waits for nothing.
    data = os.path.join("/var/tmp", "sclat-test-fsync-%d" % os.getpid())
    try:
        return run_both(tmp, "fsync", "--file", data, threshold="1ms")
    finally:
        if os.path.exists(data):
            os.unlink(data)


def test_fsync_waits_on_io_for_its_file(fsync_runs):
    """fsync of 4 MiB just written under /var/tmp: its target is the file's path and part
    of its time is I/O wait (D state)."""
    for facts, outliers in fsync_runs:
        e = the_call(outliers, "fsync", facts["tid"])
        assert e["target"] == facts["file"], e
        assert e["breakdown"]["io_wait_ns"] > 0, e
        assert parts_add_up(e), parts(e)


def preempt_calls(facts, outliers, threshold_ns):
    """The getrandom() calls the preempt workload made, each with its outlier or None, and
    the call that was preempted as often as it was asked to. Every outlier of its thread is
    one of its calls (entered and returned between the call's own clock readings, with its
    return value). By its own clock, a call under the threshold is no outlier, and one past it
    by 10 ms more (a preemption just outside the call may add a slice) is one."""
    assert facts["reached"], facts
    got = [e for e in outliers if e["syscall"] == "getrandom" and e["tid"] == facts["tid"]]
    pairs = []
    for c in facts["calls"]:
        mine = [e for e in got if c["t0_ns"] <= e["ts_ns"] and
                e["ts_ns"] + e["latency_ns"] <= c["t1_ns"]]
        assert len(mine) <= 1, (c, mine)
        e = mine[0] if mine else None
        took = c["t1_ns"] - c["t0_ns"]
        if took < threshold_ns:
            assert e is None, (c, e)
        elif took >= threshold_ns + 10_000_000:
            assert e is not None, (c, facts["calls"], got)
        if e:
            assert e["ret"] == c["ret"], (c, e)
            # The kernel's own count of its switches bounds sclat's.
            assert e["switches"] <= c["nivcsw"] + c["nvcsw"], (c, e)
            got.remove(e)
        pairs.append((c, e))
    assert not got, ("outliers of no call", got, facts["calls"])
    assert pairs[-1][1] is not None, pairs[-1]
    return pairs, pairs[-1][1]


@pytest.fixture(scope="module")
def preempt_runs(root, lttng_daemon, tmp_path_factory):
    """getrandom() against a hog, in calls that grow until one is preempted 20 times or more:
    past the 15 stretches an outlier lists, whatever the machine's speed (the scheduler cuts
    a call by time: 30 MiB took some 25 preemptions here, 12 to 14 on a faster machine)."""
    lttng_daemon.start()
    return run_both(tmp_path_factory.mktemp("preempt"), "preempt", "--min-switches", "20")


def test_preempted_call_waits_on_the_runqueue(preempt_runs):
    """getrandom() while a thread spins on its CPU: each call slower than the threshold is an
    outlier, none faster; the calls were preempted, so part of their time is runqueue wait,
    switches are counted, and no waker ended it."""
    for facts, outliers in preempt_runs:
        calls, longest = preempt_calls(facts, outliers, 5_000_000)
        for _, e in calls:
            if e:
                assert parts_add_up(e), parts(e)
                assert e["breakdown"]["sleep_ns"] == e["breakdown"]["io_wait_ns"] == 0, e
                assert e["target"] is None, e
        assert longest["breakdown"]["runqueue_ns"] > 0 and longest["switches"] > 0, longest


def test_preempted_call_lists_its_first_switches(preempt_runs):
    """getrandom() against a hog, preempted 20 times or more: the first 15 stretches are
    listed (runnable, never woken, on the CPU both are pinned to), the rest are counted."""
    for facts, outliers in preempt_runs:
        calls, longest = preempt_calls(facts, outliers, 5_000_000)
        for _, e in calls:
            if e:
                for s in stretches_are_listed(e):
                    assert s["kind"] == "runqueue" and s["wake_ns"] is None, e
                    assert s["cpu"] == s["in_cpu"] == facts["cpu"], e
        # The call that went past the list: the cap and the count of the rest are exercised.
        assert longest["switches"] > 15, [(c["nivcsw"], e and e["switches"]) for c, e in calls]


@pytest.fixture(scope="module")
def short_preempt_runs(root, lttng_daemon, tmp_path_factory):
    """getrandom() against the hog, in calls that grow until one is preempted 3 to 12 times:
    a few times, few enough to list."""
    lttng_daemon.start()
    return run_both(tmp_path_factory.mktemp("preempt-short"), "preempt", "--min-switches", "3",
                    "--max-switches", "12", threshold="1ms")


def test_converted_trace_has_a_switch_pair_per_preemption(short_preempt_runs, tmp_path):
    """A call preempted a few times: every switch is listed, the time on the CPU between
    them is on_cpu_ns within 1 %, and the converted trace switches its thread out and back
    in as many times as it was preempted, on its CPU, current for that same time."""
    facts, outliers = short_preempt_runs[1]
    calls, last = preempt_calls(facts, outliers, 1_000_000)
    out = tmp_path / "kernel"
    r = run_sclat("convert", facts["trace"], "-o", str(out))
    assert r.returncode == 0, r.stderr
    kernel = kernel_events(out)
    for _, e in calls:
        if e is None:
            continue
        listed = stretches_are_listed(e)
        if e["off_cpu_unlisted"] or not e["switches"]:
            continue
        on_cpu = e["breakdown"]["on_cpu_ns"]
        assert abs(on_cpu_of_stretches(e) - on_cpu) <= on_cpu / 100, e
        entry, exit_ = e["entry_ts"], e["entry_ts"] + e["latency_ns"]
        ins, outs, on = thread_on_cpu(kernel, e["tid"], entry, exit_)
        assert len(outs) == len(ins) == e["switches"], (e, ins, outs)
        assert {cpu for _, cpu, _ in outs} == {cpu for _, cpu in ins} == {facts["cpu"]}
        assert all(state == 0 for _, _, state in outs), outs   # preempted: still runnable
        assert [ts - entry for ts, _, _ in outs] == [s["out_ns"] for s in listed]
        assert abs(on - on_cpu) <= on_cpu / 100, (on, on_cpu, e)
    # The last call, preempted 3 to 12 times by its own count (one of them may have been
    # just outside the call), was checked above, with several switches.
    assert 2 <= last["switches"] <= 12 and not last["off_cpu_unlisted"], \
        [(c["nivcsw"], e and e["switches"]) for c, e in calls]


@pytest.fixture(scope="module", params=["ipv4", "ipv6"])
def tcp_runs(request, root, lttng_daemon, tmp_path_factory):
    lttng_daemon.start()
    args = ["--ipv6"] if request.param == "ipv6" else []
    loopback = "[::1]" if request.param == "ipv6" else "127.0.0.1"
    return loopback, run_both(tmp_path_factory.mktemp("tcp"), "tcp", *args)


def test_tcp_read_names_both_ends(tcp_runs):
    """A client's read of an answer the server sends 20 ms late: its target is the TCP
    socket, local address and port first, then the server's."""
    loopback, runs = tcp_runs
    for facts, outliers in runs:
        e = the_call(outliers, "read", facts["tid"])
        assert e["target"] == "socket:TCP %s:%d->%s:%d" % (
            loopback, facts["client_port"], loopback, facts["server_port"]), e
        assert e["breakdown"]["sleep_ns"] >= 0.5 * e["latency_ns"], e
        assert parts_add_up(e), parts(e)


@pytest.fixture(scope="module")
def refill_runs(root, lttng_daemon, tmp_path_factory):
    lttng_daemon.start()
    return run_both(tmp_path_factory.mktemp("refill"), "refill")


def test_a_call_that_blocks_again_names_the_waker_of_its_longest_block(refill_runs):
    """One write() into a full pipe, freed first by a thread 30 ms later, then by another
    5 ms after that: the waker is the first thread, whose note the second's wake-up came
    after, and the longest block listed is the one it ended."""
    for facts, outliers in refill_runs:
        e = the_call(outliers, "write", facts["writer_tid"])
        assert e["switches"] >= 2, e
        assert e["waker"] and e["waker"]["tid"] == facts["first_tid"], e
        assert e["waker"]["comm"] == "first", e
        listed = stretches_are_listed(e)
        longest = [s for s in listed if s["by_waker"]]
        assert len(longest) == 1 and longest[0] is listed[0], e
        assert longest[0]["in_ns"] - longest[0]["out_ns"] >= 25_000_000, e
        assert parts_add_up(e), parts(e)


def wake_slots():
    """sclat's count of wakers' notes on this machine (wake_slots() in user/kernel/probes.c):
    256 per possible CPU, 1024 at least, a power of two."""
    ncpus = possible_cpus()
    n = 1024
    while n < ncpus * 256 and n < 1 << 20:
        n <<= 1
    return n


def wake_slot(tid, slots):
    """The slot of tid's waker's note (wake_note_of() in kern-bpf/sclat.bpf.c)."""
    return ((tid * 0x9E3779B97F4A7C15) % (1 << 64) >> 32) & (slots - 1)


def test_a_waker_whose_note_is_taken_before_it_is_read_is_lost_and_counted(root, tmp_path):
    """A pipe's reader is woken by its writer, then kept on the runqueue 40 ms by a FIFO hog
    on its CPU, which meanwhile wakes a thread whose tid hashes to the reader's slot: that
    wake-up's note takes the slot before the reader reads its own. The read names no waker
    (neither the hog nor the colliding thread), and sclat status counts the waker lost."""
    facts_path, done = tmp_path / "facts", tmp_path / "done"
    w = Watch(dict(os.environ, SCLAT_RUN_DIR=str(tmp_path)), "--summary", "--threshold", "5ms",
              "--", "sh", "-c", "%s lost --report %s && touch %s && exec sleep 30" % (
                  workload("waits"), facts_path, done))
    try:
        assert wait_until(done.exists, timeout=60), "".join(w.stderr)
        facts = facts_of(facts_path)

        def read_out():
            return [e for e in w.outliers()
                    if e.get("syscall") == "read" and e["tid"] == facts["reader_tid"]]
        assert wait_until(read_out, timeout=10), (w.outliers(), "".join(w.stderr))

        def lost():
            st = w.try_status()
            return st if st and st["explain"]["wakers_lost"] >= 1 else None
        st = wait_until(lost, timeout=10, step=0.1) or w.try_status()
    finally:
        w.stop()
    slots = wake_slots()
    assert facts["slots"] == slots, facts
    assert wake_slot(facts["colliding_tid"], slots) == \
        wake_slot(facts["reader_tid"], slots) == facts["slot"], facts
    e = the_call([e for e in w.outliers() if "latency_ns" in e], "read", facts["reader_tid"])
    assert e["waker"] is None, (e["waker"], facts)
    assert e["breakdown"]["runqueue_ns"] >= 25_000_000, e
    assert e["cpu"] == facts["cpu"], e
    assert st and st["explain"]["wakers_lost"] >= 1, st and st["explain"]
    # Said again when the tracer ends, not lost with it: in the summary and on stderr.
    summary = [e["summary"] for _, e in w.find(lambda e: "summary" in e)]
    assert len(summary) == 1 and summary[0]["wakers_lost"] >= st["explain"]["wakers_lost"], \
        summary
    lost_line = [l for l in w.stderr if "wakers lost" in l]
    assert len(lost_line) == 1 and \
        int(lost_line[0].split(", ")[1].split()[0]) == summary[0]["wakers_lost"], w.stderr


def test_explaining_cost_is_reported(root, lttng_daemon, tmp_path):
    """What explaining the outliers cost, in BPF and in userspace, is in sclat status while
    it runs, and in the trace's last sclat:overhead for all of them."""
    lttng_daemon.start()
    env = dict(os.environ, SCLAT_RUN_DIR=str(tmp_path))
    out = tmp_path / "trace"
    p = subprocess.Popen([SCLAT, "record", "-o", str(out), "--threshold", "5ms", "--", "sh",
                          "-c", "%s pipe --report %s && sleep 3" % (
                              workload("waits"), tmp_path / "facts")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        def explained():
            st = subprocess.run([SCLAT, "status", "--json", "--pid", str(p.pid)],
                                capture_output=True, text=True, env=env, timeout=30)
            if st.returncode:
                return None
            st = json.loads(st.stdout)
            return st if st["totals"]["outliers"] >= 1 else None
        st = wait_until(explained, timeout=20, step=0.2)
        assert st, "no outlier in sclat status"
        assert st["explain"]["bpf_ns_per_outlier"] > 0, st["explain"]
        assert st["explain"]["user_ns_per_outlier"] > 0, st["explain"]
        assert st["explain"]["bpf_ns"] >= st["explain"]["bpf_ns_per_outlier"], st["explain"]
    finally:
        r_out, r_err = p.communicate(timeout=60)
    assert p.returncode == 0, r_err
    trace = Trace(out, keep={"sclat:overhead", "sclat:syscall_outlier", "sclat:session_end"})
    last = trace.named("sclat:overhead")[-1]["fields"]
    end = trace.named("sclat:session_end")[-1]["fields"]
    outliers = [e["fields"] for e in trace.named("sclat:syscall_outlier")]
    assert last["outliers"] == len(outliers) >= 1, last
    assert last["explain_bpf_ns"] > 0 and last["explain_user_ns"] > 0, last
    # Its read's waker was read back from the note the writer left, unless another
    # thread's wake-up took the note's slot first (a busy machine): then it is counted lost.
    facts = facts_of(tmp_path / "facts")
    reads = [e for e in outliers if e["syscall"] == "read" and e["tid"] == facts["reader_tid"]]
    assert len(reads) == 1, outliers
    assert (reads[0]["waker_tid"], reads[0]["waker_comm"]) == (facts["writer_tid"], "writer") \
        or (reads[0]["waker_tid"] == 0 and end["wakers_lost"] >= 1), (reads[0], end)


def function_of(frame):
    """The function of a user frame ("slow_read.constprop.0+0xe (waits) waits.c:98" ->
    "slow_read"), without the suffix of a gcc clone; None for "binary+0xoff" or an address."""
    m = re.match(r"([^+ ]+)\+0x[0-9a-f]+ \(", frame)
    return m.group(1).split(".")[0] if m else None


def build_id_of(path):
    out = subprocess.run(["readelf", "-n", path], capture_output=True, text=True,
                         check=True).stdout
    return re.search(r"Build ID: ([0-9a-f]+)", out).group(1)


def test_pipe_read_user_stack_is_slow_read_handle_request_main(pipe_runs):
    """The program is built -O2 -fomit-frame-pointer: unwound with its CFI, the read's user
    stack goes from libc's wrapper through slow_read, handle_request and main, each named
    with its source line."""
    prog = workload("waits")
    for facts, outliers in pipe_runs:
        e = the_call(outliers, "read", facts["reader_tid"])
        names = [function_of(f) for f in e["user_stack"]]
        assert names[0] == "read" and "(libc.so" in e["user_stack"][0], e["user_stack"]
        assert names[1:4] == ["slow_read", "handle_request", "main"], e["user_stack"]
        for f in e["user_stack"][1:4]:
            assert re.search(r" \(waits\) tests/workloads/waits\.c:\d+$", f), f
        assert e["user_stack_dropped"] is False, e


def test_trace_keeps_what_symbolizes_the_user_stack_again(pipe_runs):
    """Per frame the trace has the binary, its build-id and the offset in it: addr2line
    names slow_read from them alone."""
    prog = workload("waits")
    _, outliers = pipe_runs[1]
    e = [e for e in outliers if e["syscall"] == "read" and e["user_stack"]][0]
    binaries = e["user_stack_binaries"].split(";")
    build_ids = e["user_stack_build_ids"].split(";")
    assert binaries[1] == prog and build_ids[1] == build_id_of(prog), e
    out = subprocess.run(["addr2line", "-f", "-e", prog, hex(e["user_stack_offsets"][1])],
                         capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[0].split(".")[0] == "slow_read", out


def test_watch_text_ends_with_the_program_frame_that_made_the_call(root, tmp_path):
    """WHY ends with the first frame of the program's own code, past libc's wrapper."""
    r = run_sclat("watch", "--threshold", "5ms", "--", workload("waits"), "pipe", "--report",
                  str(tmp_path / "facts"))
    assert r.returncode == 0, r.stderr
    reads = [l for l in r.stdout.splitlines() if " read " in l and "pipe:[" in l]
    assert len(reads) == 1, r.stdout
    assert re.search(r" <- slow_read(\.[a-z]+\.\d+)* \(waits\)$", reads[0]), reads[0]


def test_no_user_stack_leaves_the_stacks_out(root, tmp_path):
    """--no-user-stack: the outliers come without a user stack, and none is counted."""
    r = run_sclat("watch", "--json", "--no-user-stack", "--threshold", "5ms", "--",
                  workload("waits"), "pipe", "--report", str(tmp_path / "facts"))
    assert r.returncode == 0, r.stderr
    reads = [e for e in json_lines(r.stdout) if e.get("syscall") == "read"]
    assert reads and all(e["user_stack"] == [] for e in reads), reads
    assert all(e["user_stack_dropped"] is False for e in reads), reads


def debian_binary(name):
    path = shutil.which(name)
    assert path, "%s not installed" % name
    return os.path.realpath(path)


def command_runs(tmp_path, nr_name, threshold, *cmd):
    """cmd under `sclat watch --json` then `sclat record`: its outliers of syscall nr_name."""
    r = run_sclat("watch", "--json", "--threshold", threshold, "--", *cmd)
    assert r.returncode == 0, r.stderr
    runs = [[e for e in json_lines(r.stdout) if e.get("syscall") == nr_name]]
    out = tmp_path / "trace"
    r = run_sclat("record", "-o", str(out), "--threshold", threshold, "--", *cmd)
    assert r.returncode == 0, r.stderr
    trace = Trace(out, keep={"sclat:syscall_outlier"})
    runs.append([trace_outlier(e["fields"]) for e in trace.events
                 if e["fields"]["syscall"] == nr_name])
    return runs


def assert_reaches_program(e, wrapper, program, trace):
    """From libc's syscall wrapper into the stripped program's own code (binary+0xoff, or
    a name where it has a symbol), with the program's build-id in the trace."""
    frames = e["user_stack"]
    assert function_of(frames[0]) == wrapper and "(libc.so" in frames[0], frames
    base = os.path.basename(program)
    own = [i for i, f in enumerate(frames)
           if re.match(r"(%s\+0x[0-9a-f]+$|\S+\+0x[0-9a-f]+ \(%s\))" % (base, base), f)]
    assert own, frames
    if trace:
        binaries = e["user_stack_binaries"].split(";")
        build_ids = e["user_stack_build_ids"].split(";")
        for i in own:
            assert binaries[i] == program and build_ids[i] == build_id_of(program), e


def test_dd_fsync_user_stack_reaches_dd(root, lttng_daemon, tmp_path):
    lttng_daemon.start()
    dd = debian_binary("dd")
    data = os.path.join("/var/tmp", "sclat-test-dd-%d" % os.getpid())
    try:
        runs = command_runs(tmp_path, "fsync", "1ms", dd, "if=/dev/zero", "of=" + data,
                            "bs=64k", "count=64", "conv=fsync")
    finally:
        if os.path.exists(data):
            os.unlink(data)
    for i, outliers in enumerate(runs):
        assert len(outliers) == 1, outliers
        assert_reaches_program(outliers[0], "fsync", dd, trace=i == 1)


def test_sync_user_stack_reaches_sync(root, lttng_daemon, tmp_path):
    lttng_daemon.start()
    sync = debian_binary("sync")
    # Data to write back before each run, so that sync waits for the disk.
    data = os.path.join("/var/tmp", "sclat-test-sync-%d" % os.getpid())
    try:
        runs = command_runs(tmp_path, "sync", "100us", "sh", "-c",
                            "head -c 4194304 /dev/urandom > %s && %s" % (data, sync))
    finally:
        if os.path.exists(data):
            os.unlink(data)
    for i, outliers in enumerate(runs):
        assert len(outliers) == 1, outliers
        assert_reaches_program(outliers[0], "sync", sync, trace=i == 1)


@pytest.mark.parametrize("cap", ["lifted", "10"])
def test_a_burst_beyond_the_unwinder_queue_goes_out_flagged_and_counted(root, lttng_daemon,
                                                                         tmp_path, cap):
    """Every getppid() of a burst is an outlier. With the cap on stacks per CPU lifted, the
    unwinder (its first stack loads libc's symbols) falls behind, its queue fills: the
    outliers it refuses still reach the trace, at once, flagged and without a stack, and
    sclat:overhead counts them. Under a cap of 10 a second per CPU the kernel leaves the
    stack out past it, flagged and counted the same way. None is lost."""
    lttng_daemon.start()
    calls = 3000
    out = tmp_path / "trace"
    per_cpu = "1000000" if cap == "lifted" else cap
    r = run_sclat("record", "-o", str(out), "--threshold", "1ns", "--buffer-size", "64M",
                  "--user-stacks-per-cpu", per_cpu, "--", workload("callchain"), "burst",
                  str(calls), timeout=120)
    assert r.returncode == 0, r.stderr
    assert re.search(r" 0 dropped, 0 throttled$", r.stderr, re.M), r.stderr
    trace = Trace(out, keep={"sclat:syscall_outlier", "sclat:overhead"})
    events = trace.named("sclat:syscall_outlier")
    outliers = [e["fields"] for e in events]
    assert len([e for e in outliers if e["syscall"] == "getppid"]) == calls
    # By the frames' addresses: babeltrace2 2.0.4 may show an empty string field with the
    # value of an earlier event's (fixed upstream), the integers never.
    flagged = [e for e in outliers if e["user_stack_dropped"]]
    unwound = [e for e in outliers if e["user_stack_ips"]]
    assert flagged, "the queue never filled"
    assert all(not e["user_stack_ips"] for e in flagged), flagged[0]
    assert len(flagged) + len(unwound) == len(outliers)
    for e in unwound:
        if e["syscall"] == "getppid":
            assert [function_of(f) for f in e["user_stack"].split(";")[1:4]] == \
                ["slow_read", "handle_request", "main"], e["user_stack"]
    last = trace.named("sclat:overhead")[-1]["fields"]
    assert last["user_stacks_dropped"] == len(flagged), last
    assert last["user_stacks_unwound"] == last["user_stacks_queued"] == len(unwound), last
    if cap == "lifted":
        assert last["user_stack_queue_max"] == 256, last
    else:
        # At most 10 a second on each CPU, in the 1 s windows the run's outliers spanned.
        seconds = (events[-1]["ns"] - events[0]["ns"]) / 1e9
        assert 0 < len(unwound) <= 10 * os.cpu_count() * (int(seconds) + 2), \
            (len(unwound), seconds)


SLEEPERS = """
import threading, time
def sleeper():
    for _ in range(400):
        time.sleep(0.002)
threads = [threading.Thread(target=sleeper) for _ in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
"""


def test_kernel_stacks_stay_within_the_burst_guard(root, tmp_path):
    """Eight threads sleep 2 ms, 400 times each: thousands of calls a second past a 1 ms
    static threshold, each woken by its timer. Under a budget of 1 outlier a second the
    burst guard lets out 4 per CPU and window, and throttles the rest: the kernel stacks
    taken as the calls come back from their sleep are about those of the outliers that went
    out, not one per slow call, and sclat status counts the ones it left out."""
    policy = tmp_path / "policy.ini"
    policy.write_text("[global]\nbudget = 1\n[default]\nmode = static\ninitial = 1ms\n")
    done = tmp_path / "done"
    w = Watch(dict(os.environ, SCLAT_RUN_DIR=str(tmp_path)), "--policy", str(policy),
              "--no-user-stack", "--", "sh", "-c",
              "/usr/bin/python3 -c '%s' && touch %s && sleep 30" % (SLEEPERS, done))
    try:
        assert wait_until(done.exists, timeout=60), "".join(w.stderr)
        st = w.status()
    finally:
        w.stop()
    explain = st["explain"]
    # The outliers count as they are delivered, and the last ones may still be on their way
    # out (a test's pipe reader is slow on a loaded machine) when the workload ends: all of
    # them are in the totals sclat prints when it stops. The stacks are counted as of the last
    # interval before the status.
    m = re.search(r"sclat: (\d+) syscalls, (\d+) outliers, (\d+) dropped, (\d+) throttled",
                  "".join(w.stderr))
    assert m, "".join(w.stderr)
    totals = dict(zip(("syscalls", "outliers", "drops", "throttled"), map(int, m.groups())))
    assert totals["throttled"] > 1000, totals
    assert explain["kernel_stacks_skipped"] > 1000, explain
    # A stack is taken when the guard of the CPU the call ran on still has room: that
    # call's outlier then goes out, give or take one per CPU at the window's edge.
    assert 0 < explain["kernel_stacks"] <= totals["outliers"] + 8 * os.cpu_count(), \
        (explain, totals)


@pytest.mark.parametrize("threshold,sleep_ms,taken", [
    ("50ms", 1, False), ("10ms", 20, True), ("100ms", 20, False), ("100ms", 150, True)])
def test_kernel_stacks_are_taken_for_blocks_past_the_threshold(root, tmp_path, threshold,
                                                                sleep_ms, taken):
    """sched_switch takes a kernel stack as a call comes back from a block that already makes
    it slow, and for no other: eight threads sleep sleep_ms, 4 times each, under a static
    threshold. Under 67 ms the CPU's page has the threshold (in steps of 1 us); above it, it
    is looked up. Every call past the threshold is an outlier with a stack; none under it
    costs one. The calls under it are well under it (1 ms under 50 ms, 20 ms under 100 ms):
    a loaded machine wakes a sleep late, never that late. A sleep whose switch back the kernel
    did not trace (this VM's host holds a CPU untraced now and then) has no stack to take:
    its outlier shows that (no wake-up, off the CPU up to the exit, no waker) and the run
    counts it in backs_unseen."""
    policy = tmp_path / "policy.ini"
    policy.write_text("[global]\nbudget = 0\n[default]\nmode = static\ninitial = %s\n"
                      % threshold)
    done = tmp_path / "done"
    sleepers = SLEEPERS.replace("range(400)", "range(4)").replace(
        "time.sleep(0.002)", "time.sleep(%g)" % (sleep_ms / 1000))
    w = Watch(dict(os.environ, SCLAT_RUN_DIR=str(tmp_path)), "--policy", str(policy),
              "--no-user-stack", "--", "sh", "-c",
              "/usr/bin/python3 -c '%s' && touch %s && exec sleep 30" % (sleepers, done))
    def with_stack():
        return [e for e in w.outliers() if e["kernel_stack"]]

    def unseen():
        return [e for e in w.outliers() if e["syscall"] == "clock_nanosleep" and back_unseen(e)]

    try:
        assert wait_until(done.exists, timeout=60), "".join(w.stderr)
        # Each stack taken is an outlier's (sh's wait4s are too), counted as of the last
        # interval.
        assert wait_until(lambda: w.status()["explain"]["kernel_stacks"] == len(with_stack())
                          and w.status()["explain"]["backs_unseen"] >= len(unseen()),
                          timeout=10), (w.status()["explain"], w.outliers())
        explain = w.status()["explain"]
    finally:
        w.stop()
    # python's: the sleep that sh becomes is ended by the stop, an outlier then.
    sleeps = [e for e in w.outliers()
              if e["syscall"] == "clock_nanosleep" and e["comm"] == "python3"]
    if taken:
        assert len(sleeps) >= 32, len(sleeps)
        bare = [e for e in sleeps if not e["kernel_stack"]]
        assert all(e in unseen() for e in bare), bare
        # Rare: most blocks are seen back.
        assert len(bare) <= len(sleeps) // 4, (explain, bare)
    else:
        assert not sleeps, sleeps[:2]
    assert explain["kernel_stacks_skipped"] == 0, explain
