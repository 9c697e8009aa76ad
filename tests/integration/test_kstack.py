# SPDX-License-Identifier: GPL-2.0-only
"""An outlier's kernel stack is where that call waited longest, and is empty when the call
never left its CPU: never the stack of an earlier call of its thread, nor another task's.

tests/workloads/blocks_then_runs.c makes, round after round, a read of a pipe that sleeps
20 ms, then 50 preads of /dev/zero on the same thread, each several microseconds on the CPU
and never asleep: all of them outliers under a static threshold of 1 us, with no burst guard.
It runs once under `sclat watch --json`, once under `sclat record`.

The trace is read by its string fields' lengths (conftest's field_value): babeltrace2 2.0.4
(Debian 12) leaves an empty string field holding the same field's value from an earlier event,
and a reader that takes the value alone sees on the preads the stack, the waker's name and
the target of an earlier outlier, of their thread or another. That is what a trace of
PostgreSQL showed when read that way: recvfrom, sendto and lseek outliers that never left
their CPU with anon_pipe_read or submit_bio_wait as their stack, while their
kernel_stack_ips were empty.
"""
import json

import pytest

from conftest import Trace, json_lines, run_sclat, trace_outlier, workload

POLICY = "[global]\nbudget = 0\n[default]\nmode = static\ninitial = 1us\nfloor = 1us\n"
@pytest.fixture(scope="module")
def runs(root, lttng_daemon, tmp_path_factory):
    """[(what the workload knows, its outliers, the trace or None)]: watch's, then record's."""
    lttng_daemon.start()
    tmp = tmp_path_factory.mktemp("kstack")
    policy = tmp / "policy.ini"
    policy.write_text(POLICY)
    runs = []
    for how in ("watch", "record"):
        facts = tmp / ("%s-facts" % how)
        cmd = [workload("blocks_then_runs"), "--report", str(facts)]
        if how == "watch":
            r = run_sclat("watch", "--json", "--policy", str(policy), "--", *cmd)
            assert r.returncode == 0, r.stderr
            outliers, trace = [e for e in json_lines(r.stdout) if "latency_ns" in e], None
        else:
            trace = tmp / "trace"
            r = run_sclat("record", "-o", str(trace), "--policy", str(policy), "--", *cmd)
            assert r.returncode == 0, r.stderr
            events = Trace(trace, keep={"sclat:syscall_outlier"}).events
            outliers = [trace_outlier(e["fields"]) for e in events]
        with open(facts) as f:
            runs.append((json.loads(f.readline()), outliers, trace))
    return runs


def has_frame(stack, function):
    """Whether a symbolized kernel stack has a frame in function, or in one named after it
    (6.18's anon_pipe_read for pipe_read)."""
    return any(function in frame.split("+")[0] for frame in stack)


def test_a_call_that_never_left_its_cpu_has_no_kernel_stack(runs):
    """Every outlier with no switch has no stack, no waker and no stretch off the CPU: all of
    its time was on the CPU. The preads right after each sleeping read are among them."""
    for facts, outliers, _ in runs:
        preads = [e for e in outliers
                  if e["syscall"] == "pread64" and e["tid"] == facts["reader_tid"]]
        assert len([e for e in preads if e["switches"] == 0]) >= \
            facts["rounds"] * facts["calls"] // 2, preads[:2]
        for e in outliers:
            if e["switches"]:
                continue
            assert e["kernel_stack"] == [], e
            assert e["waker"] is None, e
            assert e["off_cpu"] == [], e
            assert e["breakdown"]["on_cpu_ns"] == e["latency_ns"], e


def test_a_call_that_slept_has_its_own_stack_and_waker(runs):
    """Each read of the pipe slept in pipe_read until the writer's write: its stack is there,
    and its waker is the writer."""
    for facts, outliers, _ in runs:
        reads = [e for e in outliers if e["syscall"] == "read" and
                 e["target"] == "pipe:[%d]" % facts["pipe_ino"]]
        assert len(reads) == facts["rounds"], reads
        for e in reads:
            assert e["tid"] == facts["reader_tid"], e
            assert e["switches"] >= 1 and e["breakdown"]["sleep_ns"] > 0, e
            assert has_frame(e["kernel_stack"], "pipe_read"), e["kernel_stack"]
            assert e["waker"] and e["waker"]["tid"] == facts["writer_tid"], e


def test_the_trace_has_an_address_per_frame(runs):
    """What the trace holds of each stack, its frames and their addresses, agree: a stack
    read where there is no address is a reader's, not the trace's."""
    _, outliers, _ = runs[1]
    for e in outliers:
        assert len(e["kernel_stack_ips"]) == len(e["kernel_stack"]), e


def test_report_reads_no_borrowed_stack_from_the_trace(runs):
    """sclat report, which reads the trace with babeltrace2 too, shows each outlier with its
    own stack: none for the preads that never left their CPU, pipe_read for the reads."""
    facts, _, trace = runs[1]
    for syscall in ("pread64", "read"):
        r = run_sclat("report", str(trace), "--syscall", syscall, "--comm", "blocks_then_run",
                      "--json", "--top", "1000")
        assert r.returncode == 0, r.stderr
        top = json.loads(r.stdout)["top"]
        if syscall == "pread64":
            assert len(top) >= facts["rounds"] * facts["calls"], len(top)
            for e in top:
                assert e["switches"] or (e["kernel_stack"] == [] and e["waker"] is None), e
        else:
            reads = [e for e in top if e["target"] == "pipe:[%d]" % facts["pipe_ino"]]
            assert len(reads) == facts["rounds"], top
            assert all(has_frame(e["kernel_stack"], "pipe_read") for e in reads), reads
