# SPDX-License-Identifier: GPL-2.0-only
"""The benchmark scripts still run: `scripts/bench --quick` (with its budget measured in the
programs through scripts/prog-ab) on the real BPF programs, its numbers not judged, only that
it measures and reports what it says it does."""
import os
import re
import subprocess

from conftest import ROOT

BENCH = os.path.join(ROOT, "scripts", "bench")


def test_bench_quick_reports_the_budget_in_wall_clock_and_in_the_programs(root, tmp_path):
    md = tmp_path / "bench.md"
    r = subprocess.run([BENCH, "--quick", "--no-install", "--rounds", "1", "--duration", "0.05",
                        "--warmup", "0.01", "--quiet-timeout", "0", "--markdown", str(md)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    text = md.read_text()
    for section in ("## Machine", "## ns per syscall", "## Targets"):
        assert section in text, text
    # Every quick configuration measured getppid.
    for config in ("none", "floor", "floor-clock", "floor-sched", "floor-stats", "sclat",
                   "sclat-held"):
        assert re.search(r"^\| %s \| \d+\.\d ±" % config, text, re.M), (config, text)
    # The budget, in wall clock and in the programs, for the held configuration.
    assert re.search(r"^\| sclat-held \| getppid \| \(added - floor-clock\) / floor \|", text,
                     re.M), text
    # The empty pair's added ns there comes from its pairs of runs, with their spread.
    m = re.search(r"^\| sclat-held \| getppid \| ([+-]\d+\.\d) ±(\d+\.\d) \| "
                  r"[+-]\d+\.\d ±\d+\.\d \|", text, re.M)
    assert m, text
    # sclat's programs read the clock twice too, and do more than floor-clock's: what they
    # spend beyond it is not below zero by more than three times its spread (one round of
    # 50 ms on a fast machine leaves a few ns either side of zero).
    beyond, spread = float(m.group(1)), float(m.group(2))
    assert beyond > -3 * max(spread, 1.0), m.group(0)
