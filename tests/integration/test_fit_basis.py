# SPDX-License-Identifier: GPL-2.0-only
"""A threshold set by a false_alarm rule says the fit it came from: where the tail starts,
its shape and scale, the calls above its start, the rate it aims at and where stalls are far
from the body, in `sclat status` (text and JSON) and in the trace's sclat:threshold_update."""
import json
import subprocess

from conftest import SCLAT, Trace, env_of, reap, run_sclat, wait_until, workload

POLICY = """\
[global]
interval = 200ms
half_life = 2s
[default]
false_alarm = 1e-5
min_samples = 1000
"""


def test_status_and_trace_say_the_fit(root, tmp_path):
    policy = tmp_path / "rate.ini"
    policy.write_text(POLICY)
    out_dir = tmp_path / "trace"
    env = env_of(tmp_path)
    rec = subprocess.Popen(
        [SCLAT, "record", "-o", str(out_dir), "--policy", str(policy), "--",
         workload("latgen"), "--duration", "12", "--body", "64", "--inject-every", "0",
         "--report", "/dev/null"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        def read_fitted():
            r = run_sclat("status", "--json", "--pid", str(rec.pid), env=env, timeout=30)
            if r.returncode != 0:
                return None
            rows = [s for s in json.loads(r.stdout)["syscalls"] if s["syscall"] == "read"]
            return rows[0] if rows and rows[0]["fit"] else None
        read = wait_until(read_fitted, timeout=20, step=0.3)
        assert read, "read has no fit in sclat status"
        text = run_sclat("status", "--pid", str(rec.pid), env=env, timeout=30)
        assert text.returncode == 0, text.stderr
    finally:
        # latgen ends by itself: the trace is whole.
        out, err = rec.communicate(timeout=90)
        reap(rec)
    assert rec.returncode == 0, err
    fit = read["fit"]
    assert read["armed"] and abs(read["target_rate"] - 1e-5) < 1e-9, read
    # The tail starts at the 0.99 quantile, or higher (100x or 10x the rate from the top)
    # when one tail from there is too heavy to be one: above the median, below the threshold.
    assert read["p50_ns"] <= fit["start_ns"] < read["threshold_ns"], read
    # Between 10x the rate and 1 % of the calls, and the rest of the quantile's bucket.
    assert 5e-5 < fit["share"] < 0.25 and fit["above"] >= 100, read
    assert -0.5 <= fit["shape"] <= 1.5 and fit["scale_ns"] > 0, read
    # Where stalls are far from the body: 16x its 0.99 quantile (over the half-life: past
    # 16x the last interval's median, which one slow interval does not move as it moves its
    # 0.99 quantile), and 50 us at least.
    assert fit["far_ns"] >= 50000 and fit["far_ns"] >= 16 * read["p50_ns"], read
    line = [l for l in text.stdout.splitlines() if l.startswith("read ") and "tail from" in l]
    assert line and "aims at 1e-05" in line[0] and "; stalls far from " in line[0], text.stdout
    # The trace: each move of read's threshold from a fit carries it.
    trace = Trace(out_dir, keep={"sclat:threshold_update"})
    moves = [e["fields"] for e in trace.named("sclat:threshold_update")
             if e["fields"]["syscall"] == "read" and e["fields"]["class"] == ""]
    fitted = [m for m in moves if m["fit_start_ns"] > 0]
    assert fitted, moves
    for m in fitted:
        assert abs(m["rate"] - 1e-5) < 1e-9 and m["fit_above"] >= 100, m
        assert m["fit_scale_ns"] > 0 and -0.5 <= m["fit_shape"] <= 1.5, m
        assert m["fit_start_ns"] < m["new_ns"], m
