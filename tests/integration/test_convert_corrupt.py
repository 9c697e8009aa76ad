# SPDX-License-Identifier: GPL-2.0-only
"""Corrupt data streams (issue 38 item 3): a real trace with 64 bytes flipped at several places
of a stream file, read by report, report --json, convert and sclat-lami. babeltrace2 2.0.4
aborts, crashes or allocates without bound on many such streams; sclat's readers run it fenced,
so each variant ends in a result or one clear error line, never a signal death, and a failed
convert leaves no output directory behind.
"""
import json
import os
import random
import shutil
import subprocess

import pytest

from conftest import ROOT, SCLAT, run_sclat

LAMI = os.path.join(ROOT, "tracer-plugins", "tracecompass", "sclat-lami")
SEEDS = range(40)   # deterministic: the same offsets and bytes on every run


@pytest.fixture(scope="module")
def small_trace(root, lttng_daemon, tmp_path_factory):
    """A real trace: a shell that sleeps 5 ms forty times, outliers above 2 ms (a few
    packets on the CPUs it ran on)."""
    lttng_daemon.start()
    trace = str(tmp_path_factory.mktemp("small") / "trace")
    r = run_sclat("record", "-o", trace, "--threshold", "2ms", "--", "sh", "-c",
                  "for i in $(seq 40); do sleep 0.005; done")
    assert r.returncode == 0, r.stderr
    return trace


def flipped(trace, seed, dest):
    """A copy of trace at dest with 64 bytes of one of its streams XORed with non-zero bytes,
    both chosen by seed; (stream, offset)."""
    rnd = random.Random(seed)
    shutil.copytree(trace, dest)
    streams = sorted(os.path.join(d, f) for d, _, fs in os.walk(dest) for f in fs
                     if f.startswith("sclat_") and not d.endswith("index"))
    path = rnd.choice(streams)
    data = bytearray(open(path, "rb").read())
    off = rnd.randrange(max(1, len(data) - 64))
    for i in range(off, min(len(data), off + 64)):
        data[i] ^= rnd.randrange(1, 256)
    with open(path, "wb") as f:
        f.write(data)
    return os.path.relpath(path, dest), off


def one_clear_line(r, cmd, where):
    """r, the run of cmd on the variant where, ended in a result or one clear error."""
    cmd = (cmd, where)
    assert r.returncode in (0, 1), (cmd, r.returncode, r.stderr)   # never a signal death
    if cmd[0][0] == LAMI:
        doc = json.loads(r.stdout)
        assert r.returncode == 0 or "error-message" in doc, (cmd, doc)
        return
    if r.returncode:
        lines = r.stderr.splitlines()
        assert lines and all(line.startswith("sclat: ") for line in lines), (cmd, r.stderr)
        assert "Assertion" not in r.stderr and "GLib" not in r.stderr, (cmd, r.stderr)


def test_corrupt_streams_end_in_a_result_or_one_clear_error(small_trace, tmp_path):
    crashes = {}
    for seed in SEEDS:
        trace = str(tmp_path / ("t%d" % seed))
        where = flipped(small_trace, seed, trace)
        out = str(tmp_path / ("k%d" % seed))
        said = {}
        for cmd in ([SCLAT, "report", trace], [SCLAT, "report", trace, "--json"],
                    [SCLAT, "convert", trace, "-o", out], [LAMI, trace]):
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
            one_clear_line(r, cmd, where)
            said[cmd[1]] = r
        conv = said["convert"]
        if conv.returncode:
            assert not os.path.exists(out), (where, conv.stderr)
        else:
            assert os.path.exists(os.path.join(out, "kernel", "metadata")), where
        # convert reads what report reads: it crashes only where babeltrace2 crashed there too
        # (before, it aborted in its own seek after a pass that ended on an error).
        if "crashed" in conv.stderr:
            assert "crashed" in said["report"].stderr, (where, conv.stderr)
            crashes[seed] = where
        shutil.rmtree(trace)
        shutil.rmtree(out, ignore_errors=True)
    # The variants do reach babeltrace2's crashes: the fence is what this test is about.
    assert crashes, "no variant made babeltrace2 crash: the test proves nothing"
