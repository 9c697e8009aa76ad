# SPDX-License-Identifier: GPL-2.0-only
"""User stacks for the outliers that matter (issue 33): when a CPU's user-stack
budget (--user-stacks-per-cpu) binds, half of it is kept for outliers 4x their
threshold or more, so a flood of outliers just past their threshold cannot
take the stacks of the costly ones; each outlier without a stack says why, and
sclat report counts them by why.
"""
import json
import os
import re

from conftest import Trace, run_sclat

# On one CPU: 1.2 s of 2.2 ms sleeps (past a 2 ms threshold by a little: marginal; 4x takes
# a 6 ms delay), then six times 100 of them, a 50 ms sleep (25x: costly), 100 more. ~400
# marginal outliers a second.
FLOOD = """
import time
def marginal(n):
    for _ in range(n):
        time.sleep(0.0022)
end = time.monotonic() + 1.2
while time.monotonic() < end:
    marginal(1)
for _ in range(6):
    marginal(100)
    time.sleep(0.05)
    marginal(100)
"""


def test_a_flood_of_marginal_outliers_leaves_the_costly_ones_their_stacks(lttng_sessiond,
                                                                         tmp_path):
    out = tmp_path / "trace"
    cpu = str(os.cpu_count() - 1)
    r = run_sclat("record", "-o", str(out), "--threshold", "2ms", "--user-stacks-per-cpu", "10",
                  "--", "taskset", "-c", cpu, "/usr/bin/python3", "-c", FLOOD, timeout=120)
    assert r.returncode == 0, r.stderr
    trace = Trace(out, keep={"sclat:syscall_outlier"})
    sleeps = [e["fields"] for e in trace.named("sclat:syscall_outlier")
              if e["fields"]["syscall"] == "clock_nanosleep"]
    costly = [e for e in sleeps if e["latency_ns"] >= 40000000]
    marginal = [e for e in sleeps if e["latency_ns"] < 8000000]
    assert len(costly) == 6, [e["latency_ns"] for e in costly]
    assert len(marginal) > 800, len(marginal)
    # By the frames' addresses (see test_explain: babeltrace2 2.0.4 and empty strings).
    assert all(e["user_stack_ips"] for e in costly), \
        [(e["latency_ns"], e["user_stack_missing"]) for e in costly]
    assert all(e["user_stack_missing"] == 0 for e in costly)
    # The marginal ones: a few stacks a second, the rest left out for the budget, and said so.
    without = [e for e in marginal if not e["user_stack_ips"]]
    assert len(without) > 0.9 * len(marginal), (len(without), len(marginal))
    assert all(e["user_stack_missing"] == 1 for e in without), \
        {e["user_stack_missing"] for e in without}
    r = run_sclat("report", str(out), "--json")
    assert r.returncode == 0, r.stderr
    missing = json.loads(r.stdout)["lost"]["user_stacks_missing"]
    assert missing["budget"] >= len(without), missing
    r = run_sclat("report", str(out))
    m = re.search(r"Without a user stack: (\d+) of (\d+) outliers \((\d+) over its CPU's stack "
                  r"budget", r.stdout)
    assert m and int(m.group(3)) == missing["budget"], r.stdout
