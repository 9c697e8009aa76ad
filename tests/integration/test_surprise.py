# SPDX-License-Identifier: GPL-2.0-only
"""How surprising and how costly each outlier is: its surprise (-log10 of the probability
of a normal call of its syscall being that slow) and its impact (latency beyond the
window's median), in the trace, `sclat watch` (and --min-surprise) and `sclat report`
(--sort impact|surprise|latency)."""
import json
import re
import statistics

from conftest import Trace, env_of, json_lines, run_sclat, workload
from fast_policy import fast_policy_file

# Under fast_policy's thresholds, armed after a few hundred calls at the 0.99 quantile,
# most outliers are the body's own tail, a few the injected reads, 1 in 2000 calls and
# 100x slower.
INJECT = 4 << 20


def latgen(duration="4"):
    return [workload("latgen"), "--duration", duration, "--body", "64",
            "--inject-every", "2000", "--inject", str(INJECT), "--report", "/dev/null"]


def is_injected(o):
    return o["syscall"] == "read" and o["args"][2] == INJECT


def test_outliers_say_how_surprising_and_costly(root, tmp_path):
    out_dir = tmp_path / "trace"
    r = run_sclat("record", "-o", str(out_dir), "--policy", fast_policy_file(tmp_path), "--",
                  *latgen())
    assert r.returncode == 0, r.stderr
    trace = Trace(out_dir, keep={"sclat:syscall_outlier", "sclat:session_begin"})
    assert trace.named("sclat:session_begin")[0]["fields"]["abi_version"] >= 9
    outs = [e["fields"] for e in trace.named("sclat:syscall_outlier")]
    learnt = [o for o in outs if o["samples"] > 0 and o["syscall"] == "read"]
    injected = [o for o in learnt if is_injected(o)]
    body = [o for o in learnt if not is_injected(o)]
    assert len(injected) >= 10 and len(body) >= 100, (len(injected), len(body))
    for o in learnt:
        # Known, behind a learnt threshold: the normal is a read of the body, below it.
        assert o["surprise"] >= 0 and 0 < o["normal_ns"] < o["threshold_ns"], o
        assert o["impact_ns"] == o["latency_ns"] - o["normal_ns"], o
    # Calibrated: the injected reads are one call in 2000, far beyond the body, half of
    # them slower than the median one: about one in 4000 (3.6). Every outlier of the body
    # is above its 0.99 threshold: one in a hundred or rarer (2; a steep body puts those
    # just above it much further).
    med = statistics.median(o["surprise"] for o in injected)
    assert 3.0 <= med <= 4.3, sorted(o["surprise"] for o in injected)
    assert min(o["surprise"] for o in body) >= 1.5, sorted(o["surprise"] for o in body)[:20]
    # Nothing learnt yet (the initial threshold): not known, the impact is the latency.
    for o in outs:
        if o["samples"] == 0:
            assert o["surprise"] == -1 and o["normal_ns"] == 0, o
            assert o["impact_ns"] == o["latency_ns"], o

    def report(*args):
        r = run_sclat("report", "--json", "--top", "50", *args, str(out_dir))
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)

    by_key = {(o["tid"], o["entry_ts"]): o for o in outs}
    keys = {"impact_ns": lambda o: o["impact_ns"], "surprise": lambda o: o["surprise"],
            "latency_ns": lambda o: o["latency_ns"]}
    for order, key in (("impact", "impact_ns"), ("surprise", "surprise"),
                       ("latency", "latency_ns")):
        rep = report(*(("--sort", order) if order != "impact" else ()))
        assert rep["top_order"] == order
        top = rep["top"]
        assert len(top) == 50
        # Each top entry carries the trace's figures, under watch's keys.
        for t in top:
            o = by_key[(t["tid"], t["ts_ns"])]
            assert t["impact_ns"] == o["impact_ns"] and t["normal_ns"] == (
                o["normal_ns"] if o["surprise"] >= 0 else None)
            assert t["surprise"] is None if o["surprise"] < 0 else \
                abs(t["surprise"] - o["surprise"]) < 1e-3
        # The first by that order, of all outliers of the trace.
        values = [keys[key](by_key[(t["tid"], t["ts_ns"])]) for t in top]
        assert values == sorted(values, reverse=True), (order, values)
        assert values[-1] >= sorted(map(keys[key], outs), reverse=True)[49], order
    # The text shows both per top entry.
    r = run_sclat("report", "--top", "3", str(out_dir))
    assert r.returncode == 0, r.stderr
    assert "Top 3 by impact" in r.stdout, r.stdout
    assert r.stdout.count(" surprise ") >= 3 and r.stdout.count(" impact ") >= 3, r.stdout


def test_watch_shows_only_the_surprising(root, tmp_path):
    env = env_of(tmp_path)
    r = run_sclat("watch", "--json", "--summary", "--min-surprise", "3", "--policy",
                  fast_policy_file(tmp_path), "--", *latgen(), env=env)
    assert r.returncode == 0, r.stderr
    lines = json_lines(r.stdout)
    summary = [l["summary"] for l in lines if "summary" in l][0]
    outs = [l for l in lines if "syscall" in l and not l.get("inflight")]
    # The injected reads pass; the body's tail (about 2) does not.
    assert sum(is_injected(o) for o in outs) >= 5, outs
    assert all(o["surprise"] is not None and o["surprise"] >= 3 for o in outs), outs
    # The body's tail at its threshold (about 2) is left out: not all outliers are printed.
    assert summary["outliers"] > len(outs), (summary, len(outs))
    m = re.search(r"(\d+) outliers less surprising than --min-surprise 3 \(or not known\) "
                  r"not printed", r.stderr)
    assert m and 0 < int(m.group(1)) <= summary["outliers"] - len(outs), r.stderr
    # The text line has the columns, and the filter holds there too.
    r = run_sclat("watch", "--min-surprise", "3", "--policy", fast_policy_file(tmp_path), "--",
                  *latgen("2"), env=env)
    assert r.returncode == 0, r.stderr
    text = r.stdout.splitlines()
    assert text[0].split()[7:10] == ["THRESHOLD", "SURPRISE", "IMPACT"], text[0]
    for line in text[1:]:
        if line.split()[6] == "IN":
            continue
        assert float(line.split()[7 + 1].lstrip(">=")) >= 3, line


def test_watch_min_surprise_is_checked(root):
    for bad in ("x", "-1", "31", "nan"):
        r = run_sclat("watch", "--min-surprise", bad, "--", "true")
        assert r.returncode == 2 and "--min-surprise " + bad in r.stderr, r.stderr
