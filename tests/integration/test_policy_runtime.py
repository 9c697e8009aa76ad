# SPDX-License-Identifier: GPL-2.0-only
"""The policy at run time: `sclat policy check`, and `sclat status` and
`sclat policy show|set|load` (and SIGHUP) against a real running tracer.

Most tests run `sclat watch --json --policy FILE -- ticker ...` with their own
SCLAT_RUN_DIR, so that finding "the only tracer" is not disturbed by other
tracers on the machine, and talk to it through its control socket.
"""
import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time

import pytest

from conftest import SCLAT, ROOT, run_sclat, wait_until, workload

SHIPPED = os.path.join(ROOT, "user", "policy", "policy.ini")
INTERVAL_NS = 200_000_000

# Only getppid is reported, each call (static at 1 ns); everything else is off.
STATIC_EVERY_GETPPID = """\
[global]
interval = 200ms
budget = 0
[default]
mode = off
[syscall getppid]
mode = static
initial = 1ns
"""


class Tracer:
    """`sclat watch --json` on a ticker, its outliers and stderr read live.
    Without a policy file, the default policy."""

    def __init__(self, policy, env, ticker=("--batch", "5", "--pause-us", "10000"),
                 extra=()):
        self.env = env
        self.events = []
        self.stderr = []
        self.lock = threading.Lock()
        self.proc = subprocess.Popen(
            [SCLAT, "watch", "--json", *(["--policy", policy] if policy else []), *extra,
             "--", workload("ticker"), "--seconds", "60", *ticker],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        self.readers = [threading.Thread(target=self._read, args=(self.proc.stdout, True)),
                        threading.Thread(target=self._read, args=(self.proc.stderr, False))]
        for t in self.readers:
            t.start()
        run_dir = env.get("SCLAT_RUN_DIR", "/run/sclat")
        self.socket = os.path.join(run_dir, "%d.sock" % self.proc.pid)
        assert wait_until(lambda: os.path.exists(self.socket) or self.proc.poll() is not None), \
            "no control socket %s" % self.socket
        assert self.proc.poll() is None, "tracer exited: %s" % "".join(self.stderr)

    def _read(self, stream, is_stdout):
        for line in stream:
            with self.lock:
                if is_stdout and line.startswith("{"):
                    self.events.append(json.loads(line))
                elif not is_stdout:
                    self.stderr.append(line)

    def outliers(self, name, after_ns=0, before_ns=None):
        with self.lock:
            return [e for e in self.events if e["syscall"] == name and e["ts_ns"] > after_ns
                    and (before_ns is None or e["ts_ns"] <= before_ns)]

    def ctl(self, *args, **kw):
        """A client command talking to this tracer (by --pid)."""
        return run_sclat(*args, "--pid", str(self.proc.pid), env=self.env, timeout=30, **kw)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for t in self.readers:
            t.join(timeout=5)
        return self.proc.returncode


@pytest.fixture
def env(tmp_path):
    e = dict(os.environ)
    e["SCLAT_RUN_DIR"] = str(tmp_path / "run")
    return e


@pytest.fixture
def static_tracer(root, tmp_path, env):
    policy = tmp_path / "static.ini"
    policy.write_text(STATIC_EVERY_GETPPID)
    t = Tracer(str(policy), env)
    t.policy = policy
    yield t
    t.stop()


def now_ns():
    return time.monotonic_ns()     # CLOCK_MONOTONIC, the clock of ts_ns


# sclat policy check


def test_policy_check_shipped_file():
    r = run_sclat("policy", "check", SHIPPED)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0] == "policy %s: interval 1s, half-life 10s, budget 1000/s" % SHIPPED
    assert lines[1].split() == ["SYSCALL", "MODE", "QUANTILE", "MARGIN", "FLOOR", "CEILING",
                                "INITIAL", "MIN_SAMPLES", "CLASSES"]
    rows = {l.split()[0]: l.split() for l in lines[2:]}
    assert rows["(default)"] == ["(default)", "adaptive", "p=1e-05", "1", "2us", "10s", "10ms",
                                 "1000", "auto(64)"]
    for name in ("nanosleep", "wait4", "accept"):
        assert rows[name][1] == "off", name
    # Waits for an event or a lock: judged, once their normal is learnt.
    for name in ("futex", "epoll_wait", "poll"):
        assert rows[name][1] == "adaptive" and rows[name][6] == "off", rows[name]
    assert "read" not in rows       # learned like any other, not an exception

    r = run_sclat("policy", "check", "--all", SHIPPED)
    rows = {l.split()[0]: l.split() for l in r.stdout.splitlines()[2:]}
    assert r.returncode == 0 and rows["read"][1] == "adaptive" and len(rows) > 300


@pytest.mark.parametrize("text,error", [
    ("[default]\nmode = off\nquantil = 0.9\n",
     '3: unknown key "quantil" (did you mean "quantile"?)'),
    ("[global]\ninterval = 1s\n\n[syscall reed]\nmode = off\n",
     '4: unknown syscall "reed" (did you mean "read"?)'),
    ("[default]\nmode = adaptiv\n", '2: mode = adaptiv: unknown mode (did you mean "adaptive"?)'),
    ("[defaults]\n", "1: unknown section [defaults] (did you mean [default]?)"),
    ("[global]\ninterval = 5ms\n", "2: interval = 5ms: must be between 100ms and 60s"),
])
def test_policy_check_bad_file(tmp_path, text, error):
    path = tmp_path / "bad.ini"
    path.write_text(text)
    r = run_sclat("policy", "check", str(path))
    assert r.returncode == 1
    assert r.stdout == ""
    assert r.stderr == "sclat: %s:%s\n" % (path, error)


# The default policy: the file $SCLAT_POLICY names, else the installed file, else built-in

INSTALLED = "/etc/sclat/policy.ini"
BROKEN = "[default]\nquantile = 0.999\nmargn = 2\n"


def default_env(env, policy=None):
    """env with SCLAT_POLICY naming policy, or unset."""
    e = dict(env)
    e.pop("SCLAT_POLICY", None)
    if policy:
        e["SCLAT_POLICY"] = str(policy)
    return e


def builtin_or_installed():
    """How the default policy names itself on this machine."""
    return INSTALLED if os.path.exists(INSTALLED) else "built-in (no %s)" % INSTALLED


def test_policy_check_without_file_checks_the_default(tmp_path, env):
    r = run_sclat("policy", "check", env=default_env(env))
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("policy %s: " % builtin_or_installed()), r.stdout

    policy = tmp_path / "default.ini"
    policy.write_text(STATIC_EVERY_GETPPID)
    r = run_sclat("policy", "check", env=default_env(env, policy))
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == (
        "policy %s: interval 200ms, half-life 10s, budget none" % policy)

    policy.write_text(BROKEN)
    r = run_sclat("policy", "check", env=default_env(env, policy))
    assert (r.returncode, r.stdout) == (1, "")
    assert r.stderr == ('sclat: %s:3: unknown key "margn" (did you mean "margin"?) '
                        "(named by SCLAT_POLICY)\n" % policy)


def test_watch_applies_the_default_policy_file(root, tmp_path, env):
    """No --policy: the file SCLAT_POLICY names is in force (it reports every getppid, which
    the built-in policy never does), status names it, and SIGHUP reloads it."""
    policy = tmp_path / "default.ini"
    policy.write_text(STATIC_EVERY_GETPPID)
    t = Tracer(None, default_env(env, policy))
    try:
        assert wait_until(lambda: len(t.outliers("getppid")) >= 20), t.stderr
        assert {e["threshold_ns"] for e in t.outliers("getppid")} == {1}
        r = t.ctl("status", "--json")
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["policy"] == str(policy)

        policy.write_text(STATIC_EVERY_GETPPID.replace("initial = 1ns", "initial = 10s"))
        t.proc.send_signal(signal.SIGHUP)
        want = "sclat: SIGHUP: policy loaded from %s\n" % policy
        assert wait_until(lambda: want in t.stderr), t.stderr
        assert "initial = 10s\n" in t.ctl("policy", "show").stdout
    finally:
        t.stop()


def test_watch_without_a_default_file(root, env):
    """Neither --policy nor SCLAT_POLICY: the installed file, or the built-in policy, and
    status says which."""
    t = Tracer(None, default_env(env))
    try:
        r = t.ctl("status", "--json")
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["policy"] == builtin_or_installed()
    finally:
        t.stop()


@pytest.mark.parametrize("command", ["watch", "record"])
def test_broken_default_policy_is_refused(root, tmp_path, env, command):
    """A broken default file is an error naming it, before anything runs, not a silent
    fallback; --threshold and --policy still choose for themselves."""
    policy = tmp_path / "default.ini"
    policy.write_text(BROKEN)
    marker = tmp_path / "ran"
    out = ["-o", str(tmp_path / "trace")] if command == "record" else []
    r = run_sclat(command, *out, "--", "touch", str(marker), env=default_env(env, policy))
    assert r.returncode == 1
    assert r.stderr.splitlines() == [
        'sclat: %s:3: unknown key "margn" (did you mean "margin"?) (named by SCLAT_POLICY)'
        % policy]
    assert r.stdout == "" and not marker.exists()
    assert not (tmp_path / "trace").exists()
    r = run_sclat("watch", "--threshold", "1s", "--", "true", env=default_env(env, policy))
    assert r.returncode == 0, r.stderr


# Tuning a running tracer


def test_policy_set_changes_emission_within_an_interval(static_tracer):
    t = static_tracer
    assert wait_until(lambda: len(t.outliers("getppid")) >= 50), t.stderr
    r = t.ctl("policy", "set", "--syscall", "getppid", "initial=10s")
    done = now_ns()
    assert r.returncode == 0, r.stderr
    assert r.stdout == "getppid: initial = 10s\n"
    # The ticker goes on (500 getppid/s) but none is 10 s long: after one
    # interval (plus one of slack for scheduling) nothing more is emitted.
    time.sleep(5 * INTERVAL_NS / 1e9)
    assert t.outliers("getppid", after_ns=done + 2 * INTERVAL_NS) == []
    # And back: every call is reported again.
    r = t.ctl("policy", "set", "--syscall", "getppid", "initial=1ns")
    again = now_ns()
    assert r.returncode == 0, r.stderr
    assert wait_until(lambda: len(t.outliers("getppid", after_ns=again)) >= 20), t.stderr


def test_policy_set_read_quantile(root, tmp_path, env):
    """The issue's example: a higher quantile for read emits far fewer reads."""
    policy = tmp_path / "read.ini"
    policy.write_text("[global]\ninterval = 200ms\nbudget = 0\n[default]\nmode = off\n"
                      "[syscall read]\nmode = adaptive\nquantile = 0.9\nfloor = 1ns\n"
                      "min_samples = 200\n")
    t = Tracer(str(policy), env, ticker=("--syscall", "read", "--batch", "50",
                                         "--pause-us", "2000"))
    try:
        # Armed at q=0.9: about one read in ten is over the threshold.
        assert wait_until(lambda: len(t.outliers("read")) >= 500, timeout=15), t.stderr
        before_end = now_ns()
        before = len(t.outliers("read", after_ns=before_end - 1_000_000_000,
                                before_ns=before_end))
        r = t.ctl("policy", "set", "--syscall", "read", "quantile=0.9999")
        assert r.returncode == 0, r.stderr
        start = now_ns() + 2 * INTERVAL_NS
        time.sleep(2 * INTERVAL_NS / 1e9 + 1.0)
        after = len(t.outliers("read", after_ns=start, before_ns=start + 1_000_000_000))
        assert before >= 100, before
        assert after * 10 < before, (before, after)
    finally:
        t.stop()


def test_refused_changes_keep_the_running_policy(static_tracer, tmp_path):
    t = static_tracer
    shown = t.ctl("policy", "show")
    assert shown.returncode == 0, shown.stderr
    assert "[syscall getppid]\nmode = static\ninitial = 1ns\n" in shown.stdout

    r = t.ctl("policy", "set", "--syscall", "getppid", "initial=banana")
    assert r.returncode == 1
    assert r.stderr == ("sclat: --syscall getppid initial=banana: initial = banana: not a "
                        "duration (a number and ns, us, ms or s, e.g. 250us)\n")
    # All or nothing: the good first pair is not applied either.
    r = t.ctl("policy", "set", "--syscall", "getppid", "initial=10s", "quantil=0.5")
    assert r.returncode == 1
    assert 'unknown key "quantil" (did you mean "quantile"?)' in r.stderr
    r = t.ctl("policy", "set", "interval=10ms")
    assert r.returncode == 1
    assert r.stderr == "sclat: interval = 10ms: must be between 100ms and 60s\n"

    bad = tmp_path / "bad.ini"
    bad.write_text("[default]\nquantil = 0.9\n")
    r = t.ctl("policy", "load", str(bad))
    assert r.returncode == 1
    assert r.stderr == ('sclat: %s:2: unknown key "quantil" (did you mean "quantile"?) '
                        "(the running policy stays)\n" % bad)

    assert t.ctl("policy", "show").stdout == shown.stdout
    # The old policy keeps working: every getppid is still reported.
    refused = now_ns()
    assert wait_until(lambda: len(t.outliers("getppid", after_ns=refused)) >= 20), t.stderr

    good = tmp_path / "quiet.ini"
    good.write_text(STATIC_EVERY_GETPPID.replace("initial = 1ns", "initial = 10s"))
    r = t.ctl("policy", "load", "--replace", str(good))
    assert r.returncode == 0, r.stderr
    assert r.stdout == "policy loaded from %s\n" % good
    shown = t.ctl("policy", "show").stdout
    assert shown.startswith("; sclat policy, from %s\n" % good)
    assert "[syscall getppid]\nmode = static\ninitial = 10s\n" in shown


# Every call of every syscall is on (static, 10 s), but two idle waits, and getppid's
# each call is reported.
ON_BUT_TWO_WAITS = """\
[global]
interval = 200ms
budget = 0
[default]
mode = static
initial = 10s
[syscall futex]
mode = off
[syscall epoll_wait]
mode = off
[syscall getppid]
mode = static
initial = 1ns
"""


def test_policy_load_of_a_partial_file_changes_only_what_it_says(root, tmp_path, env):
    """A file with only [default] floor merges into the running policy: its syscall
    sections (the idle waits off, getppid's every call) stay, and nothing turns on;
    --replace puts the file alone in place, and says which syscalls that turns on."""
    base = tmp_path / "base.ini"
    base.write_text(ON_BUT_TWO_WAITS)
    t = Tracer(str(base), env)
    try:
        partial = tmp_path / "floor.ini"
        partial.write_text("[default]\nfloor = 500us\n")
        r = t.ctl("policy", "load", str(partial))
        assert r.returncode == 0, r.stderr
        assert r.stdout == "policy merged from %s\n" % partial
        shown = t.ctl("policy", "show").stdout
        assert shown.startswith("; sclat policy, from %s + %s\n" % (base, partial)), shown
        assert "floor = 500us\n" in shown.split("[syscall")[0], shown
        for section in ("[syscall futex]\nmode = off\n", "[syscall epoll_wait]\nmode = off\n",
                        "[syscall getppid]\nmode = static\ninitial = 1ns\n"):
            assert section in shown, shown
        merged = now_ns()
        assert wait_until(lambda: len(t.outliers("getppid", after_ns=merged)) >= 20), t.stderr

        # A merge that turns one off says so.
        off = tmp_path / "off.ini"
        off.write_text("[syscall getppid]\nmode = off\n")
        r = t.ctl("policy", "load", str(off))
        assert r.returncode == 0, r.stderr
        assert r.stdout == "policy merged from %s\nnow off: getppid\n" % off

        r = t.ctl("policy", "load", "--replace", str(partial))
        assert r.returncode == 0, r.stderr
        assert r.stdout == "policy loaded from %s\nnow on: getppid, futex, epoll_wait\n" % \
            partial
        shown = t.ctl("policy", "show").stdout
        assert shown.startswith("; sclat policy, from %s\n" % partial), shown
        assert "[syscall futex]" not in shown and "[syscall getppid]" not in shown, shown
    finally:
        t.stop()


def test_policy_load_of_a_floor_keeps_the_built_in_policys_exceptions(root, tmp_path, env):
    """The operator's case: the default policy, then a file of [default] floor = 500us:
    nanosleep stays off and futex and epoll_wait unjudged until learnt, as the default
    policy has them."""
    t = Tracer(None, default_env(env))
    try:
        assert "[syscall futex]\ninitial = off\n" in t.ctl("policy", "show").stdout
        partial = tmp_path / "floor.ini"
        partial.write_text("[default]\nfloor = 500us\n")
        r = t.ctl("policy", "load", str(partial))
        assert r.returncode == 0, r.stderr
        assert "now on" not in r.stdout, r.stdout
        shown = t.ctl("policy", "show").stdout
        assert "[syscall futex]\ninitial = off\n" in shown, shown
        assert "[syscall epoll_wait]\ninitial = off\n" in shown, shown
        assert "[syscall nanosleep]\nmode = off\n" in shown, shown
    finally:
        t.stop()


def test_sighup_reloads_the_policy_file(static_tracer):
    t = static_tracer
    t.policy.write_text("[default]\nquantil = 0.5\n")
    t.proc.send_signal(signal.SIGHUP)
    want = ('sclat: SIGHUP: %s:2: unknown key "quantil" (did you mean "quantile"?) '
            "(the running policy stays)\n" % t.policy)
    assert wait_until(lambda: want in t.stderr), t.stderr
    assert t.proc.poll() is None
    hup = now_ns()
    assert wait_until(lambda: len(t.outliers("getppid", after_ns=hup)) >= 20), t.stderr

    t.policy.write_text(STATIC_EVERY_GETPPID.replace("initial = 1ns", "initial = 10s"))
    t.proc.send_signal(signal.SIGHUP)
    want = "sclat: SIGHUP: policy loaded from %s\n" % t.policy
    assert wait_until(lambda: want in t.stderr), t.stderr
    assert "[syscall getppid]\nmode = static\ninitial = 10s\n" in t.ctl("policy", "show").stdout


# sclat status


def test_status_json(static_tracer):
    t = static_tracer
    assert wait_until(lambda: len(t.outliers("getppid")) >= 100), t.stderr
    time.sleep(2 * INTERVAL_NS / 1e9)
    r = t.ctl("status", "--json")
    assert r.returncode == 0, r.stderr
    st = json.loads(r.stdout)
    assert st["pid"] == t.proc.pid
    assert st["policy"] == str(t.policy)
    assert st["interval_ns"] > 0 and st["elapsed_ns"] > 0
    assert st["attach"] in ("tp_btf", "raw_tp")
    assert set(st["totals"]) >= {"syscalls", "outliers", "drops", "throttled",
                                 "threshold_changes"}
    assert st["totals"]["outliers"] >= 100
    assert st["ns_per_syscall"] > 0
    assert st["progs"] and all(p["name"].startswith("sclat_") for p in st["progs"])
    assert max(p["run_cnt"] for p in st["progs"]) > 0
    assert st["memory"]["per_cpu_bytes"] > 0 and st["memory"]["fixed_bytes"] > 0
    assert st["memory"]["ncpus"] >= 1
    assert st["ringbuf"]["size_bytes"] == 1 << 20
    assert 0 <= st["ringbuf"]["used_bytes"] <= st["ringbuf"]["size_bytes"]
    assert 0 <= st["consumer_lag_ns"] < 10_000_000_000, st  # not a wrapped or mixed-clock value

    sc = {s["syscall"]: s for s in st["syscalls"]}
    keys = {"syscall", "nr", "calls", "rate", "p50_ns", "p99_ns", "p999_ns", "threshold_ns",
            "armed", "outliers", "throttled", "drops"}
    assert all(keys <= set(s) for s in st["syscalls"])
    g = sc["getppid"]
    assert g["nr"] == 110 and g["mode"] == "static" and g["threshold_ns"] == 1
    assert g["armed"] is False
    assert g["calls"] >= 100 and g["rate"] > 0
    assert 0 < g["p50_ns"] <= g["p99_ns"] <= g["p999_ns"]
    assert g["outliers"] >= 100 and g["drops"] == 0
    # What the policy never reports has no threshold.
    assert sc["clock_nanosleep"]["mode"] == "off"
    assert sc["clock_nanosleep"]["threshold_ns"] is None


def test_status_text(static_tracer):
    t = static_tracer
    assert wait_until(lambda: len(t.outliers("getppid")) >= 100), t.stderr
    time.sleep(2 * INTERVAL_NS / 1e9)
    r = t.ctl("status")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("sclat pid %d: up " % t.proc.pid)
    assert lines[0].endswith(", policy %s" % t.policy)
    assert lines[1].startswith("totals: ") and " outliers, " in lines[1]
    cost = lines[2].split()
    assert cost[0] == "cost:" and int(cost[1]) > 0 and cost[2:5] == ["ns", "per", "syscall;"]
    assert "kernel memory" in lines[2] and "ring buffer" in lines[2]
    header = lines.index(next(l for l in lines if l.startswith("SYSCALL")))
    assert lines[header].split() == ["SYSCALL", "CALLS", "RATE", "P50", "P99", "P99.9",
                                     "THRESHOLD", "OUTLIERS", "THROTTLED", "DROPS"]
    rows = {l.split()[0]: l.split() for l in lines[header + 1:] if l.strip() and
            not l.startswith("*")}
    g = rows["getppid"]
    assert g[6] == "1ns" and int(g[7]) >= 100 and g[9] == "0"
    assert rows["clock_nanosleep"][6] == "off"


# The socket itself


def test_socket_is_root_only_and_removed_at_exit(root, tmp_path):
    policy = tmp_path / "p.ini"
    policy.write_text(STATIC_EVERY_GETPPID)
    env = dict(os.environ)
    env.pop("SCLAT_RUN_DIR", None)
    t = Tracer(str(policy), env)
    try:
        assert t.socket == "/run/sclat/%d.sock" % t.proc.pid
        st = os.stat(t.socket)
        assert stat.S_ISSOCK(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600
        assert st.st_uid == 0
        d = os.stat("/run/sclat")
        assert stat.S_IMODE(d.st_mode) == 0o700 and d.st_uid == 0
        r = t.ctl("policy", "show")
        assert r.returncode == 0 and "[syscall getppid]" in r.stdout
    finally:
        t.stop()
    assert not os.path.exists(t.socket)


def test_finding_the_tracer(root, tmp_path, env, static_tracer):
    run_dir = env["SCLAT_RUN_DIR"]
    t = static_tracer
    # The only one running: no --pid needed.
    r = run_sclat("policy", "show", env=env)
    assert r.returncode == 0 and "[syscall getppid]" in r.stdout

    # A socket left by a tracer that died is ignored, and removed.
    dead = subprocess.Popen(["true"])
    dead.wait()
    stale = os.path.join(run_dir, "%d.sock" % dead.pid)
    s = socket.socket(socket.AF_UNIX)
    s.bind(stale)
    s.close()
    r = run_sclat("policy", "show", env=env)
    assert r.returncode == 0, r.stderr
    assert not os.path.exists(stale)

    # So is one whose pid now belongs to a live process that is no tracer (pid reuse):
    # nobody listens on it.
    reused = os.path.join(run_dir, "%d.sock" % os.getpid())
    s = socket.socket(socket.AF_UNIX)
    s.bind(reused)
    s.close()
    r = run_sclat("status", "--json", env=env)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["pid"] == t.proc.pid
    assert not os.path.exists(reused)

    # Two live ones: the client asks which.
    other = os.path.join(run_dir, "%d.sock" % os.getpid())
    s = socket.socket(socket.AF_UNIX)
    s.bind(other)
    s.listen()
    r = run_sclat("status", env=env)
    s.close()
    assert r.returncode == 1
    pids = sorted([os.getpid(), t.proc.pid])
    assert "2 tracers are running" in r.stderr and "--pid PID" in r.stderr
    assert all(str(p) in r.stderr for p in pids)
    # Named, a socket nobody listens on is reported (and cleared).
    r = run_sclat("status", "--pid", str(os.getpid()), env=env)
    assert r.returncode == 1 and "no tracer is listening" in r.stderr
    assert not os.path.exists(other)
    r = run_sclat("status", "--socket", t.socket, "--json", env=env)
    assert r.returncode == 0 and json.loads(r.stdout)["pid"] == t.proc.pid

    t.stop()
    r = run_sclat("status", env=env)
    assert r.returncode == 1
    assert r.stderr.startswith("sclat: no tracer is running (no control socket in %s)"
                               % run_dir)


def test_stale_socket_of_a_killed_tracer(root, tmp_path, env):
    policy = tmp_path / "p.ini"
    policy.write_text(STATIC_EVERY_GETPPID)
    t = Tracer(str(policy), env, ticker=("--seconds", "2"))
    t.proc.kill()
    t.stop()
    assert os.path.exists(t.socket)     # SIGKILL: no chance to clean up
    r = run_sclat("status", env=env)
    assert r.returncode == 1 and "no tracer is running" in r.stderr
    assert not os.path.exists(t.socket)


def test_other_users_are_refused(root, tmp_path):
    """Even if someone opens up the directory and socket, the tracer checks who asks."""
    policy = tmp_path / "p.ini"
    policy.write_text(STATIC_EVERY_GETPPID)
    run_dir = tempfile.mkdtemp(prefix="sclat-run-", dir="/tmp")   # /tmp: others can reach it
    env = dict(os.environ, SCLAT_RUN_DIR=run_dir)
    t = Tracer(str(policy), env)
    try:
        os.chmod(run_dir, 0o755)
        os.chmod(t.socket, 0o666)
        r = subprocess.run([SCLAT, "policy", "show", "--socket", t.socket],
                           capture_output=True, text=True, timeout=30, user=65534, group=65534,
                           extra_groups=[])
        assert r.returncode == 1
        assert r.stderr == "sclat: permission denied\n"
        assert r.stdout == ""
        assert t.ctl("policy", "show").returncode == 0
    finally:
        t.stop()
        shutil.rmtree(run_dir, ignore_errors=True)


def test_sighup_reloads_without_a_control_socket(tmp_path):
    """A tracer whose control socket could not be made still reloads on SIGHUP, not dies."""
    blocker = tmp_path / "run"
    blocker.write_text("a file where the run directory should be\n")
    policy = tmp_path / "policy.ini"
    policy.write_text(STATIC_EVERY_GETPPID)
    env = dict(os.environ, SCLAT_RUN_DIR=str(blocker))
    proc = subprocess.Popen(
        [SCLAT, "watch", "--json", "--policy", str(policy), "--", workload("ticker"),
         "--seconds", "60", "--batch", "5", "--pause-us", "10000"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    lines = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stderr), daemon=True)
    reader.start()
    try:
        assert wait_until(lambda: any("no live tuning" in l for l in lines)), lines
        assert any(str(blocker) in l for l in lines), lines
        proc.send_signal(signal.SIGHUP)
        want = "sclat: SIGHUP: policy loaded from %s\n" % policy
        assert wait_until(lambda: want in lines), lines
        assert proc.poll() is None
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=15)
        reader.join(timeout=5)
    assert proc.returncode != -signal.SIGHUP


def test_a_run_dir_open_to_others_is_refused_not_changed(root, tmp_path):
    """SCLAT_RUN_DIR naming a directory others can enter (/tmp, say): the tracer makes no
    socket there, says why, and leaves the directory's mode alone; it traces on."""
    run_dir = tmp_path / "open"
    run_dir.mkdir()
    os.chmod(run_dir, 0o755)
    r = run_sclat("watch", "--threshold", "1s", "--duration", "1s",
                  env=dict(os.environ, SCLAT_RUN_DIR=str(run_dir)))
    assert r.returncode == 0, r.stderr
    assert "sclat: control socket: %s is open to others (mode 755): it must be 0700" % run_dir \
        in r.stderr, r.stderr
    assert "no live tuning" in r.stderr, r.stderr
    assert stat.S_IMODE(os.stat(run_dir).st_mode) == 0o755
    assert os.listdir(run_dir) == []


def test_an_answer_cut_short_is_an_error(tmp_path):
    """The tracer says how long its answer is: a client that gets less says so and exits 1,
    rather than print half a status as if it were whole."""
    path = str(tmp_path / "fake.sock")
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    srv.listen(1)

    def answer():
        conn, _ = srv.accept()
        conn.recv(4096)
        conn.sendall(b"ok 100\n" + b"{\"pid\": 1")
        conn.close()
    t = threading.Thread(target=answer, daemon=True)
    t.start()
    try:
        r = run_sclat("status", "--json", "--socket", path, timeout=30)
    finally:
        t.join(timeout=5)
        srv.close()
    assert r.returncode == 1, r
    assert "sclat: the tracer's answer was cut short (9 of 100 bytes)" in r.stderr, r.stderr


def test_policy_load_of_a_path_too_long_for_a_request_is_refused(tmp_path):
    """A policy file whose absolute path cannot go in one request line (4082 bytes at most)
    is refused by the client with the reason, not sent for the tracer to cut."""
    d = str(tmp_path)
    while len(d) < 4060:
        d = os.path.join(d, "d" * min(200, 4060 - len(d)))
        os.mkdir(d)
    path = os.path.join(d, "p" * (4090 - len(d) - 1))
    with open(path, "w") as f:
        f.write(STATIC_EVERY_GETPPID)
    assert 4082 < len(path) < 4096
    r = run_sclat("policy", "load", path, "--socket", str(tmp_path / "none.sock"))
    assert r.returncode == 1, r
    assert r.stderr == "sclat: %s: a path of more than 4082 bytes\n" % path, r.stderr


def test_a_socket_another_user_listens_on_is_no_tracer(root, tmp_path):
    """`--socket PATH` where another user (nobody) listens: the client says so and sends
    nothing, rather than take that user's answer for a tracer's."""
    d = tempfile.mkdtemp(prefix="sclat-other-", dir="/tmp")
    os.chmod(d, 0o777)
    path = os.path.join(d, "t.sock")
    server = subprocess.Popen(
        [sys.executable, "-c",
         "import socket,sys\n"
         "s=socket.socket(socket.AF_UNIX)\ns.bind(sys.argv[1])\ns.listen(1)\n"
         "print('up', flush=True)\n"
         "c,_=s.accept()\nc.sendall(b'ok 5\\nfake\\n')\nc.close()\n", path],
        user=65534, group=65534, extra_groups=[], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout.readline() == "up\n"
        r = run_sclat("status", "--socket", path, timeout=30)
    finally:
        server.kill()
        server.wait()
        shutil.rmtree(d, ignore_errors=True)
    assert r.returncode == 1, r
    assert r.stdout == ""
    assert r.stderr == "sclat: %s: the process listening there is neither root's nor yours: " \
        "not a tracer of yours\n" % path, r.stderr
