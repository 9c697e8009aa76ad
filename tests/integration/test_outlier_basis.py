# SPDX-License-Identifier: GPL-2.0-only
"""Each recorded outlier names the basis (quantile estimate, samples, quantile)
of the threshold it crossed, not of whatever threshold was current when the
consumer read it."""
from conftest import Trace, run_sclat, workload
from fast_policy import fast_policy_file
from test_record import summary_of


def test_outliers_carry_the_basis_of_their_threshold(root, tmp_path):
    # fast_policy's thresholds move every 100 ms, armed after a few hundred calls:
    # outliers are often still in the ring buffer when their threshold moves.
    out_dir = tmp_path / "trace"
    r = run_sclat("record", "-o", str(out_dir), "--policy", fast_policy_file(tmp_path), "--",
                  workload("latgen"), "--duration", "4", "--body", "64",
                  "--inject-every", "200", "--inject", "1048576",
                  # The body gets 10x slower halfway: read's threshold must move.
                  "--shift-at", "2", "--shift-body", "65536", "--shift-inject", "4194304",
                  "--report", "/dev/null")
    assert r.returncode == 0, r.stderr
    s = summary_of(r.stderr)
    trace = Trace(out_dir, keep={"sclat:threshold_update", "sclat:syscall_outlier"})
    bases = {}
    for e in trace.named("sclat:threshold_update"):
        f = e["fields"]
        bases.setdefault((f["nr"], f["new_ns"]), []).append(
            (f["estimate_ns"], f["samples"], f["quantile"]))
    outliers = [e["fields"] for e in trace.named("sclat:syscall_outlier")]
    assert len(outliers) == s["outliers"]
    armed = [o for o in outliers if o["samples"] > 0]
    # read(2) is armed within the first intervals and emits for the rest of the run;
    # its threshold moves after the shift.
    assert len(armed) >= 100, (len(outliers), trace.counts)
    assert len({o["threshold_ns"] for o in armed if o["syscall"] == "read"}) >= 2
    for o in armed:
        assert (o["estimate_ns"], o["samples"], o["quantile"]) in \
            bases.get((o["nr"], o["threshold_ns"]), []), o
