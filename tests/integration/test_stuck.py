# SPDX-License-Identifier: GPL-2.0-only
"""Idle is not stuck (issue 33): under inflight_after = auto, a call waiting for input
(asleep, interruptibly) is not reported in flight, neither while it waits nor when sclat
stops; a call stuck in the kernel (uninterruptible sleep: a write to a throttled device)
is. An explicit inflight_after keeps reporting any wait (tests/integration/test_inflight.py).
Real BPF programs, a real pipe, a real block device throttled by the blkio controller."""
import os
import subprocess

import pytest

from conftest import WRITE_WHEN_READ_WAITS, Watch, env_of, wait_until

# read and write judged by a static 100 ms; in flight past auto: 10 x 100 ms, at least 1 s.
AUTO_POLICY = """\
[global]
interval = 200ms
budget = 0
[default]
mode = off
inflight_after = off
[syscall read]
mode = static
initial = 100ms
inflight_after = auto
[syscall write]
mode = static
initial = 100ms
inflight_after = auto
[syscall pwrite64]
mode = static
initial = 100ms
inflight_after = auto
"""

# A read of a pipe whose writer writes 3 s after the read began to wait: asleep, waiting for
# input.
IDLE_READ = WRITE_WHEN_READ_WAITS + """\
r, w = os.pipe()
write_when_read_waits(r, w, 3.0)
print("reader", threading.get_native_id(), flush=True)
os.read(r, 1)
print("returned", flush=True)
"""

# A read of a pipe nobody writes: still waiting when sclat stops.
FOREVER_READ = """\
import os, threading
r, w = os.pipe()
print("reader", threading.get_native_id(), flush=True)
os.read(r, 1)
"""

# One O_DIRECT write of 256 KiB to DEV from the blkio group GROUP (64 KiB/s): ~4 s in D.
STUCK_WRITE = """\
import mmap, os, sys, threading
dev, group = sys.argv[1], sys.argv[2]
with open(os.path.join(group, "cgroup.procs"), "w") as f:
    f.write(str(os.getpid()))
buf = mmap.mmap(-1, 256 << 10)
buf.write(b"x" * (256 << 10))
fd = os.open(dev, os.O_WRONLY | os.O_DIRECT)
print("writer", threading.get_native_id(), flush=True)
os.pwrite(fd, buf, 0)
print("returned", flush=True)
"""


def policy_file(tmp_path):
    p = tmp_path / "auto.ini"
    p.write_text(AUTO_POLICY)
    return str(p)


def blkio_root():
    with open("/proc/mounts") as f:
        for line in f:
            dev, mnt, fstype, opts = line.split()[:4]
            if fstype == "cgroup" and "blkio" in opts.split(","):
                return mnt
    return None


@pytest.fixture
def throttled_device(root, tmp_path):
    """A loop device whose writes from a blkio group of the test's own go at 64 KiB/s:
    (device, group)."""
    top = blkio_root()
    if top is None:
        pytest.skip("no cgroup v1 blkio hierarchy: cannot throttle a device")
    img = tmp_path / "disk.img"
    with open(img, "wb") as f:
        f.truncate(16 << 20)
    dev = subprocess.run(["losetup", "--find", "--show", str(img)], check=True,
                         capture_output=True, text=True).stdout.strip()
    group = os.path.join(top, "sclat-test-stuck-%d" % os.getpid())
    os.mkdir(group)
    try:
        st = os.stat(dev)
        with open(os.path.join(group, "blkio.throttle.write_bps_device"), "w") as f:
            f.write("%d:%d %d" % (os.major(st.st_rdev), os.minor(st.st_rdev), 64 << 10))
        yield dev, group
    finally:
        for _ in range(100):
            try:
                os.rmdir(group)
                break
            except OSError:
                wait_until(lambda: False, timeout=0.1)
        subprocess.run(["losetup", "-d", dev])


def test_an_idle_read_is_not_reported_in_flight(root, tmp_path):
    """A read that waits 3 s for input: past auto's 1 s, but asleep waiting, not stuck. It
    is judged when it returns, as any call."""
    w = Watch(env_of(tmp_path), "--policy", policy_file(tmp_path), "--", "/usr/bin/python3",
              "-c", IDLE_READ)
    try:
        assert wait_until(lambda: w.said("reader"), timeout=20), "".join(w.stderr)
        tid = int(w.said("reader")[0][1].split()[1])
        mine = lambda e: e["tid"] == tid and e["syscall"] == "read"
        assert wait_until(lambda: w.find(lambda e: mine(e) and not e.get("inflight")),
                          timeout=15), "".join(w.stderr)
        out = w.find(lambda e: mine(e) and not e.get("inflight"))[0][1]
        assert 3_000_000_000 <= out["latency_ns"] and out["inflight_reports"] == 0, out
        assert out["breakdown"]["sleep_ns"] > 2_500_000_000, out
        assert not w.find(lambda e: mine(e) and e.get("inflight")), w.find(mine)
    finally:
        w.stop()


def test_an_idle_read_in_flight_at_stop_is_not_reported(root, tmp_path):
    """sclat stops while a read still waits for input it never gets: no last report of it."""
    w = Watch(env_of(tmp_path), "--policy", policy_file(tmp_path), "--duration", "2500ms",
              "--", "/usr/bin/python3", "-c", FOREVER_READ)
    try:
        assert wait_until(lambda: w.said("reader"), timeout=20), "".join(w.stderr)
        tid = int(w.said("reader")[0][1].split()[1])
        w.wait(timeout=30)
        assert not w.find(lambda e: e.get("inflight") and e["tid"] == tid), w.find(lambda e: True)
    finally:
        w.stop()


def test_a_write_stuck_on_a_throttled_device_is_reported_while_it_waits(
        throttled_device, tmp_path):
    """256 KiB written O_DIRECT to a device throttled to 64 KiB/s: the call sleeps in D for
    about 4 s, and is reported in flight, state D, once past auto's 1 s, before it returns."""
    dev, group = throttled_device
    w = Watch(env_of(tmp_path), "--policy", policy_file(tmp_path), "--", "/usr/bin/python3",
              "-c", STUCK_WRITE, dev, group)
    try:
        assert wait_until(lambda: w.said("writer"), timeout=20), "".join(w.stderr)
        tid = int(w.said("writer")[0][1].split()[1])
        stuck = lambda e: e.get("inflight") and e["tid"] == tid and e["syscall"] == "pwrite64"
        assert wait_until(lambda: w.find(stuck), timeout=15), "".join(w.stderr)
        seen_at, first = w.find(stuck)[0]
        assert all(t > seen_at for t, _ in w.said("returned")), "reported only after it returned"
        assert first["state"] == "D", first
        assert 1_000_000_000 <= first["inflight_ns"] < 3_000_000_000, first
        assert first["target"] == dev, first
        returned = lambda e: not e.get("inflight") and e["tid"] == tid and \
            e["syscall"] == "pwrite64"
        assert wait_until(lambda: w.find(returned), timeout=20), "".join(w.stderr)
        out = w.find(returned)[0][1]
        assert out["inflight_reports"] >= 1 and out["breakdown"]["io_wait_ns"] > 1_000_000_000
    finally:
        w.stop()
