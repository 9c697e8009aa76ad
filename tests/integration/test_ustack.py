# SPDX-License-Identifier: GPL-2.0-only
"""User stacks of slow syscalls: the BPF capture (kern-bpf/ustack.bpf.h, loaded
through tests/bpf/ustack_check.bpf.c by .output/tests/ustack_trace), the map
tracker, the libdwfl unwinder and the worker queue of user/explain/, on real
processes: a program built without frame pointers, one without CFI, and
Debian's own stripped dd and sync, unwound after they have exited.
"""
import json
import os
import re
import shutil
import subprocess

import pytest

from conftest import ROOT, workload

USTACK_TRACE = os.path.join(ROOT, ".output", "tests", "ustack_trace")
NR_READ, NR_FSYNC, NR_GETPPID, NR_SYNC = 0, 74, 110, 162


def ustack_trace(tmp_path, *args):
    """Run ustack_trace; returns (stacks, summary, the command's stdout)."""
    out = tmp_path / "stacks.json"
    r = subprocess.run([USTACK_TRACE, "--out", str(out), *args], capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = [json.loads(l) for l in out.read_text().splitlines()]
    stacks = [l for l in lines if "frames" in l]
    summary = [l["summary"] for l in lines if "summary" in l]
    assert len(summary) == 1, lines
    assert summary[0]["exit_status"] == 0, (summary, r.stdout, r.stderr)
    return stacks, summary[0], r.stdout


def function_names(stack):
    """The function of each frame ("slow_read+0x75 (callchain) ..." -> "slow_read")."""
    return [re.split(r"[+ ]", f["text"])[0] for f in stack["frames"]]


def build_id_of(path):
    out = subprocess.run(["readelf", "-n", path], capture_output=True, text=True,
                         check=True).stdout
    return re.search(r"Build ID: ([0-9a-f]+)", out).group(1)


def addr2line_function(path, rel):
    """What binutils' addr2line names an address of the binary: a second, independent reader
    of the raw addresses the trace keeps."""
    out = subprocess.run(["addr2line", "-f", "-e", path, rel], capture_output=True, text=True,
                         check=True).stdout
    return out.splitlines()[0]


@pytest.mark.parametrize("flavour", ["tp_btf", "raw_tp"])
def test_stack_of_a_slow_read_lists_slow_read_handle_request_main(root, tmp_path, flavour):
    prog = workload("callchain")
    args = ["--nr", str(NR_READ), "--min-latency", "10000000"]
    if flavour == "raw_tp":
        args.append("--raw-tp")
    stacks, summary, _ = ustack_trace(tmp_path, *args, "--", prog, "pipe")
    # One read waited for the writer thread's 20 ms; none of ld.so's reads is that slow.
    assert len(stacks) == 1, stacks
    s = stacks[0]
    assert s["latency_ns"] >= 15000000
    names = function_names(s)
    assert names[0] == "read", s["frames"]
    assert names[1:4] == ["slow_read", "handle_request", "main"], s["frames"]
    assert s["end"] == "outermost", s
    # The program has DWARF: each of its frames has its source line.
    for f in s["frames"][1:4]:
        assert re.search(r" tests/workloads/callchain\.c:\d+$", f["text"]), f
        assert f["path"] == prog
        assert f["build_id"] == build_id_of(prog)
    # The raw address and build-id are enough to name the frame again, with other tools.
    assert addr2line_function(prog, s["frames"][1]["rel"]) == "slow_read"
    assert summary["unwound"] == 1 and summary["dropped"] == 0


def test_stack_of_a_thread_goes_down_to_its_start(root, tmp_path):
    stacks, _, _ = ustack_trace(tmp_path, "--nr", str(NR_READ), "--min-latency", "10000000",
                                "--", workload("callchain"), "thread")
    assert len(stacks) == 1, stacks
    s = stacks[0]
    assert s["tid"] != s["pid"]
    names = function_names(s)
    assert names[:4] == ["read", "slow_read", "handle_request", "reader_thread"], s["frames"]
    assert "start_thread" in names, s["frames"]
    assert s["end"] == "outermost", s


def test_a_hole_in_the_stack_keeps_the_copy_below_it(root, tmp_path):
    # handle_gap()'s frame holds pages dropped with madvise: a read of the whole stack
    # faults there, and what lies below the hole must still be copied and unwound.
    stacks, _, _ = ustack_trace(tmp_path, "--nr", str(NR_READ), "--min-latency", "10000000",
                                "--", workload("callchain"), "gap")
    assert len(stacks) == 1, stacks
    s = stacks[0]
    assert 0 < s["stack_bytes"] < 16 * 4096
    assert function_names(s)[:3] == ["read", "slow_read", "handle_gap"], s["frames"]
    assert s["end"] == "stack-copy", s


def fde_ranges(path):
    """[start, end) of every FDE in the binary's CFI (.eh_frame and .debug_frame)."""
    out = subprocess.run(["readelf", "--debug-dump=frames", path], capture_output=True,
                         text=True, check=True).stdout
    return [(int(a, 16), int(b, 16)) for a, b in re.findall(r"pc=([0-9a-f]+)\.\.([0-9a-f]+)", out)]


def symbol_address(path, name):
    out = subprocess.run(["nm", path], capture_output=True, text=True, check=True).stdout
    return int(re.search(r"^([0-9a-f]+) [tT] %s$" % name, out, re.M).group(1), 16)


def test_frame_pointers_carry_the_unwind_where_a_binary_has_no_cfi(root, tmp_path):
    prog = workload("callchain-fp")
    # The premise: no CFI covers the program's own functions.
    ranges = fde_ranges(prog)
    for fn in ("slow_read", "handle_request", "main"):
        addr = symbol_address(prog, fn)
        assert not any(a <= addr < b for a, b in ranges), fn
    stacks, _, _ = ustack_trace(tmp_path, "--nr", str(NR_READ), "--min-latency", "10000000",
                                "--", prog, "pipe")
    assert len(stacks) == 1, stacks
    assert function_names(stacks[0])[1:4] == ["slow_read", "handle_request", "main"], \
        stacks[0]["frames"]


def debian_binary(name):
    path = shutil.which(name)
    assert path, "%s not installed" % name
    return os.path.realpath(path)


def assert_reaches_program(stack, libc_wrapper, program):
    """The stack starts in libc's syscall wrapper and goes on into the program's own code,
    named by symbol where it has one, as program+0xoff where it is stripped."""
    frames = stack["frames"]
    assert function_names(stack)[0] == libc_wrapper, frames
    assert "libc.so" in frames[0]["path"], frames
    own = [f for f in frames[1:] if f.get("path") == program]
    assert own, "no frame in %s: %s" % (program, frames)
    base = os.path.basename(program)
    for f in own:
        assert re.match(r"(%s\+0x[0-9a-f]+$|\S+\+0x[0-9a-f]+ \(%s\))" % (base, base),
                        f["text"]), f
        assert f["build_id"] == build_id_of(program)
    # Past the program's frames: libc's start code and the program's _start, the outermost.
    assert stack["end"] == "outermost", stack


def test_dd_fsync_stack_reaches_dd_after_it_exited(root, tmp_path):
    dd = debian_binary("dd")
    target = tmp_path / "data"
    stacks, summary, _ = ustack_trace(
        tmp_path, "--hold", "--nr", str(NR_FSYNC), "--",
        dd, "if=/dev/zero", "of=%s" % target, "bs=64k", "count=16", "conv=fsync")
    assert len(stacks) == 1, stacks
    # Unwound once dd was gone: its maps came from the tracker, not from /proc.
    assert stacks[0]["proc_gone"] is True
    assert summary["maps"]["late_scans"] == 0
    assert_reaches_program(stacks[0], "fsync", dd)


def test_sync_stack_reaches_sync_after_it_exited(root, tmp_path):
    sync = debian_binary("sync")
    stacks, summary, _ = ustack_trace(tmp_path, "--hold", "--nr", str(NR_SYNC), "--", sync)
    assert len(stacks) == 1, stacks
    assert stacks[0]["proc_gone"] is True
    assert summary["maps"]["late_scans"] == 0
    assert_reaches_program(stacks[0], "sync", sync)


def test_a_burst_beyond_the_queue_is_dropped_and_counted_while_the_drain_goes_on(root, tmp_path):
    # The worker blocks after its first stack until the ring buffer is drained: were the
    # consumer ever to wait for the worker, this run would never end.
    calls = 2000
    stacks, s, out = ustack_trace(tmp_path, "--stall", "--queue", "16", "--ringbuf",
                                  str(32 << 20), "--nr", str(NR_GETPPID), "--",
                                  workload("callchain"), "burst", str(calls))
    assert json.loads(out)["calls"] == calls
    # Every call is accounted for: in the ring buffer (it holds them all) or counted lost.
    assert s["records"] + s["lost"] == calls
    assert s["lost"] == 0
    # The queue held 16; the rest was refused at once and counted, never waited for.
    assert s["submitted"] == 16
    assert s["dropped"] == s["records"] - 16
    assert s["unwound"] == s["submitted"] == len(stacks)
    for st in stacks:
        assert function_names(st)[1:4] == ["slow_read", "handle_request", "main"], st
