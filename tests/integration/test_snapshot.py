# SPDX-License-Identifier: GPL-2.0-only
"""--snapshot-session: an outlier makes LTTng snapshot the user's snapshot-mode session.

A test application with an lttng-ust provider of its own (tests/workloads/flight.c:
flight:tick every millisecond) is traced by a snapshot-mode session the test creates;
sclat, with the real BPF programs, sees its injected slow poll(2) and LTTng's trigger
snapshots the session. The snapshots and sclat's trace are read back with python3-bt2.
"""
import json
import os
import re
import signal
import subprocess
import time

import pytest

from conftest import (SCLAT, Trace, prog_ids_of, run_sclat, sclat_progs, stray_progs, wait_until,
                      workload)
import test_record
from test_record import lttng, session_names

NR_POLL = 7
MS = 1_000_000
SUMMARY = re.compile(r"^sclat: (\d+) snapshots taken on (\d+) outliers, (\d+) failed, "
                     r"(\d+) unreported, (\d+) discarded \(session (\S+), trigger (\S+)\)$", re.M)


@pytest.fixture
def snapshot_session(lttng_sessiond, tmp_path):
    """A started snapshot-mode session recording flight:* into tmp_path/snapshots, with
    buffers that hold seconds of ticks; destroyed after the test."""
    name, out = "snap-%d-%d" % (os.getpid(), time.monotonic_ns()), tmp_path / "snapshots"
    lttng("create", name, "--snapshot", "-o", str(out))
    try:
        lttng("enable-channel", "-u", "-s", name, "flight", "--subbuf-size", "256K",
              "--num-subbuf", "8")
        lttng("enable-event", "-u", "-s", name, "-c", "flight", "flight:*")
        lttng("start", name)
        yield dict(name=name, out=out)
    finally:
        lttng("destroy", name, check=False)


def sclat_triggers():
    """Names of the triggers sclat registered that the session daemon holds now."""
    out = lttng("list-triggers").stdout
    return re.findall(r"^- name: (sclat-snapshot-\S+)$", out, re.M)


def flight_report(path):
    """What flight wrote: its slow calls (ms, tid, begin_ns, end_ns) and its pid."""
    with open(path) as f:
        lines = [json.loads(l) for l in f]
    return [l for l in lines if "ms" in l], lines[-1]


def snapshot_summary(stderr):
    m = SUMMARY.search(stderr)
    assert m, stderr
    return dict(zip(("taken", "outliers", "failed", "unreported", "discarded"),
                    map(int, m.groups()[:5])), session=m.group(6), trigger=m.group(7))


def poll_outlier(outliers, slow, entry="entry_ts"):
    """The outlier (in the trace, or a watch line with entry="ts_ns") of flight's poll of
    slow["ms"] ms."""
    found = [o for o in outliers if o["nr"] == NR_POLL and o["tid"] == slow["tid"] and
             slow["begin_ns"] <= o[entry] <= slow["end_ns"]]
    assert len(found) == 1, (slow, outliers)
    return found[0]


def check_covers(snapshot_dir, outlier, ms):
    """The snapshot holds flight's own events from before the outlier's entry to its end."""
    trace = Trace(snapshot_dir)
    ticks = sorted(e["ts"] for e in trace.named("flight:tick"))
    begin, end = outlier["entry_ts"], outlier["entry_ts"] + outlier["latency_ns"]
    # Taken on the outlier's event, after the call returned: the buffers reach back before
    # its entry, with the slow_begin flight fired just before the call...
    assert ticks and ticks[0] <= begin, (begin, ticks[:3])
    assert [e for e in trace.named("flight:slow_begin") if e["fields"]["ms"] == ms and
            begin - 10 * MS <= e["ts"] <= begin], (begin, trace.named("flight:slow_begin"))
    # ...and run to its end: the snapshot can follow the end by a millisecond, and the
    # ticker (1 ms sleeps) runs late on a loaded machine, by a few periods at most...
    assert ticks[-1] >= end - 20 * MS, (end, ticks[-3:])
    # ...with ticks all along it, none lost: flight numbers its ticks, and a lost buffer
    # leaves a gap in the numbers. (Their times are no test: a loaded machine delays the
    # ticking thread, by 54 ms once seen.)
    around = sorted((e["ts"], e["fields"]["seq"]) for e in trace.named("flight:tick")
                    if begin - 20 * MS <= e["ts"] <= end + 20 * MS)
    seqs = [q for _, q in around]
    assert len(around) >= 4 and seqs == list(range(seqs[0], seqs[0] + len(seqs))), \
        (len(around), [(b, a) for a, b in zip(seqs, seqs[1:]) if b != a + 1][:5])


def test_record_snapshots_the_session_on_an_outlier(snapshot_session, tmp_path):
    """Polls of 50 and 200 ms at a 20 ms threshold, 100 ms minimum: both are outliers,
    only the 200 ms one causes a snapshot, which holds the application's events around
    it; sclat's trace says which outlier caused it and where it is; report lists it."""
    s, out_dir, report = snapshot_session, tmp_path / "trace", tmp_path / "flight.json"
    before = set(sclat_progs())
    r = run_sclat("record", "-o", str(out_dir), "--comm", "flight", "--threshold", "20ms",
                  "--snapshot-session", s["name"], "--snapshot-min-latency", "100ms", "--",
                  workload("flight"), "--slow", "50", "--slow", "200", "--report", str(report))
    assert r.returncode == 0, r.stderr
    assert not stray_progs(before)
    slow, me = flight_report(report)
    summary = snapshot_summary(r.stderr)
    assert summary["session"] == s["name"]
    assert summary["trigger"].startswith("sclat-snapshot-")
    # The trigger went with sclat.
    assert sclat_triggers() == []

    trace = Trace(out_dir)
    outliers = [e["fields"] for e in trace.named("sclat:syscall_outlier")]
    short, long_ = poll_outlier(outliers, slow[0]), poll_outlier(outliers, slow[1])
    assert short["latency_ns"] >= 50 * MS and long_["latency_ns"] >= 200 * MS
    snaps = [e["fields"] for e in trace.named("sclat:snapshot")]
    # No snapshot below the minimum latency; on a loaded machine another call of flight
    # may pass it too (its own snapshot, then).
    assert all(f["latency_ns"] >= 100 * MS for f in snaps), snaps
    mine = [f for f in snaps if (f["tid"], f["entry_ts"]) == (long_["tid"], long_["entry_ts"])]
    assert len(mine) == 1, snaps
    f = mine[0]
    assert f["session"] == s["name"] and f["syscall"] == "poll" and f["nr"] == NR_POLL
    assert f["pid"] == me["pid"] and f["comm"] == "flight"
    assert f["latency_ns"] == long_["latency_ns"]
    assert f["entry_epoch_ns"] == long_["entry_epoch_ns"]
    assert os.path.dirname(f["path"]) == str(s["out"])
    # Named after the sclat process, as its trigger is.
    sclat_pid = int(summary["trigger"].split("-")[2])
    assert re.fullmatch(r"sclat-%d-\d{8}-\d{6}-\d+" % sclat_pid,
                        os.path.basename(f["path"])), f["path"]
    # Every snapshot sclat reports is in the session's output, and nothing else is.
    assert sorted(os.listdir(s["out"])) == sorted(os.path.basename(x["path"]) for x in snaps)
    check_covers(f["path"], long_, 200)

    totals = trace.named("sclat:snapshot_totals")
    assert len(totals) == 1
    t = totals[0]["fields"]
    assert t["session"] == s["name"] and t["trigger"] == summary["trigger"]
    assert t["outliers"] == t["requested"] == t["taken"] == len(snaps) == summary["taken"]
    assert t["failed"] == t["unreported"] == t["discarded"] == 0

    rep = run_sclat("report", str(out_dir), "--json", "--comm", "flight")
    assert rep.returncode == 0, rep.stderr
    j = json.loads(rep.stdout)
    assert [(x["tid"], x["entry_ts"], x["path"]) for x in j["snapshots"]] == \
        [(x["tid"], x["entry_ts"], x["path"]) for x in snaps]
    assert j["snapshot_totals"]["taken"] == len(snaps)
    top = {(o["tid"], o["ts_ns"]): o for o in j["top"]}
    assert top[(long_["tid"], long_["entry_ts"])]["snapshot"] == f["path"]
    assert "snapshot" not in top[(short["tid"], short["entry_ts"])]
    text = run_sclat("report", str(out_dir), "--syscall", "poll").stdout
    assert re.search(r"^2\S+ \S+ +\d+(\.\d+)?ms poll +flight +%d +%d  %s$" %
                     (me["pid"], long_["tid"], re.escape(f["path"])), text, re.M), text


def test_watch_fires_the_outlier_event_for_the_trigger(snapshot_session, tmp_path):
    """watch has no trace of its own: it fires sclat:syscall_outlier for the trigger and
    prints each snapshot after its outlier."""
    s, report = snapshot_session, tmp_path / "flight.json"
    r = run_sclat("watch", "--json", "--comm", "flight", "--threshold", "20ms",
                  "--snapshot-session", s["name"], "--snapshot-min-latency", "100ms", "--",
                  workload("flight"), "--slow", "50", "--slow", "150", "--report", str(report))
    assert r.returncode == 0, r.stderr
    slow, me = flight_report(report)
    lines = [json.loads(l) for l in r.stdout.splitlines()]
    outliers = [l for l in lines if "snapshot" not in l]
    snaps = [l["snapshot"] for l in lines if "snapshot" in l]
    long_ = poll_outlier(outliers, slow[1], "ts_ns")
    poll_outlier(outliers, slow[0], "ts_ns")
    assert all(x["latency_ns"] >= 100 * MS for x in snaps), snaps
    mine = [x for x in snaps if (x["tid"], x["ts_ns"]) == (long_["tid"], long_["ts_ns"])]
    assert len(mine) == 1, snaps
    x = mine[0]
    assert x["session"] == s["name"] and x["syscall"] == "poll" and x["comm"] == "flight"
    assert x["pid"] == me["pid"] and x["latency_ns"] == long_["latency_ns"]
    assert x["epoch_ns"] == long_["epoch_ns"]
    # Printed after its outlier.
    assert lines.index({"snapshot": x}) > lines.index(long_)
    assert sorted(os.listdir(s["out"])) == sorted(os.path.basename(y["path"]) for y in snaps)
    check_covers(x["path"], dict(entry_ts=long_["ts_ns"], latency_ns=long_["latency_ns"]),
                 150)
    assert snapshot_summary(r.stderr)["taken"] == len(snaps)
    assert sclat_triggers() == []


def test_rate_policy_every_second_outlier(snapshot_session, tmp_path):
    """every:2: four polls above the minimum make two snapshots, on the 2nd and 4th."""
    s, report = snapshot_session, tmp_path / "flight.json"
    r = run_sclat("watch", "--json", "--comm", "flight", "--threshold", "20ms",
                  "--snapshot-session", s["name"], "--snapshot-min-latency", "60ms",
                  "--snapshot-rate-policy", "every:2", "--", workload("flight"),
                  "--slow", "80", "--slow", "80", "--slow", "80", "--slow", "80",
                  "--gap-ms", "100", "--report", str(report))
    assert r.returncode == 0, r.stderr
    slow, _ = flight_report(report)
    lines = [json.loads(l) for l in r.stdout.splitlines()]
    outliers = [l for l in lines if "snapshot" not in l]
    polls = [poll_outlier(outliers, x, "ts_ns") for x in slow]
    matching = sorted((o for o in outliers if o["latency_ns"] >= 60 * MS),
                      key=lambda o: o["ts_ns"] + o["latency_ns"])
    snaps = [l["snapshot"] for l in lines if "snapshot" in l]
    # Every second outlier that passed the minimum, in the order sclat fired them.
    assert [(x["tid"], x["ts_ns"]) for x in snaps] == \
        [(o["tid"], o["ts_ns"]) for o in matching[1::2]], (snaps, matching)
    if matching == polls:
        assert [x["ts_ns"] for x in snaps] == [polls[1]["ts_ns"], polls[3]["ts_ns"]]
    assert len(os.listdir(s["out"])) == len(snaps)
    summary = snapshot_summary(r.stderr)
    assert summary["outliers"] == len(matching) and summary["taken"] == len(snaps)


def check_refused(r, before, message):
    """One line that says why, nothing attached, no trigger left."""
    test_record.check_refused(r, before, message)
    assert sclat_triggers() == []


@pytest.mark.parametrize("command", ["record", "watch"])
def test_refuses_a_session_it_cannot_snapshot(lttng_sessiond, tmp_path, command):
    """Missing, not in snapshot mode, not started: one line, before anything is made or
    attached."""
    name = "snap-bad-%d" % os.getpid()
    before, sessions = set(sclat_progs()), session_names()
    r = run_sclat(command, "--snapshot-session", "no-such-" + name, "--", "true")
    check_refused(r, before, "sclat: --snapshot-session no-such-%s: no such tracing session" %
                  name)
    assert session_names() == sessions

    lttng("create", name, "-o", str(tmp_path / "normal"))
    try:
        r = run_sclat(command, "--snapshot-session", name, "--", "true")
        check_refused(r, before, "sclat: --snapshot-session %s: not a snapshot-mode session" %
                      name)
    finally:
        lttng("destroy", name)
    lttng("create", name, "--snapshot", "-o", str(tmp_path / "idle"))
    try:
        r = run_sclat(command, "--snapshot-session", name, "--", "true")
        check_refused(r, before, "sclat: --snapshot-session %s: the session is not started" %
                      name)
    finally:
        lttng("destroy", name)
    assert session_names() == sessions


@pytest.mark.parametrize("args,message", [
    (["--snapshot-min-latency", "5ms"], "--snapshot-min-latency: goes with --snapshot-session"),
    (["--snapshot-rate-policy", "every:2"], "--snapshot-rate-policy: goes with"),
    (["--snapshot-session", "s", "--snapshot-rate-policy", "every:0"], "not every:N"),
    (["--snapshot-session", "s", "--snapshot-rate-policy", "sometimes"], "not every:N"),
    (["--snapshot-session", "s", "--snapshot-min-latency", "fast"], "not a duration"),
])
def test_usage_errors(args, message):
    for command in ("watch", "record"):
        r = run_sclat(command, *args, "--", "true")
        assert r.returncode == 2, r.stderr
        lines = r.stderr.splitlines()
        assert len(lines) == 1 and message in lines[0], lines


def test_failed_snapshot_is_reported_and_counted(snapshot_session, tmp_path):
    """The session goes away mid-run: LTTng fails the snapshot, sclat records the outlier
    that asked for it with no path, and counts the failure."""
    s, out_dir, report = snapshot_session, tmp_path / "trace", tmp_path / "flight.json"
    go = tmp_path / "go"
    rec = subprocess.Popen([SCLAT, "record", "-o", str(out_dir), "--comm", "flight",
                            "--threshold", "20ms", "--snapshot-session", s["name"],
                            "--snapshot-min-latency", "100ms", "--", workload("flight"),
                            "--go", str(go), "--slow", "150", "--report", str(report)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        # Registered before the programs attach; flight polls once the session is gone.
        assert wait_until(lambda: prog_ids_of(rec.pid) and sclat_triggers(), timeout=20)
        lttng("destroy", s["name"])
        go.write_text("")
        out, err = rec.communicate(timeout=60)
    finally:
        go.write_text("")
        if rec.poll() is None:
            rec.kill()
            rec.wait()
    assert rec.returncode == 0, err
    slow, _ = flight_report(report)
    trace = Trace(out_dir)
    poll = poll_outlier([e["fields"] for e in trace.named("sclat:syscall_outlier")], slow[0])
    snaps = [e["fields"] for e in trace.named("sclat:snapshot")]
    mine = [f for f in snaps if (f["tid"], f["entry_ts"]) == (poll["tid"], poll["entry_ts"])]
    assert len(mine) == 1 and mine[0]["path"] == "", snaps
    t = trace.named("sclat:snapshot_totals")[0]["fields"]
    assert t["failed"] == len(snaps) >= 1 and t["taken"] == 0 and t["unreported"] == 0
    assert snapshot_summary(err)["failed"] == t["failed"]
    assert not os.path.exists(s["out"]) or os.listdir(s["out"]) == []
    text = run_sclat("report", str(out_dir), "--syscall", "poll").stdout
    assert "(failed: LTTng could not take it)" in text, text


def test_trigger_of_a_killed_sclat_is_removed_by_the_next(snapshot_session):
    """SIGKILL leaves the trigger behind (nothing can remove it then); the next sclat with
    --snapshot-session removes it, and says so."""
    s = snapshot_session
    w = subprocess.Popen([SCLAT, "watch", "--threshold", "1s", "--snapshot-session",
                          s["name"]], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         text=True)
    try:
        assert wait_until(lambda: prog_ids_of(w.pid), timeout=20), w.stderr.read()
        left = sclat_triggers()
        assert len(left) == 1 and left[0].startswith("sclat-snapshot-%d-" % w.pid), left
    finally:
        w.kill()
        w.wait()
    assert sclat_triggers() == left
    r = run_sclat("watch", "--threshold", "1s", "--snapshot-session", s["name"],
                  "--duration", "200ms")
    assert r.returncode == 0, r.stderr
    assert r.stderr.splitlines()[0] == \
        "sclat: removed trigger %s: the sclat process %d that registered it is gone" % (
            left[0], w.pid), r.stderr
    assert sclat_triggers() == []
