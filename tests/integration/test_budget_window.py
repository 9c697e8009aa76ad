# SPDX-License-Identifier: GPL-2.0-only
"""The budget holds over any second, for the whole machine (issue 33: 1,614
lines a second in `sclat watch` against a budget of 1000/s): the per-CPU burst
guard let each CPU burst at 4x its share; the kernel now holds all CPUs
together to the budget's pace, at most a fifth of a second's worth ahead of it.
"""
import bisect
import os

from conftest import Watch

BUDGET = 200
POLICY = """\
[global]
interval = 1s
budget = %d
[default]
mode = off
[syscall getppid]
mode = static
initial = 1ns
""" % BUDGET

# One process per CPU, each calling getppid() as fast as it can for 4 s: every call an
# outlier, thousands of times the budget.
FLOOD = """
import os, time
for _ in range(os.cpu_count() - 1):
    if os.fork() == 0:
        break
end = time.monotonic() + 4
while time.monotonic() < end:
    for _ in range(1000):
        os.getppid()
"""


def test_watch_keeps_to_the_budget_in_any_one_second_window(root, tmp_path):
    policy = tmp_path / "p.ini"
    policy.write_text(POLICY)
    env = dict(os.environ, SCLAT_RUN_DIR=str(tmp_path / "run"))
    w = Watch(env, "--policy", str(policy), "--", "/usr/bin/python3", "-c", FLOOD)
    try:
        assert w.wait(60) == 0, "".join(w.stderr)
    finally:
        w.stop()
    ts = sorted(e["ts_ns"] for e in w.outliers() if e["syscall"] == "getppid")
    assert len(ts) >= 3 * BUDGET, len(ts)
    # The most in any window of one second, wherever it starts.
    most = max(bisect.bisect_left(ts, t + 10**9) - i for i, t in enumerate(ts))
    # The pace's allowance: (1 s + 0.2 s ahead) / (1 s / budget) + 1.
    assert most <= 1.2 * BUDGET + 1, most
    # What it held back is counted as throttled.
    assert "throttled" in "".join(w.stderr) and " 0 throttled" not in "".join(w.stderr), \
        "".join(w.stderr)
