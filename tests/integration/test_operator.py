# SPDX-License-Identifier: GPL-2.0-only
"""What an operator of a running service meets (issue 34): folded stacks of real traces with
both stacks, one JSON schema for report and watch, partial policy files, messages that name
the input, a running service's whole tree, 32-bit tasks and process titles.
"""
import json
import os
import re
import shutil
import signal
import subprocess

import pytest

from conftest import Trace, run_sclat, workload


def record(tmp_path, name, *command, threshold="5ms"):
    """`sclat record` of command into tmp_path/name; the trace and its outliers' fields."""
    trace = str(tmp_path / name)
    r = run_sclat("record", "-o", trace, "--threshold", threshold, "--", *command, timeout=180)
    assert r.returncode == 0, r.stderr
    outs = [e["fields"] for e in Trace(trace, keep={"sclat:syscall_outlier"}).events]
    return trace, outs


def folded_weights(text):
    """{folded stack: weight} of --folded output, each line checked for its form."""
    lines = {}
    for line in text.splitlines():
        stack, _, weight = line.rpartition(" ")
        assert stack and weight.isdigit() and " " not in stack, line
        lines[stack] = lines.get(stack, 0) + int(weight)
    return lines


@pytest.fixture(scope="module")
def stack_traces(root, lttng_daemon, tmp_path_factory):
    """Traces with user and kernel stacks, of several sizes: one `dd conv=fsync`, a slow pipe
    read called from main() -> handle_request() -> slow_read(), and a shell running dd
    conv=fsync 20 times (every call past 100 us an outlier: hundreds of stacks)."""
    lttng_daemon.start()
    tmp = tmp_path_factory.mktemp("stacks")
    dd = shutil.which("dd")
    data = str(tmp / "data")
    loop = ("i=0; while [ $i -lt 20 ]; do %s if=/dev/zero of=%s bs=64k count=16 conv=fsync "
            "status=none; i=$((i+1)); done" % (dd, data))
    return [
        record(tmp, "dd", dd, "if=/dev/zero", "of=" + data, "bs=64k", "count=16", "conv=fsync",
               "status=none", threshold="100us"),
        record(tmp, "pipe", workload("waits"), "pipe", "--report", str(tmp / "facts")),
        record(tmp, "loop", "sh", "-c", loop, threshold="100us"),
    ]


def test_folded_stacks_of_real_traces_hold_every_outlier_with_its_user_frames(stack_traces):
    """--folded on real traces with both stacks, with every filter: it succeeds, its weights
    add up to the latencies of the outliers the filter keeps, and the outliers with a user
    stack have their user frames between comm and the syscall."""
    for trace, outs in stack_traces:
        assert any(o["user_stack"] for o in outs), (trace, outs)
        assert any(o["kernel_stack"] for o in outs), (trace, outs)
        first = min(outs, key=lambda o: o["entry_epoch_ns"])
        slow = max(outs, key=lambda o: o["latency_ns"])
        # Away from every entry (mid-way in the widest gap between two, or 1 ms before the
        # only one): the report reads an entry by the trace's clock, which may differ from
        # the entry_epoch_ns field by some ns.
        entries = sorted(o["entry_epoch_ns"] for o in outs)
        gaps = [(b - a, (a + b) // 2) for a, b in zip(entries, entries[1:])]
        middle = max(gaps)[1] if gaps else entries[0] - 1_000_000
        filters = [
            ([], lambda o: True),
            (["--syscall", slow["syscall"]], lambda o: o["syscall"] == slow["syscall"]),
            (["--comm", slow["comm"]], lambda o: o["comm"] == slow["comm"]),
            (["--pid", str(slow["pid"])], lambda o: o["pid"] == slow["pid"]),
            (["--tid", str(first["tid"])], lambda o: o["tid"] == first["tid"]),
            (["--min-latency", "%dns" % slow["latency_ns"]],
             lambda o: o["latency_ns"] >= slow["latency_ns"]),
            (["--begin", str(middle)], lambda o: o["entry_epoch_ns"] >= middle),
            (["--end", str(middle)], lambda o: o["entry_epoch_ns"] <= middle),
            (["--by", "stack", "--top", "3"], lambda o: True),
        ]
        for args, keep in filters:
            r = run_sclat("report", trace, *args, "--folded", "-")
            assert r.returncode == 0, (trace, args, r.stderr)
            lines = folded_weights(r.stdout)
            kept = [o for o in outs if keep(o)]
            assert sum(lines.values()) == sum(o["latency_ns"] for o in kept), (trace, args)
            for o in kept:
                if not o["user_stack"]:
                    continue
                # The innermost user frame's function right before the syscall.
                inner = o["user_stack"].split(";")[0].split("+")[0].split(" ")[0]
                assert any(s.startswith(o["comm"] + ";") and
                           (";%s;%s;" % (inner, o["syscall"]) in s or
                            s.endswith(";%s;%s" % (inner, o["syscall"])))
                           for s in lines), (trace, args, inner, o["syscall"], lines)


def key_paths(value, prefix=""):
    """The keys of a JSON value, nested ones as a.b, in order (a list's first element for
    all of its)."""
    if isinstance(value, dict):
        out = []
        for k, v in value.items():
            out.append(prefix + k)
            out += key_paths(v, prefix + k + ".")
        return out
    if isinstance(value, list) and value and isinstance(value[0], dict):
        return key_paths(value[0], prefix)
    return []


def test_report_json_top_has_the_keys_of_a_watch_json_line(root, pipe_trace, tmp_path):
    """One schema: the pipe read's outlier in `report --json`'s top has the keys of its
    `watch --json` line, key by key and in order (nested ones too), the report's "host" aside;
    the values they share agree."""
    trace, known, ev = pipe_trace
    r = run_sclat("watch", "--json", "--threshold", "5ms", "--", workload("waits"), "pipe",
                  "--report", str(tmp_path / "facts"))
    assert r.returncode == 0, r.stderr
    facts = json.loads((tmp_path / "facts").read_text().splitlines()[0])
    lines = [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")]
    watched = [l for l in lines if l.get("syscall") == "read" and l["tid"] == facts["reader_tid"]]
    assert len(watched) == 1, lines
    rep = json.loads(run_sclat("report", trace, "--json", "--syscall", "read", "--tid",
                               str(known["reader_tid"])).stdout)
    assert len(rep["top"]) == 1, rep
    top = rep["top"][0]
    assert [k for k in key_paths(top) if k != "host"] == key_paths(watched[0])
    # epoch_ns is the trace clock's reading of the entry in a report (README, "The trace"):
    # the field's own reading of the realtime clock's offset may differ by some ns.
    assert top["ts_ns"] == ev["entry_ts"]
    assert abs(top["epoch_ns"] - ev["entry_epoch_ns"]) < 1_000_000, (top, ev)
    assert (top["estimate_ns"], top["samples"], top["class"]) == \
        (ev["estimate_ns"], ev["samples"], ev["class"])
    assert top["errno"] is None and watched[0]["errno"] is None
    assert "entry_ts" not in top and "entry_epoch_ns" not in top


class Service:
    """tests/workloads/service: a main process and its workers, all forked before sclat
    starts; each worker sleeps 20 ms at a time, titled "service: worker I"."""

    def __init__(self, workers=2):
        self.proc = subprocess.Popen([workload("service"), str(workers)], stdout=subprocess.PIPE,
                                     text=True)
        self.info = json.loads(self.proc.stdout.readline())

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def test_watch_of_a_running_service_catches_its_whole_current_tree(root):
    """-p MAIN of a service whose workers (and a worker's child) were forked before sclat
    started: their outliers are reported, not only those of processes forked later."""
    svc = Service()
    try:
        r = run_sclat("watch", "--json", "--threshold", "5ms", "--duration", "2s",
                      "-p", str(svc.info["pid"]), timeout=60)
        assert r.returncode == 0, r.stderr
        outs = [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")]
        sleepers = {o["pid"] for o in outs if o["syscall"] == "clock_nanosleep"}
        assert sleepers == set(svc.info["workers"]) | {svc.info["grandchild"]}, outs
        assert {o["comm"] for o in outs} == {"service"}, outs
    finally:
        svc.stop()


@pytest.mark.parametrize("command", [["nanosleep32"]])
def test_a_32_bit_call_is_counted_apart_not_named_from_the_64_bit_table(root, command):
    """Three nanosleeps of a 32-bit program (ia32 number 162) are outliers "compat32",
    number 511, of their own threshold and counts; never x86_64's 162, sync."""
    r = run_sclat("watch", "--json", "--summary", "--threshold", "5ms", "--",
                  workload(command[0]), *command[1:], timeout=60)
    assert r.returncode == 0, r.stderr
    lines = [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")]
    outs = [l for l in lines if "syscall" in l]
    # (The 32-bit program's execve, a 64-bit call, may be slow too: it is execve.)
    mine = [o for o in outs if o["nr"] == 511]
    assert [(o["syscall"], o["comm"]) for o in mine] == [("compat32", command[0])] * 3, outs
    assert all(o["latency_ns"] >= 20_000_000 for o in mine), mine
    assert not any(o["syscall"] == "sync" for o in outs), outs
    per = {s["syscall"]: s for s in lines[-1]["summary"]["per_syscall"]}
    # The 32-bit program's execve is a 64-bit call (entered in the 64-bit image); its last
    # call, exit, never returns: neither is compat32's.
    assert per["compat32"]["calls"] == 3 and per["compat32"]["outliers"] == 3, per
    assert "sync" not in per, per


def service_titles(svc):
    """What the service's workers call themselves, by pid."""
    w1, w2 = svc.info["workers"]
    return {w1: "service: worker 1", w2: "service: worker 2",
            svc.info["grandchild"]: "service: worker 1.1"}


def test_outliers_carry_their_process_title_among_same_comm_processes(root, lttng_daemon,
                                                                      tmp_path):
    """Workers all named "service" tell what they are by the title they wrote over argv: the
    title is in watch --json, in the trace, and report groups by it (--by title)."""
    lttng_daemon.start()
    svc = Service()
    try:
        titles = service_titles(svc)
        r = run_sclat("watch", "--json", "--threshold", "5ms", "--duration", "1s",
                      "-p", str(svc.info["pid"]), timeout=60)
        assert r.returncode == 0, r.stderr
        outs = [json.loads(l) for l in r.stdout.splitlines() if l.startswith("{")]
        assert {o["pid"] for o in outs} == set(titles), outs
        for o in outs:
            assert (o["comm"], o["title"]) == ("service", titles[o["pid"]]), o
        # The text line ends with a title a server set (its first word ends with ':').
        r = run_sclat("watch", "--threshold", "5ms", "--duration", "1s",
                      "-p", str(svc.info["pid"]), timeout=60)
        assert r.returncode == 0, r.stderr
        for pid, title in titles.items():
            assert re.search(r"^\S+ service +%d .* title \"%s\"$" % (pid, re.escape(title)),
                             r.stdout, re.M), r.stdout

        trace = str(tmp_path / "trace")
        r = run_sclat("record", "-o", trace, "--threshold", "5ms", "--duration", "2s",
                      "-p", str(svc.info["pid"]), timeout=60)
        assert r.returncode == 0, r.stderr
    finally:
        svc.stop()
    events = [e["fields"] for e in Trace(trace, keep={"sclat:syscall_outlier"}).events]
    assert {(e["pid"], e["title"]) for e in events} == set(titles.items()), events
    counts = {}
    for e in events:
        counts[e["title"]] = counts.get(e["title"], 0) + 1
    rep = json.loads(run_sclat("report", trace, "--by", "title", "--json").stdout)
    assert rep["by"] == "title"
    assert {row["title"]: row["count"] for row in rep["rows"]} == counts, rep["rows"]
    assert all(t["title"] == titles[t["pid"]] for t in rep["top"]), rep["top"]
    text = run_sclat("report", trace, "--by", "title,process").stdout
    for pid, title in titles.items():
        assert re.search(r"^ *%d service .*  %s$" % (pid, re.escape(title)), text, re.M), text
