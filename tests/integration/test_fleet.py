# SPDX-License-Identifier: GPL-2.0-only
"""Many machines: hosts in UTS namespaces of their own (tests/lttng-world --host), each with
its own session daemon, streaming at the same time to one lttng-relayd on 127.0.0.1; reports
over the relay daemon's output root and over copied traces."""
import json
import os
import subprocess

import bt2
import pytest

from conftest import ROOT, SCLAT, relay_daemon, run_sclat, wait_until, workload

WORLD = os.path.join(ROOT, "tests", "lttng-world")
PLUGIN_DIR = os.path.join(ROOT, ".output", "plugins")
LAMI = os.path.join(ROOT, "tracer-plugins", "tracecompass", "sclat-lami")

# Each host's workload: slow clock_nanosleep calls (count, ms) among 2000 getppid. hostC's
# sleeps last a second: the comparison must name it. (Three hosts starting their session
# daemons at once on a loaded 2-vCPU machine have stretched a 3 ms sleep to 180 ms: the
# p99 of a host is its slowest sleep, so hostC's must stay far above any such stretch.)
FLEET = {"hostA": (4, 3), "hostB": (5, 3), "hostC": (6, 1000)}


def on_host(host, *args, **kw):
    """Popen of sclat ARGS in a machine of its own named host (its own sessiond)."""
    return subprocess.Popen([WORLD, "--host", host, SCLAT, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)


def finish(procs, timeout=120):
    """Wait for every (host, Popen); assert each exited 0."""
    for host, p in procs:
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
        assert p.returncode == 0, (host, err)


def write_foreign_trace(path):
    """A CTF trace of someone else's events (myapp:tick), written with babeltrace2."""
    class Iter(bt2._UserMessageIterator):
        def __init__(self, config, port):
            tc, sc, ec = port.user_data
            stream = tc().create_stream(sc)
            self._msgs = iter([self._create_stream_beginning_message(stream)] +
                              [self._create_event_message(ec, stream, t) for t in (1, 2)] +
                              [self._create_stream_end_message(stream)])

        def __next__(self):
            return next(self._msgs)

    class Source(bt2._UserSourceComponent, message_iterator_class=Iter):
        def __init__(self, config, params, obj):
            tc = self._create_trace_class()
            cc = self._create_clock_class(frequency=10**9, name="monotonic")
            sc = tc.create_stream_class(default_clock_class=cc)
            ec = sc.create_event_class(name="myapp:tick")
            self._add_output_port("out", (tc, sc, ec))

    graph = bt2.Graph()
    src = graph.add_component(Source, "src")
    sink = graph.add_component(bt2.find_plugin("ctf").sink_component_classes["fs"], "out",
                               {"path": str(path), "assume-single-trace": True, "quiet": True})
    graph.connect_ports(src.output_ports["out"], sink.input_ports["in"])
    graph.run()


@pytest.fixture(scope="module")
def fleet(root, tmp_path_factory):
    """Three hosts streaming to one relay daemon at the same time; its output root."""
    tmp = tmp_path_factory.mktemp("fleet")
    with relay_daemon(tmp / "relay") as rd:
        procs, reports = [], {}
        for host, (n, ms) in FLEET.items():
            reports[host] = tmp / ("%s.report" % host)
            procs.append((host, on_host(host, "record", "--url", rd.url, "-n", "fleet",
                                        "--threshold", "2ms", "--", workload("syscalls"),
                                        "--fast", "2000", "--slow", str(n), "--slow-ms",
                                        str(ms), "--report", str(reports[host]))))
        finish(procs)
    # Someone else's trace next to the hosts' traces: skipped, with a note.
    write_foreign_trace(rd.out / "other-app")
    me = {h: json.loads(open(r).readline()) for h, r in reports.items()}
    return dict(out=rd.out, me=me)


def test_relay_daemon_files_each_host_under_its_hostname(fleet):
    hosts = sorted(d.name for d in fleet["out"].iterdir() if d.name in FLEET)
    assert hosts == sorted(FLEET)


def test_report_on_the_relay_output_counts_each_host(fleet):
    r = run_sclat("report", str(fleet["out"]), "--by", "syscall,host", "--json")
    assert r.returncode == 0, r.stderr
    assert "other-app" in r.stderr and "not an sclat trace" in r.stderr and "skipped" in r.stderr
    rep = json.loads(r.stdout)
    assert rep["by"] == "syscall,host"
    sleeps = {row["host"]: row["count"] for row in rep["rows"]
              if row["syscall"] == "clock_nanosleep"}
    assert sleeps == {h: n for h, (n, ms) in FLEET.items()}
    assert sorted(h["host"] for h in rep["hosts"]) == sorted(FLEET)
    for h in rep["hosts"]:
        assert h["lost"]["events_lost"] is False, h
    # Every outlier is of its own host's workload.
    for t in rep["top"]:
        assert t["pid"] == fleet["me"][t["host"]]["pid"], t
    # Merged in time: the slowest of all are hostC's 1 s sleeps.
    assert [t["host"] for t in rep["top"][:6]] == ["hostC"] * 6


def test_report_by_host_and_host_filter(fleet):
    rep = json.loads(run_sclat("report", str(fleet["out"]), "--by", "host", "--json").stdout)
    by_host = {row["host"]: row["count"] for row in rep["rows"]}
    assert set(by_host) == set(FLEET)
    for host, (n, ms) in FLEET.items():
        assert by_host[host] >= n
    r = run_sclat("report", str(fleet["out"]), "--host", "hostB", "--json",
                  "--syscall", "clock_nanosleep")
    rep = json.loads(r.stdout)
    assert rep["matched"] == FLEET["hostB"][0]
    assert [h["host"] for h in rep["hosts"]] == ["hostB"]
    assert {t["host"] for t in rep["top"]} == {"hostB"}


def test_comparison_names_the_slow_host(fleet):
    rep = json.loads(run_sclat("report", str(fleet["out"]), "--json").stdout)
    cmp = {c["syscall"]: c for c in rep["comparison"]}
    sleep = cmp["clock_nanosleep"]
    assert len(sleep["hosts"]) == 3
    assert sleep["threshold_ns"] == {"min": 2e6, "median": 2e6, "max": 2e6}
    out = {h["host"]: [s["measure"] for s in h["stands_out"]] for h in sleep["hosts"]}
    assert "p99_ns" in out["hostC"], sleep
    assert "p99_ns" not in out["hostA"] + out["hostB"], sleep
    c = [h for h in sleep["hosts"] if h["host"] == "hostC"][0]
    assert c["p99_ns"] >= 4 * sleep["p99_ns"]["median"]
    assert [h["outliers"] for h in sorted(sleep["hosts"], key=lambda h: h["host"])] == \
        [n for h, (n, ms) in sorted(FLEET.items())]
    # The text report says it in one line.
    text = run_sclat("report", str(fleet["out"]), "--top", "0").stdout
    assert "3 hosts" in text.splitlines()[0]
    lines = [l for l in text.splitlines() if l.startswith("clock_nanosleep") and "hostC" in l]
    assert len(lines) == 1 and "p99" in lines[0], text


def test_babeltrace2_cli_and_lami_read_the_relay_output(fleet):
    r = subprocess.run(["babeltrace2", "--plugin-path=" + PLUGIN_DIR, str(fleet["out"]),
                        "-c", "sink.sclat.report",
                        "-p", 'format="json",by="syscall,host",syscall="clock_nanosleep"'],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    rows = json.loads(r.stdout)["rows"]
    assert {row["host"]: row["count"] for row in rows} == {h: n for h, (n, ms) in FLEET.items()}
    # sink.sclat.outliers, behind sclat watch --from: one line per outlier, its host first.
    r = subprocess.run(["babeltrace2", "--plugin-path=" + PLUGIN_DIR, str(fleet["out"]),
                        "-c", "sink.sclat.outliers"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    text = r.stdout.splitlines()
    assert text[0].split()[:3] == ["HOST", "TIME", "COMM"], text[:2]
    for l in text[1:]:
        host, _, comm, pid = l.split()[:4]
        assert int(pid) == fleet["me"][host]["pid"], l
    assert sum(1 for l in text if " clock_nanosleep " in l) == sum(n for n, ms in FLEET.values())
    r = subprocess.run([LAMI, str(fleet["out"])], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout
    table = [t for t in json.loads(r.stdout)["results"] if t["class"] == "syscall-latency"][0]
    counts = {row[0]["name"]: row[1]["value"] for row in table["data"]}
    assert counts["clock_nanosleep"] == sum(n for n, ms in FLEET.values())


def test_a_host_whose_trace_lost_events_is_flagged(root, tmp_path):
    """Two hosts' traces copied under one directory: the one that lost events says so."""
    procs = [
        # Every syscall an outlier, into a 4 KiB ring buffer: the kernel must drop.
        ("lossy", on_host("lossy", "record", "-o", str(tmp_path / "lossy"), "--threshold",
                          "1ns", "--buffer-size", "4K", "--", workload("syscalls"), "--fast",
                          "100000")),
        ("clean", on_host("clean", "record", "-o", str(tmp_path / "clean"), "--threshold",
                          "2ms", "--", workload("syscalls"), "--slow", "2", "--slow-ms", "3")),
    ]
    finish(procs)
    rep = json.loads(run_sclat("report", str(tmp_path), "--json").stdout)
    lost = {h["host"]: h["lost"] for h in rep["hosts"]}
    assert lost["lossy"]["events_lost"] is True and lost["lossy"]["drops"] > 0
    assert lost["clean"]["events_lost"] is False
    assert rep["lost"]["drops"] == lost["lossy"]["drops"]
    text = run_sclat("report", str(tmp_path), "--top", "0").stdout
    rows = {l.split()[0]: l for l in text.split("\nHosts\n")[1].splitlines()[1:3]}
    assert "EVENTS LOST: %d outliers dropped" % lost["lossy"]["drops"] in rows["lossy"]
    assert rows["clean"].endswith("none")
    # The same traces named one by one on the command line.
    rep2 = json.loads(run_sclat("report", str(tmp_path / "clean"), str(tmp_path / "lossy"),
                                "--json").stdout)
    assert rep2["hosts"] == rep["hosts"]


def live_sessions(port):
    """The sessions a relay daemon serves live on 127.0.0.1:port."""
    live = bt2.find_plugin("ctf").source_component_classes["lttng-live"]
    return list(bt2.QueryExecutor(live, "sessions", {"url": "net://127.0.0.1:%d" % port})
                .query())


def test_watch_from_a_collector_shows_every_host_live(root, tmp_path):
    """Two hosts stream live; sclat watch --from the relay daemon prints both, host by host."""
    hosts = ("hostA", "hostB")
    with relay_daemon(tmp_path / "relay") as rd:
        reports = {h: tmp_path / ("%s.report" % h) for h in hosts}
        procs = [(h, on_host(h, "record", "--live=100ms", "--url", rd.url, "-n", "live",
                             "--threshold", "2ms", "--", workload("syscalls"), "--slow", "30",
                             "--slow-ms", "50", "--report", str(reports[h]))) for h in hosts]
        try:
            assert wait_until(lambda: len(live_sessions(rd.live)) == 2, timeout=30), \
                [p.stderr.read() for h, p in procs if p.poll() is not None]
            url = "net://127.0.0.1:%d" % rd.live
            # LTTng lets one viewer attach to a session at a time.
            watchers = [subprocess.Popen([SCLAT, "watch", "--from", url, "--json"],
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                         text=True)]
            outs = [w.communicate(timeout=120) for w in watchers]
        finally:
            finish(procs)
    for w, (out, err) in zip(watchers, outs):
        assert w.returncode == 0, err
    me = {h: json.loads(open(r).readline()) for h, r in reports.items()}
    lines = [json.loads(l) for l in outs[0][0].splitlines()]
    for h in hosts:
        seen = [l for l in lines if l["host"] == h]
        slow = [l for l in seen if l["syscall"] == "clock_nanosleep"]
        # The viewers attach while the 30 sleeps run: they see some (all, if early).
        assert 0 < len(slow) <= 30, (h, outs[0][0][-2000:])
        for l in seen:
            assert l["pid"] == me[h]["pid"], l
    assert {l["host"] for l in lines} == set(hosts)


def test_watch_from_follows_a_host_that_starts_streaming_later(root, tmp_path):
    """sclat watch --from, started before any host streams, follows hostA, then hostB that
    starts once hostA's outliers show; it ends when both have ended."""
    with relay_daemon(tmp_path / "relay") as rd:
        url = "net://127.0.0.1:%d" % rd.live
        watcher = subprocess.Popen([SCLAT, "watch", "--from", url], stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        procs = []
        try:
            # hostA sleeps 60 x 50 ms: it is still streaming when hostB joins.
            procs.append(("hostA", on_host("hostA", "record", "--live=100ms", "--url", rd.url,
                                           "-n", "early", "--threshold", "20ms", "--",
                                           workload("syscalls"), "--slow", "60", "--slow-ms",
                                           "50")))
            header = watcher.stdout.readline()
            assert header.split()[:3] == ["HOST", "TIME", "COMM"], header
            first = watcher.stdout.readline()
            assert first.startswith("hostA "), first
            # hostB sleeps 10 x 200 ms: the watcher lists the sessions once a second, and
            # must see hostB's while it is there. With 50 ms sleeps the relay daemon listed
            # it for 2.2 s here, 1.8 s of it the tracer's start and end, which a faster
            # machine shortens: some 1.1 s at 3x. Now 1.5 s more, whatever the speed.
            procs.append(("hostB", on_host("hostB", "record", "--live=100ms", "--url", rd.url,
                                           "-n", "late", "--threshold", "20ms", "--",
                                           workload("syscalls"), "--slow", "10", "--slow-ms",
                                           "200")))
            out, err = watcher.communicate(timeout=120)
        finally:
            if watcher.poll() is None:
                watcher.kill()
            finish(procs)
    assert watcher.returncode == 0, err
    assert "no live session yet" in err, err
    lines = [first] + out.splitlines()
    # The text header once, for every host.
    assert not [l for l in lines if l.startswith("HOST")], out
    late = [l for l in lines if l.startswith("hostB ") and " clock_nanosleep " in l]
    assert 0 < len(late) <= 10, out[-2000:]
    assert len([l for l in lines if l.startswith("hostA ") and " clock_nanosleep " in l]) > 1


def test_watch_from_usage_errors():
    for args, what in ((["--from", "http://x"], "not a relay daemon's URL"),
                       (["--from", "net://127.0.0.1", "--threshold", "1ms"],
                        "takes no tracing option"),
                       (["--from", "net://127.0.0.1", "--", "true"], "takes no tracing option"),
                       (["--from", "net://127.0.0.1", "--user-stacks-per-cpu", "5"],
                        "takes no tracing option"),
                       (["--from", "net://127.0.0.1", "--no-user-stack"], "takes no tracing option"),
                       (["--from", "net://127.0.0.1", "-v"], "takes no tracing option"),
                       (["--from", "net://127.0.0.1", "--summary"], "--summary")):
        r = run_sclat("watch", *args)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and what in r.stderr, (args, r)


def test_many_paths_errors_name_the_path(tmp_path):
    trace = os.path.join(ROOT, "tests", "fixtures", "sclat-trace")
    missing = str(tmp_path / "missing")
    r = run_sclat("report", trace, missing)
    assert (r.returncode, r.stderr) == (1, "sclat: %s: no such trace\n" % missing)
    for name in ("one", "two"):
        write_foreign_trace(tmp_path / "foreign" / name)
    r = run_sclat("report", str(tmp_path / "foreign"))
    assert r.returncode == 1 and r.stderr.endswith(
        "sclat: %s: no sclat trace in it (no sclat:* events; record one with sclat record)\n"
        % (tmp_path / "foreign")), r.stderr
    assert r.stderr.count("skipped") == 2
