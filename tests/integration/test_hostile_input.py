# SPDX-License-Identifier: GPL-2.0-only
"""Input sclat must not trust (issue 13): names any local user chooses, policy files that are
not what they seem, a control client that trickles, traces that lie.

Each test runs what a user runs and checks what the user sees: the terminal is never driven
by a name, sclat never hangs, and a bad input gets one line that names it.
"""
import json
import os
import re
import signal
import subprocess
import time

from conftest import (ROOT, SCLAT, S, run_sclat, synthetic_outlier, wait_until,
                      write_synthetic_trace)

PLUGIN_DIR = os.path.join(ROOT, ".output", "plugins")
PYTHON = "/usr/bin/python3"

# Set the terminal's title, ring its bell, and forge a line of output: 14 bytes, a valid comm.
HOSTILE_COMM = b"\x1b]0;pwn\x07\nroot 1"
HOSTILE_SHOWN = b"\\x1b]0;pwn\\x07\\x0aroot 1"


def control_bytes(out):
    """The bytes of out that a terminal acts on, newlines aside."""
    return sorted({b for b in out if (b < 0x20 and b != 0x0a) or b == 0x7f} |
                  ({0x9b} if b"\xc2\x9b" in out else set()))


def renamed_sleeper(comm, sleep_s=0.3):
    """A command that names its thread comm (bytes) and then sleeps: one slow syscall."""
    return [PYTHON, "-c", "import ctypes, time; ctypes.CDLL(None).prctl(15, %r, 0, 0, 0); "
            "time.sleep(%s)" % (comm, sleep_s)]


def watch(*args):
    r = subprocess.run([SCLAT, "watch", *args], capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return r.stdout


# Terminal injection: comm is any user's choice, and a trace is anyone's file.


def test_watch_escapes_a_comm_that_would_drive_the_terminal(root):
    out = watch("--threshold", "200ms", "--", *renamed_sleeper(HOSTILE_COMM))
    assert control_bytes(out) == [], out
    lines = out.splitlines()
    assert lines[0].split()[:2] == [b"TIME", b"COMM"]
    slow = [line for line in lines[1:] if b"clock_nanosleep" in line]
    assert len(slow) == 1 and slow[0].split(b" ", 1)[1].startswith(HOSTILE_SHOWN + b" "), out
    # No forged line: every line is the header or an outlier, which starts with its time.
    assert all(re.match(rb"\d\d:\d\d:\d\d\.\d{3} ", line) for line in lines[1:]), out


def test_watch_json_keeps_utf8_and_escapes_only_invalid_bytes(root):
    comm = "café".encode() + b"\xff\x1b"
    out = watch("--json", "--threshold", "200ms", "--", *renamed_sleeper(comm))
    line = next(line for line in out.splitlines() if b'"clock_nanosleep"' in line)
    assert b'"comm":"caf\xc3\xa9\\u00ff\\u001b"' in line, line
    assert json.loads(line)["comm"] == "café\u00ff\x1b"


def test_status_text_escapes_the_policy_path(root, tmp_path):
    policy = tmp_path / "quiet\x1b[2J.ini"
    policy.write_text("[default]\nmode = off\n")
    env = dict(os.environ, SCLAT_RUN_DIR=str(tmp_path / "run"))
    proc = subprocess.Popen([SCLAT, "watch", "--policy", str(policy), "--duration", "60s"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    try:
        sock = tmp_path / "run" / ("%d.sock" % proc.pid)
        assert wait_until(lambda: sock.exists() or proc.poll() is not None, timeout=20)
        status = lambda: subprocess.run([SCLAT, "status", "--pid", str(proc.pid)],
                                        capture_output=True, env=env, timeout=30)
        # Until the controller's first pass, there is no status yet.
        r = wait_until(lambda: (lambda r: r if r.returncode == 0 else None)(status()),
                       timeout=10)
        assert r, status().stderr
        first = r.stdout.splitlines()[0]
        assert first.endswith(b"policy " + str(policy).encode().replace(b"\x1b", b"\\x1b")), \
            first
        assert control_bytes(r.stdout) == []
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=15)


HOSTILE_NAME = "\x1b[2J\x9bread"


def hostile_names_trace(tmp_path):
    path = str(tmp_path / "trace")
    write_synthetic_trace(path, [
        synthetic_outlier(2 * S + 3000, HOSTILE_NAME, 101, 0, 2 * S, 2000,
                          comm="\x1b]0;x\x07\nfake"),
        synthetic_outlier(3 * S + 3000, "read", 102, 1, 3 * S, 1000, comm="café"),
    ])
    return path


def test_report_escapes_names_from_the_trace(tmp_path):
    trace = hostile_names_trace(tmp_path)
    for by in ("syscall", "process", "thread"):
        r = subprocess.run([SCLAT, "report", trace, "--by", by], capture_output=True,
                           timeout=60)
        assert r.returncode == 0, r.stderr
        assert control_bytes(r.stdout) == [], (by, r.stdout)
        assert b"\\x1b]0;x\\x07\\x0afake" in r.stdout, r.stdout
        # Whole in the syscall column and histogram title, cut to 16 columns in the top list.
        assert b"\\x1b[2J\\xc2\\x9br " in r.stdout, r.stdout
        assert (b"\\x1b[2J\\xc2\\x9bread " in r.stdout) is (by == "syscall"), r.stdout
        assert "café".encode() in r.stdout
    # The babeltrace2 sink is the same code: the same text.
    r = subprocess.run(["babeltrace2", "--plugin-path=" + PLUGIN_DIR, trace, "-c",
                        "sink.sclat.report"], capture_output=True, timeout=60)
    assert r.returncode == 0 and control_bytes(r.stdout) == [], r.stdout


def test_report_json_is_utf8_with_the_names_intact(tmp_path):
    trace = hostile_names_trace(tmp_path)
    r = subprocess.run([SCLAT, "report", trace, "--json"], capture_output=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert control_bytes(r.stdout) == []
    assert '"comm":"café"'.encode() in r.stdout     # not caf\u00c3\u00a9
    rep = json.loads(r.stdout.decode("utf-8"))
    assert {t["comm"] for t in rep["top"]} == {"\x1b]0;x\x07\nfake", "café"}
    assert {g["syscall"] for g in rep["rows"]} == {HOSTILE_NAME, "read"}


# Traces that lie: every field is untrusted.


def limit_memory():
    """At most 2 GiB of address space: a wild allocation fails instead of swapping."""
    import resource
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def test_convert_refuses_impossible_cpus_threads_and_names(tmp_path):
    cases = [({"cpu": 0xffffffff}, "cpu=4294967295 is not a CPU number"),
             ({"cpu": 200000000}, "cpu=200000000 is not a CPU number"),
             ({"tid": 0}, "tid=0 is not a thread id"),
             ({"tid": -5}, "tid=-5 is not a thread id"),
             ({"syscall": "read; rm -rf"}, 'syscall="read; rm -rf" is not a syscall name'),
             ({"syscall": ""}, 'syscall="" is not a syscall name')]
    for i, (fields, msg) in enumerate(cases):
        trace, out = str(tmp_path / ("t%d" % i)), str(tmp_path / ("k%d" % i))
        events = [synthetic_outlier(2 * S, "read", 100, 0, S, 1000),
                  synthetic_outlier(3 * S, "read", 101, 1, 2 * S, 1000)]
        events[1][1].update(fields)
        write_synthetic_trace(trace, events)
        r = subprocess.run([SCLAT, "convert", trace, "-o", out], capture_output=True,
                           text=True, timeout=60, preexec_fn=limit_memory)
        assert r.returncode == 1, (fields, r.returncode, r.stderr)
        lines = r.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("sclat: %s: " % trace), r.stderr
        assert msg in lines[0], (msg, r.stderr)
        assert not os.path.exists(out)


# Policy files: a regular text file, or an error that names it and the line.


def not_regular_files(tmp_path):
    fifo = str(tmp_path / "policy.fifo")
    os.mkfifo(fifo)
    return [("/dev/zero", "a character device"), (str(tmp_path), "a directory"),
            (fifo, "a FIFO")]


def test_policy_check_and_watch_refuse_what_is_not_a_regular_file(tmp_path):
    for path, kind in not_regular_files(tmp_path):
        for args in (["policy", "check", path], ["watch", "--policy", path, "--duration", "1s"]):
            r = run_sclat(*args, timeout=20)
            assert r.returncode == 1, (args, r.stderr)
            assert r.stderr == "sclat: %s: not a regular file (%s)\n" % (path, kind), r.stderr


def test_policy_text_that_would_be_misread_is_an_error_naming_its_line(tmp_path):
    cases = [(b"\0[global]\n", "1: a NUL byte (not a text file?)"),
             (b"[global]\ninterval = 2s\0\n", "2: a NUL byte (not a text file?)"),
             (b"[default]\nmode: off\n", '2: "mode: off": write key = value'),
             (b"[global] junk\ninterval = 2s\n", "1: text after the section header [global]")]
    for text, error in cases:
        path = tmp_path / "bad.ini"
        path.write_bytes(text)
        r = run_sclat("policy", "check", str(path), timeout=20)
        assert r.returncode == 1 and r.stderr == "sclat: %s:%s\n" % (path, error), r.stderr
    # A byte order mark, as some editors write, is accepted.
    path.write_bytes(b"\xef\xbb\xbf[default]\nmode = off\n")
    r = run_sclat("policy", "check", str(path), timeout=20)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[2].split()[:2] == ["(default)", "off"], r.stdout


def test_policy_set_refuses_more_pairs_than_a_request_holds(tmp_path):
    env = dict(os.environ, SCLAT_RUN_DIR=str(tmp_path))     # no tracer to reach
    pairs = ["budget=%d" % i for i in range(65)]
    r = run_sclat("policy", "set", *pairs, env=env)
    assert r.returncode == 2, r.stderr
    assert r.stderr == "sclat policy set: too many settings at once (at most 64)\n"
    r = run_sclat("policy", "set", *pairs[:64], env=env)
    assert r.returncode == 1 and "no tracer is running" in r.stderr, r.stderr


QUIET_POLICY = "[global]\ninterval = 300ms\n[default]\nmode = off\n"


def test_policy_load_of_a_non_file_leaves_the_tracer_answering(root, tmp_path):
    """`policy load /dev/zero` used to spin the control thread forever: later requests timed
    out, SIGHUP did nothing, and Ctrl-C hung."""
    from test_policy_runtime import Tracer
    policy = tmp_path / "quiet.ini"
    policy.write_text(QUIET_POLICY)
    t = Tracer(str(policy), dict(os.environ, SCLAT_RUN_DIR=str(tmp_path / "run")))
    try:
        for path, kind in not_regular_files(tmp_path / "run"):
            r = t.ctl("policy", "load", path)
            assert r.returncode == 1, r.stderr
            assert "%s: not a regular file (%s)" % (path, kind) in r.stderr, r.stderr
            assert "the running policy stays" in r.stderr, r.stderr
        r = t.ctl("policy", "show")
        assert r.returncode == 0 and "interval = 300ms" in r.stdout, r.stderr
        r = t.ctl("status")
        assert r.returncode == 0, r.stderr
        t.proc.send_signal(signal.SIGHUP)
        assert wait_until(lambda: any("sclat: SIGHUP: policy loaded from" in line
                                      for line in t.stderr), timeout=10), t.stderr
        t.proc.send_signal(signal.SIGINT)
        t.proc.wait(timeout=10)
    finally:
        t.stop()


# The control socket: one client cannot hold up the others, or SIGHUP.


def test_a_trickling_control_client_holds_up_nobody(root, tmp_path):
    """A client that sends a byte a second used to block every other client and SIGHUP for
    as long as it trickled (each byte restarted the 5 s receive timeout)."""
    import socket
    import threading
    from test_policy_runtime import Tracer
    policy = tmp_path / "quiet.ini"
    policy.write_text(QUIET_POLICY)
    t = Tracer(str(policy), dict(os.environ, SCLAT_RUN_DIR=str(tmp_path / "run")))
    slow = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    done = threading.Event()

    def trickle():
        for byte in b"status json\n":
            if done.wait(1.0):
                return
            try:
                slow.send(bytes([byte]))
            except OSError:
                return

    try:
        assert wait_until(lambda: t.ctl("status").returncode == 0, timeout=10)
        slow.connect(t.socket)
        connected = time.monotonic()
        threading.Thread(target=trickle, daemon=True).start()
        time.sleep(1.5)
        for _ in range(3):
            start = time.monotonic()
            r = t.ctl("status")
            assert r.returncode == 0, r.stderr
            assert time.monotonic() - start < 3, "status waited for the trickling client"
        t.proc.send_signal(signal.SIGHUP)
        assert wait_until(lambda: any("sclat: SIGHUP:" in line for line in t.stderr),
                          timeout=3), "SIGHUP waited for the trickling client"
        # Its own deadline (5 s from connecting, all of the request) cuts it off unanswered:
        # an end of file, or a reset when a byte it sent was still unread at the close.
        slow.settimeout(15)
        try:
            answer = slow.recv(100)
        except ConnectionResetError:
            answer = b""
        assert answer == b""
        assert 4 < time.monotonic() - connected < 8
    finally:
        done.set()
        slow.close()
        t.stop()


def test_convert_refuses_an_exit_at_the_end_of_time(tmp_path):
    """An exit at the last value of a clock whose origin is not the epoch (2^64 - 1, which no
    reader can place) made the conversion loop forever (found by fuzz_kernelize): now it is
    a clear error."""
    trace, out = str(tmp_path / "trace"), str(tmp_path / "kernel")
    write_synthetic_trace(trace, [synthetic_outlier(S, "read", 100, 0, S // 2, 1000),
                                  synthetic_outlier(2 * S, "read", 101, 1, 2**64 - 5001, 5000)],
                          epoch_origin=False)
    for args in (["convert", trace, "-o", out], ["report", trace]):
        r = run_sclat(*args, timeout=30)
        assert r.returncode == 1 and r.stderr.count("\n") == 1, r.stderr
        assert "times out of range" in r.stderr, r.stderr


# A corrupt index: babeltrace2 2.0 trusts one it can parse, and aborts on one that points past
# its stream. sclat's readers check it, and read the streams without it when it is wrong.

FIXTURE = os.path.join(ROOT, "tests", "fixtures", "sclat-trace")
LAMI = os.path.join(ROOT, "tracer-plugins", "tracecompass", "sclat-lami")
INDEX = "ust/uid/0/64-bit/index/sclat_0.idx"


def corrupt_index(tmp_path, name, field, value):
    """A copy of the fixture with one 64-bit field of sclat_0.idx's first entry set."""
    import shutil
    import struct
    trace = tmp_path / name
    shutil.copytree(FIXTURE, trace)
    idx = bytearray((trace / INDEX).read_bytes())
    struct.pack_into(">Q", idx, 16 + 8 * field, value)
    (trace / INDEX).write_bytes(bytes(idx))
    return str(trace)


def test_readers_do_not_trust_a_corrupt_index(tmp_path):
    good = subprocess.run([SCLAT, "report", FIXTURE, "--json"], capture_output=True, text=True,
                          timeout=60)
    good_lami = subprocess.run([LAMI, FIXTURE], capture_output=True, text=True, timeout=60)
    # offset past the stream (babeltrace2 aborts), then a packet size larger than the stream.
    for name, field, value, why in (("offset", 0, 10**9, "packet 0 is not where"),
                                    ("size", 1, 2**40, "packet 0 ends beyond")):
        trace = corrupt_index(tmp_path, name, field, value)
        warning = "sclat: %s/%s: %s" % (trace, INDEX, why)
        r = subprocess.run([SCLAT, "report", trace, "--json"], capture_output=True, text=True,
                           timeout=60)
        assert r.returncode == 0, r.stderr
        assert r.stdout == good.stdout
        assert r.stderr.startswith(warning) and r.stderr.endswith(": read without the index\n")
        assert r.stderr.count("\n") == 1
        out = str(tmp_path / (name + "-kernel"))
        r = subprocess.run([SCLAT, "convert", trace, "-o", out], capture_output=True,
                           text=True, timeout=60)
        assert r.returncode == 0 and r.stderr.startswith(warning), r.stderr
        r = subprocess.run([LAMI, trace], capture_output=True, text=True, timeout=60)
        assert r.returncode == 0 and r.stderr.startswith(warning), r.stderr
        assert json.loads(r.stdout) == json.loads(good_lami.stdout)
    assert not [d for d in os.listdir("/tmp") if d.startswith("sclat-noindex.")]


def test_summary_query_reads_without_a_corrupt_index(tmp_path):
    import bt2
    trace = corrupt_index(tmp_path, "offset", 0, 10**9)
    plugin = next(p for p in bt2.find_plugins_in_path(PLUGIN_DIR) if p.name == "sclat")
    dirs = sorted({d for d, _, files in os.walk(trace) if "metadata" in files})
    res = bt2.QueryExecutor(plugin.sink_component_classes["report"], "sclat.summary",
                            {"inputs": dirs}).query()
    assert int(res["outliers"]) == 35
    assert [str(w) for w in res["warnings"]] == [
        "%s/index/sclat_0.idx: packet 0 is not where the previous one ends: read without "
        "the index" % dirs[0]]


def test_control_lines_with_nul_bytes_or_no_end_are_survived(root, tmp_path):
    """Whatever a client sends, the tracer answers the next one."""
    import socket
    from test_policy_runtime import Tracer
    policy = tmp_path / "quiet.ini"
    policy.write_text(QUIET_POLICY)
    t = Tracer(str(policy), dict(os.environ, SCLAT_RUN_DIR=str(tmp_path / "run")))
    try:
        assert wait_until(lambda: t.ctl("status").returncode == 0, timeout=10)
        for junk in (b"\0status\n", b"status\0json\n", b"\n", b"x" * 5000 + b"\n",
                     b"policy load \0/etc\n", b"\xff\xfe\n"):
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.settimeout(10)
                s.connect(t.socket)
                try:
                    s.sendall(junk)
                    answer = s.recv(4096)
                except OSError:     # cut off while sending more than a line: fine
                    answer = b""
                assert answer == b"" or answer.startswith((b"error: ", b"ok ")), answer
            r = t.ctl("status")
            assert r.returncode == 0, (junk, r.stderr)
        assert t.proc.poll() is None
    finally:
        t.stop()
