# SPDX-License-Identifier: GPL-2.0-only
"""sclat top (issue 36): a running tracer live on a full screen, run in tmux as a user runs it
(keys sent, the screen read back), and its --batch frames.

The tracer is `sclat watch --threshold 10ms` on a workload that renames itself with a comm
that would drive a terminal, then reads /dev/zero 2000 times between 30 ms sleeps: one slow
syscall (clock_nanosleep, sleep 30 ms) among fast ones (read); a thread of it (the same
comm) reads a pipe nobody writes: a call in flight for as long as the workload runs. Each tmux server is the test's
own (tmux -L NAME) and only that one is killed.
"""
import os
import re
import signal
import subprocess
import time

import pytest

from conftest import SCLAT, Watch, env_of, run_sclat, wait_until

PYTHON = "/usr/bin/python3"
# Set the terminal's title, ring its bell, and forge a line: 14 bytes, a valid comm.
HOSTILE_COMM = b"\x1b]0;pwn\x07\nroot 1"
HOSTILE_SHOWN = "\\x1b]0;pwn\\x07\\x0aroot 1"
PROMPT = "PROMPT$"

WORKLOAD = (
    "import ctypes, os, threading, time\n"
    "ctypes.CDLL(None).prctl(15, %r, 0, 0, 0)\n"
    "r, w = os.pipe()\n"
    "threading.Thread(target=os.read, args=(r, 1), daemon=True).start()\n"
    "fd = os.open('/dev/zero', os.O_RDONLY)\n"
    "while True:\n"
    "    for _ in range(2000):\n"
    "        os.read(fd, 1)\n"
    "    time.sleep(0.03)\n" % HOSTILE_COMM)

UNITS = {"ns": 1, "us": 10**3, "ms": 10**6, "s": 10**9}


def ns_of(text):
    """A duration as sclat prints it ("30.5ms", "1.22us", "297ns") in ns."""
    m = re.fullmatch(r"([0-9.]+)(ns|us|ms|s)", text)
    assert m, text
    return float(m.group(1)) * UNITS[m.group(2)]


def start_tracer(tmp_path):
    env = env_of(tmp_path)
    w = Watch(env, "--threshold", "10ms", "--", PYTHON, "-c", WORKLOAD)
    # Its first interval done, and a slow call reported: a frame has all there is to see.
    assert wait_until(lambda: w.try_status() is not None and w.outliers(), timeout=30), \
        "".join(w.stderr)
    return w, env


@pytest.fixture(scope="module")
def tracer(root, tmp_path_factory):
    w, env = start_tracer(tmp_path_factory.mktemp("top"))
    yield w, env
    w.stop()


class Tmux:
    """A tmux server of the test's own, its one pane a shell whose prompt is PROMPT."""

    def __init__(self, env):
        self.cmd = ["tmux", "-L", "sclat-test-%d-%d" % (os.getpid(), time.monotonic_ns()),
                    "-f", "/dev/null"]
        subprocess.run(self.cmd + ["new-session", "-d", "-x", "200", "-y", "50", "env",
                                   "PS1=%s " % PROMPT, "bash", "--norc", "--noprofile", "-i"],
                       check=True, env=env, timeout=30)
        assert wait_until(lambda: PROMPT in self.screen()), self.screen()

    def send(self, *keys):
        subprocess.run(self.cmd + ["send-keys", *keys], check=True, timeout=30)

    def screen(self):
        return subprocess.run(self.cmd + ["capture-pane", "-p"], capture_output=True,
                              text=True, timeout=30).stdout

    def show(self, fmt):
        return subprocess.run(self.cmd + ["display-message", "-p", fmt], capture_output=True,
                              text=True, timeout=30).stdout.strip()

    def run(self, command):
        """Type command and Enter at the prompt."""
        self.send("-l", command)
        self.send("Enter")

    def kill(self):
        subprocess.run(self.cmd + ["kill-server"], capture_output=True, timeout=30)

    def child_pid(self):
        """The pid of the shell's child (the command it runs), or None."""
        shell = int(self.show("#{pane_pid}"))
        try:
            with open("/proc/%d/task/%d/children" % (shell, shell)) as f:
                kids = f.read().split()
        except OSError:
            return None
        return int(kids[0]) if kids else None


@pytest.fixture
def tmux(tracer):
    t = Tmux(tracer[1])
    yield t
    t.kill()


def table(screen):
    """The rows of the table on a screen of sclat top: {syscall: [columns]}, in order."""
    lines = screen.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("SYSCALL "))
    rows = []
    for line in lines[head + 1:]:
        if not line.strip():
            break
        rows.append(line.split())
    return rows


def top_command(w):
    return "%s top -d 0.5 --pid %d" % (SCLAT, w.proc.pid)


def restored(t):
    """The screen sclat top had is gone: the shell's prompt is back, out of the alternate
    screen, and no command runs."""
    lines = [line for line in t.screen().splitlines() if line.strip()]
    return (t.show("#{alternate_on}") == "0" and t.child_pid() is None and lines and
            lines[-1].startswith(PROMPT))


def test_top_shows_the_slow_call_its_why_sorts_by_key_and_quits_on_q(tracer, tmux):
    w, env = tracer
    tmux.run(top_command(w))
    assert wait_until(lambda: "clock_nanosleep" in tmux.screen() and
                      any(r[0] == "clock_nanosleep" for r in table(tmux.screen())) and
                      "\nIN FLIGHT " in tmux.screen(), timeout=20), tmux.screen()
    assert tmux.show("#{alternate_on}") == "1"
    screen = tmux.screen()
    assert screen.startswith("sclat top - tracer %d, " % w.proc.pid), screen
    # SYSCALL CALLS/S P50 P99 THRESHOLD OUTL/S LOST/S: a 30 ms sleep, its threshold 10 ms.
    slow = next(r for r in table(screen) if r[0] == "clock_nanosleep")
    assert 25e6 <= ns_of(slow[3]) < 500e6, slow
    assert slow[4] == "10ms", slow
    fast = next(r for r in table(screen) if r[0] == "read")
    assert ns_of(fast[3]) < 10e6, fast
    # The outliers pane: watch's line, its why, and the comm escaped.
    why = [line for line in screen.splitlines()
           if " clock_nanosleep " in line and "hrtimer_nanosleep <- clock_nanosleep()" in line]
    assert why and all(line.split(" ", 1)[1].startswith(HOSTILE_SHOWN) for line in why), screen
    # Its why: asleep 30 ms (one of them may say runq instead, on a machine that loaded).
    assert any("sleep 3" in line for line in why), why
    # The call in flight: its syscall, the comm escaped, how long so far, its state.
    lines = screen.splitlines()
    head = next(i for i, line in enumerate(lines) if line.startswith("IN FLIGHT "))
    stuck = lines[head + 1].split()
    assert stuck[0] == "read" and HOSTILE_SHOWN.split()[0] in stuck, lines[head + 1]
    assert stuck[-1] == "sleeping" and stuck[-2] == "10ms", lines[head + 1]
    # Nothing the comm holds reached the terminal: the title is not its.
    assert "pwn" not in tmux.show("#{pane_title}")

    # C sorts by calls per second: read, 2000 a sleep, first. P by p99: the sleep first.
    tmux.send("C")
    assert wait_until(lambda: "sort CALLS/S" in tmux.screen() and
                      table(tmux.screen())[0][0] == "read"), tmux.screen()
    tmux.send("P")
    assert wait_until(lambda: "sort P99" in tmux.screen() and
                      table(tmux.screen())[0][0] == "clock_nanosleep"), tmux.screen()
    # < moves the sort column left (P99 to P50), R reverses it: the smallest first.
    tmux.send("<")
    assert wait_until(lambda: "sort P50" in tmux.screen() and
                      table(tmux.screen())[0][0] == "clock_nanosleep"), tmux.screen()
    tmux.send("R")

    def ascending():
        p50 = [ns_of(r[2]) for r in table(tmux.screen()) if r[2] != "-"]
        return len(p50) > 1 and p50 == sorted(p50) and p50[0] < p50[-1]
    assert wait_until(lambda: "(reversed)" in tmux.screen() and ascending()), tmux.screen()

    tmux.send("q")
    assert wait_until(lambda: restored(tmux), timeout=10), tmux.screen()
    tmux.run("echo status=$?")
    assert wait_until(lambda: "status=0" in tmux.screen()), tmux.screen()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_ends_top_and_restores_the_terminal(tracer, tmux, sig):
    w, env = tracer
    tmux.run(top_command(w))
    assert wait_until(lambda: "clock_nanosleep" in tmux.screen() and tmux.child_pid()), \
        tmux.screen()
    os.kill(tmux.child_pid(), sig)
    assert wait_until(lambda: restored(tmux), timeout=10), tmux.screen()
    tmux.run("echo status=$?")
    assert wait_until(lambda: "status=%d" % (128 + sig) in tmux.screen()), tmux.screen()


def test_top_ends_when_the_tracer_goes_and_says_so(root, tmp_path):
    w, env = start_tracer(tmp_path)
    t = Tmux(env)
    try:
        t.run(top_command(w))
        assert wait_until(lambda: "clock_nanosleep" in t.screen()), t.screen()
        w.stop()
        assert wait_until(lambda: restored(t), timeout=15), t.screen()
        # What it said while the screen was up is said once the terminal is back.
        assert "sclat: no tracer with pid %d is running" % w.proc.pid in t.screen(), t.screen()
        t.run("echo status=$?")
        assert wait_until(lambda: "status=1" in t.screen()), t.screen()
    finally:
        t.kill()
        w.stop()


def test_batch_prints_n_plain_frames(tracer):
    w, env = tracer
    # 2 s apart: the tracer's interval (1 s) has ended between them, and its counts moved.
    r = run_sclat("top", "--batch", "-n", "2", "-d", "2", "--pid", str(w.proc.pid), env=env,
                  timeout=30)
    assert r.returncode == 0, r.stderr
    # Plain text: no escape sequence, the comm escaped.
    assert "\x1b" not in r.stdout and HOSTILE_SHOWN in r.stdout
    frames = r.stdout.split("\nsclat top - tracer ")
    assert len(frames) == 2, r.stdout
    assert "(first frame: averages since start)" in frames[0]
    assert "(first frame" not in frames[1]
    for frame in frames:
        slow = next(r for r in table(frame) if r[0] == "clock_nanosleep")
        assert 25e6 <= ns_of(slow[3]) < 500e6, slow
        # The sleeps go on at up to 33 a second, each an outlier 20 ms and more past its
        # threshold.
        assert 0 < float(slow[5]) < 40, slow
        assert ns_of(slow[6]) > 0, slow
        assert "hrtimer_nanosleep <- clock_nanosleep()" in frame


def test_batch_without_a_tracer_says_so(tmp_path):
    r = run_sclat("top", "--batch", "-n", "1", env=env_of(tmp_path), timeout=30)
    assert r.returncode == 1 and "no tracer is running" in r.stderr, r.stderr
    assert r.stdout == ""
    r = run_sclat("top", "-d", "0.01", env=env_of(tmp_path), timeout=30)
    assert r.returncode == 2 and "-d 0.01: not a number of seconds" in r.stderr, r.stderr
