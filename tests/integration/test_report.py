# SPDX-License-Identifier: GPL-2.0-only
"""sclat report / sclat convert and the babeltrace2 plugin behind them.

Against the committed fixture (recorded by sclat record, see tests/fixtures/README)
diffed with expected outputs, checked against what the trace holds (read with
python3-bt2, independently of the plugin), and against fresh recordings.
"""
import bisect
import collections
import errno
import json
import os
import re
import shutil
import struct
import subprocess
import tempfile

import bt2
import pytest

from conftest import (EPOCH_S, ROOT, S, SCLAT, SCOPE_PIDS_MAX, Trace, kernel_events,
                      run_sclat, synthetic_outlier, workload, write_synthetic_trace)

FIXTURES = os.path.join(ROOT, "tests", "fixtures")
TRACE = os.path.join(FIXTURES, "sclat-trace")
PLUGIN_DIR = os.path.join(ROOT, ".output", "plugins")
LAMI = os.path.join(ROOT, "tracer-plugins", "tracecompass", "sclat-lami")

# (expected file, sclat report options, the same as sink.sclat.report parameters)
CASES = [
    ("report-syscall.txt.expected", [], ""),
    ("report-process.txt.expected", ["--by", "process", "--top", "3"], 'by="process",top=3'),
    ("report-thread.txt.expected", ["--by", "thread", "--top", "0"], 'by="thread",top=0'),
    ("report-syscall.json.expected", ["--json"], 'format="json"'),
    ("report-filtered.json.expected",
     ["--json", "--by", "thread", "--syscall", "clock_nanosleep", "--min-latency", "2100us",
      "--top", "3"],
     'format="json",by="thread",syscall="clock_nanosleep",min-latency="2100us",top=3'),
]


def expected(name):
    with open(os.path.join(FIXTURES, name)) as f:
        return f.read()


def clock_epoch_ns(clock_class, value):
    """ns since the epoch of a value of a 1 GHz clock: what Trace Compass shows for it."""
    assert clock_class.frequency == 10**9 and clock_class.origin_is_unix_epoch
    return clock_class.offset.seconds * 10**9 + clock_class.offset.cycles + value


OFF_CPU_FIELDS = ("off_cpu_cpu", "off_cpu_kind", "off_cpu_out_ts", "off_cpu_wake_ts",
                  "off_cpu_in_ts", "off_cpu_in_cpu")


def entry_cpu(o):
    """The CPU an outlier entered on: the one it first left, if it lists its stretches off
    the CPU; else the one it exited on."""
    return o["off_cpu_cpu"][0] if o["off_cpu_cpu"] else o["cpu"]


def outliers(path):
    """Every sclat:syscall_outlier of a trace, as dicts, read with bt2. entry_epoch_ns is
    entry_ts by the trace's clock (its offset is LTTng's), as readers compute it."""
    out = []
    for msg in bt2.TraceCollectionMessageIterator(path):
        if type(msg) is bt2._EventMessageConst and msg.event.name == "sclat:syscall_outlier":
            p = msg.event.payload_field
            o = {k: (str(p[k]) if k in ("syscall", "comm") else
                     [int(a) for a in p[k]] if k == "args" else int(p[k]))
                 for k in ("syscall", "pid", "tid", "comm", "cpu", "entry_ts", "latency_ns",
                           "ret", "args")}
            o["entry_epoch_ns"] = clock_epoch_ns(msg.default_clock_snapshot.clock_class,
                                                 o["entry_ts"])
            # Trace version 7: its stretches off the CPU, one list per field.
            for k in OFF_CPU_FIELDS:
                o[k] = [int(v) for v in p[k]] if k in p else []
            out.append(o)
    return out


def nearest_rank(sorted_vals, q):
    rank = -(-int(q * 1000) * len(sorted_vals) // 1000)
    return sorted_vals[max(rank, 1) - 1]


def errno_name(ret):
    """What a report names a return value's errno: the name of -ret when negative."""
    return errno.errorcode[-ret] if ret < 0 else None


def report_json(*args, trace=TRACE):
    r = run_sclat("report", trace, "--json", *args)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.mark.parametrize("name,opts,params", CASES, ids=[c[0] for c in CASES])
def test_report_matches_expected(name, opts, params):
    r = run_sclat("report", TRACE, *opts)
    assert r.returncode == 0, r.stderr
    assert r.stdout == expected(name)


@pytest.mark.parametrize("name,opts,params", CASES, ids=[c[0] for c in CASES])
def test_plugin_from_babeltrace2_cli_matches_expected(name, opts, params):
    cmd = ["babeltrace2", "--plugin-path=" + PLUGIN_DIR, TRACE, "-c", "sink.sclat.report"]
    if params:
        cmd += ["-p", params]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout == expected(name)


def test_report_statistics_match_the_trace():
    outs = outliers(TRACE)
    assert len(outs) >= 20
    rep = report_json("--top", "5")
    assert rep["outliers"] == rep["matched"] == len(outs)
    assert rep["lost"]["events_lost"] is False
    by = collections.defaultdict(list)
    for o in outs:
        by[o["syscall"]].append(o)
    assert {row["syscall"] for row in rep["rows"]} == set(by)
    for row in rep["rows"]:
        group = by[row["syscall"]]
        lat = sorted(o["latency_ns"] for o in group)
        assert row["count"] == len(group)
        assert (row["min_ns"], row["max_ns"]) == (lat[0], lat[-1])
        for q in ("p50", "p90", "p99"):
            assert row[q + "_ns"] == nearest_rank(lat, int(q[1:]) / 100), q
        rets = collections.Counter(o["ret"] for o in group)
        assert rets[row["top_ret"]] == max(rets.values()) == row["top_ret_count"]
        assert row["top_errno"] == errno_name(row["top_ret"])
        assert sum(b["count"] for b in row["histogram"]) == len(group)
        for b in row["histogram"]:
            assert b["count"] == sum(b["from_ns"] <= v < b["to_ns"] for v in lat)
    slowest = sorted(outs, key=lambda o: (-o["latency_ns"], o["entry_epoch_ns"]))[:5]
    assert [(t["tid"], t["latency_ns"], t["args"], t["ret"], t["errno"]) for t in rep["top"]] == \
        [(o["tid"], o["latency_ns"], o["args"], o["ret"], errno_name(o["ret"])) for o in slowest]
    # The workload's futex waits time out: the fixture has failing calls among its slowest.
    assert any(row["top_errno"] == "ETIMEDOUT" for row in rep["rows"])
    assert any(t["errno"] == "ETIMEDOUT" for t in rep["top"])


def test_report_by_process_and_thread_partition_the_outliers():
    outs = outliers(TRACE)
    for key, field in (("process", "pid"), ("thread", "tid")):
        rep = report_json("--by", key)
        counts = collections.Counter(o[field] for o in outs)
        assert {row[field]: row["count"] for row in rep["rows"]} == counts


def test_report_filters_select_the_right_outliers():
    outs = outliers(TRACE)
    tid = outs[-1]["tid"]
    mid = sorted(o["entry_epoch_ns"] for o in outs)[len(outs) // 2]
    cases = [
        (["--syscall", "clock_nanosleep"], lambda o: o["syscall"] == "clock_nanosleep"),
        (["--syscall", "sys_clock_nanosleep"], lambda o: o["syscall"] == "clock_nanosleep"),
        (["--pid", str(outs[0]["pid"])], lambda o: o["pid"] == outs[0]["pid"]),
        (["--tid", str(tid)], lambda o: o["tid"] == tid),
        (["--comm", "syscalls"], lambda o: o["comm"] == "syscalls"),
        (["--comm", "nosuchcomm"], lambda o: False),
        (["--min-latency", "2.5ms"], lambda o: o["latency_ns"] >= 2500000),
        (["--begin", str(mid)], lambda o: o["entry_epoch_ns"] >= mid),
        (["--end", "%d.%09d" % divmod(mid, 10**9)], lambda o: o["entry_epoch_ns"] <= mid),
    ]
    for opts, keep in cases:
        rep = report_json(*opts)
        want = sum(1 for o in outs if keep(o))
        assert rep["matched"] == want, opts
        assert sum(row["count"] for row in rep["rows"]) == want, opts
    assert 0 < report_json("--begin", str(mid))["matched"] < len(outs)


def test_report_options_are_validated():
    for opts, msg in ((["--by", "cpu"], "--by cpu"), (["--top", "-1"], "--top -1"),
                      (["--syscall", "clock_nanoslep"], 'did you mean "clock_nanosleep"'),
                      (["--min-latency", "5"], "--min-latency 5"),
                      (["--begin", "yesterday"], "--begin yesterday"),
                      (["--begin", "1700000001.5", "--end", "1700000000"],
                       "--begin 1700000001.5 is after --end 1700000000")):
        r = run_sclat("report", TRACE, *opts)
        assert r.returncode != 0 and msg in r.stderr and not r.stdout, opts


def test_plugin_parameters_are_validated():
    for params, msg in (('bi="thread"', 'unknown key=bi (did you mean "by"?)'),
                        ('by="cpu"', "by=cpu"), ('format="xml"', "format=xml"),
                        ("top=-3", "top=-3"), ('min-latency="fast"', "min-latency")):
        r = subprocess.run(["babeltrace2", "--plugin-path=" + PLUGIN_DIR, TRACE, "-c",
                            "sink.sclat.report", "-p", params],
                           capture_output=True, text=True, timeout=60)
        assert r.returncode != 0 and msg in r.stderr, params


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("conv") / "kernel")
    r = run_sclat("convert", TRACE, "-o", out)
    assert r.returncode == 0, r.stderr
    return out


def syscall_arg_names(name):
    """The argument names the kernel's syscall trace event gives (lttng-modules' names)."""
    fmt = "/sys/kernel/tracing/events/syscalls/sys_enter_%s/format" % name
    if not os.path.exists(fmt):
        return ["arg%d" % i for i in range(6)]
    names = []
    with open(fmt) as f:
        for line in f:
            m = re.match(r"\s*field:(.*?);", line)
            if m and "common_" not in m.group(1) and "__syscall_nr" not in m.group(1):
                names.append(re.split(r"[ *]+", m.group(1))[-1])
    return names[:6]


def check_conversion(ust_trace, kernel_trace):
    """Each outlier: one entry/exit pair at its true times, its thread current at t - 1."""
    outs = outliers(ust_trace)
    evs = kernel_events(kernel_trace)
    entries = collections.Counter((n[len("syscall_entry_"):], ts, cpu, tuple(p.values()))
                                  for n, ts, cpu, p, _ in evs if n.startswith("syscall_entry_"))
    for n, _, _, p, _ in evs:
        if n.startswith("syscall_entry_"):
            assert list(p) == syscall_arg_names(n[len("syscall_entry_"):]), n
    exits = collections.Counter((n[len("syscall_exit_"):], ts, cpu, p["ret"])
                                for n, ts, cpu, p, _ in evs if n.startswith("syscall_exit_"))
    assert entries == collections.Counter(
        (o["syscall"], o["entry_ts"], entry_cpu(o),
         tuple(o["args"][:len(syscall_arg_names(o["syscall"]))])) for o in outs)
    assert exits == collections.Counter(
        (o["syscall"], o["entry_ts"] + o["latency_ns"], o["cpu"], o["ret"]) for o in outs)
    # Events of each stream are in time order, and one stream holds one CPU.
    last, cpu_of = {}, {}
    for _, ts, cpu, _, stream in evs:
        assert ts >= last.get(stream, 0)
        last[stream] = ts
        assert cpu_of.setdefault(stream, cpu) == cpu
    # Replay sched_switch per CPU: who runs there at t - 1, as Trace Compass asks.
    switches = collections.defaultdict(list)
    for n, ts, cpu, p, _ in evs:
        if n == "sched_switch":
            prev = switches[cpu][-1][1] if switches[cpu] else 0
            assert p["prev_tid"] == prev
            switches[cpu].append((ts, p["next_tid"]))

    def current(cpu, t):
        tid = None
        for ts, nxt in switches[cpu]:
            if ts > t:
                break
            tid = nxt
        return tid

    for o in outs:
        assert current(entry_cpu(o), o["entry_ts"] - 1) == o["tid"], o
        assert current(o["cpu"], o["entry_ts"] + o["latency_ns"] - 1) == o["tid"], o
        # Its recorded stretches off the CPU: out of its CPU then, and back in then (unless
        # it left again in that very nanosecond: a switch in that sched_switch missed).
        next_out = o["off_cpu_out_ts"][1:] + [None]
        for cpu, out_ts, in_cpu, in_ts, then in zip(o["off_cpu_cpu"], o["off_cpu_out_ts"],
                                                    o["off_cpu_in_cpu"], o["off_cpu_in_ts"],
                                                    next_out):
            assert current(cpu, out_ts - 1) == o["tid"] != current(cpu, out_ts), o
            assert current(in_cpu, in_ts) == o["tid"] or in_ts == then, o
    # Every thread it names has a statedump with its process and name, before it first runs.
    dumps = [(ts, p) for n, ts, _, p, _ in evs if n == "lttng_statedump_process_state"]
    threads = {(o["tid"], o["pid"], o["comm"]) for o in outs}
    assert sorted((p["tid"], p["pid"], p["name"]) for _, p in dumps) == sorted(threads)
    for ts, p in dumps:
        assert (p["vtid"], p["vpid"]) == (p["tid"], p["pid"]), p
        first_in = min(t for n, t, _, q, _ in evs
                       if n == "sched_switch" and q["next_tid"] == p["tid"])
        assert ts <= first_in, p
    return outs, evs


def test_convert_each_outlier_is_one_entry_exit_pair_on_its_thread(converted):
    outs, evs = check_conversion(TRACE, converted)
    assert len(outs) >= 20
    assert sum(1 for e in evs if e[0].startswith("syscall_")) == 2 * len(outs)
    assert {e[0] for e in evs if not e[0].startswith("syscall_")} == \
        {"sched_switch", "lttng_statedump_process_state"}


def test_converted_trace_says_lttng_kernel(converted):
    env = {}
    for msg in bt2.TraceCollectionMessageIterator(converted):
        if type(msg) is bt2._StreamBeginningMessageConst:
            env = {k: v for k, v in msg.stream.trace.environment.items()}
            break
    assert str(env["domain"]) == "kernel"
    assert str(env["tracer_name"]) == "lttng-modules"
    assert (int(env["tracer_major"]), int(env["tracer_minor"])) == (2, 13)


def check_readers(kernel_trace):
    """babeltrace2 and babeltrace 1.5 read every event of a converted trace, silently."""
    evs = kernel_events(kernel_trace)
    assert evs
    for tool in ("babeltrace2", "babeltrace"):
        r = subprocess.run([tool, kernel_trace], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, (tool, r.stderr)
        assert "error" not in r.stderr.lower() and "warn" not in r.stderr.lower(), r.stderr
        lines = r.stdout.splitlines()
        assert len(lines) == len(evs), tool
        assert sum("syscall_entry_" in line for line in lines) == \
            sum(1 for e in evs if e[0].startswith("syscall_entry_")), tool


def test_converted_trace_reads_cleanly_with_babeltrace2_and_1_5(converted):
    check_readers(converted)


def test_convert_into_an_existing_empty_directory(tmp_path, converted):
    """OUT may be an empty directory (README): the trace lands in it, the same as in a new
    one, and the directory itself stays the user's."""
    out = tmp_path / "mine"
    out.mkdir(mode=0o750)
    before = os.stat(out)
    r = run_sclat("convert", TRACE, "-o", str(out))
    assert r.returncode == 0, r.stderr
    assert r.stderr.splitlines() == ["sclat: wrote %s" % out]
    assert sorted(os.listdir(out)) == sorted(os.listdir(converted))
    after = os.stat(out)
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)
    assert [e[:4] for e in kernel_events(str(out))] == [e[:4] for e in kernel_events(converted)]


def tracecompass_segments(kernel_trace):
    """What Trace Compass's System Call Latency analysis makes of a kernel trace. The thread
    of an event is the one its CPU's sched_switch events made current 1 ns before it; an
    entry opens its thread's call, its thread's next exit closes it. Returns the segments
    (entry ts, exit ts, tid, syscall), the entries without a thread and the exits without an
    entry; and checks on the way that no thread is current on two CPUs at once."""
    evs = kernel_events(kernel_trace)
    switches = collections.defaultdict(list)
    for n, ts, cpu, p, _ in evs:
        if n == "sched_switch":
            switches[cpu].append((ts, p["next_tid"]))

    def current(cpu, t):
        i = bisect.bisect_right([ts for ts, _ in switches[cpu]], t)
        return switches[cpu][i - 1][1] if i else None

    running = {}
    for ts in sorted({ts for sw in switches.values() for ts, _ in sw}):
        for cpu in switches:
            running[cpu] = current(cpu, ts)
        tids = [t for t in running.values() if t]
        assert len(tids) == len(set(tids)), ("a thread on two CPUs", ts, running)

    ongoing, segments, no_thread, orphans = {}, [], 0, 0
    for n, ts, cpu, _, _ in evs:
        if n.startswith("syscall_entry_"):
            tid = current(cpu, ts - 1)
            if tid is None:
                no_thread += 1
            else:
                ongoing[tid] = (ts, n[len("syscall_entry_"):])
        elif n.startswith("syscall_exit_"):
            start = ongoing.pop(current(cpu, ts - 1), None)
            if start is None:
                orphans += 1
            else:
                segments.append((start[0], ts, current(cpu, ts - 1), start[1]))
    return sorted(segments), no_thread, orphans


# Outliers that meet in time: (syscall, tid, cpu, entry, exit), ns after T0.
T0 = 10 * S
MEETING = [
    ("read", 201, 0, 100, 1000),
    ("read", 202, 1, 1000, 2000),        # enters on CPU 1 as 201 exits on CPU 0
    ("write", 203, 0, 1001, 1500),       # takes CPU 0 1 ns after 201's exit
    ("read", 201, 1, 1600, 2500),        # 201 again, now on CPU 1
    ("futex", 204, 0, 3000, 3100),
    ("futex", 204, 1, 3200, 3300),       # moves to CPU 1 while still current on CPU 0
    ("wait4", 205, 1, 3500, 4000),
    ("clock_nanosleep", 206, 0, 4000, 4400),   # enters as 205 exits, on the other CPU
    ("read", 207, 1, 4001, 4500),        # takes CPU 1 1 ns after 205's exit
]


def test_convert_attributes_every_call_when_outliers_meet(tmp_path):
    """Every outlier one Trace Compass segment on its own thread, though entries and exits
    share nanoseconds across CPUs, follow each other by 1 ns on one, and threads move."""
    trace, out = str(tmp_path / "trace"), str(tmp_path / "kernel")
    write_synthetic_trace(trace, [
        synthetic_outlier(T0 + exit_ + 5000 + i, name, tid, cpu, T0 + entry, exit_ - entry)
        for i, (name, tid, cpu, entry, exit_) in enumerate(MEETING)])
    r = run_sclat("convert", trace, "-o", out)
    assert r.returncode == 0, r.stderr
    check_conversion(trace, out)
    segments, no_thread, orphans = tracecompass_segments(out)
    assert (no_thread, orphans) == (0, 0)
    assert segments == sorted((T0 + entry, T0 + exit_, tid, name)
                              for name, tid, cpu, entry, exit_ in MEETING)
    check_readers(out)


# Outliers with stretches off the CPU, meeting others: (syscall, tid, cpu of exit, entry, exit,
# [(cpu, kind, out, wake, in, in_cpu)] ns after T0, waker: (stretch, tid, comm)).
SWITCHING = [
    # Preempted on CPU 0, back on CPU 1; asleep there, woken by 302, back on CPU 0.
    ("read", 301, 0, 100, 900, [(0, 1, 200, 0, 300, 1), (1, 2, 400, 700, 800, 0)],
     (1, 302, "writer")),
    # Asleep on CPU 1, back on CPU 0 the nanosecond 301 leaves it, in D state there.
    ("futex", 306, 1, 50, 870, [(1, 2, 60, 150, 200, 0), (0, 3, 240, 500, 850, 1)], None),
    ("write", 303, 1, 450, 600, None, None),     # on CPU 1 while 301 and 306 are off it
    ("wait4", 305, 0, 250, 280, None, None),     # on CPU 0 while 301 and 306 are off it
]


def test_convert_places_recorded_switches(tmp_path):
    """Outliers that list their stretches off the CPU: their threads leave and come back at
    the recorded times on the recorded CPUs (migrating on the way), woken at the recorded
    times, while other threads' outliers take the CPUs they left; every call stays one
    Trace Compass segment on its thread, and no thread is on two CPUs."""
    trace, out = str(tmp_path / "trace"), str(tmp_path / "kernel")
    write_synthetic_trace(trace, [
        synthetic_outlier(T0 + exit_ + 5000 + i, name, tid, cpu, T0 + entry, exit_ - entry,
                          off_cpu=[(c, k, T0 + o, T0 + w if w else 0, T0 + n, ic)
                                   for c, k, o, w, n, ic in stretches or []],
                          waker=waker)
        for i, (name, tid, cpu, entry, exit_, stretches, waker) in enumerate(SWITCHING)])
    r = run_sclat("convert", trace, "-o", out)
    assert r.returncode == 0, r.stderr
    check_conversion(trace, out)
    segments, no_thread, orphans = tracecompass_segments(out)
    assert (no_thread, orphans) == (0, 0)
    assert segments == sorted((T0 + entry, T0 + exit_, tid, name)
                              for name, tid, _, entry, exit_, _, _ in SWITCHING)
    evs = kernel_events(out)
    switches = [(ts - T0, cpu, p["prev_tid"], p["prev_state"], p["next_tid"])
                for n, ts, cpu, p, _ in evs if n == "sched_switch" and ts >= T0 + 60]
    for tid in (301, 306):
        entry, stretches = [(e, s) for _, t, _, e, _, s, _ in SWITCHING if t == tid][0]
        assert [(ts, cpu, state) for ts, cpu, prev, state, _ in switches if prev == tid] == \
            [(o, c, {1: 0, 2: 1, 3: 2}[k]) for c, k, o, _, _, _ in stretches]
        # Switched in 1 ns before its entry, then at each recorded switch in.
        assert [(ts, cpu) for ts, cpu, _, _, nxt in switches if nxt == tid and ts >= entry] == \
            [(n, ic) for _, _, _, _, n, ic in stretches]
    # In the nanosecond 301 leaves CPU 0, 306 comes in: out first.
    assert [s for s in switches if s[0] == 200 and s[1] == 0] == \
        [(200, 0, 301, 0, 0), (200, 0, 0, 1, 306)]
    wakes = [(n, ts - T0, cpu, p["tid"], p.get("waker_tid"), p.get("waker_comm"))
             for n, ts, cpu, p, _ in evs if n.startswith("sched_wak")]
    assert wakes == [("sched_waking", 150, 0, 306, 0, ""), ("sched_wakeup", 150, 0, 306, None, None),
                     ("sched_waking", 500, 1, 306, 0, ""), ("sched_wakeup", 500, 1, 306, None, None),
                     ("sched_waking", 700, 0, 301, 302, "writer"),
                     ("sched_wakeup", 700, 0, 301, None, None)]
    check_readers(out)


def test_convert_refuses_stretches_out_of_order(tmp_path):
    """A stretch off the CPU that comes back before it left is one clear error."""
    trace, out = str(tmp_path / "trace"), str(tmp_path / "kernel")
    write_synthetic_trace(trace, [synthetic_outlier(
        T0 + 10000, "read", 301, 0, T0 + 100, 800, off_cpu=[(0, 2, T0 + 500, 0, T0 + 400, 0)])])
    r = run_sclat("convert", trace, "-o", out)
    assert r.returncode != 0
    assert "stretches off the CPU out of order" in r.stderr, r.stderr
    assert len(r.stderr.splitlines()) == 1, r.stderr
    assert not os.path.exists(out)


def test_convert_segments_of_a_recording(converted):
    segments, no_thread, orphans = tracecompass_segments(converted)
    assert (no_thread, orphans) == (0, 0)
    assert segments == sorted((o["entry_ts"], o["entry_ts"] + o["latency_ns"], o["tid"],
                               o["syscall"]) for o in outliers(TRACE))


def test_convert_refuses_a_non_empty_output(tmp_path):
    (tmp_path / "x").write_text("x")
    r = run_sclat("convert", TRACE, "-o", str(tmp_path))
    assert r.returncode != 0 and str(tmp_path) in r.stderr and "not empty" in r.stderr


def truncate_streams(trace, size):
    """Cut every data stream (and index) of a copy of the fixture to size bytes."""
    for d, _, files in os.walk(trace):
        for f in files:
            if f.startswith("sclat_"):
                os.truncate(os.path.join(d, f), size)


def bad_traces(tmp_path, converted):
    empty = tmp_path / "empty"
    empty.mkdir()
    notctf = tmp_path / "notctf"
    notctf.mkdir()
    (notctf / "README").write_text("not a trace\n")
    cut_meta = tmp_path / "cut-meta"
    shutil.copytree(TRACE, cut_meta)
    for d, _, files in os.walk(cut_meta):
        if "metadata" in files:
            os.truncate(os.path.join(d, "metadata"), 300)
    cut_data = tmp_path / "cut-data"
    shutil.copytree(TRACE, cut_data)
    truncate_streams(cut_data, 100)
    # sclat's metadata and data streams without a byte: a recording stopped early.
    no_events = tmp_path / "no-events"
    shutil.copytree(TRACE, no_events)
    truncate_streams(no_events, 0)
    return [(str(tmp_path / "missing"), "no such trace"), (str(empty), "not a CTF trace"),
            (str(notctf), "not a CTF trace"), (str(notctf / "README"), "not a CTF trace"),
            (converted, "not an sclat trace"), (str(cut_meta), "truncated"),
            (str(cut_data), "not a readable CTF trace"),
            (str(no_events), "empty sclat trace (no events")]


def test_bad_traces_get_one_clear_error(tmp_path, converted):
    for path, msg in bad_traces(tmp_path, converted):
        for args in (["report", path], ["convert", path, "-o", str(tmp_path / "out")]):
            r = run_sclat(*args, timeout=30)
            assert r.returncode != 0, (args, r.stderr)
            lines = r.stderr.splitlines()
            assert len(lines) == 1 and lines[0].startswith("sclat: " + path + ": "), \
                (args, r.stderr)
            assert msg in lines[0], (args, r.stderr)
            assert not r.stdout
            assert not os.path.exists(tmp_path / "out")


def test_a_path_without_a_trace_among_others_is_an_error(tmp_path):
    """Each path given must hold a trace: one that holds none is named, not passed over."""
    empty = tmp_path / "empty"
    empty.mkdir()
    r = run_sclat("report", TRACE, str(empty), timeout=30)
    assert r.returncode == 1 and not r.stdout, r.stderr
    assert r.stderr.splitlines() == ["sclat: %s: not a CTF trace (no metadata file in it)"
                                     % empty], r.stderr


def test_folded_file_is_left_whole_when_the_trace_is_wrong(tmp_path):
    """--folded FILE is written only once the trace is read: an earlier run's stays."""
    folded = tmp_path / "stacks.folded"
    folded.write_text("earlier;run 1\n")
    r = run_sclat("report", str(tmp_path / "missing"), "--folded", str(folded), timeout=30)
    assert r.returncode == 1 and "no such trace" in r.stderr, r.stderr
    assert folded.read_text() == "earlier;run 1\n"
    r = run_sclat("report", TRACE, "--folded", str(tmp_path / "nodir" / "x.folded"))
    assert r.returncode == 1 and "cannot write the folded stacks there" in r.stderr, r.stderr


def test_a_trace_it_cannot_read_says_so(root, tmp_path):
    """A trace sclat record wrote as root, read by another user: the error is that it
    cannot be read (and what to do), not that there is no trace or that it is corrupt."""
    base = tempfile.mkdtemp(prefix="sclat-perm-", dir="/tmp")
    try:
        os.chmod(base, 0o755)
        for name, chmod in (("dir", lambda t: [os.chmod(d, 0o700) for d, _, f in os.walk(t)
                                               if "metadata" in f]),
                            ("file", lambda t: [os.chmod(os.path.join(d, "metadata"), 0o600)
                                                for d, _, f in os.walk(t) if "metadata" in f])):
            trace = os.path.join(base, name)
            shutil.copytree(TRACE, trace)
            chmod(trace)
            r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                                SCLAT, "report", trace], capture_output=True, text=True,
                               timeout=30)
            assert r.returncode == 1 and not r.stdout, (name, r.stderr)
            lines = r.stderr.splitlines()
            assert len(lines) == 1 and lines[0].startswith("sclat: %s: cannot read %s/"
                                                           % (trace, trace)), (name, r.stderr)
            assert lines[0].endswith("Permission denied (recorded as root? read it as root)"), \
                (name, r.stderr)
    finally:
        shutil.rmtree(base)


def test_fresh_recording_report_and_convert(root, lttng_sessiond, tmp_path):
    trace, info = str(tmp_path / "trace"), tmp_path / "procs.json"
    r = run_sclat("record", "-o", trace, "--threshold", "1ms", "--", workload("syscalls"),
                  "--slow", "6", "--slow-ms", "3", "--fork", "2", "--report", str(info))
    assert r.returncode == 0, r.stderr
    procs = [json.loads(line) for line in info.read_text().splitlines()]
    rep = report_json("--syscall", "clock_nanosleep", "--by", "process", trace=trace)
    # 3 ms sleeps against a 1 ms threshold: every one of them is an outlier.
    assert {row["pid"]: row["count"] for row in rep["rows"]} == {p["pid"]: 6 for p in procs}
    assert all(row["min_ns"] >= 3000000 for row in rep["rows"])
    out = str(tmp_path / "kernel")
    r = run_sclat("convert", trace, "-o", out)
    assert r.returncode == 0, r.stderr
    outs, _ = check_conversion(trace, out)
    assert len(outs) >= 18
    check_readers(out)


def test_lost_events_are_in_every_report(root, lttng_sessiond, tmp_path):
    trace = str(tmp_path / "trace")
    # Every syscall an outlier, into a 4 KiB ring buffer: the kernel must drop.
    r = run_sclat("record", "-o", trace, "--threshold", "1ns", "--buffer-size", "4K", "--",
                  workload("syscalls"), "--fast", "100000")
    assert r.returncode == 0, r.stderr
    drops = 0
    for msg in bt2.TraceCollectionMessageIterator(trace):
        if type(msg) is bt2._EventMessageConst and msg.event.name == "sclat:lost":
            drops += int(msg.event.payload_field["drops"])
    assert drops > 0
    for opts in ([], ["--by", "thread"], ["--top", "0"]):
        r = run_sclat("report", trace, *opts)
        assert r.returncode == 0 and "EVENTS LOST: %d outliers dropped" % drops in r.stdout
    rep = report_json(trace=trace)
    assert rep["lost"]["discarded"] == 0 and rep["lost"]["discarded_exact"] is True
    assert rep["lost"]["events_lost"] is True and rep["lost"]["drops"] == drops
    rep = report_json("--comm", "nosuchcomm", trace=trace)
    assert rep["matched"] == 0 and rep["lost"]["events_lost"] is True
    # Trace Compass's external analysis: its loss table.
    r = subprocess.run([LAMI, trace], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout
    lost = [t for t in json.loads(r.stdout)["results"] if t["class"] == "lost-outliers"]
    assert [[c["value"] for c in row] for row in lost[0]["data"]] == \
        [[drops, rep["lost"]["throttled"], 0, "complete"]]
    # The sclat.summary query object, from the babeltrace2 CLI.
    dirs = sorted({d for d, _, files in os.walk(trace) if "metadata" in files})
    r = subprocess.run(["babeltrace2", "--plugin-path=" + PLUGIN_DIR, "query",
                        "sink.sclat.report", "sclat.summary",
                        "-p", "inputs=[%s]" % ",".join('"%s"' % d for d in dirs)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    summary = dict(re.findall(r"^(\S+): (.*)$", r.stdout, re.M))
    assert summary["events-lost"] == "yes" and int(summary["drops"]) == drops > 0


def test_make_install_puts_the_plugin_where_babeltrace2_finds_its_own(tmp_path):
    dest = tmp_path / "dest"
    r = subprocess.run(["make", "-s", "install", "DESTDIR=" + str(dest), "PREFIX=/usr"],
                       cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    found = list(dest.rglob("babeltrace-plugin-sclat.so"))
    assert len(found) == 1
    plugindir = "/" + str(found[0].parent.relative_to(dest))
    assert os.path.exists(os.path.join(plugindir, "babeltrace-plugin-ctf.so")), plugindir
    for f in ("usr/bin/sclat", "usr/bin/sclat-lami",
              "usr/share/sclat/tracecompass/sclat-analysis.xml"):
        assert (dest / f).exists(), f
    # The installed programs, away from the tree, load the installed plugin through
    # babeltrace2's own search (here its environment variable, standing for the system dir).
    env = dict(os.environ, BABELTRACE_PLUGIN_PATH=str(found[0].parent))
    r = subprocess.run([str(dest / "usr/bin/sclat"), "report", TRACE], capture_output=True,
                       text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout == expected("report-syscall.txt.expected")
    r = subprocess.run([str(dest / "usr/bin/sclat-lami"), TRACE], capture_output=True,
                       text=True, env=env, timeout=60)
    assert r.returncode == 0 and json.loads(r.stdout)["results"], r.stdout


def kernelize_run(out, horizon=None, trace=TRACE):
    """src.ctf.fs -> muxer -> filter.sclat.kernelize [horizon] -> sink.ctf.fs, on the CLI."""
    src = sorted({d for d, _, files in os.walk(trace) if "metadata" in files})
    return subprocess.run(
        ["babeltrace2", "--plugin-path=" + PLUGIN_DIR, "run",
         "-c", "src:src.ctf.fs", "-p", "inputs=[%s]" % ",".join('"%s"' % d for d in src),
         "-c", "mux:filter.utils.muxer", "-c", "k:filter.sclat.kernelize",
         *(["-p", 'horizon="%s"' % horizon] if horizon else []),
         "-c", "out:sink.ctf.fs", "-p", 'path="%s",assume-single-trace=true,quiet=true' % out,
         "-x", "src:mux", "-x", "mux:k", "-x", "k:out"],
        capture_output=True, text=True, timeout=60)


@pytest.fixture(scope="module")
def slow_trace(tmp_path_factory):
    """100 s of 1 ms outliers, one a second, and a 90 s wait4 reaching the trace at its end."""
    path = str(tmp_path_factory.mktemp("slow") / "trace")
    events = [synthetic_outlier(t * S + S // 1000 + 5000, "clock_nanosleep", 100, 0, t * S,
                                S // 1000) for t in range(1, 101)]
    events.append(synthetic_outlier(100 * S + S // 2 + 2000000, "wait4", 101, 1, 10 * S + S // 2,
                                    90 * S))
    write_synthetic_trace(path, events)
    return path


def test_convert_places_an_outlier_slower_than_any_horizon(slow_trace, tmp_path):
    """A 90 s wait4 that reaches the trace 90 s after its entry, after 90 s of others."""
    out = str(tmp_path / "kernel")
    r = run_sclat("convert", slow_trace, "-o", out)
    assert r.returncode == 0, r.stderr
    outs, evs = check_conversion(slow_trace, out)
    assert len(outs) == 101
    assert [e[1] for e in evs if e[0] == "syscall_entry_wait4"] == [10 * S + S // 2]
    # The plugin without a horizon, on the babeltrace2 CLI: the same.
    out = str(tmp_path / "cli")
    r = kernelize_run(out, trace=slow_trace)
    assert r.returncode == 0 and not r.stderr, r.stderr
    check_conversion(slow_trace, out)


def test_kernelize_horizon_bounds_the_reordering(slow_trace, tmp_path):
    """With a horizon, one pass; an outlier later than the horizon allows is an error."""
    # Longer than any latency plus the consumer's lag here: the whole conversion.
    out = str(tmp_path / "wide")
    r = kernelize_run(out, "1s")
    assert r.returncode == 0 and not r.stderr, r.stderr
    check_conversion(TRACE, out)
    out = str(tmp_path / "long")
    r = kernelize_run(out, "100s", trace=slow_trace)
    assert r.returncode == 0 and not r.stderr, r.stderr
    check_conversion(slow_trace, out)
    # Too short: outliers slower than all before them come too late, and that is an error.
    # (Into sink.utils.dummy: babeltrace2 2.0's CLI loses the causes after sink.ctf.fs.)
    for trace, horizon, syscall in ((TRACE, "1ns", None), (slow_trace, "60s", "wait4")):
        r = subprocess.run(["babeltrace2", "--plugin-path=" + PLUGIN_DIR, trace, "-c",
                            "filter.sclat.kernelize", "-p", 'horizon="%s"' % horizon, "-c",
                            "sink.utils.dummy"], capture_output=True, text=True, timeout=60)
        assert r.returncode != 0, (trace, horizon)
        assert "Failed to place an outlier in time order" in r.stderr, r.stderr
        assert "raise horizon" in r.stderr.replace("\n", " "), r.stderr
        if syscall:
            assert "syscall=%s" % syscall in r.stderr, r.stderr
    r = subprocess.run(["babeltrace2", "--plugin-path=" + PLUGIN_DIR, TRACE, "-c",
                        "filter.sclat.kernelize", "-p", 'horizont="1s"'],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and 'unknown key=horizont (did you mean "horizon"?)' in r.stderr


def test_entry_times_are_read_by_the_trace_clock(tmp_path):
    """entry_epoch_ns as Trace Compass places the entry: entry_ts by the trace clock's offset,
    whatever sclat's own sampled offset wrote in the field."""
    trace = str(tmp_path / "trace")
    events = [synthetic_outlier(t * S + 5000, "read", 100 + t, t % 2, t * S + 7, 3000,
                                epoch_skew_ns=skew)
              for t, skew in ((1, -67), (2, 0), (3, 25000))]
    write_synthetic_trace(trace, events)
    want = sorted(EPOCH_S * S + e[1]["entry_ts"] for e in events)
    rep = report_json("--top", "10", trace=trace)
    assert sorted(t["epoch_ns"] for t in rep["top"]) == want
    assert (rep["first_entry_epoch_ns"], rep["last_entry_epoch_ns"]) == (want[0], want[-1])
    # Filters compare with the same time: a bound at an entry includes it.
    assert report_json("--begin", str(want[0]), "--end", str(want[0]),
                       trace=trace)["matched"] == 1
    r = subprocess.run([LAMI, trace], capture_output=True, text=True, timeout=60)
    rows = next(t for t in json.loads(r.stdout)["results"] if t["class"] == "top-outliers")
    assert sorted(row[0]["begin"]["value"] for row in rows["data"]) == want


def test_outlier_times_out_of_range_are_one_clear_error(tmp_path):
    """A latency that makes the exit overflow is a broken trace, said as such."""
    for entry, latency in ((S, 2**64 - 1), (2**64 - 1000, 5000), (S, 2**63)):
        trace = str(tmp_path / ("trace-%d-%d" % (entry, latency)))
        write_synthetic_trace(trace, [synthetic_outlier(2 * S, "read", 100, 0, entry, latency),
                                      synthetic_outlier(3 * S, "read", 100, 0, S, 10)])
        for args in (["report", trace], ["report", trace, "--json"]):
            r = run_sclat(*args)
            assert r.returncode == 1 and not r.stdout, (args, r.stdout)
            assert r.stderr.count("\n") == 1 and "times out of range" in r.stderr, r.stderr


def test_summary_query_answers_with_the_report_rows():
    plugin = next(p for p in bt2.find_plugins_in_path(PLUGIN_DIR) if p.name == "sclat")
    cc = plugin.sink_component_classes["report"]
    dirs = sorted({d for d, _, files in os.walk(TRACE) if "metadata" in files})
    for by, keys in (("syscall", ("syscall",)), ("thread", ("tid", "pid", "comm"))):
        res = bt2.QueryExecutor(cc, "sclat.summary", {"inputs": dirs, "by": by}).query()
        rep = report_json("--by", by)
        assert int(res["outliers"]) == rep["outliers"] and bool(res["events-lost"]) is False
        # A trace before version 8 cannot say what its runs could not do: no such keys.
        assert "children-not-followed" not in res and "wakers-lost" not in res
        assert [tuple(str(r[k]) for k in keys) + (int(r["count"]), int(r["p99-ns"]))
                for r in res["rows"]] == \
            [tuple(str(g[k]) for k in keys) + (g["count"], g["p99_ns"]) for g in rep["rows"]]
    with pytest.raises(bt2._Error):
        bt2.QueryExecutor(cc, "sclat.summary", {"inputs": dirs, "by": "cpu"}).query()
    with pytest.raises(bt2.UnknownObject):
        bt2.QueryExecutor(cc, "sclat.nothing", {"inputs": dirs}).query()
    for inputs, msg in (([1], "inputs[0] must be a string"), ([dirs[0], 2], "inputs[1] must"),
                        ([], "inputs is empty")):
        with pytest.raises(bt2._Error) as err:
            bt2.QueryExecutor(cc, "sclat.summary", {"inputs": inputs}).query()
        assert msg in str(err.value), (inputs, str(err.value))


def test_lttng_discarded_events_are_in_every_report(root, lttng_sessiond, tmp_path):
    """Outliers LTTng itself could not keep (its buffers full) are counted as lost too."""
    trace, name = str(tmp_path / "trace"), "sclat-test-discard-%d" % os.getpid()
    lttng = lambda *a: subprocess.run(["lttng", *a], capture_output=True, text=True,
                                      timeout=30)
    assert lttng("create", name, "-o", trace).returncode == 0
    try:
        # sclat record uses the session's "sclat" channel when there is one: a tiny one.
        r = lttng("enable-channel", "-u", "-s", name, "sclat", "--subbuf-size", "4096",
                  "--num-subbuf", "2")
        assert r.returncode == 0, r.stderr
        r = run_sclat("record", "--session", name, "--threshold", "1ns", "--",
                      workload("syscalls"), "--fast", "100000")
        assert r.returncode == 0, r.stderr
    finally:
        lttng("destroy", name)
    known, unknown = 0, False
    for msg in bt2.TraceCollectionMessageIterator(trace):
        if type(msg) is bt2._DiscardedEventsMessageConst:
            if msg.count is None:
                unknown = True
            else:
                known += msg.count
    assert known > 0
    r = run_sclat("report", trace, "--top", "0")
    assert r.returncode == 0
    assert "%s%d discarded by LTTng" % ("at least " if unknown else "", known) in r.stdout
    lost = report_json(trace=trace)["lost"]
    assert lost["events_lost"] is True and lost["discarded"] == known
    assert lost["discarded_exact"] is (not unknown)


# --- whether a trace is complete ------------------------------------------------

def index_entries(stream):
    """(offset, packet size) in bytes of each packet of a stream file, from its index."""
    idx = os.path.join(os.path.dirname(stream), "index", os.path.basename(stream) + ".idx")
    with open(idx, "rb") as f:
        data = f.read()
    magic, _, _, size = struct.unpack(">IIII", data[:16])
    assert magic == 0xC1F1DCC1
    return [struct.unpack(">QQ", data[o:o + 16]) for o in range(16, len(data), size)]


def cut_packets(trace, keep):
    """Take packets out of a copy of a trace: keep(stream file, packet number, packet
    count, packet bytes) says which stay. The index goes too (babeltrace2 reads the packets themselves)."""
    for d, _, files in os.walk(trace):
        for name in files:
            if "metadata" not in files or name == "metadata":
                continue
            stream = os.path.join(d, name)
            entries = index_entries(stream)
            with open(stream, "rb") as f:
                data = f.read()
            with open(stream, "wb") as f:
                for k, (off, bits) in enumerate(entries):
                    if keep(name, k, len(entries), data[off:off + bits // 8]):
                        f.write(data[off:off + bits // 8])
        if "index" in os.listdir(d):
            shutil.rmtree(os.path.join(d, "index"))


def packet_holding(trace, event):
    """(stream file, packet number) of the packet that holds the first event of that name."""
    packets = {}
    for msg in bt2.TraceCollectionMessageIterator(str(trace)):
        if type(msg) is bt2._PacketBeginningMessageConst:
            stream = os.path.basename(msg.packet.stream.name)
            packets[stream] = packets.get(stream, -1) + 1
        elif type(msg) is bt2._EventMessageConst and msg.event.name == event:
            stream = os.path.basename(msg.event.stream.name)
            return stream, packets[stream]
    return None


def count_events(trace, *names):
    n = 0
    for msg in bt2.TraceCollectionMessageIterator(str(trace)):
        n += type(msg) is bt2._EventMessageConst and msg.event.name in names
    return n


@pytest.fixture(scope="module")
def many_packets_trace(root, lttng_daemon, tmp_path_factory):
    """A complete sclat trace of 600 outliers in 16 KiB packets (sclat:session_begin, with
    its policy and syscall table, takes several KiB), none discarded. sclat runs on one CPU:
    its events go to one stream, where sclat:session_begin and sclat:session_end are
    packets apart (on two CPUs, one stream could hold both in its only packet)."""
    lttng_daemon.start()
    trace, name = tmp_path_factory.mktemp("packets") / "trace", "sclat-test-packets-%d" % \
        os.getpid()
    cpu = min(os.sched_getaffinity(0))
    lttng = lambda *a: subprocess.run(["lttng", *a], capture_output=True, text=True,
                                      timeout=30)
    assert lttng("create", name, "-o", str(trace)).returncode == 0
    try:
        r = lttng("enable-channel", "-u", "-s", name, "sclat", "--subbuf-size", "16384",
                  "--num-subbuf", "16")
        assert r.returncode == 0, r.stderr
        r = run_sclat("record", "--session", name, "--threshold", "500us", "--",
                      workload("syscalls"), "--slow", "600", "--slow-ms", "1",
                      preexec_fn=lambda: os.sched_setaffinity(0, {cpu}))
        assert r.returncode == 0, r.stderr
    finally:
        lttng("destroy", name)
    return trace


def test_a_complete_trace_says_so(many_packets_trace):
    trace = str(many_packets_trace)
    r = run_sclat("report", trace, "--top", "0")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[1] == "No events lost.", r.stdout
    lost = report_json(trace=trace)["lost"]
    assert (lost["complete"], lost["warnings"], lost["events_lost"]) == (True, [], False)
    r = subprocess.run([LAMI, trace], capture_output=True, text=True, timeout=60)
    row = [t for t in json.loads(r.stdout)["results"] if t["class"] == "lost-outliers"][0]
    assert row["data"][0][3] == {"class": "string", "value": "complete"}


def test_children_not_followed_are_in_the_trace_and_the_report(root, tmp_path):
    """A recording whose command had more children at once than the scope's table holds
    says so in its sclat:session_end (trace version 8), with the other things the run
    could not do, and sclat report calls the trace incomplete: those children's syscalls
    are not in it."""
    out_dir = tmp_path / "rec"
    n = 8300
    r = run_sclat("record", "-o", str(out_dir), "-n", "rec-children", "--threshold", "10s",
                  "--", workload("forker"), str(n), timeout=180)
    assert r.returncode == 0, r.stderr
    lost = n - (SCOPE_PIDS_MAX - 1)
    end = Trace(out_dir).named("sclat:session_end")
    assert len(end) == 1
    fields = end[0]["fields"]
    assert fields["children_not_followed"] == lost, fields
    assert {"kernel_stacks_skipped", "wakers_lost", "class_ids_refused",
            "class_requests_lost"} <= set(fields), fields
    r = run_sclat("report", str(out_dir), "--top", "0")
    assert r.returncode == 0, r.stderr
    assert ("TRACE INCOMPLETE: %d new processes of the traced command or pids were not "
            "followed" % lost) in r.stdout, r.stdout
    lost_json = report_json(trace=str(out_dir))["lost"]
    assert lost_json["complete"] is False and lost_json["children_not_followed"] == lost
    # Trace Compass's external analysis, and the sclat.summary query object, say it too.
    r = subprocess.run([LAMI, str(out_dir)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout
    undone = [t for t in json.loads(r.stdout)["results"] if t["class"] == "not-done"]
    assert [[c["value"] for c in row] for row in undone[0]["data"]] == \
        [[fields["kernel_stacks_skipped"], fields["wakers_lost"], fields["class_ids_refused"],
          fields["class_requests_lost"], lost]]
    plugin = next(p for p in bt2.find_plugins_in_path(PLUGIN_DIR) if p.name == "sclat")
    dirs = sorted({d for d, _, files in os.walk(out_dir) if "metadata" in files})
    res = bt2.QueryExecutor(plugin.sink_component_classes["report"], "sclat.summary",
                            {"inputs": dirs}).query()
    assert int(res["children-not-followed"]) == lost
    assert int(res["wakers-lost"]) == fields["wakers_lost"]


def test_what_a_run_could_not_class_is_in_the_trace_and_the_report(root, tmp_path):
    """300 thread names under `classes = comm`, more than the 255 class ids: the names left
    without one are counted in sclat:session_end (trace version 8), and sclat report says
    so, in text and in JSON, without calling the trace incomplete (no outlier is missing)."""
    policy = tmp_path / "classes.ini"
    policy.write_text("[global]\ninterval = 200ms\nbudget = 0\nclasses = comm\n"
                      "[default]\nmode = off\n[syscall read]\nmode = adaptive\n"
                      "quantile = 0.99\nmargin = 1\nmin_samples = 100\n")
    out_dir = tmp_path / "rec"
    r = run_sclat("record", "-o", str(out_dir), "-n", "rec-refused", "--policy", str(policy),
                  "--", workload("named_threads"), "300", "2", timeout=120)
    assert r.returncode == 0, r.stderr
    fields = Trace(out_dir).named("sclat:session_end")[0]["fields"]
    refused = fields["class_ids_refused"]
    assert refused >= 300 - 255, fields
    r = run_sclat("report", str(out_dir), "--top", "0")
    assert r.returncode == 0, r.stderr
    line = [ln for ln in r.stdout.splitlines() if ln.startswith("Not explained or classed")]
    assert len(line) == 1 and " %d class ids refused," % refused in line[0], r.stdout
    assert "TRACE INCOMPLETE" not in r.stdout, r.stdout
    lost_json = report_json(trace=str(out_dir))["lost"]
    assert lost_json["class_ids_refused"] == refused, lost_json
    assert lost_json["wakers_lost"] == fields["wakers_lost"], lost_json


def test_missing_packets_and_outliers_are_reported(many_packets_trace, tmp_path):
    """Packets that never reached the disk: the report counts the outliers sclat wrote that
    the trace lacks, and the gap in the packet sequence, instead of "No events lost."."""
    cut = tmp_path / "cut"
    shutil.copytree(many_packets_trace, cut)
    wrote = count_events(cut, "sclat:syscall_outlier")
    # The second packet of every stream that has more than two.
    cut_packets(cut, lambda name, k, n, packet: not (n > 2 and k == 1))
    left = count_events(cut, "sclat:syscall_outlier")
    assert 0 < left < wrote
    r = run_sclat("report", str(cut), "--top", "0")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert ("TRACE INCOMPLETE: %d of the %d outliers sclat wrote are neither in the trace "
            "nor counted as discarded by LTTng." % (wrote - left, wrote)) in lines, r.stdout
    assert any(l.startswith("TRACE INCOMPLETE: packets missing from the trace: ")
               for l in lines), r.stdout
    assert "No events lost." not in r.stdout
    lost = report_json(trace=str(cut))["lost"]
    assert lost["complete"] is False and lost["events_lost"] is True
    assert len(lost["warnings"]) == 2


def test_a_trace_cut_short_has_no_end_of_run_accounting(many_packets_trace, tmp_path):
    """Without its last packets (where sclat:session_end is), a trace is incomplete, and every
    reader says so: sclat report, the babeltrace2 sink, its query, sclat-lami."""
    cut = tmp_path / "cut"
    shutil.copytree(many_packets_trace, cut)
    # sclat:session_end's packet goes with those after it (LTTng may close a stream with an
    # empty packet), and the last packet of each other stream, but not sclat:session_begin's
    # (its policy text): the only one of a stream that sclat left early.
    end_stream, end_packet = packet_holding(cut, "sclat:session_end")
    cut_packets(cut, lambda name, k, n, packet: k < end_packet if name == end_stream
                else k < n - 1 or b"[global]" in packet)
    assert count_events(cut, "sclat:session_end") == 0
    assert count_events(cut, "sclat:session_begin") == 1
    r = run_sclat("report", str(cut), "--top", "0")
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[1].startswith(
        "TRACE INCOMPLETE: no end-of-run accounting (sclat:session_end): sclat record did "
        "not finish this trace"), r.stdout
    r = subprocess.run(["babeltrace2", "--plugin-path=" + PLUGIN_DIR, str(cut), "-c",
                        "sink.sclat.report", "-p", "top=0"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "TRACE INCOMPLETE: no end-of-run accounting" in r.stdout
    plugin = next(p for p in bt2.find_plugins_in_path(PLUGIN_DIR) if p.name == "sclat")
    dirs = sorted({d for d, _, files in os.walk(cut) if "metadata" in files})
    res = bt2.QueryExecutor(plugin.sink_component_classes["report"], "sclat.summary",
                            {"inputs": dirs}).query()
    assert bool(res["complete"]) is False and bool(res["events-lost"]) is True
    assert "no end-of-run accounting" in str(res["warnings"][0])
    r = subprocess.run([LAMI, str(cut)], capture_output=True, text=True, timeout=60)
    row = [t for t in json.loads(r.stdout)["results"] if t["class"] == "lost-outliers"][0]
    assert row["data"][0][3]["value"].startswith("incomplete: no end-of-run accounting")


def test_statistics_count_outliers_missing_from_any_trace(tmp_path):
    """Without sclat:session_end (a trace of version 1, or one cut short), the kernel's
    counts in sclat:stats still tell what the trace lacks: here the fixture without the
    stream that held its 35 outliers (its statistics are in the other one)."""
    cut = tmp_path / "cut"
    shutil.copytree(TRACE, cut)
    cut_packets(cut, lambda name, k, n, packet: name != "sclat_0")
    assert count_events(cut, "sclat:syscall_outlier") == 0
    assert count_events(cut, "sclat:stats") > 0
    r = run_sclat("report", str(cut), "--top", "0")
    assert r.returncode == 0, r.stderr
    assert ("TRACE INCOMPLETE: 35 of the 35 outliers that the trace's sclat:stats count are "
            "neither in the trace nor counted as discarded by LTTng.") in r.stdout.splitlines()
    assert "No events" not in r.stdout


def test_an_incomplete_trace_among_several_hosts_is_named(root, tmp_path):
    """Over the traces of several hosts, each is checked on its own, and the report names the
    host whose trace is cut short: hostB's sclat record is killed mid-run, once its status
    counts an outlier (the next sclat of that host ends its session)."""
    world = os.path.join(ROOT, "tests", "lttng-world")
    r = subprocess.run([world, "--host", "hostA", SCLAT, "record", "-o", str(tmp_path / "hostA"),
                        "--threshold", "1ms", "--", workload("syscalls"), "--slow", "3",
                        "--slow-ms", "3"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    killed = ('%s record -o %s --threshold 1ms -- %s --slow 300 --slow-ms 20 & pid=$!; i=0; '
              'until %s status --json --pid $pid 2>/dev/null | grep -q \'"outliers": *[1-9]\'; '
              'do [ $i -lt 600 ] || { echo "no outlier counted in 60 s" >&2; break; }; '
              'i=$((i+1)); sleep 0.1; done; '
              'kill -KILL $pid; wait; SCLAT_RUN_DIR=%s %s status; true'
              % (SCLAT, tmp_path / "hostB", workload("syscalls"), SCLAT, tmp_path, SCLAT))
    r = subprocess.run([world, "--host", "hostB", "sh", "-c", killed], capture_output=True,
                       text=True, timeout=120)
    assert 'sclat: destroyed session "' in r.stderr, r.stderr
    r = run_sclat("report", str(tmp_path), "--top", "0")
    assert r.returncode == 0, r.stderr
    incomplete = [l for l in r.stdout.splitlines() if l.startswith("TRACE INCOMPLETE: ")]
    assert incomplete and all(l.startswith("TRACE INCOMPLETE: host hostB: ")
                              for l in incomplete), r.stdout
    assert "no end-of-run accounting" in incomplete[0]
    lost = report_json(trace=str(tmp_path))["lost"]
    assert lost["complete"] is False and lost["events_lost"] is True


# --- What explains an outlier (trace version 3), read back from a recording ------------

BREAKDOWN = ("on_cpu_ns", "runqueue_ns", "sleep_ns", "io_wait_ns", "irq_ns", "steal_ns",
             "waker_runqueue_ns")


def pipe_frame(frame):
    """Whether a kernel frame is pipe_read's (6.18 names it anon_pipe_read)."""
    return "pipe_read" in frame.split("+")[0]


def test_trace_outliers_explain_themselves_as_live_ones_do(pipe_trace):
    """sink.sclat.outliers (sclat watch --from) prints a trace's explanation with the keys
    and WHY column of live `sclat watch`: the trace's own fields, one for one."""
    trace, known, ev = pipe_trace
    r = subprocess.run(["babeltrace2", "--plugin-path=" + PLUGIN_DIR, trace, "-c",
                        "sink.sclat.outliers", "-p", 'format="json"'],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    e = next(o for o in lines if o["tid"] == known["reader_tid"] and o["syscall"] == "read")
    assert e["breakdown"] == {k: ev[k] for k in BREAKDOWN}
    assert e["switches"] == ev["switches"]
    assert e["waker"] == {"pid": ev["waker_pid"], "tid": known["writer_tid"], "comm": "writer"}
    assert e["target"] == "pipe:[%d]" % known["pipe_ino"]
    assert e["kernel_stack"] == ev["kernel_stack"].split(";")
    assert e["user_stack"] == ev["user_stack"].split(";") and "slow_read" in ev["user_stack"]
    r = subprocess.run(["babeltrace2", "--plugin-path=" + PLUGIN_DIR, trace, "-c",
                        "sink.sclat.outliers"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    line = next(x for x in r.stdout.splitlines()
                if x.split()[3:6] == [str(known["reader_tid"])] * 2 + ["read"])
    # ... and the program's own caller, as the live line ends.
    assert re.search(r" sleep [0-9.]+ms \w*pipe_read <- read\(pipe:\[%d\]\) woken by writer %d"
                     r" <- slow_read[.\w]* \(waits\)$"
                     % (known["pipe_ino"], known["writer_tid"]), line), line


def test_the_slowest_outliers_say_why(pipe_trace):
    """report's slowest outliers carry the explanation under sclat watch's keys (JSON) and
    its WHY text on a line of their own."""
    trace, known, ev = pipe_trace
    rep = report_json("--syscall", "read", "--tid", str(known["reader_tid"]), trace=trace)
    top = rep["top"][0]
    assert top["breakdown"] == {k: ev[k] for k in BREAKDOWN}
    assert top["waker"] == {"pid": ev["waker_pid"], "tid": known["writer_tid"], "comm": "writer"}
    assert top["target"] == "pipe:[%d]" % known["pipe_ino"]
    assert top["kernel_stack"] == ev["kernel_stack"].split(";")
    assert top["user_stack"] == ev["user_stack"].split(";")
    r = run_sclat("report", trace, "--syscall", "read", "--tid", str(known["reader_tid"]))
    why = [x.split("why:")[1] for x in r.stdout.splitlines() if x.lstrip().startswith("why:")]
    assert len(why) == 1 and re.search(
        r"pipe_read <- read\(pipe:\[%d\]\) woken by writer %d <- slow_read[.\w]* \(waits\)$"
        % (known["pipe_ino"], known["writer_tid"]), why[0]), r.stdout


def test_report_by_target_names_the_pipe(pipe_trace):
    trace, known, ev = pipe_trace
    rep = report_json("--by", "target", "--tid", str(known["reader_tid"]), "--syscall", "read",
                      trace=trace)
    assert [(row["target"], row["count"]) for row in rep["rows"]] == \
        [("pipe:[%d]" % known["pipe_ino"], 1)]
    r = run_sclat("report", trace, "--by", "syscall,target")
    assert r.returncode == 0, r.stderr
    row = next(x for x in r.stdout.splitlines() if x.startswith("read "))
    assert row.endswith("  pipe:[%d]" % known["pipe_ino"]), row


def test_report_by_stack_has_the_pipe_read_frame(pipe_trace):
    trace, known, ev = pipe_trace
    rep = report_json("--by", "stack", "--tid", str(known["reader_tid"]), "--syscall", "read",
                      trace=trace)
    # Where it waited (the kernel stack), then who called it (the user stack).
    assert [row["stack"] for row in rep["rows"]] == [ev["kernel_stack"] + ";" + ev["user_stack"]]
    assert pipe_frame(rep["rows"][0]["stack"].split(";")[0]), rep["rows"][0]
    assert "slow_read" in ev["user_stack"], ev


def test_report_breakdown_shares_add_up_and_match_the_trace(pipe_trace):
    """Per syscall, the shares of where the outliers' time went add up to 100 %, and are the
    trace's own sums: the read slept for nearly all of its latency."""
    trace, known, ev = pipe_trace
    outs = [e["fields"] for e in Trace(trace, keep={"sclat:syscall_outlier"}).events]
    rep = report_json(trace=trace)
    for row in rep["rows"]:
        mine = [o for o in outs if o["syscall"] == row["syscall"]]
        b = row["breakdown"]
        assert row["explained"] == row["count"] == len(mine)
        # The four parts that add up to the latency (irq_ns and steal_ns are within on_cpu_ns).
        parts = BREAKDOWN[:4]
        for k in parts:
            part = k[:-3]
            assert b[k] == sum(o[k] for o in mine), (row["syscall"], k)
            assert b[part + "_share"] == pytest.approx(b[k] / sum(b[p] for p in parts),
                                                       abs=1e-6)
        assert sum(b[p[:-3] + "_share"] for p in parts) == pytest.approx(1.0, abs=1e-5)
    # The read: its own parts, asleep most of the time (the writer comes 20 ms later).
    b = report_json("--syscall", "read", "--tid", str(known["reader_tid"]),
                    trace=trace)["rows"][0]["breakdown"]
    shares = [b[k[:-3] + "_share"] for k in parts]
    assert shares == pytest.approx([ev[k] / sum(ev[p] for p in parts) for k in parts],
                                   abs=1e-6)
    assert max(shares) == shares[2], b
    text = run_sclat("report", trace, "--syscall", "read", "--tid", str(known["reader_tid"]))
    head, row = [x for x in text.stdout.splitlines() if x.startswith(("SYSCALL", "read "))][:2]
    assert head.split()[7:11] == ["CPU", "RUNQ", "SLEEP", "IO"], head
    assert [float(s.rstrip("%")) for s in row.split()[7:11]] == \
        pytest.approx([100 * x for x in shares], abs=0.051), row


def test_folded_stacks_end_with_the_latency(pipe_trace, tmp_path):
    """--folded: comm;user frames outermost first;syscall;kernel frames outermost first, then
    the latency in ns; the same lines to a file (the report still on stdout) as to stdout
    (them only)."""
    trace, known, ev = pipe_trace
    r = run_sclat("report", trace, "--tid", str(known["reader_tid"]), "--syscall", "read",
                  "--folded", "-")
    assert r.returncode == 0, r.stderr
    kframes = [f.split("+")[0].split(" ")[0] for f in ev["kernel_stack"].split(";")]
    uframes = [f.split("+")[0].split(" ")[0] for f in ev["user_stack"].split(";")]
    assert r.stdout == "waits;%s;read;%s %d\n" % (";".join(reversed(uframes)),
                                                  ";".join(reversed(kframes)), ev["latency_ns"])
    # The program's own calls, from main down, before the syscall.
    assert ";main;handle_request;slow_read" in r.stdout, r.stdout
    assert pipe_frame(r.stdout.split(" ")[0].split(";")[-1]), r.stdout
    folded = tmp_path / "out.folded"
    r2 = run_sclat("report", trace, "--tid", str(known["reader_tid"]), "--syscall", "read",
                   "--folded", str(folded))
    assert r2.returncode == 0, r2.stderr
    assert folded.read_text() == r.stdout
    assert "Latency by syscall" in r2.stdout
    r = run_sclat("report", trace, "--folded", str(tmp_path / "no" / "such" / "dir"))
    assert r.returncode == 1 and not r.stdout, r
    assert r.stderr == "sclat: %s: cannot write the folded stacks there: No such file or " \
        "directory\n" % (tmp_path / "no" / "such" / "dir")


def test_a_trace_older_than_explanations_reads_everywhere():
    """The version-1 fixture: no breakdown, (not recorded) targets and stacks, folded lines
    of comm and syscall, a WHY column of "-" and no explanation keys."""
    outs = outliers(TRACE)
    rep = report_json("--by", "target,stack")
    assert [(row["target"], row["stack"], row["count"], row["breakdown"])
            for row in rep["rows"]] == [("(not recorded)", "(not recorded)", len(outs), None)]
    r = run_sclat("report", TRACE, "--folded", "-")
    assert r.returncode == 0, r.stderr
    want = collections.Counter()
    for o in outs:
        want["%s;%s" % (o["comm"], o["syscall"])] += o["latency_ns"]
    assert r.stdout == "".join("%s %d\n" % kv for kv in sorted(want.items()))
    r = subprocess.run(["babeltrace2", "--plugin-path=" + PLUGIN_DIR, TRACE, "-c",
                        "sink.sclat.outliers", "-p", 'format="json"'],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    lines = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(lines) == len(outs) and not any("breakdown" in o or "target" in o for o in lines)
    r = subprocess.run(["babeltrace2", "--plugin-path=" + PLUGIN_DIR, TRACE, "-c",
                        "sink.sclat.outliers"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    rows = r.stdout.splitlines()[1:]
    assert len(rows) == len(outs) and all(x.endswith(" -") for x in rows), r.stdout
