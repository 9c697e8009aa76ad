# SPDX-License-Identifier: GPL-2.0-only
"""Every outlier explains itself: where its time went, who woke it, where in the kernel it
waited and on what, in `sclat watch --json` and in the trace of `sclat record`.

tests/workloads/waits.c makes syscalls that are slow for a known reason and writes down
what it knows (tids, the pipe's inode, the file, the ports); each scenario runs once under
each command, and both outputs must tell the same story.
"""
import json
import os
import subprocess

import pytest

from conftest import SCLAT, Trace, json_lines, run_sclat, wait_until, workload

BREAKDOWN = ("on_cpu_ns", "runqueue_ns", "sleep_ns", "io_wait_ns")


def facts_of(path):
    with open(path) as f:
        return json.loads(f.readline())


def trace_outlier(fields):
    """A sclat:syscall_outlier's fields under the names of watch's JSON."""
    f = dict(fields)
    f["breakdown"] = {k: f[k] for k in BREAKDOWN}
    f["waker"] = ({"pid": f["waker_pid"], "tid": f["waker_tid"], "comm": f["waker_comm"]}
                  if f["waker_comm"] else None)
    f["target"] = f["target"] or None
    f["kernel_stack"] = f["kernel_stack"].split(";") if f["kernel_stack"] else []
    return f


def run_both(tmp_path, scenario, *args, threshold="5ms"):
    """`waits SCENARIO ARGS` under `sclat watch --json` then under `sclat record`:
    [(what the workload knows, its outliers)] for the JSON, then for the trace."""
    runs = []
    for how in ("watch", "record"):
        facts = tmp_path / ("%s-facts" % how)
        cmd = [workload("waits"), scenario, *args, "--report", str(facts)]
        if how == "watch":
            r = run_sclat("watch", "--json", "--threshold", threshold, "--", *cmd)
            assert r.returncode == 0, r.stderr
            outliers = [e for e in json_lines(r.stdout) if "latency_ns" in e]
        else:
            out = tmp_path / "trace"
            r = run_sclat("record", "-o", str(out), "--threshold", threshold, "--", *cmd)
            assert r.returncode == 0, r.stderr
            trace = Trace(out, keep={"sclat:syscall_outlier"})
            outliers = [trace_outlier(e["fields"]) for e in trace.events]
            # Frames and raw addresses, one for one: a trace can be symbolized elsewhere.
            for f in outliers:
                assert len(f["kernel_stack_ips"]) == len(f["kernel_stack"]), f
                assert all(ip for ip in f["kernel_stack_ips"]), f
        runs.append((facts_of(facts), outliers))
    return runs


def the_call(outliers, syscall, tid):
    calls = [e for e in outliers if e["syscall"] == syscall and e["tid"] == tid]
    assert len(calls) == 1, (syscall, tid, outliers)
    return calls[0]


def parts_add_up(e):
    """The four parts of the breakdown add up to the latency, within 1 %."""
    total = sum(e["breakdown"][k] for k in BREAKDOWN)
    return abs(total - e["latency_ns"]) <= e["latency_ns"] / 100


def has_frame(stack, function):
    """Whether a symbolized kernel stack ("function+0xoff [module]") has a frame in function,
    or in one named after it (6.18's anon_pipe_read for pipe_read)."""
    return any(function in frame.split("+")[0] for frame in stack)


@pytest.fixture(scope="module")
def pipe_runs(root, lttng_daemon, tmp_path_factory):
    lttng_daemon.start()
    return run_both(tmp_path_factory.mktemp("pipe"), "pipe")


def test_pipe_reader_sleeps_and_names_its_writer_and_pipe(pipe_runs):
    """A read of a pipe that a writer thread fills 20 ms later: the read slept for nearly
    all of it, on the pipe's real inode, in pipe_read, and the writer woke it."""
    for facts, outliers in pipe_runs:
        e = the_call(outliers, "read", facts["reader_tid"])
        assert e["latency_ns"] >= 15_000_000, e
        assert e["breakdown"]["sleep_ns"] >= 0.95 * e["latency_ns"], e
        assert parts_add_up(e), e
        assert e["switches"] >= 1, e
        assert e["target"] == "pipe:[%d]" % facts["pipe_ino"], e
        assert e["waker"] == {"pid": e["pid"], "tid": facts["writer_tid"], "comm": "writer"}, e
        assert has_frame(e["kernel_stack"], "pipe_read"), e["kernel_stack"]


@pytest.fixture(scope="module")
def fsync_runs(root, lttng_daemon, tmp_path_factory):
    lttng_daemon.start()
    tmp = tmp_path_factory.mktemp("fsync")
    # /var/tmp is on disk where /tmp may be a tmpfs, whose fsync waits for nothing.
    data = os.path.join("/var/tmp", "sclat-test-fsync-%d" % os.getpid())
    try:
        return run_both(tmp, "fsync", "--file", data, threshold="1ms")
    finally:
        if os.path.exists(data):
            os.unlink(data)


def test_fsync_waits_on_io_for_its_file(fsync_runs):
    """fsync of 4 MiB just written under /var/tmp: its target is the file's path and part
    of its time is I/O wait (D state)."""
    for facts, outliers in fsync_runs:
        e = the_call(outliers, "fsync", facts["tid"])
        assert e["target"] == facts["file"], e
        assert e["breakdown"]["io_wait_ns"] > 0, e
        assert parts_add_up(e), e


@pytest.fixture(scope="module")
def preempt_runs(root, lttng_daemon, tmp_path_factory):
    lttng_daemon.start()
    return run_both(tmp_path_factory.mktemp("preempt"), "preempt")


def test_preempted_call_waits_on_the_runqueue(preempt_runs):
    """getrandom() of 16 MiB while a thread spins on its CPU: the calls were preempted, so
    part of their time is runqueue wait, switches are counted, and no waker ended it."""
    for facts, outliers in preempt_runs:
        calls = [e for e in outliers if e["syscall"] == "getrandom" and e["tid"] == facts["tid"]]
        assert len(calls) == 3, outliers
        for e in calls:
            assert parts_add_up(e), e
            assert e["breakdown"]["sleep_ns"] == e["breakdown"]["io_wait_ns"] == 0, e
            assert e["target"] is None, e
        # The hog gets its turn within the scheduler's slice: not each call need be cut.
        assert any(e["breakdown"]["runqueue_ns"] > 0 and e["switches"] > 0 for e in calls)


@pytest.fixture(scope="module", params=["ipv4", "ipv6"])
def tcp_runs(request, root, lttng_daemon, tmp_path_factory):
    lttng_daemon.start()
    args = ["--ipv6"] if request.param == "ipv6" else []
    loopback = "[::1]" if request.param == "ipv6" else "127.0.0.1"
    return loopback, run_both(tmp_path_factory.mktemp("tcp"), "tcp", *args)


def test_tcp_read_names_both_ends(tcp_runs):
    """A client's read of an answer the server sends 20 ms late: its target is the TCP
    socket, local address and port first, then the server's."""
    loopback, runs = tcp_runs
    for facts, outliers in runs:
        e = the_call(outliers, "read", facts["tid"])
        assert e["target"] == "socket:TCP %s:%d->%s:%d" % (
            loopback, facts["client_port"], loopback, facts["server_port"]), e
        assert e["breakdown"]["sleep_ns"] >= 0.5 * e["latency_ns"], e
        assert parts_add_up(e), e


def test_explaining_cost_is_reported(root, lttng_daemon, tmp_path):
    """What explaining the outliers cost, in BPF and in userspace, is in sclat status while
    it runs, and in the trace's last sclat:overhead for all of them."""
    lttng_daemon.start()
    env = dict(os.environ, SCLAT_RUN_DIR=str(tmp_path))
    out = tmp_path / "trace"
    p = subprocess.Popen([SCLAT, "record", "-o", str(out), "--threshold", "5ms", "--", "sh",
                          "-c", "%s pipe --report %s && sleep 3" % (
                              workload("waits"), tmp_path / "facts")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        def explained():
            st = subprocess.run([SCLAT, "status", "--json", "--pid", str(p.pid)],
                                capture_output=True, text=True, env=env, timeout=30)
            if st.returncode:
                return None
            st = json.loads(st.stdout)
            return st if st["totals"]["outliers"] >= 1 else None
        st = wait_until(explained, timeout=20, step=0.2)
        assert st, "no outlier in sclat status"
        assert st["explain"]["bpf_ns_per_outlier"] > 0, st["explain"]
        assert st["explain"]["user_ns_per_outlier"] > 0, st["explain"]
        assert st["explain"]["bpf_ns"] >= st["explain"]["bpf_ns_per_outlier"], st["explain"]
    finally:
        r_out, r_err = p.communicate(timeout=60)
    assert p.returncode == 0, r_err
    trace = Trace(out, keep={"sclat:overhead", "sclat:syscall_outlier"})
    last = trace.named("sclat:overhead")[-1]["fields"]
    assert last["outliers"] == len(trace.named("sclat:syscall_outlier")) >= 1, last
    assert last["explain_bpf_ns"] > 0 and last["explain_user_ns"] > 0, last
