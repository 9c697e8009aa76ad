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

from conftest import (SCLAT, children_named, prog_ids_of, run_sclat, running,
                      sclat_progs, session_names, sessiond_pid, wait_until, workload)

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
    assert SUMMARY.match(lines[-2]) or SUMMARY.match(lines[-3]), rec.err
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
    d = tmp_path / "small"
    d.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2M", "sclat-small", str(d)],
                   check=True)
    yield d
    subprocess.run(["umount", str(d)], check=True)


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
