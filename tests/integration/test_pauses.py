# SPDX-License-Identifier: GPL-2.0-only
"""tests/workloads/pauses, which the evaluation scripts run to say how often the machine
stops under its programs: it sees a CPU taken from it, and says on how many CPUs at once."""
import json
import os
import subprocess
import time

from conftest import workload

PAUSES = workload("pauses")
BURST_S, PERIOD_S = 0.003, 0.030


def pauses(*args):
    r = subprocess.run([PAUSES, *args], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_a_cpu_taken_in_bursts_shows_as_gaps_on_that_cpu_alone(root):
    """A real-time process pinned to the first CPU runs 3 ms every 30 ms: on that CPU,
    pauses' thread sees a gap of about 3 ms 33 times a second, and the other CPUs see none
    of them."""
    cpus = sorted(os.sched_getaffinity(0))
    # Gaps from 2 ms: the bursts, not a machine's interrupts or the other tasks' turns.
    # A real-time task is not preempted by pauses' SCHED_OTHER thread: each burst is a gap.
    quiet = pauses("--seconds", "1", "--gap-us", "2000")
    hog = subprocess.Popen(
        ["/usr/bin/python3", "-c",
         "import os, time\n"
         "os.sched_setaffinity(0, {%d})\n"
         "os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))\n"
         "end = time.monotonic() + 2.5\n"
         "while time.monotonic() < end:\n"
         "    t = time.monotonic() + %g\n"
         "    while time.monotonic() < t:\n"
         "        pass\n"
         "    time.sleep(%g)\n" % (cpus[0], BURST_S, PERIOD_S - BURST_S)])
    try:
        time.sleep(0.2)
        busy = pauses("--seconds", "2", "--gap-us", "2000")
    finally:
        hog.wait(timeout=30)
    assert hog.returncode == 0
    assert busy["cpus"] == len(cpus), busy
    # 33 bursts a second on one CPU of n: 33 / n a second per CPU (half of them at least,
    # for a machine that delays the sleeps), more than the quiet machine's.
    per_cpu = 1 / PERIOD_S / len(cpus)
    assert busy["gaps_per_s"] >= per_cpu / 2, busy
    assert busy["gaps_per_s"] > quiet["gaps_per_s"] + per_cpu / 4, (quiet, busy)
    assert busy["longest_ns"] >= BURST_S * 1e9 * 0.9, busy
    if len(cpus) > 1:
        # Taken from one CPU, not from the machine: few of the gaps are on every CPU.
        assert busy["together_share"] < 0.5, busy
    assert busy["uncounted"] == 0, busy


def test_bad_arguments_are_refused():
    for args in (["--seconds", "0"], ["--gap-us", "0"], ["--what"]):
        r = subprocess.run([PAUSES, *args], capture_output=True, text=True, timeout=10)
        assert r.returncode == 2 and r.stderr.startswith(("usage: pauses", "pauses:")), \
            (args, r.stderr)
