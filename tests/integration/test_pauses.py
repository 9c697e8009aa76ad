# SPDX-License-Identifier: GPL-2.0-only
"""tests/workloads/pauses, which the evaluation scripts run to say how often the machine
stops under its programs: it sees a CPU taken from it, and says on how many CPUs at once.

A real-time process takes CPUs in bursts of BURST_S every PERIOD_S, which pauses' SCHED_OTHER
threads cannot preempt: each burst is a gap. Gaps are counted from GAP_US, longer than the
turns of the other tests' tasks that run beside it."""
import json
import os
import subprocess
import time

from conftest import workload

PAUSES = workload("pauses")
BURST_S, PERIOD_S, GAP_US = 0.020, 0.200, 15000

# A process per CPU given (not threads: they would share Python's lock), pinned, SCHED_FIFO,
# each running BURST_S from every multiple of PERIOD_S of CLOCK_MONOTONIC (the same instants
# on every CPU) for 2.5 s.
HOG = """
import os, sys, time
def burst(cpu):
    os.sched_setaffinity(0, {cpu})
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(10))
    end = time.monotonic() + 2.5
    while True:
        start = (time.monotonic() // %(period)g + 1) * %(period)g
        if start > end:
            return
        time.sleep(start - time.monotonic())
        while time.monotonic() < start + %(burst)g:
            pass
children = []
for c in sys.argv[1:]:
    pid = os.fork()
    if pid == 0:
        burst(int(c))
        os._exit(0)
    children.append(pid)
sys.exit(max(os.waitstatus_to_exitcode(os.waitpid(p, 0)[1]) for p in children) != 0)
""" % {"period": PERIOD_S, "burst": BURST_S}


def pauses_beside_bursts(hog_cpus, *args):
    hog = subprocess.Popen(["/usr/bin/python3", "-c", HOG, *map(str, hog_cpus)])
    try:
        time.sleep(0.2)
        r = subprocess.run([PAUSES, "--seconds", "2", "--gap-us", str(GAP_US), *args],
                           capture_output=True, text=True, timeout=60)
    finally:
        hog.wait(timeout=30)
    assert hog.returncode == 0
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_a_cpu_taken_in_bursts_shows_as_its_gaps(root):
    cpu = min(os.sched_getaffinity(0))
    got = pauses_beside_bursts([cpu], "--cpus", str(cpu))
    assert got["cpus"] == 1, got
    # 10 bursts in the 2 s: half of them at least, for a machine that delays the sleeps.
    assert got["gaps_per_s"] >= 0.5 / PERIOD_S, got
    assert got["longest_ns"] >= 0.9 * BURST_S * 1e9, got
    assert got["uncounted"] == 0, got


def test_bursts_on_every_cpu_at_once_are_gaps_on_every_cpu_at_once(root):
    cpus = sorted(os.sched_getaffinity(0))
    every = pauses_beside_bursts(cpus)
    assert every["cpus"] == len(cpus), every
    assert every["gaps_per_s"] >= 0.5 / PERIOD_S, every
    if len(cpus) == 1:
        # One CPU: no gap is on several at once.
        assert every["together_share"] == 0, every
        return
    one = pauses_beside_bursts(cpus[:1])
    # Taken from the whole machine at the same instants: most gaps are on every CPU.
    assert every["together_share"] >= 0.5, every
    # Taken from one CPU: its gaps are that CPU's alone, while the others run.
    assert one["together_share"] < every["together_share"], (one, every)


def test_bad_arguments_are_refused():
    bad = (["--seconds", "0"], ["--gap-us", "0"], ["--what"], ["--cpus", "x"],
           ["--cpus", str(os.cpu_count() + 64)])
    for args in bad:
        r = subprocess.run([PAUSES, *args], capture_output=True, text=True, timeout=10)
        assert r.returncode == 2 and r.stderr.startswith(("usage: pauses", "pauses:")), \
            (args, r.stderr)
