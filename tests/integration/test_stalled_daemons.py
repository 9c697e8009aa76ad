# SPDX-License-Identifier: GPL-2.0-only
"""Daemons that stall rather than die: a relay daemon stopped with SIGSTOP, a port that
accepts and then says nothing. Every wait on a daemon is bounded, sclat says which daemon
does not answer, and Ctrl-C ends the run (a background job's too, which starts with SIGINT
ignored). The relay daemons and the silent port are the test's own, stopped and resumed by
pid; the session daemon is the tests' (tests/lttng-world)."""
import glob
import os
import signal
import socket
import subprocess
import time

import pytest

from conftest import (SCLAT, reap, run_sclat, running, sclat_progs, stray_progs, wait_until,
                      workload)

INCOMPLETE = 200
# user/commands/watch_from.h and user/outputs/daemon_watchdog.h
WATCH_FROM_TIMEOUT_S = 10
NOTE_S = 5


def ignoring_sigint():
    """What a shell does for a background job without job control."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def start(args, background=False, env=None):
    return subprocess.Popen([SCLAT, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env,
                            preexec_fn=ignoring_sigint if background else None)


def finish(p, timeout):
    """p's exit status, stdout and stderr; fails the test if p does not end within timeout."""
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        reap(p)
        pytest.fail("sclat %s still runs after %s s" % (" ".join(p.args[1:]), timeout))
    return p.returncode, out, err


def stderr_line(p, word, timeout):
    """Read p's stderr until a line with word; the lines read."""
    lines = []
    deadline = time.monotonic() + timeout
    os.set_blocking(p.stderr.fileno(), False)
    while time.monotonic() < deadline:
        line = p.stderr.readline()
        if line:
            lines.append(line)
            if word in line:
                return lines
        else:
            time.sleep(0.05)
    pytest.fail("no %r on stderr in %s s: %s" % (word, timeout, "".join(lines)))


# x86-64
NR_READ, NR_WRITE, NR_SENDTO, NR_RECVFROM, NR_SENDMSG, NR_RECVMSG = 0, 1, 44, 45, 46, 47


def sleeps_in(pid, calls, ports):
    """Whether a thread of process pid sleeps in one of the system calls calls on a TCP
    connection to one of ports: its /proc syscall file names the call and the fd (only while
    it sleeps in it), the fd is a socket whose inode /proc/net/tcp lists with that remote
    port."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            for row in list(f)[1:]:
                fields = row.split()
                if int(fields[2].rsplit(":", 1)[1], 16) in ports:
                    inodes.add("socket:[%s]" % fields[9])
    try:
        for tid in os.listdir("/proc/%d/task" % pid):
            with open("/proc/%d/task/%s/syscall" % (pid, tid)) as f:
                call = f.read().split()
            if call[0] in map(str, calls) and \
                    os.readlink("/proc/%d/fd/%d" % (pid, int(call[1], 16))) in inodes:
                return True
    except OSError:  # a thread, or the process, gone meanwhile
        pass
    return False


def receiving_from(pid, port):
    """Whether a thread of process pid sleeps in recvfrom() on a TCP connection to port."""
    return sleeps_in(pid, (NR_RECVFROM,), (port,))


def waiting_on(relayd):
    """Whether the relay daemon is stopped, every thread of it, and a thread of a consumer
    daemon of this test run's LTTng world sleeps in a send or a receive on a connection to
    it: the trace's data that the daemon sends, or its answer, is held."""
    try:
        tasks = os.listdir("/proc/%d/task" % relayd.proc.pid)
        for tid in tasks:
            with open("/proc/%d/task/%s/stat" % (relayd.proc.pid, tid)) as f:
                if f.read().rsplit(")", 1)[1].split()[0] != "T":
                    return False
    except OSError:
        return False
    calls = (NR_READ, NR_WRITE, NR_SENDTO, NR_RECVFROM, NR_SENDMSG, NR_RECVMSG)
    return any(sleeps_in(pid, calls, (relayd.ctrl, relayd.data))
               for pid in running("lttng-consumerd"))


def relayd_has_data(relayd, session):
    """Whether the relay daemon wrote trace data (a packet of a stream, not the metadata
    nor an index) for session, under its output directory (HOST/SESSION-DATE/...)."""
    for path in glob.glob(str(relayd.out / "*" / (session + "-*") / "**" / "*"),
                          recursive=True):
        if os.path.basename(path) != "metadata" and \
                os.path.basename(os.path.dirname(path)) != "index" and \
                os.path.isfile(path) and os.path.getsize(path) > 0:
            return True
    return False


@pytest.fixture
def silent_port():
    """A TCP port on 127.0.0.1 that takes connections (the kernel's backlog) and never
    says a word."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(8)
    yield s.getsockname()[1]
    s.close()


@pytest.fixture
def stopped(relayd):
    """The test's relay daemon, stopped (SIGSTOP) until the test ends."""
    os.kill(relayd.proc.pid, signal.SIGSTOP)
    yield relayd
    os.kill(relayd.proc.pid, signal.SIGCONT)


def test_watch_from_a_port_that_says_nothing(root, silent_port):
    url = "net://127.0.0.1:%d" % silent_port
    t0 = time.monotonic()
    rc, out, err = finish(start(["watch", "--from", url]), WATCH_FROM_TIMEOUT_S + 20)
    assert rc == 1, err
    assert ("sclat: %s: the relay daemon does not answer (no reply in %d s)"
            % (url, WATCH_FROM_TIMEOUT_S)) in err, err
    assert time.monotonic() - t0 >= WATCH_FROM_TIMEOUT_S - 1


def test_watch_from_a_stopped_relayd_ends_at_ctrl_c(root, lttng_sessiond, stopped):
    """In the background (SIGINT ignored when it starts), stuck in the relay daemon's
    listing, which babeltrace2 cannot interrupt: SIGINT ends it, saying why."""
    p = start(["watch", "--from", "net://127.0.0.1:%d" % stopped.live], background=True)
    # Stuck: waiting for the daemon's answer (its thread started once SIGINT was taken).
    if not wait_until(lambda: receiving_from(p.pid, stopped.live), timeout=WATCH_FROM_TIMEOUT_S):
        reap(p)
        pytest.fail("sclat never waited on the relay daemon: %s" % p.stderr.read())
    p.send_signal(signal.SIGINT)
    rc, out, err = finish(p, 10)
    assert rc == 128 + signal.SIGINT, err
    assert "the relay daemon does not answer; stopping without it" in err, err


def test_watch_from_in_the_background_ends_at_ctrl_c(root, lttng_sessiond, relayd):
    """A relay daemon that answers, no session yet: a background job's SIGINT ends it."""
    p = start(["watch", "--from", "net://127.0.0.1:%d" % relayd.live], background=True)
    stderr_line(p, "no live session yet", 15)
    p.send_signal(signal.SIGINT)
    rc, out, err = finish(p, 10)
    assert rc == 128 + signal.SIGINT, err
    assert "does not answer" not in err, err


def test_record_live_to_a_relayd_stopped_mid_run(root, lttng_sessiond, relayd, tmp_path):
    """The relay daemon stops while the session streams to it: the stop waits for the
    trace's last data for ever in liblttng-ctl, deaf to signals. sclat says who does not
    answer; a second Ctrl-C ends the wait, with the trace said incomplete (200) and no
    program left attached. Once the relay daemon is back, the next sclat ends the session
    the first left."""
    before = set(sclat_progs())
    name = "stalled-%d" % os.getpid()
    env = dict(os.environ, SCLAT_RUN_DIR=str(tmp_path / "run"))
    p = start(["record", "--live=100ms", "--url", relayd.url, "-n", name, "--threshold",
               "5ms", "--", workload("syscalls"), "--slow", "100000", "--slow-ms", "20"],
              env=env)
    try:
        stderr_line(p, "recording to", 30)
        # Streaming: the relay daemon has written packets of the session's.
        if not wait_until(lambda: relayd_has_data(relayd, name), timeout=30, step=0.1):
            pytest.fail("no trace data reached the relay daemon: %s" %
                        sorted(str(f.relative_to(relayd.out)) for f in relayd.out.rglob("*")))
        os.kill(relayd.proc.pid, signal.SIGSTOP)
        # Stopped mid-run: the consumer daemon's next packet (live, every 100 ms), or its
        # answer, waits on it.
        if not wait_until(lambda: waiting_on(relayd), timeout=30, step=0.1):
            pytest.fail("the consumer daemon never waited on the stopped relay daemon")
        p.send_signal(signal.SIGINT)
        stderr_line(p, "has not answered for %d s" % NOTE_S, NOTE_S + 20)
        p.send_signal(signal.SIGINT)
        rc, out, err = finish(p, 10)
    finally:
        os.kill(relayd.proc.pid, signal.SIGCONT)
        reap(p)
    assert rc == INCOMPLETE, err
    assert ("lttng-relayd at %s it streams to) does not answer; stopped waiting at your "
            "request" % relayd.url) in err, err
    assert "is incomplete (exit status 200)" in err, err
    assert not stray_progs(before)
    r = run_sclat("status", env=env, timeout=60)
    assert 'destroyed session "%s", left by sclat %d' % (name, p.pid) in r.stderr, r.stderr


def test_record_to_a_stopped_relayd_ends_at_ctrl_c(root, lttng_sessiond, stopped, tmp_path):
    """The set-up waits on a relay daemon that accepts and does not answer: after a few
    seconds sclat says so; Ctrl-C ends it with nothing recorded and nothing attached."""
    before = set(sclat_progs())
    env = dict(os.environ, SCLAT_RUN_DIR=str(tmp_path / "run"))
    p = start(["record", "--live=100ms", "--url", stopped.url, "-n",
               "stalled-setup-%d" % os.getpid(), "--", "true"], env=env)
    try:
        stderr_line(p, "has not answered for %d s" % NOTE_S, NOTE_S + 20)
        p.send_signal(signal.SIGINT)
        rc, out, err = finish(p, 10)
    finally:
        reap(p)
    assert rc == 1, err
    assert "setting up the LTTng session: lttng-sessiond (or the lttng-relayd at %s" % (
        stopped.url) in err, err
    assert "nothing was recorded" in err, err
    assert not stray_progs(before)
