# SPDX-License-Identifier: GPL-2.0-only
"""lttng-analyses on a converted trace (issue 34 item 9). `sclat convert T -o OUT` lays OUT out
as LTTng lays out a session, the kernel trace in OUT/kernel: lttng-analyses reads the tracer
version only from a directory named kernel (without it, a trace with sched_wakeup events failed
with "'State' object has no attribute 'tracer_version'"). Every CPU's stream begins with the
trace: lttng-analyses reads only where all streams overlap, and dropped each CPU's first
events."""
import os
import re
import subprocess

from conftest import ROOT, S, run_sclat, synthetic_outlier, write_synthetic_trace

FIXTURE = os.path.join(ROOT, "tests", "fixtures", "sclat-trace")
T0 = 10 * S


def syscallstats(out):
    r = subprocess.run(["lttng-syscallstats", "--no-progress", out], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stdout + r.stderr
    return r.stdout


def test_syscallstats_counts_every_outlier_of_a_recording(tmp_path):
    out = str(tmp_path / "kernel-session")
    r = run_sclat("convert", FIXTURE, "-o", out)
    assert r.returncode == 0, r.stderr
    assert os.listdir(out) == ["kernel"] and os.path.isfile(os.path.join(out, "kernel",
                                                                         "metadata"))
    stats = syscallstats(out)
    # The fixture's 35 outliers, its first ones on each CPU included (32 before).
    assert "Total syscalls: 35" in stats, stats
    # Every thread named by its state dump, none "?".
    threads = re.findall(r"^syscalls \((.*), TID: (\d+)\)", stats, re.M)
    assert threads and all(name != "?" for name, _ in threads), threads


def test_syscallstats_reads_a_trace_with_wakeups(tmp_path):
    """A trace of version 7 whose outliers were woken: sched_wakeup events, which
    lttng-analyses reads with the tracer version it finds in kernel/."""
    trace, out = str(tmp_path / "trace"), str(tmp_path / "kernel-session")
    write_synthetic_trace(trace, [
        synthetic_outlier(T0 + 5000, "read", 301, 0, T0 + 100, 800,
                          off_cpu=[(0, 2, T0 + 200, T0 + 700, T0 + 800, 1)],
                          waker=(0, 302, "writer")),
        synthetic_outlier(T0 + 5001, "futex", 306, 1, T0 + 50, 820,
                          off_cpu=[(1, 2, T0 + 60, T0 + 150, T0 + 200, 0)])])
    r = run_sclat("convert", trace, "-o", out)
    assert r.returncode == 0, r.stderr
    stats = syscallstats(out)
    assert "Total syscalls: 2" in stats, stats


def test_iolatencytop_names_the_files_the_outliers_name(tmp_path):
    """An outlier of a call on an fd knows the file (its target): the conversion dumps the
    fd's state as lttng-modules does (lttng_statedump_file_descriptor: pid, fd, filename),
    once per process, fd and file, so lttng-iolatencytop names the file instead of
    "unknown (fd=N)"."""
    trace, out = str(tmp_path / "trace"), str(tmp_path / "kernel-session")
    calls = [("read", 501, 7, "/var/lib/db/pg_wal/000000010000000000000001"),
             ("write", 502, 9, "/var/lib/db/base/16384/2619"),
             ("read", 501, 7, "/var/lib/db/pg_wal/000000010000000000000001")]
    events = []
    for i, (name, tid, fd, path) in enumerate(calls):
        ts, fields = synthetic_outlier(T0 + 10000 + i, name, tid, i % 2, T0 + 1000 * (i + 1),
                                       500, off_cpu=[])
        fields.update(target=path, args=[fd, 0, 4096, 0, 0, 0])
        events.append((ts, fields))
    write_synthetic_trace(trace, events)
    r = run_sclat("convert", trace, "-o", out)
    assert r.returncode == 0, r.stderr
    r = subprocess.run(["lttng-iolatencytop", "--no-progress", out], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    named = re.findall(r"^\[.*\]\s+(read|write)\s.*\s(\S+) \(fd=(\d+)\)$", r.stdout, re.M)
    assert sorted(named) == sorted((n, p, str(fd)) for n, _, fd, p in calls), r.stdout
    assert "unknown" not in r.stdout
