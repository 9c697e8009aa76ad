# SPDX-License-Identifier: GPL-2.0-only
"""The kernel brake (issue 33, "no floods"): per syscall and class, per
interval, the BPF side emits at most twice the outliers the threshold should
let through over the last interval's calls, plus 2 under a quantile (at least 1 under
a rate, whose far calls pass apart); the rest are counted as
braked, in `sclat status`, the trace's sclat:stats, sclat:lost and
sclat:session_end, and the report's losses.

The workload: tests/workloads/bodysteps.c, one thread reading /dev/zero at a
calibrated 10 us, stepping to 3x that mid-run, under a policy whose ceiling
(20 us) keeps read's threshold below the new body: every read after the step
is above it (an interval's calls, tens of thousands, without the brake).
"""
import json
import math
import os

from conftest import Trace, Watch, run_sclat, wait_until, workload

POLICY = """\
[global]
interval = 1s
budget = 0
[default]
mode = off
[syscall read]
mode = adaptive
quantile = 0.999
margin = 1
floor = 0ns
min_samples = 1000
ceiling = 20us
"""

# Under a quantile (read's here): twice the expectation, and 2 more.
BRAKE_FACTOR, BRAKE_QUANTILE_MORE = 2, 2


def allowance(calls):
    return math.ceil(BRAKE_FACTOR * 0.001 * calls) + BRAKE_QUANTILE_MORE


def bodysteps(duration, step, report):
    return [workload("bodysteps"), "--duration", str(duration), "--threads", "1",
            "--body-ns", "10000", "--step", "%g:3" % step, "--report", str(report)]


def stepped_at(report):
    """When bodysteps' reads stepped to their second level, on CLOCK_MONOTONIC (the trace's
    clock): the start of the first bin it counted at that level."""
    with open(report) as f:
        bins = [b for b in map(json.loads, f) if "bin" in b]
    return next(b["bin"] for b in bins if b["phase"] == 1)


def test_a_3x_step_of_the_body_is_braked_and_counted_in_the_trace(lttng_sessiond, tmp_path):
    policy, out, steps = tmp_path / "p.ini", tmp_path / "trace", tmp_path / "steps.json"
    policy.write_text(POLICY)
    r = run_sclat("record", "-o", str(out), "-n", "brake", "--policy", str(policy), "--",
                  *bodysteps(12, 6, steps), timeout=90)
    assert r.returncode == 0, r.stderr
    trace = Trace(out, keep={"sclat:stats", "sclat:lost", "sclat:session_end",
                             "sclat:syscall_outlier"})
    read_stats = [e for e in trace.named("sclat:stats")
                  if e["fields"]["syscall"] == "read" and not e["fields"]["class"]]
    stats = [e["fields"] for e in read_stats]
    assert len(stats) >= 8, stats
    print("\n".join("%(calls)d calls, %(outliers)d outliers, %(braked)d braked, "
                    "threshold %(threshold_ns)d" % s for s in stats))
    braked = [s["braked"] for s in stats]
    assert sum(braked) > 0, "no read outlier braked: %s" % stats
    # Every interval's emission within the allowance the interval before set: the brake is
    # armed at each interval's end, just after the reading, so an interval's count may take
    # what the allowance before that left (a few microseconds' worth): two allowances.
    for before, prev, s in zip(stats, stats[1:], stats[2:]):
        bound = allowance(prev["calls"]) + allowance(before["calls"])
        assert s["outliers"] <= bound, (s, prev, before, bound)
    # From the step on, nearly every call crosses the threshold held at the ceiling: each
    # whole interval after it is braked, most of its crossings held back.
    # The step: in the interval whose statistics came first after bodysteps stepped (its
    # report says when); the last interval is cut short by the end.
    at = stepped_at(steps)
    step = next(i for i, e in enumerate(read_stats) if e["ts"] >= at)
    after = stats[step + 1:-1]
    assert len(after) >= 3, stats
    for s in after[:-1]:
        assert s["braked"] > s["outliers"], s
    # Counted apart from the guard's throttling and the ring buffer's drops.
    assert all(s["throttled"] == 0 and s["drops"] == 0 for s in stats), stats
    lost = trace.named("sclat:lost")
    assert lost and lost[-1]["fields"]["total_braked"] >= sum(braked), lost[-1]
    end = trace.named("sclat:session_end")
    assert end and end[-1]["fields"]["braked"] >= sum(braked), end
    emitted = [o for o in trace.named("sclat:syscall_outlier")
               if o["fields"]["syscall"] == "read"]
    assert len(emitted) == sum(s["outliers"] for s in stats) or \
        len(emitted) <= end[-1]["fields"]["outliers"]
    # sclat report says what the brake held back among the losses.
    r = run_sclat("report", str(out), "--json")
    assert r.returncode == 0, r.stderr
    loss = json.loads(r.stdout)["lost"]
    assert loss["braked"] == end[-1]["fields"]["braked"], loss
    r = run_sclat("report", str(out))
    assert "%d braked" % loss["braked"] in r.stdout, r.stdout


def test_sclat_status_counts_the_braked_outliers(tmp_path):
    policy = tmp_path / "p.ini"
    policy.write_text(POLICY)
    env = dict(os.environ, SCLAT_RUN_DIR=str(tmp_path / "run"))
    w = Watch(env, "--summary", "--policy", str(policy), "--",
              *bodysteps(10, 5, tmp_path / "steps.json"))
    try:
        def braked():
            st = w.try_status()
            read = st and next((s for s in st["syscalls"] if s["syscall"] == "read"), None)
            return read and read["braked"] > 0 and (read, st["totals"])
        got = wait_until(braked, timeout=30, step=0.2)
        assert got, "status never counted a braked read"
        read, totals = got
        assert totals["braked"] >= read["braked"], totals
        assert w.wait(60) == 0, "".join(w.stderr)
    finally:
        w.stop()
    summary = next(e["summary"] for _, e in w.events if "summary" in e)
    assert summary["braked"] >= read["braked"], summary
    assert "braked" in "".join(w.stderr), "".join(w.stderr)
