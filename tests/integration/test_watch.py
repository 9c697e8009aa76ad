# SPDX-License-Identifier: GPL-2.0-only
"""sclat watch against real workloads, with the real BPF programs loaded."""
import json
import os
import re
import signal
import subprocess
import time

import pytest

from conftest import (SCOPE_PIDS_MAX, SCLAT, Watch, back_unseen, bpf_links, children_named,
                      fully_attached, json_lines, process_gone, prog_ids_of, reap, run_sclat,
                      sclat_progs, stray_progs, wait_until, workload)

NR_GETPPID = 110
NR_CLOCK_NANOSLEEP = 230
NR_EXIT = 60
NR_EXIT_GROUP = 231
# syscall(-1) in the workload: the kernel refuses it with ENOSYS, sclat must not see it.
# Masked into the table, -1 would land on 511, a number with no syscall.
BAD_CALLS = 1000


def reports(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def outliers_and_summary(stdout):
    lines = json_lines(stdout)
    summary = [l["summary"] for l in lines if "summary" in l]
    return [l for l in lines if "latency_ns" in l], (summary[0] if summary else None)


@pytest.mark.parametrize("attach", ["tp_btf", "tp_btf_bounded", "raw_tp"])
def test_exactly_the_slow_calls(root, tmp_path, attach):
    """5 sleeps of 5 ms among 2000 getppid: with 2ms, exactly the 5 sleeps come out."""
    report = tmp_path / "report"
    r = run_sclat("watch", "--threshold", "2ms", "--json", "--", workload("syscalls"),
                  "--fast", "2000", "--slow", "5", "--slow-ms", "5", "--report", str(report),
                  env=dict(os.environ, SCLAT_ATTACH=attach))
    assert r.returncode == 0, r.stderr
    me = reports(report)[0]
    out, _ = outliers_and_summary(r.stdout)
    # On a loaded machine another call of the command (its execve, a preempted getppid)
    # may also take longer than 2 ms: a true outlier, allowed, but never more than a few.
    sleeps = [e for e in out if e["nr"] == NR_CLOCK_NANOSLEEP]
    others = [e for e in out if e not in sleeps]
    assert len(sleeps) == 5, out
    assert len(others) <= 2, others
    for e in out:
        assert (e["pid"], e["tid"]) == (me["pid"], me["tid"]), e
        assert e["comm"] == me["comm"] == "syscalls"
        assert e["threshold_ns"] == 2_000_000 <= e["latency_ns"], e
    out = sleeps
    for e in out:
        assert e["syscall"] == "clock_nanosleep"
        assert e["nr"] == NR_CLOCK_NANOSLEEP
        assert e["ret"] == 0
        assert 5_000_000 <= e["latency_ns"] < 1_000_000_000
        assert e["args"][0] == 1  # CLOCK_MONOTONIC
    # Entry times are monotonic ns and strictly increase for one thread's calls.
    ts = [e["ts_ns"] for e in out]
    assert ts == sorted(ts) and len(set(ts)) == 5
    assert "%d outliers, 0 dropped" % (5 + len(others)) in r.stderr


def test_histogram_counts_every_call(root):
    """The kernel histograms count each call of the command: 12345 getppid, no more."""
    r = run_sclat("watch", "--threshold", "1s", "--json", "--summary", "--",
                  workload("syscalls"), "--fast", "12345", "--bad", str(BAD_CALLS))
    assert r.returncode == 0, r.stderr
    out, summary = outliers_and_summary(r.stdout)
    assert out == []
    per = {s["syscall"]: s for s in summary["per_syscall"]}
    assert per["getppid"]["calls"] == 12345
    assert per["getppid"]["nr"] == NR_GETPPID
    assert per["execve"]["calls"] == 1
    assert summary["syscalls"] == sum(s["calls"] for s in summary["per_syscall"])
    # syscall(-1) is ignored: counted under no number, named or not (511 has no name) ...
    assert [s for s in summary["per_syscall"] if s["syscall"] == str(s["nr"]) or s["nr"] < 0
            or s["nr"] == 511] == [], summary["per_syscall"]
    # ... and not at all: besides getppid, the program makes far fewer calls than that.
    assert summary["syscalls"] - 12345 < BAD_CALLS, summary


def test_counts_stay_exact_across_a_32_bit_counter_wrap(root, tmp_path):
    """Every histogram counter starts 500 short of 2^32 (a run of hours at millions of calls
    per second): 12345 getppid calls wrap the counters, and the summary, the end line and
    sclat status still count each call once."""
    env = dict(os.environ, SCLAT_TEST_COUNTER_BASE=str(2**32 - 500),
               SCLAT_RUN_DIR=str(tmp_path))
    p = subprocess.Popen([SCLAT, "watch", "--threshold", "1s", "--json", "--summary", "--",
                          workload("syscalls"), "--fast", "12345", "--slow", "1",
                          "--slow-ms", "2500"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    seen = {}

    def counted_or_ended():
        """The last status while the command runs; true once it counts every getppid."""
        st = subprocess.run([SCLAT, "status", "--json", "--pid", str(p.pid)],
                            capture_output=True, text=True, env=env, timeout=30)
        if st.returncode == 0:
            seen["live"] = {s["syscall"]: s for s in json.loads(st.stdout)["syscalls"]}
        return seen.get("live", {}).get("getppid", {}).get("calls", 0) >= 12345 or \
            p.poll() is not None
    try:
        # While the command sleeps, after its getppid calls and a controller interval.
        wait_until(counted_or_ended, timeout=30, step=0.2)
        out, err = p.communicate(timeout=60)
    finally:
        reap(p)
    assert p.returncode == 0, err
    assert "live" in seen, "no status while the command ran"
    assert seen["live"]["getppid"]["calls"] == 12345, seen["live"]["getppid"]
    _, summary = outliers_and_summary(out)
    per = {s["syscall"]: s for s in summary["per_syscall"]}
    assert per["getppid"]["calls"] == 12345
    assert per["clock_nanosleep"]["calls"] == 1
    assert summary["syscalls"] == sum(s["calls"] for s in summary["per_syscall"])
    assert summary["syscalls"] - 12345 < BAD_CALLS, summary
    assert "sclat: %d syscalls," % summary["syscalls"] in err


def test_command_children_and_nobody_else(root, tmp_path):
    """-- CMD covers the processes it forks, and not a process running beside it."""
    report = tmp_path / "report"
    outsider_report = tmp_path / "outsider"
    # Sleeps of 5 ms (outliers, were it traced) for 10 s: running all through sclat's run.
    outsider = subprocess.Popen([workload("syscalls"), "--slow", "2000", "--slow-ms", "5",
                                 "--report", str(outsider_report)])
    try:
        r = run_sclat("watch", "--threshold", "2ms", "--json", "--",
                      workload("syscalls"), "--fork", "2", "--slow", "3", "--slow-ms", "5",
                      "--report", str(report))
        assert outsider.poll() is None, "the outsider ended before sclat did"
    finally:
        outsider.kill()
        outsider.wait(timeout=30)
    assert r.returncode == 0, r.stderr
    family = {p["pid"] for p in reports(report)}
    assert len(family) == 3
    out, _ = outliers_and_summary(r.stdout)
    assert {e["pid"] for e in out} <= family
    assert outsider.pid not in {e["pid"] for e in out}
    sleeps = [e for e in out if e["syscall"] == "clock_nanosleep"]
    for pid in family:
        assert sum(1 for e in sleeps if e["pid"] == pid) == 3


def test_children_past_the_scope_table_are_counted(root):
    """The scope of a command holds 8192 processes at once: the command and 8191 children.
    A command with 8300 children alive at once has 109 that sclat cannot follow; they are
    counted, in the JSON summary and in a line at the end, not lost in silence."""
    n = 8300
    r = run_sclat("watch", "--threshold", "10s", "--json", "--summary", "--",
                  workload("forker"), str(n), timeout=120)
    assert r.returncode == 0, r.stderr
    _, summary = outliers_and_summary(r.stdout)
    lost = n - (SCOPE_PIDS_MAX - 1)
    assert summary["children_not_followed"] == lost, summary["children_not_followed"]
    assert ("sclat: %d new processes not followed: the scope's table of %d processes was "
            "full" % (lost, SCOPE_PIDS_MAX)) in r.stderr, r.stderr


# Sleeps of 5 ms for a minute, killed once sclat is done: its 500 ms see some 100 of them
# however long it takes to start (some 1.3 s here, 2.7 s under tests/tools/slow-machine,
# when 400 sleeps, 2 s, were over).
SLEEPS_UNTIL_KILLED = ["--slow", "12000", "--slow-ms", "5"]


def test_pid_scope(root, tmp_path):
    """-p PID traces that process only."""
    target = subprocess.Popen([workload("syscalls"), *SLEEPS_UNTIL_KILLED],
                              stdout=subprocess.DEVNULL)
    other = subprocess.Popen([workload("syscalls"), *SLEEPS_UNTIL_KILLED],
                             stdout=subprocess.DEVNULL)
    try:
        r = run_sclat("watch", "--threshold", "2ms", "--json", "-p", str(target.pid),
                      "--duration", "500ms")
    finally:
        target.kill()
        other.kill()
        target.wait()
        other.wait()
    assert r.returncode == 0, r.stderr
    out, _ = outliers_and_summary(r.stdout)
    assert len(out) >= 20
    assert {e["pid"] for e in out} == {target.pid}


def test_exit_status_is_the_commands(root):
    r = run_sclat("watch", "--threshold", "1s", "--", "sh", "-c", "exit 7")
    assert r.returncode == 7, r.stderr
    r = run_sclat("watch", "--threshold", "1s", "--", "sh", "-c", "kill -TERM $$")
    assert r.returncode == 128 + signal.SIGTERM, r.stderr


def sig_mask(status, field):
    return int(re.search(r"^%s:\s*([0-9a-f]+)$" % field, status, re.M).group(1), 16)


def test_the_command_gets_the_signals_of_sclats_caller(root):
    """sclat ignores SIGPIPE (a reader gone is an output failed) and holds SIGINT and
    SIGTERM; its command gets what sclat's caller gave: SIGPIPE to its default, a SIGHUP
    ignored (nohup) still ignored, nothing blocked."""
    def nohup():
        signal.signal(signal.SIGHUP, signal.SIG_IGN)

    r = subprocess.run([SCLAT, "watch", "--threshold", "1s", "--", "cat", "/proc/self/status"],
                       capture_output=True, text=True, timeout=60, preexec_fn=nohup)
    assert r.returncode == 0, r.stderr
    ignored = sig_mask(r.stdout, "SigIgn")
    assert ignored & (1 << (signal.SIGHUP - 1)), r.stdout
    assert not ignored & (1 << (signal.SIGPIPE - 1)), r.stdout
    assert not ignored & (1 << (signal.SIGINT - 1)), r.stdout
    assert sig_mask(r.stdout, "SigBlk") == 0, r.stdout


def test_stopped_while_starting_the_command_never_runs(root, tmp_path):
    """A Ctrl-C while sclat loads its programs (its command forked and held): the command
    never runs, sclat ends as for any stop (128 + the signal) and leaves nothing."""
    before = set(sclat_progs())
    marker = tmp_path / "ran"
    p = subprocess.Popen([SCLAT, "watch", "--threshold", "1s", "--", "touch", str(marker)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    def held():
        """The command's child while it is held: a copy of sclat blocked reading its go."""
        for kid in children_named(p.pid, "sclat"):
            try:
                with open("/proc/%d/syscall" % kid) as f:
                    if f.read().split()[0] == "0":
                        return kid
            except (OSError, IndexError):
                pass
        return None

    try:
        # Loading the programs takes hundreds of ms after the child is held.
        assert wait_until(held, timeout=20, step=0.005)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=30)
    finally:
        reap(p)
    assert p.returncode == 128 + signal.SIGINT, err
    assert not marker.exists(), err
    assert not stray_progs(before)


def test_a_command_that_ignores_its_signal_is_waited_for_then_killed(root):
    """At its end (--duration) sclat sends its command SIGTERM; one that ignores it is
    waited for, with a line saying so, and a second signal kills it: sclat exits with its
    status (128 + SIGKILL), the command gone."""
    p = subprocess.Popen([SCLAT, "watch", "--threshold", "1s", "--duration", "1s", "--", "sh",
                          "-c", "trap '' TERM; exec sleep 60"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines = []
    try:
        for line in p.stderr:
            lines.append(line)
            if "to end after SIGTERM" in line:
                break
        assert lines and "sclat: waiting for sh (pid " in lines[-1], lines
        cmd = int(lines[-1].split("(pid ")[1].split(")")[0])
        assert not process_gone(cmd)
        p.send_signal(signal.SIGINT)
        _, err = p.communicate(timeout=10)
    finally:
        reap(p)
    assert p.returncode == 128 + signal.SIGKILL, lines + [err]
    assert "sclat: sh (pid %d) did not end: killed" % cmd in err, err
    assert process_gone(cmd)


def test_a_reader_that_goes_away_ends_the_run(root):
    """stdout a pipe whose reader closes it (| head): an output that failed, not a death by
    SIGPIPE. sclat ends its command, says what it did not write, exits 1."""
    before = set(sclat_progs())
    rfd, wfd = os.pipe()
    os.close(rfd)
    try:
        r = subprocess.run([SCLAT, "watch", "--json", "--threshold", "0ns", "--duration", "20s",
                            "--", "sh", "-c", "while :; do sleep 0.05; done"],
                           stdout=wfd, stderr=subprocess.PIPE, text=True, timeout=30)
    finally:
        os.close(wfd)
    assert r.returncode == 1, r.stderr
    lines = r.stderr.splitlines()
    assert lines[0] == "sclat: writing the outliers to standard output: Broken pipe", r.stderr
    assert [l for l in lines if l.endswith("outliers not written: the output failed")], r.stderr
    assert not stray_progs(before)


def test_calls_that_never_return(root):
    """exit/exit_group never reach sys_exit, execve replaces the image: no bogus latency."""
    start = time.monotonic_ns()
    r = run_sclat("watch", "--threshold", "0ns", "--json", "--", "sh", "-c",
                  "exec sh -c 'exec " + workload("syscalls") + " --fast 10 --bad %d'" %
                  BAD_CALLS)
    elapsed = time.monotonic_ns() - start
    assert r.returncode == 0, r.stderr
    out, _ = outliers_and_summary(r.stdout)
    nrs = [e["nr"] for e in out]
    assert NR_EXIT not in nrs and NR_EXIT_GROUP not in nrs
    execs = [e for e in out if e["nr"] == 59]
    # Three execve succeed, each measured once; PATH lookups add failed ones.
    assert sum(1 for e in execs if e["ret"] == 0) == 3
    assert all(e["ret"] == 0 or e["ret"] == -2 for e in execs)
    assert all(0 < e["latency_ns"] < elapsed for e in out)
    assert sum(1 for e in out if e["nr"] == NR_GETPPID and e["comm"] == "syscalls") == 10
    # At threshold 0 every call is reported, but syscall(-1) is no call: not under a
    # number without a name (511, where -1 would be masked to), not at all.
    assert [e for e in out if e["syscall"] == str(e["nr"]) or e["nr"] == 511] == []
    assert sum(1 for e in out if e["comm"] == "syscalls") < BAD_CALLS


def attached_then_stopped(stop):
    """Start sclat watch, wait until its programs are attached, stop it with stop(p);
    returns the ids of its programs and links still in the kernel."""
    p = subprocess.Popen([SCLAT, "watch", "--threshold", "1s"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    try:
        # Attached, not only loaded: every program holds a link.
        links = wait_until(lambda: fully_attached(p.pid), timeout=20)
        assert links, "sclat never attached its programs"
        kernel = bpf_links()
        assert links <= set(kernel), kernel
        progs = prog_ids_of(p.pid) & set(sclat_progs())
        assert {kernel[l] for l in links} <= progs, (kernel, progs)
    finally:
        stop(p)
        p.wait(timeout=20)

    def left():
        return (progs & set(sclat_progs())) | (links & set(bpf_links()))
    wait_until(lambda: not left(), timeout=10)
    return left()


def test_no_program_left_after_exit(root):
    assert attached_then_stopped(lambda p: p.send_signal(signal.SIGINT)) == set()


def test_no_program_left_after_sigkill(root):
    assert attached_then_stopped(lambda p: p.send_signal(signal.SIGKILL)) == set()


@pytest.mark.parametrize("args,message,status", [
    (["--threshold", "5"], "--threshold 5: not a duration", 2),
    (["--threshold", "2 ms"], "not a duration", 2),
    (["--duration", "0s"], "--duration 0s: must be more than zero", 2),
    (["-p", "999999999"], "-p 999999999: no such process", 2),
    (["-p", "abc"], "-p abc: not a process id", 2),
    (["--bogus"], "unrecognized option '--bogus'", 2),
    (["--buffer-size", "3000"], "--buffer-size 3000: not a power of two", 2),
    (["--threshold", "1ms", "--policy", "x.ini"], "give one or the other", 2),
    (["--buffer-size", "4G"], "--buffer-size 4G: too large: at most 2G", 2),
    (["--buffer-size", "99999999999999999999"], "too large", 2),
    (["--duration", "9223372037s"], "--duration 9223372037s: too large", 2),
    (["--threshold", "10000000000s"], "--threshold 10000000000s: too large", 2),
    (["--comm", "a-name-longer-than-15"], "a thread name has 1 to 15 characters", 2),
    (["--comm", ""], '--comm "": a thread name has 1 to 15 characters', 2),
    (["--cgroup", "/nonexistent/cg"], "--cgroup /nonexistent/cg: No such file or directory",
     1),
    (["--", "/nonexistent/cmd"], "/nonexistent/cmd: command not found", 2),
    (["--", "sclat-no-such-command"], "sclat-no-such-command: command not found", 2),
    (["--", "/etc/passwd"], "/etc/passwd: Permission denied", 1),  # found, not runnable
    (["--buffer-size", "1MB"], "--buffer-size 1MB: not a size", 2),
])
def test_bad_input(root, args, message, status):
    """One line on stderr; 2 for a usage error, 1 for what fails when it is tried."""
    before = set(sclat_progs())
    r = run_sclat("watch", *args)
    assert r.returncode == status, r.stderr
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and message in lines[0], r.stderr
    assert r.stdout == ""
    assert not stray_progs(before)


def test_an_output_that_fails_ends_the_run_with_its_totals(root):
    """stdout on a full device: sclat says why once, stops (its command too), still says
    its totals and how many outliers it never wrote, exits 1 and leaves no program
    attached."""
    before = set(sclat_progs())
    with open("/dev/full", "w") as full:
        r = subprocess.run([SCLAT, "watch", "--json", "--threshold", "1ms", "--duration",
                            "20s", "--", "sh", "-c", "sleep 0.2; sleep 0.2; sleep 0.2"],
                           stdout=full, stderr=subprocess.PIPE, text=True, timeout=30)
    assert r.returncode == 1, r.stderr
    lines = r.stderr.splitlines()
    assert lines[0] == "sclat: writing the outliers to standard output: " \
        "No space left on device", r.stderr
    assert [l for l in lines if re.match(r"sclat: \d+ syscalls, 0 outliers,", l)], r.stderr
    not_written = [int(l.split()[1]) for l in lines if l.endswith("outliers not written: "
                                                                  "the output failed")]
    # The first sleep's outlier, at least: the run stops there, and its command with it.
    assert not_written and not_written[0] >= 1, r.stderr
    assert not [l for l in lines if "reading the ring buffer" in l], r.stderr
    assert not stray_progs(before)


@pytest.mark.parametrize("args,message", [
    ([], "sclat: missing command (watch, record, status, top, policy, report, convert)"),
    (["nosuch"], 'sclat: unknown command "nosuch"'),
    (["watch", "--bogus"], "sclat watch: unrecognized option '--bogus'"),
    (["watch", "-X"], "sclat watch: invalid option -- 'X'"),
    (["watch", "--threshold"], "sclat watch: option '--threshold' requires an argument"),
    (["record", "--bogus"], "sclat record: unrecognized option '--bogus'"),
    (["record", "-o", "d", "--url", "net://h"], "sclat record: -o writes a local trace"),
    (["record", "-o", ""], "sclat record: -o '': an empty path"),
    (["record", "--url", "tcp://h:5342"], "sclat record: --url tcp://h:5342: not a relayd URL"),
    (["record", "--live=2148s"], "sclat record: --live=2148s: too large: at most 2147s"),
    (["record", "--live", "500ms", "ls"], "sclat record: --live 500ms: write --live=500ms"),
    (["record", "--", "sclat-no-such-command"],
     "sclat record: sclat-no-such-command: command not found"),
    (["record", "--buffer-size", "4G"], "sclat record: --buffer-size 4G: too large"),
    (["record", "--comm", "sixteen-chars-xx"], "sclat record: --comm \"sixteen-chars-xx\""),
    (["status", "--bogus"], "sclat status: unrecognized option '--bogus'"),
    (["status", "extra"], 'sclat status: unexpected argument "extra"'),
    (["top", "extra"], 'sclat top: unexpected argument "extra"'),
    (["policy", "show", "extra"], 'sclat policy show: unexpected argument "extra"'),
    (["policy"], "sclat: policy: which action?"),
    (["policy", "nosuch"], 'sclat: policy: unknown action "nosuch"'),
    (["policy", "set", "--bogus"], "sclat policy set: unrecognized option '--bogus'"),
    (["policy", "set"], "sclat policy set: nothing to set"),
    (["policy", "set", "quantile=0.9", "--syscall", "read"],
     "sclat policy set: --syscall read: no KEY=VALUE after it"),
    (["policy", "set", "--syscall", "", "quantile=0.9"],
     'sclat policy set: --syscall "": not a syscall name'),
    (["policy", "load"], "sclat policy load: a policy FILE is needed"),
    (["report", "--bogus"], "sclat report: unrecognized option '--bogus'"),
    (["report"], "sclat report: which trace?"),
    (["convert", "--bogus"], "sclat convert: unrecognized option '--bogus'"),
    (["convert", "trace"], "sclat convert: which trace, and where to?"),
])
def test_usage_errors(args, message):
    """Every usage error, whichever command and whoever notices it (argp included):
    exit status 2 and one line on stderr, no "Try --help" line."""
    r = run_sclat(*args)
    assert r.returncode == 2, r.stderr
    assert r.stderr.splitlines() == [r.stderr.rstrip("\n")], r.stderr
    assert r.stderr.startswith(message), r.stderr
    assert r.stdout == ""


@pytest.mark.parametrize("args", [["watch", "--duration", "1s"],
                                  ["record", "-o", "/tmp/sclat-never-made", "--", "true"]])
def test_not_root_is_refused(root, args):
    """The missing privilege is what sclat says, before it starts anything (record: no
    session daemon, no trace directory)."""
    r = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                        SCLAT, *args], capture_output=True, text=True, timeout=30,
                       env=dict(os.environ, HOME="/nonexistent"))
    assert r.returncode == 1
    assert r.stderr.splitlines() == [
        "sclat: loading BPF programs needs root (or CAP_BPF and CAP_PERFMON): "
        "run sclat with sudo"]
    assert not os.path.exists("/tmp/sclat-never-made")


def test_comm_scope(root):
    """--comm keeps only threads of that name: the two 5 ms sleeps of `syscalls`, not the
    20 ms one of `sleep` (a loaded machine may make another call of `syscalls` slow too)."""
    r = run_sclat("watch", "--threshold", "2ms", "--json", "--comm", "syscalls", "--",
                  "sh", "-c", "sleep 0.02; " + workload("syscalls") + " --slow 2")
    assert r.returncode == 0, r.stderr
    out, _ = outliers_and_summary(r.stdout)
    assert {e["comm"] for e in out} == {"syscalls"}, out
    assert [e["syscall"] for e in out].count("clock_nanosleep") == 2, out


def ns_of(text):
    """"5.06ms" -> 5060000."""
    m = re.fullmatch(r"([0-9.]+)(ns|us|ms|s)", text)
    assert m, text
    return float(m.group(1)) * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[m.group(2)]


def test_text_columns(root, tmp_path):
    """Text output: fixed-width columns time, comm, pid, tid, syscall, latency, return
    value, threshold, surprise, impact, under 120 columns, then why: a sleep, in the kernel's nanosleep,
    that a timer's interrupt ended. The workload runs at a real-time priority: on a busy
    machine a woken task waits its turn, and that wait may outlast its sleep."""
    report = tmp_path / "report"
    r = run_sclat("watch", "--threshold", "2ms", "--", "chrt", "--fifo", "1",
                  workload("syscalls"), "--slow", "3", "--slow-ms", "5", "--report",
                  str(report))
    assert r.returncode == 0, r.stderr
    me = reports(report)[0]
    lines = [l for l in r.stdout.splitlines() if "clock_nanosleep" in l]
    header = r.stdout.splitlines()[0]
    assert header.split() == ["TIME", "COMM", "PID", "TID", "SYSCALL", "LATENCY", "RET",
                              "THRESHOLD", "SURPRISE", "IMPACT", "WHY"]
    assert len(lines) == 3, r.stdout
    # Fixed width up to WHY: each value where its title is.
    why_at = header.index("WHY")
    assert why_at <= 120 and header.endswith("WHY"), header
    # A sleep whose switch back onto its CPU the kernel did not trace (some VMs trace none
    # for some of their own threads, which the timer's interrupt may have landed on) has no
    # wait frame and no waker: sclat says how many at the end, and only so many may lack them.
    unseen = [int(m.group(1)) for m in
              re.finditer(r"(\d+) blocked calls not traced back onto a CPU", r.stderr)]
    assert len(unseen) <= 1, r.stderr
    untraced = unseen[0] if unseen else 0
    for l in lines:
        assert l[why_at - 1] == " " and l[why_at] != " ", l
        why = l[why_at:]
        m = re.fullmatch(r"sleep (\S+) \S*nanosleep\S* <- clock_nanosleep\(\) "
                         r"woken by \[interrupt\] <- main \(syscalls\)", why)
        if not m and untraced:
            untraced -= 1
            m = re.fullmatch(r"sleep (\S+) <- clock_nanosleep\(\) <- main \(syscalls\)", why)
        assert m and 5e6 * 0.9 <= ns_of(m.group(1)) <= ns_of(l.split()[5]), (why, r.stderr)
        l = l[:why_at - 1]
        f = l.split()
        assert re.fullmatch(r"\d\d:\d\d:\d\d\.\d{3}", f[0]), l
        assert f[1:5] == ["syscalls", str(me["pid"]), str(me["tid"]), "clock_nanosleep"], l
        assert ns_of(f[5]) >= 5e6 and f[6] == "0" and ns_of(f[7]) == 2e6, l
        # A static threshold learnt nothing: no surprise known, the impact is the latency.
        assert f[8] == "-" and f[9] == f[5], l
        for title in ("PID", "TID", "LATENCY", "THRESHOLD", "SURPRISE", "IMPACT"):
            # Right-aligned numbers end under the end of their title.
            end = header.index(title) + len(title)
            assert l[end - 1] != " " and (end == len(l) or l[end] == " "), (title, l)
        for title in ("COMM", "SYSCALL", "RET"):
            start = header.index(title)
            assert l[start - 1] == " " and l[start] != " ", (title, l)


def test_blocks_whose_end_was_not_traced_are_counted(root, tmp_path):
    """2000 sleeps of 1 ms at a real-time priority: a sleep whose switch back onto a CPU the
    kernel did not trace (its last stretch off the CPU has no wake-up and lasts to the exit,
    with no waker) is counted, in the summary and on stderr; the others are not. On a
    kernel that traces every switch both are 0."""
    r = run_sclat("watch", "--json", "--summary", "--threshold", "500us", "--", "chrt",
                  "--fifo", "1", workload("syscalls"), "--slow", "2000", "--slow-ms", "1")
    assert r.returncode == 0, r.stderr
    rows = [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")]
    summary = [o["summary"] for o in rows if "summary" in o]
    assert len(summary) == 1, r.stdout[-2000:]
    sleeps = [o for o in rows if o.get("syscall") == "clock_nanosleep"]
    assert len(sleeps) >= 1000, len(sleeps)
    unseen = [o for o in sleeps if back_unseen(o)]
    assert len(unseen) <= summary[0]["backs_unseen"] <= len(sleeps), (
        len(unseen), summary[0], r.stderr)
    said = re.findall(r"(\d+) blocked calls not traced back onto a CPU", r.stderr)
    assert said == ([str(summary[0]["backs_unseen"])] if summary[0]["backs_unseen"] else []), \
        r.stderr


def test_cgroup_scope(root, cgroup2_dir):
    """--cgroup traces the tasks in that cgroup v2 directory, not one running beside them."""
    def start(in_cgroup):
        enter = "echo $$ > %s/cgroup.procs && " % cgroup2_dir if in_cgroup else ""
        return subprocess.Popen(["sh", "-c", enter + "exec %s %s" % (
            workload("syscalls"), " ".join(SLEEPS_UNTIL_KILLED))], stdout=subprocess.DEVNULL)
    inside, outside = start(True), start(False)
    try:
        assert wait_until(lambda: str(inside.pid) in
                          open(os.path.join(cgroup2_dir, "cgroup.procs")).read().split())
        r = run_sclat("watch", "--threshold", "2ms", "--json", "--cgroup", cgroup2_dir,
                      "--duration", "500ms")
    finally:
        for p in (inside, outside):
            p.kill()
            p.wait()
    assert r.returncode == 0, r.stderr
    out, _ = outliers_and_summary(r.stdout)
    # 500 ms of 5 ms sleeps: about 100 of them, all of the process inside. On a loaded
    # machine another of its calls may be held past 2 ms too: a true outlier, still inside.
    sleeps = [e for e in out if e["syscall"] == "clock_nanosleep"]
    assert len(sleeps) >= 20, r.stdout
    assert {e["pid"] for e in out} == {inside.pid}


def test_syscalls_past_the_histograms_are_counted_as_other(root, tmp_path):
    """sclat has a histogram for each of the first 111 syscalls it sees; the calls of any
    later one count together in a shared one. The syscalls workload makes calls of 102
    syscall numbers (87 unassigned, 15 given fd -1), which with those of its start are
    more than 111: `sclat status` then has an "other" row (nr -1) with those calls, so
    that its rows add up to its total; the summary at the end has it too, and every call
    the workload made of the 102 is counted in one row or the other."""
    report = tmp_path / "report"
    env = dict(os.environ, SCLAT_RUN_DIR=str(tmp_path / "run"))
    w = Watch(env, "--summary", "--threshold", "10s", "--", workload("syscalls"),
              "--many", "50", "--slow", "40", "--slow-ms", "50", "--report", str(report))
    try:
        def other():
            st = w.try_status()
            rows = {s["syscall"]: s for s in st["syscalls"]} if st else {}
            return (st, rows["other"]) if rows.get("other", {}).get("calls") else None
        got = wait_until(other, timeout=20, step=0.2)
        assert got, "".join(w.stderr)
        st, row = got
        assert w.wait(30) == 0, "".join(w.stderr)
    finally:
        w.stop()
    assert row["nr"] == -1 and row["calls"] > 0, row
    assert sum(s["calls"] for s in st["syscalls"]) == st["totals"]["syscalls"], st["totals"]
    summary = [e["summary"] for _, e in w.find(lambda e: "summary" in e)]
    assert len(summary) == 1, w.events[-3:]
    per = {s["syscall"]: s for s in summary[0]["per_syscall"]}
    assert per["other"]["nr"] == -1 and per["other"]["calls"] >= row["calls"], per["other"]
    made = json.loads(report.read_text())["many"]
    assert made == 50 * 102, made
    # The 102 numbers' calls: in their own rows (87 unassigned ones are named by number)
    # or in "other", with the rest of the syscalls that came late.
    own = sum(s["calls"] for name, s in per.items()
              if re.fullmatch(r"syscall_(3[3-9][0-9]|4[01][0-9]|42[0-3])", name))
    assert own + per["other"]["calls"] >= made - 15 * 50, (own, per["other"])
