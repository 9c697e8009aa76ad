# SPDX-License-Identifier: GPL-2.0-only
"""sclat record: real BPF programs, a real lttng-sessiond (and relayd), traces read back
with babeltrace2."""
import json
import os
import re
import signal
import socket
import subprocess
import time

import pytest

from conftest import (SCLAT, Trace, free_ports, fully_attached, lttng, prog_ids_of, reap,
                      run_sclat, running, sclat_progs, session_names, sessiond_pid, stray_progs,
                      tmpfs, wait_until, workload)

NR_CLOCK_NANOSLEEP = 230
SUMMARY = re.compile(r"sclat: (\d+) syscalls, (\d+) outliers, (\d+) dropped, (\d+) throttled")


def report_of(path):
    with open(path) as f:
        return json.loads(f.readline())


def summary_of(stderr):
    m = SUMMARY.search(stderr)
    assert m, stderr
    return dict(zip(("syscalls", "outliers", "dropped", "throttled"), map(int, m.groups())))


def check_outliers(trace, me, n, threshold_ns, slow_ns):
    """The trace holds exactly the n slow calls of the workload, each explained.

    On a loaded machine another call of the workload (execve, say) may also take longer
    than the threshold: it is then a true outlier of the same process, and allowed."""
    out = trace.named("sclat:syscall_outlier")
    slow = [e for e in out if e["fields"]["nr"] == NR_CLOCK_NANOSLEEP]
    assert len(slow) == n, [e["fields"] for e in out]
    for e in out:
        f = e["fields"]
        assert f["pid"] == me["pid"] and f["comm"] == me["comm"] == "syscalls"
        assert f["threshold_ns"] == threshold_ns
        assert f["latency_ns"] >= threshold_ns
        # Same clock as LTTng's: the event is written after the call returned, by the
        # consumer polling every 100 ms, later when a loaded machine holds it back (over a
        # second was seen). Ten seconds of slack; the realtime clock would be off by decades,
        # and a timestamp taken before the call returned is caught by the lower bound.
        assert 0 <= e["ts"] - (f["entry_ts"] + f["latency_ns"]) < 10_000_000_000, (e, f)
        # Its epoch time is on the trace's epoch scale (offsets agree to well under 10 ms).
        assert abs((e["ns"] - e["ts"]) - (f["entry_epoch_ns"] - f["entry_ts"])) < 10_000_000
    for e in slow:
        f = e["fields"]
        assert f["syscall"] == "clock_nanosleep" and f["tid"] == me["tid"]
        assert f["ret"] == 0 and f["args"][0] == 1  # CLOCK_MONOTONIC
        assert f["latency_ns"] >= slow_ns
    ts = [e["fields"]["entry_ts"] for e in slow]
    assert ts == sorted(ts) and len(set(ts)) == n
    return len(out)


def check_ust_trace(trace, session):
    assert trace.envs, "no stream in the trace"
    for env in trace.envs:
        assert env["domain"] == "ust"
        assert env["tracer_name"] == "lttng-ust"
        assert env["trace_name"] == session
    assert {c[0] for c in trace.clocks} == {"monotonic"}
    assert {c[1] for c in trace.clocks} == {1_000_000_000}


def test_trace_holds_exactly_the_slow_calls(lttng_sessiond, tmp_path):
    """5 sleeps of 5 ms among 2000 getppid at 2ms: the trace holds the 5 sleeps, explained."""
    out_dir, report = tmp_path / "trace", tmp_path / "report"
    before = set(sclat_progs())
    r = run_sclat("record", "-o", str(out_dir), "-n", "rec-exact", "--threshold", "2ms", "--",
                  workload("syscalls"), "--fast", "2000", "--slow", "5", "--slow-ms", "5",
                  "--report", str(report))
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-1] == str(out_dir)
    assert "rec-exact" not in session_names()
    assert not stray_progs(before)
    me = report_of(report)
    s = summary_of(r.stderr)
    assert s["dropped"] == 0

    trace = Trace(out_dir)
    check_ust_trace(trace, "rec-exact")
    assert check_outliers(trace, me, 5, 2_000_000, 5_000_000) == s["outliers"]
    assert trace.discarded == 0

    begin = trace.named("sclat:session_begin")
    assert len(begin) == 1
    b = begin[0]["fields"]
    assert begin[0]["ts"] < trace.named("sclat:syscall_outlier")[0]["ts"]
    assert b["abi_version"] == 13
    assert b["kernel"] == os.uname().release
    assert b["ncpus"] >= os.cpu_count()
    assert workload("syscalls") in b["scope"]
    assert "230:clock_nanosleep" in b["syscall_table"].split(",")
    assert "0:read" in b["syscall_table"].split(",")
    assert re.search(r"^initial = 2ms$", b["policy"], re.M), b["policy"]
    assert re.search(r"^mode = static$", b["policy"], re.M), b["policy"]


def test_lost_totals_equal_the_kernel_counters(lttng_sessiond, tmp_path):
    """A 4K ring buffer at threshold 0 (every call an outlier, no budget): the kernel drops,
    and sclat:lost says exactly what it counted."""
    out_dir = tmp_path / "trace"
    r = run_sclat("record", "-o", str(out_dir), "--threshold", "0ns", "--buffer-size", "4K",
                  "--", workload("syscalls"), "--fast", "200000")
    assert r.returncode == 0, r.stderr
    s = summary_of(r.stderr)
    assert s["dropped"] > 0, s
    trace = Trace(out_dir, keep={"sclat:lost"})
    lost = trace.named("sclat:lost")
    assert lost, "no sclat:lost event"
    assert sum(e["fields"]["drops"] for e in lost) == s["dropped"]
    assert sum(e["fields"]["throttled"] for e in lost) == s["throttled"]
    assert lost[-1]["fields"]["total_drops"] == s["dropped"]
    assert lost[-1]["fields"]["total_throttled"] == s["throttled"]
    # Every outlier the kernel emitted is in the trace or counted as discarded there.
    got = trace.counts["sclat:syscall_outlier"]
    assert got + trace.discarded == s["outliers"]
    # Threshold 0: every syscall of the command is an outlier, and each one is accounted for.
    assert s["outliers"] + s["dropped"] + s["throttled"] == s["syscalls"]


def test_streams_to_a_relayd(lttng_sessiond, relayd, tmp_path):
    report = tmp_path / "report"
    r = run_sclat("record", "--url", relayd.url, "-n", "rec-net", "--threshold", "2ms", "--",
                  workload("syscalls"), "--fast", "500", "--slow", "3", "--slow-ms", "5",
                  "--report", str(report))
    assert r.returncode == 0, r.stderr
    assert "rec-net" not in session_names()
    sessions = [d for d in (relayd.out / socket.gethostname()).iterdir()]
    assert len(sessions) == 1 and sessions[0].name.startswith("rec-net-"), sessions
    trace = Trace(sessions[0])
    check_ust_trace(trace, "rec-net")
    check_outliers(trace, report_of(report), 3, 2_000_000, 5_000_000)
    assert len(trace.named("sclat:session_begin")) == 1


def test_live_session_read_by_babeltrace2(lttng_sessiond, relayd, tmp_path):
    """babeltrace2 --input-format=lttng-live sees the outliers while they happen."""
    report = tmp_path / "report"
    name = "rec-live-%d" % os.getpid()
    rec = subprocess.Popen([SCLAT, "record", "--live=100ms", "--url", relayd.url, "-n", name,
                            "--threshold", "2ms", "--", workload("syscalls"), "--slow", "40",
                            "--slow-ms", "50", "--report", str(report)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert wait_until(lambda: name in session_names(), timeout=20), rec.stderr.read()
        url = "net://127.0.0.1:%d/host/%s/%s" % (relayd.live, socket.gethostname(), name)
        bt = subprocess.run(["babeltrace2", "--input-format=lttng-live", url,
                             "--params=session-not-found-action=\"end\""],
                            capture_output=True, text=True, timeout=60)
        out, err = rec.communicate(timeout=60)
    finally:
        if rec.poll() is None:
            rec.kill()
            rec.wait()
    assert rec.returncode == 0, err
    assert bt.returncode == 0, bt.stderr
    me = report_of(report)
    seen = [l for l in bt.stdout.splitlines() if "sclat:syscall_outlier" in l]
    slow = [l for l in seen if 'syscall = "clock_nanosleep"' in l]
    # The viewer attaches while the 40 sleeps run: it sees some of them (all, if early).
    assert 0 < len(slow) <= 40, bt.stdout[-2000:]
    for l in seen:
        assert "pid = %d," % me["pid"] in l, l
    for l in slow:
        assert "tid = %d," % me["tid"] in l and "ret = 0," in l, l
    assert "sclat:lost" in bt.stdout


@pytest.mark.parametrize("off,on,why", [
    (("stop", "S"), ("start", "S"), "was stopped"),
    (("disable-channel", "-u", "-s", "S", "sclat"), ("enable-channel", "-u", "-s", "S", "sclat"),
     "has its channel sclat disabled"),
    (("disable-event", "-u", "-s", "S", "-c", "sclat", "sclat:*"),
     ("enable-event", "-u", "-s", "S", "-c", "sclat", "sclat:*"),
     "has sclat:syscall_outlier disabled")])
def test_outliers_while_the_session_is_stopped_are_counted(lttng_sessiond, tmp_path, off, on,
                                                           why):
    """Someone stops sclat's session for a while (lttng stop, then start; or disables its
    channel, or sclat's events): sclat says when it stops and starts recording outliers again,
    counts those it delivered in between (as its once-a-second check sees the session), and
    calls the trace incomplete. What the trace holds and what sclat counted add up to every
    outlier, give or take a check's second at each edge (about 20 outliers a second here).
    The session is off for 30 rounds of the traced loop, however long they take."""
    name, out_dir = "rec-stop-%d" % os.getpid(), tmp_path / "trace"
    policy = tmp_path / "policy.ini"
    policy.write_text("[global]\nbudget = 0\nclasses = none\n[default]\nmode = static\n"
                      "initial = 50ms\n")
    lttng("create", name, "-o", str(out_dir))
    try:
        rounds = tmp_path / "rounds"
        p = subprocess.Popen([SCLAT, "record", "--session", name, "--policy", str(policy),
                              "--", "sh", "-c", "for i in $(seq 70); do sleep 0.1; echo $i > %s; "
                              "done" % rounds],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

        def done():
            try:
                return int(rounds.read_text() or 0)
            except (OSError, ValueError):
                return 0
        try:
            assert wait_until(lambda: "[active]" in lttng("list", name).stdout, timeout=20)
            assert wait_until(lambda: done() >= 15, timeout=60)
            lttng(*(name if a == "S" else a for a in off))
            since = done()
            # Each round is a 100 ms sleep (an outlier at 50 ms) and the shell's wait for it.
            assert wait_until(lambda: done() >= since + 30, timeout=60)
            lttng(*(name if a == "S" else a for a in on))
            _, err = p.communicate(timeout=60)
        finally:
            reap(p)
        lttng("stop", name, check=False)
    finally:
        lttng("destroy", name, check=False)
    assert p.returncode == 200, err
    assert 'session "%s" %s: it does not record outliers' % (name, why) in err, err
    assert 'session "%s" records outliers again' % name in err, err
    m = re.search(r"sclat: (\d+) outliers were delivered while session \"%s\" did not record "
                  r"them" % name, err)
    assert m, err
    unrecorded, total = int(m.group(1)), summary_of(err)["outliers"]
    recorded = len(Trace(out_dir).named("sclat:syscall_outlier"))
    # 30 rounds off, less up to a second's check (10 rounds at most) before sclat sees it:
    # 20 rounds of at least one outlier each.
    assert unrecorded >= 20 and recorded >= 40, (unrecorded, recorded, total)
    assert abs(recorded + unrecorded - total) <= 45, (unrecorded, recorded, total)


@pytest.mark.parametrize("off,why", [
    (("stop", "S"), "was stopped"),
    (("disable-event", "-u", "-s", "S", "-c", "sclat", "sclat:*"),
     "has sclat:session_end disabled")])
def test_a_session_stopped_at_the_end_is_an_incomplete_trace(lttng_sessiond, tmp_path, off,
                                                             why):
    """A session someone stopped (or whose sclat events they disabled) and left so misses
    the run's last events (sclat:session_end) even with no outlier since: sclat says so, and
    calls the trace incomplete (200)."""
    name, out_dir = "rec-stop-end-%d" % os.getpid(), tmp_path / "trace"
    lttng("create", name, "-o", str(out_dir))
    try:
        p = subprocess.Popen([SCLAT, "record", "--session", name, "--threshold", "10s", "--",
                              "sleep", "4"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
        try:
            assert wait_until(lambda: "[active]" in lttng("list", name).stdout, timeout=20)
            lttng(*(name if a == "S" else a for a in off))
            _, err = p.communicate(timeout=60)
        finally:
            reap(p)
    finally:
        lttng("destroy", name, check=False)
    assert p.returncode == 200, err
    assert 'sclat: session "%s" %s at the end: the run\'s last events ' \
        '(sclat:session_end) are not in the trace' % (name, why) in err, err
    assert "outliers were delivered while" not in err, err


def test_session_option_joins_and_leaves_it_running(lttng_sessiond, tmp_path):
    """--session adds sclat's channel to the user's session, starts it, and leaves it to them."""
    name, out_dir, report = "rec-join-%d" % os.getpid(), tmp_path / "trace", tmp_path / "report"
    lttng("create", name, "-o", str(out_dir))
    try:
        lttng("enable-event", "-u", "-s", name, "other:*")
        # The user traces one process only: sclat adds itself to the set while it runs
        # (else none of its events would be recorded), and takes itself out at the end.
        lttng("track", "-u", "-s", name, "--vpid", "1")
        r = run_sclat("record", "--session", name, "--threshold", "2ms", "--",
                      workload("syscalls"), "--slow", "2", "--slow-ms", "5", "--report",
                      str(report))
        assert r.returncode == 0, r.stderr
        listing = lttng("list", name).stdout
        assert "[active]" in listing, listing
        assert re.search(r"^- sclat: \[enabled\]", listing, re.M), listing
        assert re.search(r"^- channel0: \[enabled\]", listing, re.M), listing
        tracked = re.search(r"Virtual process IDs:\s+(.*)$", listing, re.M).group(1)
        assert tracked.split(", ") == ["1"], listing
        lttng("stop", name)
    finally:
        lttng("destroy", name, check=False)
    trace = Trace(out_dir)
    check_ust_trace(trace, name)
    check_outliers(trace, report_of(report), 2, 2_000_000, 5_000_000)


def check_refused(r, before, message):
    lines = r.stderr.splitlines()
    assert r.returncode == 1, r.stderr
    assert len(lines) == 1 and lines[0].startswith("sclat: ") and message in lines[0], lines
    assert r.stdout == ""
    assert not stray_progs(before)


def test_refuses_a_non_empty_directory(lttng_sessiond, tmp_path):
    (tmp_path / "keep").write_text("precious")
    before, sessions = set(sclat_progs()), session_names()
    r = run_sclat("record", "-o", str(tmp_path), "--", "true")
    check_refused(r, before, "not empty")
    assert [p.name for p in tmp_path.iterdir()] == ["keep"]
    assert (tmp_path / "keep").read_text() == "precious"
    assert session_names() == sessions


def test_output_is_never_reached_through_a_link_or_a_directory_of_others(lttng_sessiond,
                                                                          tmp_path):
    """Another user's directory, a link to one, or a directory others can write to: sclat
    refuses them before it creates a session, and writes nothing there."""
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o755)
    os.chown(theirs, 65534, 65534)
    (tmp_path / "link").symlink_to(theirs)
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    before, sessions = set(sclat_progs()), session_names()
    for out, message in (("link", "a symbolic link; sclat does not follow one"),
                         ("link/", "a symbolic link"),
                         ("theirs", "owned by uid 65534, not by this user"),
                         ("shared", "other users can write to it (mode 0777)")):
        r = run_sclat("record", "-o", str(tmp_path / out), "--", "true")
        check_refused(r, before, message)
        assert r.stderr.startswith("sclat: %s: " % (tmp_path / out.rstrip("/"))), r.stderr
    assert not list(theirs.iterdir()) and not list(shared.iterdir())
    assert session_names() == sessions


def test_output_directory_is_made_new(lttng_sessiond, tmp_path):
    """-o DIR and the default ./sclat-trace-<date> are made with mkdir, by sclat, for sclat:
    a directory someone else made under the predictable default name is left alone."""
    r = run_sclat("record", "-o", str(tmp_path / "new"), "--", "true")
    assert r.returncode == 0, r.stderr
    st = os.stat(tmp_path / "new")
    assert st.st_uid == 0 and not st.st_mode & 0o022, oct(st.st_mode)
    assert Trace(tmp_path / "new").named("sclat:session_begin")

    # Someone took the default names of the next seconds, as empty directories of theirs.
    now = time.time()
    taken = []
    for t in range(int(now), int(now) + 10):
        d = tmp_path / time.strftime("sclat-trace-%Y%m%d-%H%M%S", time.localtime(t))
        d.mkdir()
        os.chown(d, 65534, 65534)
        taken.append(d)
    p = subprocess.Popen([SCLAT, "record", "--", "true"], cwd=str(tmp_path),
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    made = out.splitlines()[-1]
    assert os.path.dirname(made) == str(tmp_path) and made.endswith("-%d" % p.pid), made
    assert os.stat(made).st_uid == 0 and Trace(made).named("sclat:session_begin")
    assert all(not list(d.iterdir()) for d in taken)


@pytest.fixture
def read_only_dir(root, tmp_path):
    """A directory of root's on a read-only file system."""
    with tmpfs(tmp_path / "ro", "ro,mode=0755,size=1M") as ro:
        yield ro


def test_read_only_output_names_the_path_and_the_error(lttng_sessiond, read_only_dir):
    before, sessions = set(sclat_progs()), session_names()
    for out in (read_only_dir / "t", read_only_dir):
        r = run_sclat("record", "-o", str(out), "--", "true")
        check_refused(r, before, "Read-only file system")
        assert r.stderr.startswith("sclat: %s: " % out), r.stderr
    assert session_names() == sessions


def test_unreachable_relayd(lttng_sessiond):
    port, data = free_ports(2)
    before, sessions = set(sclat_progs()), session_names()
    r = run_sclat("record", "--url", "net://127.0.0.1:%d:%d" % (port, data), "--", "true")
    check_refused(r, before, "cannot reach lttng-relayd")
    assert session_names() == sessions


def test_session_name_in_use(lttng_sessiond, tmp_path):
    name = "rec-taken-%d" % os.getpid()
    lttng("create", name, "-o", str(tmp_path / "theirs"))
    try:
        before = set(sclat_progs())
        r = run_sclat("record", "-n", name, "-o", str(tmp_path / "mine"), "--", "true")
        check_refused(r, before, "already in use")
        assert "[inactive]" in lttng("list", name).stdout
        assert not (tmp_path / "mine").exists()
    finally:
        lttng("destroy", name, check=False)


def test_session_option_needs_the_session(lttng_sessiond):
    before = set(sclat_progs())
    r = run_sclat("record", "--session", "rec-no-such-%d" % os.getpid(), "--", "true")
    check_refused(r, before, "no such tracing session")


def test_private_sessiond_when_none_runs(lttng_sessiond, tmp_path):
    """With no daemon, sclat starts one, records everything from the first event, stops it."""
    if not lttng_sessiond.stop():
        pytest.skip("a session daemon the tests did not start is running")
    try:
        out_dir, report = tmp_path / "trace", tmp_path / "report"
        r = run_sclat("record", "-o", str(out_dir), "-n", "rec-private", "--threshold", "2ms",
                      "--", workload("syscalls"), "--slow", "3", "--slow-ms", "5",
                      "--report", str(report))
        assert r.returncode == 0, r.stderr
        assert sessiond_pid() is None
        assert wait_until(lambda: not running("lttng-sessiond", "lttng-consumerd"), timeout=10)
        trace = Trace(out_dir)
        check_ust_trace(trace, "rec-private")
        assert len(trace.named("sclat:session_begin")) == 1
        check_outliers(trace, report_of(report), 3, 2_000_000, 5_000_000)
    finally:
        lttng_sessiond.start()


def test_exit_status_is_the_commands(lttng_sessiond, tmp_path):
    r = run_sclat("record", "-o", str(tmp_path / "trace"), "--", "sh", "-c", "exit 3")
    assert r.returncode == 3, r.stderr
    assert r.stdout.splitlines()[-1] == str(tmp_path / "trace")


def test_live_status_only_on_a_terminal(lttng_sessiond, tmp_path):
    """A redrawn status line when stderr is a terminal; the plain lines when it is not."""
    master, slave = os.openpty()
    try:
        p = subprocess.Popen([SCLAT, "record", "-o", str(tmp_path / "trace"), "--threshold",
                              "2ms", "--", workload("syscalls"), "--slow", "25", "--slow-ms",
                              "100", "--report", os.devnull],
                             stdout=subprocess.PIPE, stderr=slave)
        os.close(slave)
        chunks = []
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:  # EIO: every writer closed the terminal
                break
            if not data:
                break
            chunks.append(data)
        p.wait(timeout=30)
    finally:
        os.close(master)
    tty = b"".join(chunks).decode()
    assert p.returncode == 0, tty
    status = re.findall(r"\r\x1b\[Ksclat: (\d+)s  \S+ syscalls/s  (\d+) outliers  0 dropped  "
                        r"0 throttled  \d+ threshold changes", tty)
    assert status, tty
    assert 1 <= int(status[-1][0]) and int(status[-1][1]) <= 25
    # The status is cleared before the summary, which stands on its own line.
    assert re.search(r"\r\x1b\[Ksclat: \d+ syscalls, \d+ outliers", tty), tty

    r = run_sclat("record", "-o", str(tmp_path / "trace2"), "--threshold", "2ms", "--",
                  workload("syscalls"), "--slow", "15", "--slow-ms", "100", "--report",
                  os.devnull)
    assert r.returncode == 0 and "\r" not in r.stderr and "\x1b" not in r.stderr, r.stderr
    # The start and the summary; a loaded machine may add the lines of what the explanations
    # lost (a waker, a kernel stack, a block whose switch back the kernel did not trace:
    # seen once in a CI run on an Intel VM), never a status line.
    lines = [l for l in r.stderr.splitlines() if not re.match(
        r"sclat: \d+ (kernel stacks skipped \(burst guard\), \d+ wakers lost|blocked calls "
        r"not traced back onto a CPU \(the kernel traced no switch\))", l)]
    assert len(lines) == 2 and lines[0].startswith("sclat: recording to ") and re.match(
        r"sclat: \d+ syscalls, \d+ outliers", lines[1]), r.stderr


def test_ctrl_c_closes_the_trace(lttng_sessiond, tmp_path):
    """SIGINT mid-run: the command gets it, the trace is complete, nothing stays behind."""
    out_dir, name = tmp_path / "trace", "rec-int-%d" % os.getpid()
    before = set(sclat_progs())
    p = subprocess.Popen([SCLAT, "record", "-o", str(out_dir), "-n", name, "--threshold", "2ms",
                          "--", workload("syscalls"), "--slow", "300", "--slow-ms", "50"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    def outliers():
        st = run_sclat("status", "--json", "--pid", str(p.pid), timeout=30)
        return st.returncode == 0 and json.loads(st.stdout)["totals"]["outliers"]

    try:
        assert wait_until(lambda: fully_attached(p.pid), timeout=20)
        # Mid-run: once the run has an outlier, long before the 300 sleeps (15 s) end.
        assert wait_until(outliers, timeout=20, step=0.1), "no outlier counted"
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=30)
    finally:
        reap(p)
    assert p.returncode == 128 + signal.SIGINT, err
    assert out.splitlines()[-1] == str(out_dir)
    assert name not in session_names()
    assert not stray_progs(before)
    trace = Trace(out_dir)
    assert len(trace.named("sclat:session_begin")) == 1
    slow = [e for e in trace.named("sclat:syscall_outlier")
            if e["fields"]["syscall"] == "clock_nanosleep"]
    assert 0 < len(slow) < 300
    assert summary_of(err)["outliers"] == len(trace.named("sclat:syscall_outlier"))


def test_stats_of_the_syscalls_past_the_histograms(lttng_sessiond, tmp_path):
    """The calls of the syscalls past sclat's histograms (more than 111 syscalls: the
    syscalls workload's --many) are in sclat:stats too, as "other" (nr 512, past every
    syscall number): the statistics still add up to the kernel's count."""
    out_dir = tmp_path / "trace"
    r = run_sclat("record", "-o", str(out_dir), "--threshold", "10s", "--",
                  workload("syscalls"), "--many", "50", "--slow", "30", "--slow-ms", "50",
                  "--report", os.devnull)
    assert r.returncode == 0, r.stderr
    s = summary_of(r.stderr)
    stats = [e["fields"] for e in Trace(out_dir, keep={"sclat:stats"}).named("sclat:stats")]
    other = [st for st in stats if st["syscall"] == "other"]
    assert other and all(st["nr"] == 512 for st in other), other[:2]
    assert sum(st["calls"] for st in other) > 0
    assert sum(st["calls"] for st in stats) == s["syscalls"]


def test_trace_explains_itself(lttng_sessiond, tmp_path):
    """Adaptive run: threshold changes, per-syscall statistics and sclat's own cost are in
    the trace, and the statistics add up to the kernel's count."""
    out_dir = tmp_path / "trace"
    r = run_sclat("record", "-o", str(out_dir), "--", workload("syscalls"), "--fast", "300000",
                  "--report", os.devnull)
    assert r.returncode == 0, r.stderr
    s = summary_of(r.stderr)
    trace = Trace(out_dir, keep={"sclat:threshold_update", "sclat:stats", "sclat:overhead",
                                 "sclat:lost", "sclat:session_begin"})
    # 300000 getppid arm the adaptive threshold of getppid: it moves, with its basis.
    moves = [e["fields"] for e in trace.named("sclat:threshold_update")
             if e["fields"]["syscall"] == "getppid"]
    assert moves, trace.counts
    for m in moves:
        assert m["nr"] == 110 and m["old_ns"] != m["new_ns"]
        assert m["samples"] > 0 and m["estimate_ns"] > 0 and 0 < m["quantile"] < 1
    assert moves[0]["old_ns"] > moves[-1]["new_ns"]
    # The syscalls' own rows (the default classes = auto adds its classes' beside them).
    stats = [e["fields"] for e in trace.named("sclat:stats") if not e["fields"]["class"]]
    assert sum(st["calls"] for st in stats) == s["syscalls"]
    assert sum(st["outliers"] for st in stats) == s["outliers"]
    assert sum(st["calls"] for st in stats if st["syscall"] == "getppid") == 300000
    progs, run_time = {}, {}
    for e in trace.named("sclat:overhead"):
        f = e["fields"]
        assert f["prog"].startswith("sclat_")
        assert f["run_cnt"] >= progs.get(f["prog"], 0)
        assert f["run_time_ns"] >= run_time.get(f["prog"], 0)
        progs[f["prog"]] = f["run_cnt"]
        run_time[f["prog"]] = f["run_time_ns"]
    # BPF stats are sampled (one interval in ten, the first included): runs are counted,
    # and the time they took with them.
    assert len(progs) >= 2 and max(progs.values()) > 0
    assert max(run_time.values()) > 0, run_time
    assert trace.named("sclat:overhead")[-1]["fields"]["ns_per_syscall"] > 0
    lost = trace.named("sclat:lost")
    assert lost and lost[-1]["fields"]["total_drops"] == s["dropped"] == 0
    assert trace.named("sclat:session_begin")[0]["ts"] < min(
        e["ts"] for e in trace.events if e["name"] != "sclat:session_begin")
