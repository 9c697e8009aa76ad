# SPDX-License-Identifier: GPL-2.0-only
"""A trace's files are anyone's files (issue 38): what sits where a trace has its metadata or an
index may be a FIFO, a directory or a huge file. Every reader (report, report --json, convert,
sclat-lami) answers without blocking, with bounded memory, and names the file that is wrong.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import time

from conftest import ROOT, SCLAT

FIXTURE = os.path.join(ROOT, "tests", "fixtures", "sclat-trace")
LAMI = os.path.join(ROOT, "tracer-plugins", "tracecompass", "sclat-lami")
STREAMS = "ust/uid/0/64-bit"
INDEX = STREAMS + "/index/sclat_1.idx"


def readers(trace, out):
    """(label, command line) of every reader of trace (convert writes to out)."""
    return [("report", [SCLAT, "report", trace]), ("json", [SCLAT, "report", trace, "--json"]),
            ("convert", [SCLAT, "convert", trace, "-o", out]), ("lami", [LAMI, trace])]


# Runs argv[2:] from a small process of its own, and writes its peak RSS (KiB) to argv[1]. A
# process started by the test's own (vfork, then exec) would inherit the test process's peak,
# which after other tests is hundreds of MiB: the kernel keeps it across exec.
MEASURED = r"""
import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
_, status, usage = os.wait4(pid, 0)
with open(sys.argv[1], "w") as f:
    f.write(str(usage.ru_maxrss))
sys.exit(os.waitstatus_to_exitcode(status) & 0xff if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))
"""


def run(cmd, tmp_path):
    """cmd run to its end (60 s at most: before the fix a FIFO blocked it forever); the
    CompletedProcess and its peak RSS in KiB."""
    rss = tmp_path / "rss"
    with open(tmp_path / "stdout", "w+") as out, open(tmp_path / "stderr", "w+") as err:
        p = subprocess.Popen([sys.executable, "-c", MEASURED, str(rss), *cmd], stdout=out,
                             stderr=err, start_new_session=True)
        try:
            p.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)  # the command too: the group is theirs alone
            p.wait()
            raise AssertionError("%s blocked for 60 s" % " ".join(cmd))
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(cmd, p.returncode, out.read(), err.read()), \
            int(rss.read_text())


def copy_with(tmp_path, rel, kind):
    """A copy of the fixture whose file rel is replaced by a FIFO, a directory or a socket."""
    trace = tmp_path / ("trace-" + kind)
    shutil.copytree(FIXTURE, trace)
    path = trace / rel
    path.unlink()
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "dir":
        path.mkdir()
    else:
        # Bound where its path is short enough for AF_UNIX, then moved into place.
        import socket
        import tempfile
        short = os.path.join(tempfile.mkdtemp(prefix="sclat-"), "s")
        s = socket.socket(socket.AF_UNIX)
        s.bind(short)
        s.close()
        os.rename(short, path)
        os.rmdir(os.path.dirname(short))
    return str(trace)


def test_an_index_that_is_no_regular_file_is_named_and_not_used(tmp_path):
    good = {label: run(cmd, tmp_path)[0].stdout
            for label, cmd in readers(FIXTURE, None) if label != "convert"}
    for kind, what in (("fifo", "a FIFO"), ("dir", "a directory"), ("sock", "a socket")):
        trace = copy_with(tmp_path, INDEX, kind)
        warning = "sclat: %s/%s: not a regular file (%s): read without the index\n" % (
            trace, INDEX, what)
        for label, cmd in readers(trace, str(tmp_path / ("kernel-" + kind))):
            r, _ = run(cmd, tmp_path)
            assert r.returncode == 0, (cmd, r.stderr)
            assert r.stderr.startswith(warning), (cmd, r.stderr)
            if label == "convert":
                assert os.path.exists(os.path.join(cmd[-1], "kernel", "metadata"))
            elif label == "lami":
                assert json.loads(r.stdout) == json.loads(good[label])
            else:
                assert r.stdout == good[label], cmd


def test_metadata_that_is_no_regular_file_is_an_error_naming_it(tmp_path):
    for kind, what in (("fifo", "a FIFO"), ("sock", "a socket")):
        trace = copy_with(tmp_path, STREAMS + "/metadata", kind)
        out = str(tmp_path / ("kernel-" + kind))
        for label, cmd in readers(trace, out):
            r, _ = run(cmd, tmp_path)
            assert r.returncode == 1, (cmd, r.stderr)
            said = r.stderr if cmd[0] == SCLAT else json.loads(r.stdout)["error-message"]
            assert "cannot read %s/%s/metadata: not a regular file (%s)" % (
                trace, STREAMS, what) in said, (cmd, said)
            assert not os.path.exists(out)


def test_a_huge_index_is_refused_unread(tmp_path):
    """An index of 18 GiB (sparse, after a true header) for a stream of 4 KiB: before, every
    entry was read and kept before any was checked (killed for memory); now its size alone
    refuses it, and the readers read the stream without it, in little memory."""
    trace = tmp_path / "trace"
    shutil.copytree(FIXTURE, trace)
    with open(trace / INDEX, "r+b") as f:
        f.truncate(16 + 72 * 2**28)
    warning = ("sclat: %s/%s: more entries than its stream has room for packets: read without "
               "the index\n" % (trace, INDEX))
    for label, cmd in readers(str(trace), str(tmp_path / "kernel")):
        r, rss = run(cmd, tmp_path)
        assert r.returncode == 0, (cmd, r.stderr)
        assert r.stderr.startswith(warning), (cmd, r.stderr)
        assert rss < 200 * 1024, (cmd, rss)


# A record killed in its first moments (issue 38 item 12): the session it left is ended by the
# next sclat status, which must not say "its trace is in DIR" of a directory without a trace.

def test_status_says_a_record_killed_at_once_left_an_empty_trace(lttng_sessiond, tmp_path):
    """sclat is run in slices of a millisecond, stopped between them, until it has claimed
    its session (its owner record, written just before it asks for the session) and killed
    there: its session is made, not yet started, whatever the machine's speed. No LTTng
    command runs while it is stopped: the session daemon may be waiting on it."""
    from conftest import process_state, session_names, wait_until
    env = dict(os.environ, SCLAT_RUN_DIR=str(tmp_path / "run"))
    said = {}

    def stopped(pid):
        return process_state(pid) in ("T", "t")

    for attempt in range(8):
        trace, name = tmp_path / ("trace%d" % attempt), "files-early-%d-%d" % (os.getpid(),
                                                                              attempt)
        # The shell stops itself before it becomes sclat.
        p = subprocess.Popen(["/bin/sh", "-c", 'kill -STOP $$; exec "$@"', "sh", SCLAT,
                              "record", "-o", str(trace), "-n", name, "--", "sleep", "10"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        record = "/var/run/lttng/sclat/%d" % p.pid
        slice_s = 0.001 / 2 ** min(attempt, 4)
        try:
            assert wait_until(lambda: stopped(p.pid), timeout=10, step=0.001)
            deadline = time.monotonic() + 60
            while not os.path.exists(record) and time.monotonic() < deadline:
                os.kill(p.pid, signal.SIGCONT)
                time.sleep(slice_s)
                os.kill(p.pid, signal.SIGSTOP)
                assert wait_until(lambda: stopped(p.pid), timeout=10, step=0.0005)
            assert os.path.exists(record), "no owner record after 60 s"
        finally:
            p.kill()
            p.wait()
        r = subprocess.run([SCLAT, "status"], capture_output=True, text=True, env=env,
                           timeout=60)
        lines = [x for x in r.stderr.splitlines() if "destroyed session \"%s\"" % name in x]
        if not lines:
            # Killed before it asked for its session: nothing was left.
            assert name not in session_names(), r.stderr
            said["before"] = attempt
            continue
        line = lines[0]
        recorded = any(f == "metadata" and os.path.getsize(os.path.join(d, f))
                       for d, _, fs in os.walk(trace) for f in fs)
        prefix = 'sclat: destroyed session "%s", left by sclat %d, which is gone; its ' % (
            name, p.pid)
        if recorded:
            # Past the start in one slice: the next attempt takes thinner slices.
            assert line == prefix + "trace is in %s" % trace, line
            said.setdefault("recorded", line)
        else:
            assert line == prefix + ("trace is empty (killed before it recorded: no metadata "
                                     "in %s)" % trace), line
            said["empty"] = line
            break
    assert "empty" in said, "never killed before it recorded: %s" % said
