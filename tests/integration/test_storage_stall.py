# SPDX-License-Identifier: GPL-2.0-only
"""Calls that waited for storage (README.md, "What an outlier is"): where the reads of
a kind of file seldom go to the device, one that did is a stall, judged at its storage
threshold, whatever the tail of the reads the page cache served; where they often do,
they are its normal.

The device is tests/workloads/slowfs, a FUSE file system of the test's own whose every
read takes 2 ms: the same on any machine. The workload is tests/workloads/mixed fds on
its file: page cache reads, and one read in K of a page evicted just before. Real BPF
programs (the I/O wait seen at sched_switch), the real controller, `sclat watch`, the
trace of `sclat record` and `sclat report`.
"""
import json
import os
import time

from conftest import SLOWFS_DELAY_MS as DELAY_MS, Trace, Watch, run_sclat, workload


POLICY = """\
[global]
interval = 200ms
budget = 0
classes = fd
[default]
mode = off
[syscall read]
mode = adaptive
false_alarm = 1e-5
min_samples = 1000
margin = {margin}
"""


def run_fds(tmp_path, mnt, margin, duration, slow_every):
    """`sclat watch` on mixed fds reading slowfs's file: the watch, when it has ended,
    the workload's report, and read's fd:file class in the last status."""
    policy = tmp_path / "policy.ini"
    policy.write_text(POLICY.format(margin=margin))
    report = tmp_path / "mixed.json"
    env = dict(os.environ, SCLAT_RUN_DIR=str(tmp_path / "run"))
    w = Watch(env, "--policy", str(policy), "--",
              workload("mixed"), "fds", "--existing", str(mnt / "data"),
              "--duration", str(duration), "--warmup", str(duration / 3),
              "--slow-every", str(slow_every), "--report", str(report))
    last = {}
    try:
        deadline = time.monotonic() + duration + 30
        while w.proc.poll() is None and time.monotonic() < deadline:
            st = w.try_status()
            read = next((s for s in (st or {}).get("syscalls", []) if s["syscall"] == "read"),
                        None)
            cls = {c["class"]: c for c in (read or {}).get("classes", [])}
            if "fd:file" in cls:
                last = cls["fd:file"]
            time.sleep(0.5)
        assert w.wait(timeout=30) == 0, "".join(w.stderr)
    finally:
        w.stop()
    fds = next(p for p in map(json.loads, open(report)) if p["process"] == "fds")
    return w, fds, last


def disk_reads(w, fds):
    """The outliers of the workload's reads of an evicted page (4095 bytes) after its
    warm-up (a third of the run)."""
    warm = fds["start_ns"] + (fds_duration(w) * 1e9) / 3
    return [o for o in w.outliers() if o["pid"] == fds["pid"] and o["syscall"] == "read" and
            o["args"][2] == 4095 and o["ts_ns"] >= warm]


def fds_duration(w):
    return float(w.proc.args[w.proc.args.index("--duration") + 1])


def test_seldom_reads_from_a_slow_device_are_stalls_under_a_high_threshold(root, tmp_path,
                                                                           slowfs):
    # A margin that puts the page cache reads' threshold far above the device's 2 ms:
    # only the storage threshold can catch the reads that went to it.
    w, fds, cls = run_fds(tmp_path, slowfs, margin=1000, duration=9, slow_every=5000)
    assert fds["file_slow_warm"] >= 50, fds
    # Read's fd:file class knows its calls seldom wait for storage, and where those stall.
    assert cls.get("io_ns", 0) > 0, cls
    assert 0 < cls["io_share"] < 5 * 1e-4 * 2, cls
    assert cls["io_ns"] < DELAY_MS * 1e6 < cls["threshold_ns"], cls
    got = disk_reads(w, fds)
    assert len(got) >= 0.99 * fds["file_slow_warm"], (len(got), fds)
    for o in got:
        assert o["storage_stall"] is True and o["class"] == "fd:file", o
        assert o["latency_ns"] >= DELAY_MS * 1e6 and o["threshold_ns"] < DELAY_MS * 1e6, o
        assert o["breakdown"]["io_wait_ns"] > 0, o
    # Each explains itself as an outlier past its class's threshold does: where it waited
    # in the kernel (a block past the storage threshold takes the stack).
    with_stack = [o for o in got if o["kernel_stack"]]
    assert len(with_stack) >= 0.99 * len(got), [o["kernel_stack"] for o in got[:3]]
    # The page cache reads stay under their own threshold.
    cached = [o for o in w.outliers() if o["pid"] == fds["pid"] and o["args"][2] == 4096 and
              not o["storage_stall"]]
    assert len(cached) <= 2, cached[:3]


def test_reads_that_all_wait_for_storage_are_the_normal(root, tmp_path, slowfs):
    # Every file read goes to the device: waiting for it is what these reads do.
    w, fds, cls = run_fds(tmp_path, slowfs, margin=1, duration=8, slow_every=1)
    assert fds["file_slow_warm"] >= 200, fds
    # (Its share counts the reads of the file whole at the start too, from the page cache.)
    assert cls.get("io_share", 0) > 0.1 and cls["io_ns"] == 0, cls
    got = disk_reads(w, fds)
    assert not [o for o in got if o["storage_stall"]], got[:3]
    # Judged as any call at a false-alarm rate of 1e-5: a handful at most, no flood.
    assert len(got) <= 5, (len(got), fds["file_slow_warm"])


def test_the_trace_and_the_report_say_which_were_storage_stalls(root, tmp_path, slowfs):
    policy = tmp_path / "policy.ini"
    policy.write_text(POLICY.format(margin=1000))
    out_dir = tmp_path / "trace"
    r = run_sclat("record", "-o", str(out_dir), "--policy", str(policy), "--",
                  workload("mixed"), "fds", "--existing", str(slowfs / "data"),
                  "--duration", "6", "--report", "/dev/null")
    assert r.returncode == 0, r.stderr
    trace = Trace(out_dir, keep={"sclat:syscall_outlier", "sclat:threshold_update",
                                 "sclat:session_begin"})
    assert trace.named("sclat:session_begin")[0]["fields"]["abi_version"] == 13
    outs = [e["fields"] for e in trace.named("sclat:syscall_outlier")]
    stalls = [o for o in outs if o["storage_stall"]]
    assert len(stalls) >= 20, len(outs)
    # Judged at the storage threshold of their class, which its updates say.
    io_ns = {e["fields"]["io_ns"] for e in trace.named("sclat:threshold_update")
             if e["fields"]["class"] == "fd:file"}
    for o in stalls:
        assert o["class"] == "fd:file" and o["io_wait_ns"] > 0, o
        assert o["threshold_ns"] < o["latency_ns"], o
    # A read of a page the kernel was already reading (4094 bytes: mincore found it out of
    # the cache) waits for what is left of the device's time; a read of a page the
    # workload evicted waits all of it.
    evicted = [o for o in stalls if o["args"][2] == 4095]
    assert len(evicted) >= 20, len(stalls)
    for o in evicted:
        assert o["threshold_ns"] < DELAY_MS * 1e6 <= o["latency_ns"], \
            (o["threshold_ns"], o["latency_ns"], o["io_wait_ns"])
    assert any(0 < v < DELAY_MS * 1e6 for v in io_ns), io_ns
    # The report's top outliers say so, in JSON and in text.
    r = run_sclat("report", "--json", "--top", "10", str(out_dir))
    assert r.returncode == 0, r.stderr
    top = json.loads(r.stdout)["top"]
    # Each as the trace has it (a disk read may also pass a young class's bound, or its
    # class's threshold, as any call: then it is no storage stall).
    judged = {(o["tid"], o["latency_ns"]): o["storage_stall"] for o in outs}
    assert top and any(o["storage_stall"] for o in top), top
    for o in top:
        assert o["storage_stall"] == judged[(o["tid"], o["latency_ns"])], o
    r = run_sclat("report", "--top", "10", str(out_dir))
    assert r.returncode == 0 and "waited for storage, which its calls seldom do" in r.stdout, \
        r.stdout
