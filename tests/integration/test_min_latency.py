# SPDX-License-Identifier: GPL-2.0-only
"""One switch for "only above X": the policy's min_latency ([global]), or --min-latency,
raises every threshold in force to X, learnt or not, without touching any syscall's rule;
`sclat policy set min_latency=...` changes it at run time."""
from conftest import Watch, env_of, run_sclat, wait_until, workload

POLICY = """\
[global]
interval = 100ms
half_life = 1s
budget = 100000
{extra}
[default]
quantile = 0.99
margin = 1.0
floor = 1us
min_samples = 200
"""
MIN_NS = 50_000
INJECT = 4 << 20


def latgen(duration):
    # read(2) of 64 bytes (a few us), and 1 in 500 of 4 MiB (hundreds of us).
    return ["--", workload("latgen"), "--duration", duration, "--body", "64",
            "--inject-every", "500", "--inject", str(INJECT), "--report", "/dev/null"]


def read_status(w):
    st = w.try_status()
    rows = [s for s in (st or {}).get("syscalls", []) if s["syscall"] == "read"]
    return rows[0] if rows else None


def test_min_latency_holds_every_threshold_and_changes_at_run_time(root, tmp_path):
    policy = tmp_path / "min.ini"
    policy.write_text(POLICY.format(extra="min_latency = 50us"))
    env = env_of(tmp_path)
    w = Watch(env, "--policy", str(policy), *latgen("30"))
    try:
        # read learns a threshold of a few us, yet the one in force is 50 us.
        armed = wait_until(lambda: (lambda s: s if s and s["armed"] else None)(
            read_status(w)), timeout=20, step=0.2)
        assert armed, w.stderr
        assert armed["learned_ns"] < MIN_NS and armed["threshold_ns"] == MIN_NS, armed
        assert wait_until(lambda: sum(o["args"][2] == INJECT for o in w.outliers()) >= 5,
                          timeout=20), w.stderr
        held = w.outliers()
        assert held and all(o["latency_ns"] >= MIN_NS and o["threshold_ns"] >= MIN_NS
                            for o in held), [o for o in held if o["latency_ns"] < MIN_NS]
        shown = run_sclat("policy", "show", "--pid", str(w.proc.pid), env=env)
        assert shown.returncode == 0 and "min_latency = 50us" in shown.stdout, shown
        # Off at run time: the learnt threshold is in force again, and the body's tail
        # comes out.
        r = run_sclat("policy", "set", "--pid", str(w.proc.pid), "min_latency=0ns", env=env)
        assert r.returncode == 0, r.stderr
        moved = wait_until(lambda: (lambda s: s if s and s["threshold_ns"] < MIN_NS else None)(
            read_status(w)), timeout=10, step=0.2)
        assert moved and moved["threshold_ns"] == moved["learned_ns"], read_status(w)
        assert wait_until(lambda: [o for o in w.outliers()[len(held):]
                                   if o["syscall"] == "read" and o["latency_ns"] < MIN_NS],
                          timeout=10), w.stderr
    finally:
        w.stop()


def test_min_latency_option(root, tmp_path):
    """--min-latency over a policy file without it: the same switch, for one run."""
    policy = tmp_path / "plain.ini"
    policy.write_text(POLICY.format(extra=""))
    env = env_of(tmp_path)
    w = Watch(env, "--policy", str(policy), "--min-latency", "50us", *latgen("4"))
    assert w.wait(60) == 0, w.stderr
    outs = w.outliers()
    assert sum(o["args"][2] == INJECT for o in outs) >= 5, w.stderr
    assert all(o["latency_ns"] >= MIN_NS and o["threshold_ns"] >= MIN_NS for o in outs), \
        [o for o in outs if o["latency_ns"] < MIN_NS]
    r = run_sclat("watch", "--min-latency", "soon", "--", "true")
    assert r.returncode == 2 and "--min-latency soon" in r.stderr, r.stderr
