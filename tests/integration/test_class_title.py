# SPDX-License-Identifier: GPL-2.0-only
"""Thresholds learned per process title (policy key `classes = title`): processes that share
one name (comm), as a server's do, told apart by the titles they write over their argv, each
title one class whichever of its processes made the calls, and a process that sets its
title after fork moved to its title's class.

The workload (tests/workloads/titled.c) forks two "titled: slow" processes, whose normal
read waits ~3 ms, and two "titled:<tab>fast" ones, whose reads take microseconds but stall
2 ms once in 4000; all are named "titled". They read under the parent's title until the test
lets them set theirs, and stop when it tells them to.
"""
import json
import os
import time

from conftest import Watch, run_sclat, wait_until, workload

POLICY = """\
[global]
interval = 200ms
budget = 0
classes = title
class_idle = 30s
sample = 1
[default]
mode = off
[syscall read]
mode = adaptive
quantile = 0.999
margin = 1
min_samples = 200
"""

SLOW, FAST = "title titled: slow", "title titled:\tfast"
# A class name is "title " and the title, cut to 63 bytes.
NAME_MAX = 63


def read_classes(w):
    """read's classes in `sclat status --json`, as a list (a name twice would show), or []."""
    st = w.try_status()
    s = next((s for s in st["syscalls"] if s["syscall"] == "read"), None) if st else None
    return s.get("classes", []) if s else []


def by_name(classes):
    return {c["class"]: c for c in classes}


def test_processes_of_one_name_learn_a_threshold_per_title(root, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    policy = tmp_path / "title.ini"
    policy.write_text(POLICY)
    env = dict(os.environ, SCLAT_RUN_DIR=str(tmp_path / "run"))
    command = [workload("titled"), "--dir", str(work)]
    forked = ("title " + " ".join(command))[:NAME_MAX]
    report = work / "report"
    w = Watch(env, "--policy", str(policy), "--", *command)
    try:
        # Forked, they have their parent's title, and its class.
        assert wait_until(lambda: by_name(read_classes(w)).get(forked, {}).get("calls"),
                          timeout=20, step=0.2), (read_classes(w), "".join(w.stderr))
        (work / "go").touch()

        # Their own titles: moved at the controller's next look, a class each.
        first = {}

        def both_own():
            cl = by_name(read_classes(w))
            if all(cl.get(n, {}).get("own") for n in (SLOW, FAST)):
                first.update(cl)
                first["t_ns"] = time.monotonic_ns()  # sclat's clock, CLOCK_MONOTONIC
            return bool(first)
        assert wait_until(both_own, timeout=20, step=0.2), (read_classes(w), "".join(w.stderr))

        # Measured from there: 1000 slow reads and 400000 fast ones (100 stalls).
        def enough():
            cl = by_name(read_classes(w))
            return (cl[SLOW]["calls"] - first[SLOW]["calls"] >= 1000 and
                    cl[FAST]["calls"] - first[FAST]["calls"] >= 400000)
        assert wait_until(enough, timeout=90, step=0.5), read_classes(w)
        (work / "stop").touch()
        assert wait_until(lambda: report.exists() and len(report.read_text().splitlines()) == 4,
                          timeout=20), "".join(w.stderr)

        # An interval after their last calls, the counts settle: the last status.
        last = []

        def settled():
            prev = by_name(last)
            last[:] = read_classes(w)
            cl = by_name(last)
            return prev and all(prev[n]["calls"] == cl[n]["calls"] for n in (SLOW, FAST))
        assert wait_until(settled, timeout=20, step=0.5), last
        text = run_sclat("status", "--pid", str(w.proc.pid), env=w.env).stdout
    finally:
        w.stop()

    procs = [json.loads(l) for l in report.read_text().splitlines()]
    slow = [p for p in procs if p["role"] == "slow"]
    fast = [p for p in procs if p["role"] == "fast"]
    assert len(slow) == 2 and len(fast) == 2, procs

    # One class per title, not per process.
    names = [c["class"] for c in last]
    assert names.count(SLOW) == 1 and names.count(FAST) == 1, names
    cl = by_name(last)
    s, f = cl[SLOW], cl[FAST]
    # Each title learned its own normal: the slow one's 3 ms wait, the fast one's microseconds.
    assert s["threshold_ns"] >= 2_000_000, s
    assert f["threshold_ns"] < 1_000_000, f
    # Both processes' calls are in their title's class: more than either made.
    assert 1.4 * max(p["reads"] for p in slow) < s["calls"] <= sum(p["reads"] for p in slow), \
        (s, slow)
    assert 1.4 * max(p["reads"] for p in fast) < f["calls"], (f, fast)

    # The slow title's normal reads are not flooded once its threshold is its own.
    calls = s["calls"] - first[SLOW]["calls"]
    outliers = s["outliers"] - first[SLOW]["outliers"]
    assert outliers <= 0.02 * calls, (outliers, calls)

    # The fast title's stalls are caught, at its class's threshold, for both its processes
    # (those made before they moved to it were judged in their parent's title's class).
    reads = [e for e in w.outliers() if e["syscall"] == "read"]
    assert reads and all(e["comm"] == "titled" for e in reads), reads[:3]
    fast_pids = {p["pid"] for p in fast}
    t0 = first["t_ns"]
    stalls = [e for e in reads if e["pid"] in fast_pids and e["args"][2] == 2 and e["ts_ns"] > t0]
    made = sum(1 for p in fast for t in p["stall_ns"] if t > t0)
    assert made >= 80 and len(stalls) >= 0.95 * made, (len(stalls), made)
    assert all(e["class"] == FAST for e in stalls), {e["class"] for e in stalls}
    assert {e["pid"] for e in stalls} == fast_pids, stalls[:3]
    # No read of a slow process crossed the fast title's threshold, nor the other way round.
    slow_pids = {p["pid"] for p in slow}
    assert all(e["class"] != FAST for e in reads if e["pid"] in slow_pids)
    assert all(e["class"] != SLOW for e in reads if e["pid"] in fast_pids)

    # The text status names both, the tab escaped.
    assert "title titled:\\x09fast" in text and "title titled: slow" in text, text


def test_title_classes_turned_on_at_run_time_take_the_place_of_process_classes(root, tmp_path):
    """read split by process, then by title (sclat policy set): the process classes go at
    the next interval, not class_idle (30 s) later, and the one class of the two processes'
    title comes; a syscall split by process beside it is refused, naming both."""
    work = tmp_path / "work"
    work.mkdir()
    (work / "go").touch()  # their title from their first read on
    policy = tmp_path / "process.ini"
    policy.write_text(POLICY.replace("classes = title", "classes = process"))
    env = dict(os.environ, SCLAT_RUN_DIR=str(tmp_path / "run"))
    w = Watch(env, "--policy", str(policy), "--", workload("titled"), "--dir", str(work),
              "--fast", "0", "--slow", "2")
    try:
        def names():
            return sorted(c["class"] for c in read_classes(w))
        assert wait_until(lambda: len([n for n in names() if n.startswith("pid ")]) == 2,
                          timeout=20, step=0.2), (names(), "".join(w.stderr))
        assert all(n.endswith(" (titled)") for n in names()), names()
        r = run_sclat("policy", "set", "--pid", str(w.proc.pid), "--syscall", "read",
                      "classes=title", env=w.env)
        assert r.returncode == 0, r.stderr
        assert wait_until(lambda: names() == [SLOW], timeout=5, step=0.1), names()

        # write, on, would have [global]'s classes = process.
        r = run_sclat("policy", "set", "--pid", str(w.proc.pid), "--syscall", "write",
                      "mode=adaptive", env=w.env)
        assert r.returncode != 0
        assert "[syscall read] has classes = title and [global] classes = process" in r.stderr \
            and "choose title or process for all" in r.stderr, r.stderr
        assert wait_until(lambda: by_name(read_classes(w)).get(SLOW, {}).get("own"),
                          timeout=10, step=0.2), read_classes(w)
    finally:
        w.stop()
