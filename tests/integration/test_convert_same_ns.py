# SPDX-License-Identifier: GPL-2.0-only
"""Trace Compass and the same nanosecond (issue 34 item 10): Trace Compass finds the thread of
an event from its CPU's sched_switch events 1 ns before it. When one thread's exit and another
thread's entry share a nanosecond on a CPU, the second is switched in at that nanosecond: its
entry is put 1 ns after, so that each call stays one segment on its own thread.
Checked on a synthetic trace through sclat convert, replayed as Trace Compass reads it
(test_report.tracecompass_segments)."""
from conftest import S, run_sclat, synthetic_outlier, write_synthetic_trace
from test_report import tracecompass_segments

T0 = 10 * S
# (syscall, tid, cpu, entry, exit) in ns after T0: eight calls, each meeting another on its
# CPU in one nanosecond.
SAME_NS = [
    ("read", 401, 0, 100, 1000),
    ("write", 402, 0, 1000, 1500),      # enters on CPU 0 as 401 exits there
    ("read", 403, 0, 1500, 2000),       # and again: a chain in one CPU
    ("futex", 404, 1, 100, 700),
    ("futex", 405, 1, 700, 900),        # enters as 404 exits, on CPU 1
    ("wait4", 406, 1, 900, 1200),       # enters as 405 exits
    ("read", 407, 1, 1200, 1201),       # enters as 406 exits, exits 1 ns later
    ("write", 408, 1, 1201, 1300),      # enters as 407 exits
]


def test_an_entry_in_the_nanosecond_of_another_exit_is_its_own_threads(tmp_path):
    trace, out = str(tmp_path / "trace"), str(tmp_path / "kernel")
    write_synthetic_trace(trace, [
        synthetic_outlier(T0 + exit_ + 5000 + i, name, tid, cpu, T0 + entry, exit_ - entry)
        for i, (name, tid, cpu, entry, exit_) in enumerate(SAME_NS)])
    r = run_sclat("convert", trace, "-o", out)
    assert r.returncode == 0, r.stderr
    segments, no_thread, orphans = tracecompass_segments(out)
    assert (no_thread, orphans) == (0, 0)
    # One segment per call, on its thread; an entry put after its switch starts 1 ns late,
    # and what follows in that nanosecond on the CPU moves with it.
    assert sorted((tid, name) for _, _, tid, name in segments) == \
        sorted((tid, name) for name, tid, _, _, _ in SAME_NS)
    for (entry, exit_, tid, name) in segments:
        call = next(c for c in SAME_NS if c[1] == tid)
        assert call[3] <= entry - T0 <= call[3] + 2 and call[4] <= exit_ - T0 <= call[4] + 2, \
            (call, entry - T0, exit_ - T0)
        assert exit_ >= entry
