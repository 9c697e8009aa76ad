# SPDX-License-Identifier: GPL-2.0-only
"""Binaries are input too (issue 38): the unwinder of user stacks reads, as root, whatever ELF
a traced process maps. A shared object whose .debug_str inflates to 900 MiB must cost sclat
neither its memory nor the other processes' stacks nor its Ctrl-C. And a binary is read as its
process sees it: a container's file at a path where the host has another, a binary run from a
memfd or deleted since it started.

The programs and the hostile shared object are built by the test (gcc, objcopy).
"""
import os
import re
import signal
import struct
import subprocess
import time
import zlib

import pytest

from conftest import Watch, env_of, wait_until

SHF_COMPRESSED = 0x800
BOMB_MIB = 900

LOOPER = r"""
#include <dlfcn.h>
#include <stdio.h>
#include <unistd.h>
/* Call hostile_wait of the shared object argv[1] (or our own WAIT_FN) forever: 20 ms each. */
#ifndef WAIT_FN
#define WAIT_FN benign_wait
#endif
__attribute__((noinline)) void WAIT_FN(void) { usleep(20000); }
int main(int argc, char **argv)
{
	void (*fn)(void) = WAIT_FN;
	if (argc > 1) {
		void *h = dlopen(argv[1], RTLD_NOW);
		if (!h || !(fn = (void (*)(void))dlsym(h, "hostile_wait"))) {
			fprintf(stderr, "%s\n", dlerror());
			return 1;
		}
	}
	printf("ready\n");
	fflush(stdout);
	for (;;)
		fn();
}
"""

HOSTILE_SO = r"""
#include <unistd.h>
__attribute__((noinline)) void hostile_wait(void) { usleep(20000); }
"""


def gcc(tmp, name, source, *flags):
    src = tmp / (name + ".c")
    src.write_text(source)
    out = tmp / name
    subprocess.run(["gcc", "-O1", "-o", str(out), str(src), *flags], check=True)
    return out


def set_section_flags(path, name, flags):
    """Or flags into the sh_flags of section name of the ELF64 file at path."""
    data = bytearray(path.read_bytes())
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3a)
    stroff, = struct.unpack_from("<Q", data, shoff + shstrndx * shentsize + 0x18)
    for i in range(shnum):
        at = shoff + i * shentsize
        name_off, = struct.unpack_from("<I", data, at)
        end = data.index(b"\0", stroff + name_off)
        if data[stroff + name_off:end] == name.encode():
            old, = struct.unpack_from("<Q", data, at + 8)
            struct.pack_into("<Q", data, at + 8, old | flags)
            path.write_bytes(bytes(data))
            return
    raise AssertionError("%s has no %s" % (path, name))


def inflation_bomb(tmp, mib):
    """hostile.so: hostile_wait(), and a zlib-compressed .debug_str that inflates to mib MiB
    (about 1 MB in the file)."""
    so = gcc(tmp, "hostile.so", HOSTILE_SO, "-shared", "-fPIC")
    c = zlib.compressobj(9)
    zero = bytes(1 << 20)
    blob = [struct.pack("<IIQQ", 1, 0, mib << 20, 1)]  # Elf64_Chdr: ELFCOMPRESS_ZLIB
    blob += [c.compress(zero) for _ in range(mib)]
    blob.append(c.flush())
    (tmp / "debug_str.z").write_bytes(b"".join(blob))
    subprocess.run(["objcopy", "--add-section", ".debug_str=%s" % (tmp / "debug_str.z"),
                    "--set-section-flags", ".debug_str=readonly,debug", str(so)], check=True)
    set_section_flags(so, ".debug_str", SHF_COMPRESSED)
    return so


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("hostile")
    return gcc(tmp, "looper", LOOPER, "-ldl"), inflation_bomb(tmp, BOMB_MIB)


def start(cmd):
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "ready", p.stderr.read()
    return p


def vm_hwm_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        return int(re.search(r"VmHWM:\s+(\d+) kB", f.read()).group(1))


def test_an_inflation_bomb_costs_neither_memory_nor_the_others_stacks_nor_the_stop(
        root, programs, tmp_path):
    """A process calls into a shared object whose .debug_str inflates to 900 MiB, while
    another process makes slow calls of its own: the binary is refused and said so, sclat's
    peak memory stays far below what inflating it takes, the other process's outliers keep
    their named stacks, and SIGTERM ends sclat within seconds."""
    looper, bomb = programs
    hostile = start([str(looper), str(bomb)])
    benign = start([str(looper)])
    w = None
    try:
        w = Watch(env_of(tmp_path), "--threshold", "10ms", "-p", str(hostile.pid),
                  "-p", str(benign.pid))

        def named(pid, fn):
            return [e for e in w.outliers() if e["pid"] == pid and
                    any(f.startswith(fn + "+") for f in e["user_stack"])]
        # Both processes' stacks keep coming: 30 of each, the hostile one's unwound past it.
        wait_until(lambda: len(named(benign.pid, "benign_wait")) >= 30 and
                   len([e for e in w.outliers() if e["pid"] == hostile.pid and
                        e["user_stack"]]) >= 30, timeout=60)
        hwm = vm_hwm_kib(w.proc.pid)
        t0 = time.monotonic()
        w.proc.send_signal(signal.SIGTERM)
        w.wait(timeout=30)
        stop_s = time.monotonic() - t0
    finally:
        for p in (hostile, benign):
            p.kill()
            p.wait()
        if w and w.proc.poll() is None:
            w.proc.kill()
            w.wait()
    stderr = "".join(w.stderr)
    # Inflating it would take 900 MiB; sclat's own peak stays a fraction of it.
    assert hwm < 300 * 1024, "VmHWM %d kB" % hwm
    assert stop_s < 5, "SIGTERM took %.1f s" % stop_s
    assert len(named(benign.pid, "benign_wait")) >= 30, (len(w.outliers()), stderr)
    # The hostile process's frames in the refused binary go unnamed ("hostile.so+0x...").
    hostile_stacks = [e["user_stack"] for e in w.outliers() if e["pid"] == hostile.pid]
    assert len(hostile_stacks) >= 30, stderr
    assert not any("hostile_wait" in f for s in hostile_stacks for f in s), hostile_stacks[:3]
    assert re.search(r"hostile\.so: \.debug_str inflates to %d MiB, above the \d+ MiB one "
                     r"binary may cost" % BOMB_MIB, stderr), stderr
    assert re.search(r"user stacks: 1 binaries refused", stderr), stderr


def stacks_of(w, pid):
    return [e["user_stack"] for e in w.outliers() if e["pid"] == pid and e["user_stack"]]


def watch_until_stacks(tmp_path, pids, enough=5):
    """sclat watch of pids until each has enough outliers with a user stack; its outliers."""
    w = Watch(env_of(tmp_path), "--threshold", "10ms", *[a for p in pids for a in ("-p", str(p))])
    try:
        wait_until(lambda: all(len(stacks_of(w, p)) >= enough for p in pids), timeout=30)
    finally:
        w.stop()
    return w


def frames_of(stacks, fn):
    return [f for s in stacks for f in s if f.startswith(fn + "+")]


@pytest.fixture(scope="module")
def namespace_programs(tmp_path_factory):
    """Two builds of one program, alike but for the name of the function that waits."""
    tmp = tmp_path_factory.mktemp("ns")
    host = gcc(tmp, "app", LOOPER, "-ldl", "-DWAIT_FN=benign_wait")
    other = gcc(tmp, "container_app", LOOPER, "-ldl", "-DWAIT_FN=container_wait")
    return host, other


def test_a_process_in_another_mount_namespace_is_named_from_its_own_binary(
        root, namespace_programs, tmp_path):
    """A container's binary sits where the host has another of the same layout: the frames of
    the container's process name the container's function, whether the process was there
    before sclat (its mappings read from /proc, no build-id) or came after (perf's records)."""
    host, other = namespace_programs
    in_ns = ["unshare", "-m", "--propagation", "private", "sh", "-c",
             "mount --bind %s %s && exec %s" % (other, host, host)]
    before = start(in_ns)
    after = None
    try:
        w = Watch(env_of(tmp_path), "--threshold", "10ms")
        try:
            wait_until(lambda: len(stacks_of(w, before.pid)) >= 5, timeout=30)
            after = start(in_ns)
            wait_until(lambda: len(stacks_of(w, after.pid)) >= 5, timeout=30)
        finally:
            w.stop()
    finally:
        for p in (before, after):
            if p:
                p.kill()
                p.wait()
    for p in (before, after):
        stacks = stacks_of(w, p.pid)
        assert len(stacks) >= 5, "".join(w.stderr)
        assert not frames_of(stacks, "benign_wait"), stacks[:2]
        assert len(frames_of(stacks, "container_wait")) == len(stacks), stacks[:2]


def test_a_binary_run_from_a_memfd_or_deleted_is_named_from_its_mapping(
        root, programs, tmp_path):
    """A program run from a memfd, and one whose file was deleted after it started: their
    frames are named (through /proc/PID/map_files), their binary marked deleted once."""
    looper, _ = programs
    memfd = start(["/usr/bin/python3", "-c",
                   "import os, sys; fd = os.memfd_create('sealed-looper', 0); "
                   "os.write(fd, open(sys.argv[1], 'rb').read()); "
                   "os.execve(fd, ['looper'], {})", str(looper)])
    doomed = tmp_path / "doomed"
    doomed.write_bytes(looper.read_bytes())
    doomed.chmod(0o755)
    deleted = start([str(doomed)])
    doomed.unlink()
    try:
        w = watch_until_stacks(tmp_path, [memfd.pid, deleted.pid])
    finally:
        for p in (memfd, deleted):
            p.kill()
            p.wait()
    for p, name in ((memfd, "memfd:sealed-looper"), (deleted, "doomed")):
        stacks = stacks_of(w, p.pid)
        assert len(stacks) >= 5, "".join(w.stderr)
        named = frames_of(stacks, "benign_wait")
        assert len(named) == len(stacks), stacks[:2]
        assert all(f.endswith(" (%s (deleted))" % name) for f in named), named[:2]
