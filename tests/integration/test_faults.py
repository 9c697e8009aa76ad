# SPDX-License-Identifier: GPL-2.0-only
"""sclat record when what it relies on fails: the session daemon, the consumer daemon, the
relay daemon, the disk, or sclat itself (SIGKILL). Never in silence: one line says what
failed, sclat stops and exits with status 200, the report says what the trace lacks, and
nothing is left running. A test kills only a daemon that it or sclat started, by pid, in
the LTTng world of tests/lttng-world."""
import os
import re
import signal
import subprocess

import pytest

from conftest import (SCLAT, children_named, lttng, prog_ids_of, run_sclat, running,
                      sclat_progs, session_names, sessiond_pid, tmpfs, wait_until, workload)

INCOMPLETE = 200  # sclat record's exit status when the trace lacks what it does not count
SUMMARY = re.compile(r"sclat: (\d+) syscalls, (\d+) outliers, (\d+) dropped, (\d+) throttled")


class Recording:
    """sclat record of a command that sleeps 600 times 50 ms, once its programs are
    attached (the session is started by then)."""

    def __init__(self, tmp_path, *args):
        self.done = tmp_path / "command-done"
        self.env = dict(os.environ, SCLAT_RUN_DIR=str(tmp_path / "run"))
        self.proc = subprocess.Popen(
            [SCLAT, "record", *args, "--threshold", "20ms", "--", workload("syscalls"),
             "--slow", "600", "--slow-ms", "50", "--report", str(self.done)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=self.env)
        self.progs = wait_until(lambda: prog_ids_of(self.proc.pid), timeout=30)
        assert self.progs, self.proc.stderr.read() if self.proc.poll() is not None else ""
        self.command = children_named(self.proc.pid, "syscalls")

    def finish(self, timeout=60):
        self.out, self.err = self.proc.communicate(timeout=timeout)
        return self.proc.returncode

    def kill(self):
        """SIGKILL to sclat, which leaves its command running: that too, the test started."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        for pid in self.command:
            try:
                with open("/proc/%d/comm" % pid) as f:
                    if f.read().strip() == "syscalls":  # not a pid reused since
                        os.kill(pid, signal.SIGKILL)
            except (OSError, ProcessLookupError):
                pass
        self.proc.communicate()


@pytest.fixture
def recordings():
    started = []
    yield lambda *a: started.append(Recording(*a)) or started[-1]
    for r in started:
        r.kill()


def check_stopped_incomplete(rec, message):
    """sclat said what failed, stopped the command, freed its programs, printed the trace's
    location, said that the trace is incomplete and exited with 200."""
    assert rec.finish() == INCOMPLETE, rec.err
    lines = rec.err.splitlines()
    assert message in lines, rec.err
    location = rec.out.splitlines()[-1]
    assert lines[-1] == (
        "sclat: %s: the trace is incomplete: events are missing that it does not count "
        "(exit status 200 instead of 143, the command's)" % location), rec.err
    # Before it, the summary and the line of losses; the one of blocked calls whose switch
    # back the kernel did not trace may come between (a CI run printed it once).
    end = [l for l in lines[:-1] if "not traced back onto a CPU" not in l]
    assert SUMMARY.match(end[-1]) or SUMMARY.match(end[-2]), rec.err
    assert not rec.done.exists()  # the command was stopped (SIGTERM: 143), not left running
    assert wait_until(lambda: not rec.progs & set(sclat_progs()), timeout=10)
    return location


def check_report_incomplete(trace):
    """What reached the trace reads, and says that it is incomplete; or, when not even its
    metadata did, the report says in one line that it cannot read it."""
    r = run_sclat("report", str(trace), "--top", "0")
    if r.returncode == 0:
        assert "TRACE INCOMPLETE: " in r.stdout and "No events lost." not in r.stdout, r.stdout
    else:
        assert len(r.stderr.splitlines()) == 1 and r.stderr.startswith(
            "sclat: %s: " % trace), r.stderr
    return r


def test_session_daemon_dying_mid_run(own_sessiond, recordings, tmp_path):
    """The daemon sclat started dies under it."""
    rec = recordings(tmp_path, "-o", str(tmp_path / "trace"))
    pid = sessiond_pid()
    assert pid
    os.kill(pid, signal.SIGKILL)
    check_stopped_incomplete(rec, "sclat: lttng-sessiond exited; stopping")
    assert wait_until(lambda: not running("lttng-consumerd"), timeout=10)


def test_consumer_daemon_dying_mid_run(own_sessiond, recordings, tmp_path):
    """The consumer daemon writes the trace; the session daemon lives on without it, and
    used to let sclat run on and exit 0 over empty stream files."""
    trace = tmp_path / "trace"
    rec = recordings(tmp_path, "-o", str(trace))
    pid = sessiond_pid()
    consumerd = wait_until(lambda: children_named(pid, "lttng-consumerd"), timeout=10)
    assert consumerd, "no consumer daemon under lttng-sessiond %d" % pid
    os.kill(consumerd[0], signal.SIGKILL)
    check_stopped_incomplete(
        rec, "sclat: lttng-consumerd exited: LTTng cannot write the trace any more; stopping")
    # sclat started the daemon, which cannot trace any more: it is gone with its session.
    assert wait_until(lambda: not running("lttng-sessiond", "lttng-consumerd"), timeout=15)
    check_report_incomplete(trace)


@pytest.mark.parametrize("live", [False, True], ids=["streamed", "live"])
@pytest.mark.parametrize("restart", [False, True], ids=["killed", "killed-and-restarted"])
def test_relayd_dying_mid_run(lttng_sessiond, relayd, recordings, tmp_path, live, restart):
    """LTTng drops the session's streams when its relayd dies, and does not send them again
    when a relayd comes back on the same ports: sclat stops, and says so."""
    name = "faults-relayd-%d" % os.getpid()
    rec = recordings(tmp_path, "--url", relayd.url, "-n", name,
                     *(["--live=100ms"] if live else []))
    relayd.kill()
    if restart:
        relayd.start()
    check_stopped_incomplete(
        rec, "sclat: %s: lost the connection to lttng-relayd: LTTng does not send the trace "
        "any more; stopping" % relayd.url)
    assert name not in session_names()
    written = [d for d in relayd.out.rglob("*") if d.is_dir() and d.name.startswith(name)]
    if written:
        check_report_incomplete(written[0])
    if restart:
        # What happens then: the relayd that came back serves the next recording.
        r = run_sclat("record", "--url", relayd.url, "--", "true")
        assert r.returncode == 0, r.stderr


@pytest.fixture
def small_fs(root, tmp_path):
    """A 2 MiB tmpfs: one of the sclat channel's sub-buffers does not even fit."""
    with tmpfs(tmp_path / "small", "size=2M") as d:
        yield d


def test_full_disk(lttng_sessiond, small_fs):
    """Every call an outlier into a 2 MiB file system: sclat warns as it fills, and at the end
    finds in the files what LTTng could not write."""
    trace = small_fs / "t"
    r = run_sclat("record", "-o", str(trace), "--threshold", "0ns", "--", workload("syscalls"),
                  "--fast", "300000", timeout=120)
    assert r.returncode == INCOMPLETE, r.stderr
    lines = r.stderr.splitlines()
    assert any(l.startswith("sclat: %s: the file system is full (" % trace) and
               l.endswith("KiB free): LTTng cannot write the trace, and events are being lost")
               for l in lines), r.stderr
    assert any(l.startswith("sclat: %s: the trace is missing " % trace) for l in lines), \
        r.stderr
    assert lines[-1] == (
        "sclat: %s: the trace is incomplete: events are missing that it does not count "
        "(exit status 200 instead of 0, the command's)" % trace), r.stderr
    assert r.stdout.splitlines()[-1] == str(trace)
    check_report_incomplete(trace)


# --- sclat record killed: what it left is ended by the next sclat ---------------------

def owner_env(tmp_path):
    return dict(os.environ, SCLAT_RUN_DIR=str(tmp_path / "run"))


def test_sigkill_then_status_ends_what_it_left(own_sessiond, recordings, tmp_path):
    """A killed sclat record leaves its session active and the daemon it started: the next
    sclat status destroys the one (its trace becomes whole and readable) and stops the
    other, and says so."""
    trace, name = tmp_path / "trace", "faults-killed-%d" % os.getpid()
    rec = recordings(tmp_path, "-o", str(trace), "-n", name)
    daemon = sessiond_pid()
    rec.kill()
    assert wait_until(lambda: not rec.progs & set(sclat_progs()), timeout=10)
    assert name in session_names() and "[active]" in lttng("list", name).stdout
    r = run_sclat("status", env=owner_env(tmp_path))
    lines = r.stderr.splitlines()
    assert lines[:2] == [
        'sclat: destroyed session "%s", left by sclat %d, which is gone; its trace is in %s'
        % (name, rec.proc.pid, trace),
        "sclat: stopped lttng-sessiond (pid %d), which sclat %d started and left"
        % (daemon, rec.proc.pid)], r.stderr
    assert wait_until(lambda: not running("lttng-sessiond", "lttng-consumerd"), timeout=15)
    r = check_report_incomplete(trace)
    assert r.returncode == 0 and "TRACE INCOMPLETE: no end-of-run accounting" in r.stdout
    # Once is enough.
    assert "destroyed" not in run_sclat("status", env=owner_env(tmp_path)).stderr


def test_sigkill_then_record_ends_what_it_left(lttng_sessiond, recordings, tmp_path):
    """The next sclat record does it too, before it starts its own session (in a daemon that
    the killed sclat did not start, and that stays)."""
    trace, name = tmp_path / "trace", "faults-killed2-%d" % os.getpid()
    rec = recordings(tmp_path, "-o", str(trace), "-n", name)
    daemon = sessiond_pid()
    rec.kill()
    r = run_sclat("record", "-o", str(tmp_path / "next"), "--", "true",
                  env=owner_env(tmp_path))
    assert r.returncode == 0, r.stderr
    assert r.stderr.splitlines()[0] == (
        'sclat: destroyed session "%s", left by sclat %d, which is gone; its trace is in %s'
        % (name, rec.proc.pid, trace)), r.stderr
    assert name not in session_names() and sessiond_pid() == daemon
    check_report_incomplete(trace)


def test_sigkill_in_the_first_moments(own_sessiond, tmp_path):
    """Killed as soon as its session is started, before sclat's first event: the trace was
    left unreadable ("No stream class with ID ..."). Once its session is ended, babeltrace2
    reads it."""
    trace, name = tmp_path / "trace", "faults-early-%d" % os.getpid()
    p = subprocess.Popen([SCLAT, "record", "-o", str(trace), "-n", name, "--", "sleep", "10"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         env=owner_env(tmp_path))
    try:
        assert wait_until(lambda: name in session_names() and
                          "[active]" in lttng("list", name, check=False).stdout,
                          timeout=30, step=0.01)
    finally:
        p.kill()
        p.wait()
    r = run_sclat("status", env=owner_env(tmp_path))
    assert 'sclat: destroyed session "%s"' % name in r.stderr, r.stderr
    assert wait_until(lambda: not running("lttng-sessiond", "lttng-consumerd"), timeout=15)
    r = subprocess.run(["babeltrace2", str(trace)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr


def test_sigkill_of_a_joined_record(lttng_sessiond, recordings, tmp_path):
    """--session: the session is the user's and stays; what the killed sclat left in it is
    its pid among the processes it tracks, which the next sclat takes out."""
    name = "faults-joined-%d" % os.getpid()
    lttng("create", name, "-o", str(tmp_path / "trace"))
    try:
        lttng("enable-event", "-u", "-s", name, "other:*")
        lttng("track", "-u", "-s", name, "--vpid", "1")
        rec = recordings(tmp_path, "--session", name)
        rec.kill()
        tracked = lambda: re.search(r"Virtual process IDs:\s+(.*)$",
                                    lttng("list", name).stdout, re.M).group(1).split(", ")
        assert sorted(tracked()) == sorted(["1", str(rec.proc.pid)])
        r = run_sclat("status", env=owner_env(tmp_path))
        assert r.stderr.splitlines()[0] == (
            'sclat: took pid %d, a sclat that is gone, out of the processes session "%s" '
            "tracks" % (rec.proc.pid, name)), r.stderr
        assert tracked() == ["1"] and "[active]" in lttng("list", name).stdout
    finally:
        lttng("destroy", name, check=False)
