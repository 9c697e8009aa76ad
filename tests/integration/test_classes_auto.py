# SPDX-License-Identifier: GPL-2.0-only
"""classes = auto: the real BPF programs key read's calls by process and kind of file,
and the controller gives a threshold of its own only to what has a normal of its own.
On tests/workloads/mixed's two mixes, what a user checks: the stalls caught, the slow
normal not flooded, and `sclat status` saying what split and what is judged by whom.

Each test runs `sclat watch --json --policy FILE -- mixed ...` with its own
SCLAT_RUN_DIR and asks it for its status through its control socket.
"""
import json
import os

from conftest import Watch, fed_pipe_script, run_sclat, wait_until, workload

POLICY = """\
[global]
interval = 250ms
budget = 0
classes = auto
[default]
mode = off
[syscall read]
mode = adaptive
quantile = 0.999
margin = 1
min_samples = 1000
"""

DURATION, WARMUP = 10, 4
TARGET = 0.001  # 1 - quantile


def watch_auto(tmp_path, mix, extra=()):
    policy = tmp_path / "auto.ini"
    policy.write_text(POLICY)
    report = tmp_path / "mixed.json"
    env = dict(os.environ, SCLAT_RUN_DIR=str(tmp_path / "run"))
    w = Watch(env, "--policy", str(policy), "--", workload("mixed"), mix, "--duration",
              str(DURATION), "--warmup", str(WARMUP), "--report", str(report), *extra)
    return w, report


def read_classes(w):
    """read's classes in `sclat status --json`, by name."""
    st = w.try_status()
    s = next((s for s in st["syscalls"] if s["syscall"] == "read"), None) if st else None
    return {c["class"]: c for c in s.get("classes", [])} if s else {}


def run_mix(tmp_path, mix, settled, extra=()):
    """Watch mix (and its extra arguments) to its end, polling the status until
    settled(classes) holds: the last classes seen, the outliers, and the workload's report
    by process."""
    w, report = watch_auto(tmp_path, mix, extra)
    last = {}
    try:
        def poll():
            last.clear()
            last.update(read_classes(w))
            return settled(last)
        ok = wait_until(poll, timeout=DURATION - 1, step=0.5)
        text = run_sclat("status", "--pid", str(w.proc.pid), env=w.env, timeout=30).stdout
        assert w.wait() == 0, "".join(w.stderr)
    finally:
        w.stop()
    assert ok, "classes: %s" % json.dumps(last, indent=1)
    procs = {p["process"]: p for p in map(json.loads, open(report))}
    return last, text, w.outliers(), procs


def after_warmup(outliers, pid, size, warm_ns):
    return sum(1 for e in outliers if e["syscall"] == "read" and e["pid"] == pid and
               e["args"][2] == size and e["ts_ns"] >= warm_ns)


def test_mixed_procs_splits_the_slow_process_and_catches_the_stalls(root, tmp_path):
    """A's stalled pipe reads (1 in 5000 of A's) are A's tail: judged by the syscall's
    threshold, learnt without B, and caught; B (every read 3 ms) splits and learns its
    normal."""
    def settled(cl):
        b = [c for n, c in cl.items() if n.startswith("pid ") and "(mixed-b)" in n]
        a = [c for n, c in cl.items() if "(mixed-a) fd:pipe" in n]
        return (b and a and all(c["judged_by"] == c["class"].split(" fd:")[0] for c in b) and
                all(c.get("auto") == "merged" and c["judged_by"] == "" for c in a))
    cl, text, outliers, procs = run_mix(tmp_path, "procs", settled)
    a, b = procs["A"], procs["B"]
    name_b = "pid %d (mixed-b)" % b["pid"]
    assert "(auto: by %s)" % name_b in text, text
    assert "(auto: by the syscall's)" in text, text
    # The syscall's threshold for A is A's: its stalls (2 ms) are above it.
    a_pipe = cl["pid %d (mixed-a) fd:pipe" % a["pid"]]
    assert a_pipe["threshold_ns"] < 1_000_000, a_pipe
    assert not a_pipe["own"]
    warm = a["start_ns"] + WARMUP * 10**9
    caught = after_warmup(outliers, a["pid"], 2, warm)
    assert a["stalls_warm"] > 0 and caught >= 0.95 * a["stalls_warm"], \
        "%d of %d stalls caught" % (caught, a["stalls_warm"])
    # B's normal reads are not flooded (one threshold for all would emit them at ~100x).
    emitted = after_warmup(outliers, b["pid"], 3, warm)
    assert emitted <= 10 * TARGET * b["normal_warm"] + 10, \
        "%d of B's %d reads emitted" % (emitted, b["normal_warm"])


def test_mixed_fds_splits_the_socket_and_catches_the_disk_reads(root, tmp_path, slowfs):
    """One process: its disk reads are file reads among page-cache ones (caught at the
    file's threshold); its socket reads wait 1 ms, a share of its calls: they split. The
    file is slowfs's, whose reads from the device take 2 ms on any machine: a disk's
    reads may be as fast as a VM's page cache reads its host pauses (what the storage
    threshold is for, test_storage_stall.py; a quantile's rule has none)."""
    def settled(cl):
        sock = [c for n, c in cl.items() if "(mixed-fds) fd:socket" in n]
        return sock and any(c.get("auto") == "split" and c["own"] for c in sock)
    cl, text, outliers, procs = run_mix(tmp_path, "fds", settled,
                                        ("--existing", str(slowfs / "data")))
    f = procs["fds"]
    assert "(auto: split)" in text, text
    file_cell = cl["pid %d (mixed-fds) fd:file" % f["pid"]]
    assert file_cell["auto"] == "merged", file_cell
    assert file_cell["threshold_ns"] < 1_000_000, file_cell
    warm = f["start_ns"] + WARMUP * 10**9
    caught = after_warmup(outliers, f["pid"], 4095, warm)
    assert f["file_slow_warm"] > 0 and caught >= 0.95 * f["file_slow_warm"], \
        "%d of %d disk reads caught" % (caught, f["file_slow_warm"])
    emitted = after_warmup(outliers, f["pid"], 1, warm)
    assert emitted <= 10 * TARGET * f["socket_warm"] + 10, \
        "%d of %d socket reads emitted" % (emitted, f["socket_warm"])


# A shell-like reader: a pipe whose writer writes 10 bytes every 0.2 s, read a byte at a
# time: 9 reads in 10 return at once, the 10th waits about 0.2 s for input. At the end it
# prints its pid, its reads, and those that waited 50 ms or more.
IDLE_READER = fed_pipe_script(10, """
reads = waits = 0
while True:
    t = time.monotonic()
    if not os.read(r, 1):
        break
    reads += 1
    waits += time.monotonic() - t >= 0.05
os.wait()
print("idle-reader", os.getpid(), reads, waits, flush=True)
""")


def test_a_quiet_process_waiting_for_input_is_not_emitted_at_each_wait(root, tmp_path):
    """Under the built-in policy (classes = auto, a false-alarm rate), a process whose reads
    mostly return at once but one in ten waits 0.2 s for input has a median like every
    reader's: its waits are a tail of its own, not stalls, once they are more of its calls
    than stalls may be. Beside a busy reader, only its first few are emitted (the build
    before emitted every one of them)."""
    env = dict(os.environ, SCLAT_RUN_DIR=str(tmp_path / "run"))
    script = tmp_path / "idle.py"
    script.write_text(IDLE_READER)
    out = tmp_path / "idle.out"
    cmd = "%s --duration 14 --inject-every 0 --report /dev/null & " \
          "/usr/bin/python3 %s 12 > %s & wait" % (workload("latgen"), script, out)
    w = Watch(env, "--", "/bin/sh", "-c", cmd)
    try:
        assert w.wait(timeout=60) == 0, "".join(w.stderr)
    finally:
        w.stop()
    _, pid, reads, waits = out.read_text().split()
    pid, reads, waits = int(pid), int(reads), int(waits)
    assert waits >= 40 and reads >= 9 * waits, (reads, waits)
    emitted = [o for o in w.outliers() if o["pid"] == pid and o["syscall"] == "read" and
               o["latency_ns"] >= 50_000_000]
    assert len(emitted) <= 8, (len(emitted), waits, [o["class"] for o in emitted[:3]])
