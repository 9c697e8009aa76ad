# SPDX-License-Identifier: GPL-2.0-only
"""Trace Compass side: sclat-lami against the LAMI 1.0 format, the XML analysis against the trace."""
import json
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET

import bt2
import pytest

from conftest import ROOT, run_sclat, workload

LAMI = os.path.join(ROOT, "tracer-plugins", "tracecompass", "sclat-lami")
XML = os.path.join(ROOT, "tracer-plugins", "tracecompass", "sclat-analysis.xml")
TRACE = os.path.join(ROOT, "tests", "fixtures", "sclat-trace")

# LAMI 1.0 data object classes and the members each must have (lttng-analyses' mi.py, the
# reference producer; Trace Compass reads classes "int" and "float", bare JSON values and
# time ranges with integer ends only as the pre-1.0 protocol). "mixed" is a column class.
OBJECT_KEYS = {
    "unknown": set(), "bool": {"value"}, "string": {"value"}, "number": set(),
    "ratio": {"value"}, "timestamp": {"value"}, "duration": {"value"}, "size": {"value"},
    "bitrate": {"value"}, "time-range": {"begin", "end"}, "syscall": {"name"},
    "process": set(), "path": {"path"}, "fd": {"fd"}, "irq": {"hard", "nr"}, "cpu": {"id"},
    "disk": {"name"}, "part": {"name"}, "netif": {"name"},
}
COLUMN_CLASSES = set(OBJECT_KEYS) | {"mixed"}
NUMBERS = {"number", "ratio", "timestamp", "duration", "size", "bitrate"}
NANOSECONDS = {"timestamp", "duration"}


def lami(*args, timeout=60):
    return subprocess.run([LAMI, *args], capture_output=True, text=True, timeout=timeout)


def metadata():
    r = lami("--metadata")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def results(*args):
    r = lami(*args, TRACE)
    assert r.returncode == 0, r.stdout + r.stderr
    return json.loads(r.stdout)["results"]


def table(res, name):
    found = [t for t in res if t["class"] == name]
    assert len(found) == 1, name
    return found[0]


def value(cell):
    """The value of a LAMI 1.0 number-like data object."""
    assert isinstance(cell, dict) and cell["class"] in NUMBERS, cell
    return cell["value"]


def check_cell(cell, cls):
    """Every cell of ours a LAMI 1.0 data object of its column's class (or unknown)."""
    assert isinstance(cell, dict) and "class" in cell, (cell, cls)
    if cell["class"] == "unknown":
        return
    assert cls == "mixed" or cell["class"] == cls, (cell, cls)
    cls = cell["class"]
    assert OBJECT_KEYS[cls] <= set(cell), (cell, cls)
    if cls in NUMBERS:
        assert set(cell) - {"class"} <= {"value", "low", "high"} and len(cell) > 1, cell
        for k in set(cell) - {"class"}:
            num = int if cls in NANOSECONDS else (int, float)
            assert isinstance(cell[k], num) and not isinstance(cell[k], bool), cell
    if cls == "time-range":
        check_cell(cell["begin"], "timestamp")
        check_cell(cell["end"], "timestamp")
        assert value(cell["end"]) >= value(cell["begin"]), cell
    if cls == "process":
        assert set(cell) - {"class"} <= {"name", "pid", "tid"}


def test_mi_version():
    r = lami("--mi-version")
    assert r.returncode == 0 and r.stdout.strip() == "1.0"


def test_metadata_is_lami_1_0():
    m = metadata()
    assert m["mi-version"] == {"major": 1, "minor": 0}
    assert isinstance(m["title"], str) and m["title"]
    assert {"syscall-latency", "top-outliers", "thresholds", "lost-outliers", "not-done"} <= \
        set(m["table-classes"])
    for tc in m["table-classes"].values():
        assert isinstance(tc["title"], str)
        for col in tc["column-descriptions"]:
            assert col["class"] in COLUMN_CLASSES, col
            assert "unit" not in col or col["class"] == "number", col


def test_results_follow_their_table_classes():
    classes = metadata()["table-classes"]
    res = results()
    assert res
    for t in res:
        check_cell(t["time-range"], "time-range")
        cols = classes[t["class"]]["column-descriptions"]
        assert t["data"], t["class"]
        for row in t["data"]:
            assert len(row) == len(cols), t["class"]
            for cell, col in zip(row, cols):
                check_cell(cell, col["class"])


def test_what_an_older_trace_cannot_say_is_unknown():
    """The fixture was recorded before trace version 8, whose sclat:session_end says what
    the run could not do: the not-done table has one row of unknown cells, not zeros that
    would say the run did it all (a trace of version 8 on:
    test_report.test_children_not_followed_are_in_the_trace_and_the_report)."""
    assert [[c["class"] for c in row] for row in table(results(), "not-done")["data"]] == \
        [["unknown"] * 5]


def test_results_agree_with_sclat_report():
    rep = json.loads(run_sclat("report", TRACE, "--json", "--top", "1000").stdout)
    res = results()
    rows = table(res, "syscall-latency")["data"]
    assert [(r[0]["name"], value(r[1]), value(r[2]), value(r[3]), value(r[4]), value(r[5]),
             value(r[6]), value(r[8])) for r in rows] == \
        [(g["syscall"], g["count"], g["min_ns"], g["p50_ns"], g["p90_ns"], g["p99_ns"],
          g["max_ns"], g["top_ret"]) for g in rep["rows"]]
    top = table(res, "top-outliers")["data"]
    assert len(top) == rep["matched"]
    assert [(value(r[0]["begin"]), value(r[0]["end"]) - value(r[0]["begin"]), r[1]["name"],
             r[2]["tid"], value(r[4])) for r in top] == \
        [(o["epoch_ns"], o["latency_ns"], o["syscall"], o["tid"], o["ret"])
         for o in rep["top"]]
    lost = table(res, "lost-outliers")["data"]
    assert [[value(c) for c in row[:3]] for row in lost] == [[0, 0, 0]]
    # The fixture is of trace version 1: it cannot tell whether it is complete.
    assert [row[3] for row in lost] == [
        {"class": "string", "value": "unknown (version 1: no end-of-run accounting)"}]


def test_begin_end_in_both_forms_and_limit():
    rep = json.loads(run_sclat("report", TRACE, "--json", "--top", "1000").stdout)
    starts = sorted(o["epoch_ns"] for o in rep["top"])
    b, e = starts[3], starts[-4]
    spaced = lami("--begin", str(b), "--end", str(e), TRACE)
    joined = lami("--begin=%d" % b, "--end=%d" % e, TRACE)
    assert spaced.returncode == joined.returncode == 0
    assert spaced.stdout == joined.stdout
    res = json.loads(joined.stdout)["results"]
    top = table(res, "top-outliers")
    assert value(top["time-range"]["begin"]) == b and value(top["time-range"]["end"]) == e
    assert len(top["data"]) == sum(b <= s <= e for s in starts) < len(starts)
    assert len(table(results("--limit", "2"), "top-outliers")["data"]) == 2
    assert len(table(results("--limit=unlimited"), "top-outliers")["data"]) == len(starts)


def test_progress_lines_come_before_the_results():
    r = lami("--output-progress", TRACE)
    assert r.returncode == 0
    lines = r.stdout.splitlines()
    first_json = next(i for i, line in enumerate(lines) if line.lstrip().startswith("{"))
    progress = lines[:first_json]
    assert len(progress) >= 2
    values = []
    for line in progress:
        m = re.match(r"^(\d+(?:\.\d+)?)(?: (.*))?$", line)
        assert m, line
        values.append(float(m.group(1)))
    assert values == sorted(values) and 0 <= values[0] and values[-1] == 1.0
    assert json.loads("\n".join(lines[first_json:]))["results"]


def test_errors_are_lami_error_objects(tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    kernel = str(tmp_path / "kernel")
    assert run_sclat("convert", TRACE, "-o", kernel).returncode == 0
    no_events = str(tmp_path / "no-events")
    shutil.copytree(TRACE, no_events)
    for d, _, files in os.walk(no_events):
        for f in files:
            if f.startswith("sclat_"):
                os.truncate(os.path.join(d, f), 0)
    cases = [([str(tmp_path / "missing")], str(tmp_path / "missing")),
             ([str(empty)], "not a CTF trace"), ([kernel], "not an sclat trace"),
             ([no_events], "empty sclat trace"),
             (["--begin", "soon", TRACE], "--begin soon"), (["--frobnicate", TRACE], "unknown"),
             (["--limit", "-3", TRACE], "--limit -3"), ([], "which trace"),
             ([TRACE, "--begin"], "--begin needs a value")]
    for args, msg in cases:
        r = lami(*args)
        assert r.returncode != 0, args
        err = json.loads(r.stdout)
        assert set(err) <= {"error-message", "error-code"}, err
        assert msg in err["error-message"], (args, err)


def test_test_compatibility(tmp_path):
    assert lami("--test-compatibility", TRACE).returncode == 0
    kernel = str(tmp_path / "kernel")
    assert run_sclat("convert", TRACE, "-o", kernel).returncode == 0
    assert lami("--test-compatibility", kernel).returncode != 0
    assert lami("--test-compatibility", str(tmp_path)).returncode != 0


def test_thresholds_table_follows_threshold_updates(root, lttng_sessiond, tmp_path):
    trace = str(tmp_path / "trace")
    # The default policy learns getppid's latency and moves its threshold.
    r = run_sclat("record", "-o", trace, "--duration", "4s", "--", workload("syscalls"),
                  "--fast", "300000")
    assert r.returncode == 0, r.stderr
    changes = []
    for msg in bt2.TraceCollectionMessageIterator(trace):
        if type(msg) is bt2._EventMessageConst and msg.event.name == "sclat:threshold_update":
            p = msg.event.payload_field
            if str(p["class"]):
                continue  # a class's (classes = auto): the table has the syscalls' own
            changes.append((msg.default_clock_snapshot.ns_from_origin, str(p["syscall"]),
                            int(p["old_ns"]), int(p["new_ns"])))
    assert changes, "the policy moved no threshold"
    r = lami(trace)
    assert r.returncode == 0, r.stdout
    rows = table(json.loads(r.stdout)["results"], "thresholds")["data"]
    assert [(value(c[0]), c[1]["name"], value(c[2]), value(c[3])) for c in rows] == changes


BREAKDOWN = ("on_cpu_ns", "runqueue_ns", "sleep_ns", "io_wait_ns")


def test_lami_tables_carry_the_breakdown_and_target(pipe_trace):
    """sclat-lami on a trace that explains its outliers: per syscall the shares of where their
    time went (those of sclat report), per outlier its target and the four parts."""
    trace, known, ev = pipe_trace
    classes = metadata()["table-classes"]
    r = lami(trace)
    assert r.returncode == 0, r.stdout + r.stderr
    res = json.loads(r.stdout)["results"]
    for t in res:
        for row in t["data"]:
            for cell, col in zip(row, classes[t["class"]]["column-descriptions"]):
                check_cell(cell, col["class"])
    rep = json.loads(run_sclat("report", trace, "--json").stdout)
    shares = {g["syscall"]: [g["breakdown"][k[:-3] + "_share"] for k in BREAKDOWN]
              for g in rep["rows"]}
    rows = table(res, "syscall-latency")["data"]
    assert {r[0]["name"] for r in rows} == set(shares)
    for r in rows:
        assert [value(c) for c in r[9:13]] == pytest.approx(shares[r[0]["name"]], abs=1e-6), r
    top = table(res, "top-outliers")["data"]
    read = [r for r in top if r[2]["tid"] == known["reader_tid"] and r[1]["name"] == "read"]
    assert len(read) == 1, top
    assert read[0][7] == {"class": "string", "value": "pipe:[%d]" % known["pipe_ino"]}
    assert [value(c) for c in read[0][8:12]] == [ev[k] for k in BREAKDOWN]


def test_lami_tables_of_an_older_trace_say_unknown():
    """The version-1 fixture has no explanation: those cells are unknown, never an error."""
    res = results()
    for row in table(res, "syscall-latency")["data"]:
        assert row[9:13] == [{"class": "unknown"}] * 4, row
    for row in table(res, "top-outliers")["data"]:
        assert row[7:12] == [{"class": "unknown"}] * 5, row


def outlier_fields(trace):
    """Payload field names and kinds of sclat:syscall_outlier, from a trace's trace class."""
    for msg in bt2.TraceCollectionMessageIterator(trace):
        if type(msg) is bt2._EventMessageConst and msg.event.name == "sclat:syscall_outlier":
            return {name: ("string" if isinstance(f, bt2._StringFieldConst) else
                           "long" if isinstance(f, bt2._IntegerFieldConst) else "other")
                    for name, f in msg.event.payload_field.items()}
    raise AssertionError("no outlier in the trace")


def test_xml_analysis_is_well_formed_and_names_real_fields(pipe_trace):
    """Of the fields a trace of today has; the segment table has the breakdown and target."""
    root = ET.parse(XML).getroot()
    assert root.tag == "tmfxml"
    pattern = root.find("pattern")
    assert pattern.find("head/traceType").get("id") == "org.eclipse.linuxtools.lttng2.ust.tracetype"
    fields = outlier_fields(pipe_trace[0])
    events = {t.get("event") for t in root.iter("transition")}
    assert events == {"sclat:syscall_outlier"}
    for el in root.iter():
        if el.get("type") == "eventField":
            assert el.get("value") in fields, el.get("value")
    seg = pattern.find("patternHandler/action/segment")
    assert seg.find("segTime/begin").get("value") == "entry_epoch_ns"
    assert seg.find("segTime/duration").get("value") == "latency_ns"
    content = {f.get("name"): (f.get("type"), f.find("stateValue").get("value"))
               for f in seg.iter("segField")}
    assert {"syscall", "tid", "comm", "ret", "threshold", "target", "on_cpu", "runqueue",
            "sleep", "io_wait"} <= set(content)
    for name, (kind, field) in content.items():
        assert fields[field] == kind, (name, kind, field)
    # Every action a transition runs is defined.
    actions = {a.get("id") for a in pattern.iter("action")}
    for t in root.iter("transition"):
        assert set(t.get("action").split(":")) <= actions


def provider_fields(event):
    """The field names of sclat:EVENT as user/outputs/lttng_provider.h declares them."""
    with open(os.path.join(ROOT, "user", "outputs", "lttng_provider.h")) as f:
        text = f.read()
    body = text.split("LTTNG_UST_TRACEPOINT_EVENT(sclat, %s," % event)[1].split("\n)\n")[0]
    return set(re.findall(r"lttng_ust_field_\w+\((?:[\w ]+, )?(\w+),", body))


def test_xml_state_holds_calls_in_flight_until_their_outlier():
    root = ET.parse(XML).getroot()
    sp = root.find("stateProvider")
    assert sp.find("head/traceType").get("id") == "org.eclipse.linuxtools.lttng2.ust.tracetype"
    view = root.find("timeGraphView")
    assert view.find("head/analysis").get("id") == sp.get("id")
    handlers = {h.get("eventName"): h for h in sp.iter("eventHandler")}
    assert set(handlers) == {"sclat:syscall_inflight", "sclat:syscall_outlier"}
    for name, h in handlers.items():
        fields = provider_fields(name.split(":")[1])
        assert {"tid", "syscall", "entry_ts"} <= fields, fields
        for el in h.iter():
            if el.get("type") == "eventField":
                assert el.get("value") in fields, (name, el.get("value"))
        path = [a.get("value") for a in h.iter("stateAttribute")]
        assert path == ["Threads", "tid"]
    # In flight: the syscall's name; returned: no state.
    assert handlers["sclat:syscall_inflight"].find("stateChange/stateValue").get("value") == \
        "syscall"
    assert handlers["sclat:syscall_outlier"].find("stateChange/stateValue").get("type") == "null"
