# SPDX-License-Identifier: GPL-2.0-only
"""Shared fixtures: the built sclat, workloads, root, and no-skip enforcement.

Under SCLAT_REQUIRE_ALL=1 (what .ci/run sets) a test that would be skipped
fails instead: CI must prove the BPF and LTTng paths, not step around them.
"""
import contextlib
import json
import os
import re
import socket
import subprocess
import threading
import time

import bt2
import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCLAT = os.path.join(ROOT, "user", "sclat")
WORKLOADS = os.path.join(ROOT, ".output", "workloads")
REQUIRE_ALL = os.environ.get("SCLAT_REQUIRE_ALL") == "1"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if REQUIRE_ALL and rep.skipped and not hasattr(rep, "wasxfail"):
        rep.outcome = "failed"
        rep.longrepr = "skipped under SCLAT_REQUIRE_ALL=1, which forbids skips: %s" % (
            rep.longrepr,)


@pytest.fixture(scope="session")
def root():
    if os.geteuid() != 0:
        pytest.skip("needs root to load BPF programs")


def workload(name):
    """Path of a program built from tests/workloads/NAME.c."""
    path = os.path.join(WORKLOADS, name)
    assert os.access(path, os.X_OK), "%s not built: run make" % path
    return path


def fed_pipe_script(nbytes, reader):
    """A Python script (its argument: seconds) whose input comes now and then: a pipe r
    that a forked writer feeds nbytes every 0.2 s for that long, then closes. reader is
    the code that reads r (os.wait() for the writer is its to call)."""
    return """
import os, select, sys, time
r, w = os.pipe()
if os.fork() == 0:
    os.close(r)
    end = time.monotonic() + float(sys.argv[1])
    while time.monotonic() < end:
        time.sleep(0.2)
        os.write(w, b"x" * %d)
    os._exit(0)
os.close(w)
""" % nbytes + reader


# --- a slow storage device ------------------------------------------------

SLOWFS_DELAY_MS = 2


@pytest.fixture
def slowfs(root, tmp_path):
    """A directory where tests/workloads/slowfs is mounted: one file, data (64 MiB), whose
    every read from the "device" takes SLOWFS_DELAY_MS, the same on any machine; all of it
    in the page cache at the start. Unmounted after, by ending its daemon (by pid)."""
    mnt = tmp_path / "slowfs"
    mnt.mkdir()
    proc = subprocess.Popen([workload("slowfs"), str(mnt), "--delay-ms", str(SLOWFS_DELAY_MS)],
                            stderr=subprocess.PIPE, text=True)
    try:
        if not wait_until(lambda: os.path.ismount(mnt) or proc.poll() is not None):
            pytest.fail("slowfs did not mount")
        if proc.poll() is not None:
            pytest.fail("slowfs: %s" % proc.stderr.read())
        # Into the page cache before the tracer starts: the reads that fill it go to the
        # device one in 32 (readahead's), not what the tests are about.
        with open(mnt / "data", "rb") as f:
            while f.read(1 << 20):
                pass
        yield mnt
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if os.path.ismount(mnt):
            subprocess.run(["umount", "-l", str(mnt)])


def run_sclat(*args, timeout=60, **kw):
    """Run sclat to completion; returns the CompletedProcess (text mode)."""
    return subprocess.run([SCLAT, *args], capture_output=True, text=True,
                          timeout=timeout, **kw)


def reap(p):
    """p ended: killed if it still runs (a test that failed before it ended), then waited for."""
    if p.poll() is None:
        p.kill()
        p.wait()


def json_lines(text):
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def bpftool_list(kind):
    """bpftool's JSON list of every BPF object of kind (prog, link) in the kernel now.
    bpftool walks the ids, then opens each: an object freed between the two (another test's
    sclat letting go) makes it fail, so a failed walk is taken again."""
    for attempt in range(5):
        r = subprocess.run(["bpftool", "-j", kind, "show"], capture_output=True, text=True)
        if r.returncode == 0:
            return json.loads(r.stdout)
        time.sleep(0.05)
    raise AssertionError("bpftool %s show failed 5 times: %s" % (kind, r.stderr.strip()))


def sclat_progs():
    """Ids of the BPF programs named sclat_* loaded in the kernel now."""
    return [p["id"] for p in bpftool_list("prog") if p.get("name", "").startswith("sclat_")]


def fdinfo_ids_of(pid, key):
    """The values of `key:` lines (prog_id, link_id) in process pid's /proc/PID/fdinfo."""
    ids = set()
    try:
        fds = os.listdir("/proc/%d/fdinfo" % pid)
    except OSError:
        return ids
    for fd in fds:
        try:
            with open("/proc/%d/fdinfo/%s" % (pid, fd)) as f:
                for line in f:
                    if line.startswith(key + ":"):
                        ids.add(int(line.split()[1]))
        except OSError:
            pass
    return ids


def stray_progs(before):
    """sclat programs loaded since before that no live process holds: what sclat left behind.
    (Other sclat runs, a parallel worker's too, may hold programs of their own meanwhile,
    and let them go at any time.)"""
    def stray():
        new = set(sclat_progs()) - before
        for d in os.listdir("/proc"):
            if new and d.isdigit():
                new -= prog_ids_of(int(d))
        return new
    # The kernel frees a program a moment after its last reference goes: what stays
    # unheld through that moment was left behind. Another run's programs, freed as they
    # come and go, are not the same ones from one look to the next.
    first = stray()
    wait_until(lambda: not first & stray(), timeout=5)
    return first & stray()


def prog_ids_of(pid):
    """Ids of the BPF programs process pid holds open."""
    return fdinfo_ids_of(pid, "prog_id")


def link_ids_of(pid):
    """Ids of the BPF links (attachments) process pid holds open."""
    return fdinfo_ids_of(pid, "link_id")


def bpf_links():
    """{link id: program id} of every BPF link in the kernel now."""
    return {l["id"]: l.get("prog_id") for l in bpftool_list("link")}


def fully_attached(pid):
    """The ids of the links sclat process pid holds once all its programs are attached (its
    sys_enter program attaches last, see user/kernel/probes.c), else an empty set."""
    links = link_ids_of(pid)
    if not links:
        return set()
    enter = {p["id"] for p in bpftool_list("prog") if p.get("name", "").startswith("sclat_enter")}
    kernel = bpf_links()
    return links if any(kernel.get(l) in enter for l in links) else set()


def wait_until(cond, timeout=10.0, step=0.05):
    """Poll cond() until it is true or timeout passes; returns its last value."""
    deadline = time.monotonic() + timeout
    while True:
        v = cond()
        if v or time.monotonic() >= deadline:
            return v
        time.sleep(step)


class Watch:
    """`sclat watch --json ARGS` running, its lines read as they come: outliers (and calls
    in flight) as (monotonic ns, JSON object), the other lines of stdout as (ns, text).
    prefix: a command that execs sclat (same pid), e.g. to run it in a namespace."""

    def __init__(self, env, *args, prefix=()):
        self.env = env
        self.lines, self.events, self.stderr = [], [], []
        self.lock = threading.Lock()
        self.proc = subprocess.Popen([*prefix, SCLAT, "watch", "--json", *args],
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=env)
        self.readers = [threading.Thread(target=self._read, args=(self.proc.stdout, True)),
                        threading.Thread(target=self._read, args=(self.proc.stderr, False))]
        for t in self.readers:
            t.start()

    def _read(self, stream, is_stdout):
        for line in stream:
            with self.lock:
                if is_stdout and line.startswith("{"):
                    self.events.append((time.monotonic_ns(), json.loads(line)))
                elif is_stdout:
                    self.lines.append((time.monotonic_ns(), line.strip()))
                else:
                    self.stderr.append(line)

    def find(self, pred):
        with self.lock:
            return [(t, e) for t, e in self.events if pred(e)]

    def outliers(self):
        """The outliers' JSON objects, in order."""
        with self.lock:
            return [e for _, e in self.events if not e.get("inflight")]

    def said(self, word):
        with self.lock:
            return [(t, l) for t, l in self.lines if l.startswith(word)]

    def try_status(self):
        """`sclat status --json`, or None while it has none (before the first interval)."""
        r = run_sclat("status", "--json", "--pid", str(self.proc.pid), env=self.env, timeout=30)
        return json.loads(r.stdout) if r.returncode == 0 else None

    def status(self):
        r = run_sclat("status", "--json", "--pid", str(self.proc.pid), env=self.env, timeout=30)
        assert r.returncode == 0, r.stderr
        return json.loads(r.stdout)

    def wait(self, timeout=30):
        self.proc.wait(timeout=timeout)
        for t in self.readers:
            t.join(timeout=5)
        return self.proc.returncode

    def stop(self):
        """SIGTERM, which sclat passes on to the command it traces; SIGKILL if it does not
        end. (SIGINT would reach a Python command as KeyboardInterrupt in its main thread
        only, and leave it waiting for its other threads.)"""
        if self.proc.poll() is None:
            self.proc.terminate()
        try:
            return self.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.wait(15)


# --- cgroup v2 ---------------------------------------------------------------

def cgroup2_mount():
    """Where the cgroup v2 hierarchy is mounted, or None."""
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            sep = fields.index("-")
            if fields[sep + 1] == "cgroup2":
                return fields[4]
    return None


@pytest.fixture
def cgroup2_dir(root, tmp_path):
    """A new, empty cgroup v2 directory, removed after the test (its processes must have
    exited by then). When no cgroup2 is mounted, one is mounted under tmp_path: mounting
    it over /sys/fs/cgroup would hide a v1 or hybrid hierarchy the machine relies on."""
    mnt, mounted = cgroup2_mount(), False
    if mnt is None:
        mnt = str(tmp_path / "cgroup2")
        os.mkdir(mnt)
        subprocess.run(["mount", "-t", "cgroup2", "none", mnt], check=True)
        mounted = True
    path = os.path.join(mnt, "sclat-test-%d-%d" % (os.getpid(), time.monotonic_ns()))
    os.mkdir(path)
    try:
        yield path
    finally:
        # A cgroup goes only once empty: its processes may take a moment to be reaped.
        wait_until(lambda: not open(os.path.join(path, "cgroup.procs")).read(), timeout=10)
        os.rmdir(path)
        if mounted:
            subprocess.run(["umount", mnt], check=True)


# --- LTTng: the root session daemon, free ports, reading traces back ---------

LTTNG_RUNDIR = "/var/run/lttng"


def sessiond_pid():
    """Pid of the running root lttng-sessiond, or None."""
    try:
        with open(os.path.join(LTTNG_RUNDIR, "lttng-sessiond.pid")) as f:
            pid = int(f.read().split()[0])
        with open("/proc/%d/stat" % pid) as f:
            stat = f.read()
    except (OSError, ValueError, IndexError):
        return None
    # A zombie, or a pid reused by something else, is no daemon.
    if "(lttng-sessiond)" not in stat or stat.rsplit(")", 1)[1].split()[0] == "Z":
        return None
    return pid


def process_state(pid):
    """Process pid's state letter (R, S, D, T, t, Z...), or None when it is gone."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return None


def process_gone(pid):
    return process_state(pid) in (None, "Z")


class SessionDaemon:
    """The root lttng-sessiond the tests use: started when none runs, stopped after."""

    def __init__(self):
        self.started = False

    def start(self):
        if sessiond_pid():
            return
        r = subprocess.run(["lttng-sessiond", "--daemonize", "--no-kernel"],
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True, timeout=30)
        # It fails when another one started meanwhile: that one serves as well.
        self.started = r.returncode == 0
        assert wait_until(sessiond_pid), "lttng-sessiond did not start: %s" % r.stderr

    def stop(self):
        """Stop the daemon, only if the tests started it; True if it is down."""
        pid = sessiond_pid()
        if pid is None:
            return True
        if not self.started:
            return False
        os.kill(pid, 15)
        self.started = False
        return wait_until(lambda: process_gone(pid), timeout=15)


@pytest.fixture(scope="session")
def lttng_daemon(root):
    d = SessionDaemon()
    yield d
    d.stop()


@pytest.fixture
def lttng_sessiond(lttng_daemon):
    """A root lttng-sessiond running for this test (started again if it went away)."""
    lttng_daemon.start()
    return lttng_daemon


def lttng(*args, check=True):
    # --no-sessiond: never spawn a daemon behind the fixture's back.
    return subprocess.run(["lttng", "--no-sessiond", *args], capture_output=True, text=True,
                          timeout=60, check=check)


def session_names():
    out = lttng("list", check=False).stdout
    return re.findall(r"^\s+\d+\) (\S+) \[", out, re.M)


def running(*names):
    """Pids of live (not zombie) processes with one of these names in this test run's LTTng
    world (its mount namespace, see tests/lttng-world): daemons elsewhere are not ours."""
    world = os.readlink("/proc/self/ns/mnt")
    pids = []
    for d in os.listdir("/proc"):
        try:
            if os.readlink("/proc/%s/ns/mnt" % d) != world:
                continue
            with open("/proc/%s/stat" % d) as f:
                comm, rest = f.read().split("(", 1)[1].rsplit(")", 1)
        except (OSError, ValueError, IndexError):
            continue
        if comm in names and rest.split()[0] != "Z":
            pids.append(int(d))
    return pids


def children_named(pid, name):
    """Pids of the live children of process pid named name."""
    kids = []
    for d in os.listdir("/proc"):
        try:
            with open("/proc/%s/stat" % d) as f:
                comm, rest = f.read().split("(", 1)[1].rsplit(")", 1)
        except (OSError, ValueError, IndexError):
            continue
        fields = rest.split()
        if comm == name and int(fields[1]) == pid and fields[0] != "Z":
            kids.append(int(d))
    return kids


class Relayd:
    """An lttng-relayd of the test's own on 127.0.0.1, on free ports, writing under out;
    killed and started again (on the same ports) by the test, by pid."""

    def __init__(self, out):
        self.ctrl, self.data, self.live = free_ports(3)
        self.out = out
        self.url = "net://127.0.0.1:%d:%d" % (self.ctrl, self.data)
        self.proc = None
        self.start()

    def start(self):
        self.proc = subprocess.Popen(
            ["lttng-relayd", "-C", "tcp://127.0.0.1:%d" % self.ctrl,
             "-D", "tcp://127.0.0.1:%d" % self.data, "-L", "tcp://127.0.0.1:%d" % self.live,
             "-o", str(self.out)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

        def listening():
            try:
                socket.create_connection(("127.0.0.1", self.live), timeout=1).close()
                return True
            except OSError:
                return self.proc.poll() is not None

        assert wait_until(listening) and self.proc.poll() is None, self.proc.stderr.read()

    def kill(self):
        self.proc.kill()
        self.proc.wait(timeout=15)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=15)


@contextlib.contextmanager
def relay_daemon(out):
    """An lttng-relayd of the test's own (see Relayd), writing under out (made here), for as
    long as the with lasts."""
    out.mkdir()
    r = Relayd(out)
    try:
        yield r
    finally:
        r.stop()


@pytest.fixture
def relayd(root, tmp_path):
    """An lttng-relayd of the test's own (see Relayd), writing under tmp_path/relay."""
    with relay_daemon(tmp_path / "relay") as r:
        yield r


@contextlib.contextmanager
def tmpfs(path, options):
    """A tmpfs of the test's own on path (made here), mounted for as long as the with lasts."""
    path.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", options, "sclat-test", str(path)],
                   check=True)
    try:
        yield path
    finally:
        subprocess.run(["umount", str(path)], check=True)


@pytest.fixture
def own_sessiond(lttng_sessiond):
    """No session daemon running: the one sclat starts is the test's to watch (and kill)."""
    if not lttng_sessiond.stop():
        pytest.skip("a session daemon the tests did not start is running")
    yield
    lttng_sessiond.start()


def free_ports(n):
    """n TCP ports of 127.0.0.1 that nothing listens on right now."""
    socks = []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def field_value(f):
    """A babeltrace2 field as a plain Python value."""
    if isinstance(f, bt2._StructureFieldConst):
        return {k: field_value(v) for k, v in f.items()}
    if isinstance(f, bt2._ArrayFieldConst):
        return [field_value(v) for v in f]
    if isinstance(f, bt2._StringFieldConst):
        # babeltrace2 2.0.4 leaves an empty string's buffer holding an earlier event's
        # value, with the right length (0): the length decides.
        return str(f) if len(f) else ""
    if isinstance(f, bt2._RealFieldConst):
        return float(f)
    return int(f)


def env_of(tmp_path):
    """This environment with a run directory of the test's own: its tracer's control socket,
    which `sclat status` then asks."""
    e = dict(os.environ)
    e["SCLAT_RUN_DIR"] = str(tmp_path / "run")
    return e


# Python for a traced command: write_when_read_waits(r, w, after) starts a thread that writes
# one byte to pipe w `after` seconds from the moment the calling thread sleeps in read(r), so
# that the read waits that long however late the thread got to it. A thread's /proc syscall
# file names its call (read: 0 on x86-64) and its arguments only while it sleeps in it. The
# writer looks with pread, not read: none of its own calls is a read.
WRITE_WHEN_READ_WAITS = """\
import os, threading, time
def write_when_read_waits(r, w, after):
    tid = threading.get_native_id()
    def writer():
        fd = os.open("/proc/self/task/%d/syscall" % tid, os.O_RDONLY)
        while True:
            call = os.pread(fd, 256, 0).split()
            if call[:1] == [b"0"] and int(call[1], 16) == r:
                break
            time.sleep(0.001)
        os.close(fd)
        time.sleep(after)
        os.write(w, b"x")
    threading.Thread(target=writer).start()
"""

BREAKDOWN = ("on_cpu_ns", "runqueue_ns", "sleep_ns", "io_wait_ns", "irq_ns", "steal_ns")


def back_unseen(e):
    """An outlier whose switch back onto a CPU the kernel did not trace (counted in
    backs_unseen): its last stretch off the CPU has no wake-up and lasts to the exit, and
    no waker."""
    return bool(e["off_cpu"]) and e["off_cpu"][-1]["wake_ns"] is None and \
        e["off_cpu"][-1]["in_ns"] == e["latency_ns"] and e["waker"] is None


def trace_outlier(fields):
    """A sclat:syscall_outlier's fields under the names of watch's JSON."""
    f = dict(fields)
    f["breakdown"] = {k: f[k] for k in BREAKDOWN + ("waker_runqueue_ns",)}
    f["waker"] = ({"pid": f["waker_pid"], "tid": f["waker_tid"], "comm": f["waker_comm"]}
                  if f["waker_comm"] else None)
    f["target"] = f["target"] or None
    f["kernel_stack"] = f["kernel_stack"].split(";") if f["kernel_stack"] else []
    f["user_stack"] = f["user_stack"].split(";") if f["user_stack"] else []
    f["user_stack_dropped"] = bool(f["user_stack_dropped"])
    entry = f["ts_ns"] = f["entry_ts"]
    f["off_cpu"] = [
        {"cpu": cpu, "kind": {1: "runqueue", 2: "sleep", 3: "io"}.get(kind),
         "out_ns": out - entry, "wake_ns": wake - entry if wake else None,
         "in_ns": in_ - entry, "in_cpu": in_cpu, "by_waker": i == f["off_cpu_waker"]}
        for i, (cpu, kind, out, wake, in_, in_cpu) in enumerate(zip(
            f["off_cpu_cpu"], f["off_cpu_kind"], f["off_cpu_out_ts"], f["off_cpu_wake_ts"],
            f["off_cpu_in_ts"], f["off_cpu_in_cpu"]))]
    return f


class Trace:
    """Everything the tests look at in a CTF trace, read with python3-bt2."""

    def __init__(self, path, keep=None):
        """keep: the event names to keep (default all); the others are only counted."""
        self.events = []        # dicts: name, ts (clock cycles), ns (from origin), fields
        self.counts = {}        # events per name
        self.discarded = 0      # events lttng-ust discarded (packet counters)
        self.envs = []          # one environment per trace in the collection
        self.clocks = set()     # (name, frequency, offset seconds, offset cycles)
        for msg in bt2.TraceCollectionMessageIterator(str(path)):
            if isinstance(msg, bt2._EventMessageConst):
                name = msg.event.name
                self.counts[name] = self.counts.get(name, 0) + 1
                if keep is not None and name not in keep:
                    continue
                cs = msg.default_clock_snapshot
                cc = cs.clock_class
                self.clocks.add((cc.name, cc.frequency, cc.offset.seconds, cc.offset.cycles))
                self.events.append(dict(name=name, ts=cs.value,
                                        ns=cs.ns_from_origin,
                                        fields=field_value(msg.event.payload_field)))
            elif isinstance(msg, bt2._DiscardedEventsMessageConst):
                self.discarded += msg.count or 0
            elif isinstance(msg, bt2._StreamBeginningMessageConst):
                env = {k: str(v) if isinstance(v, bt2._StringValueConst) else int(v)
                       for k, v in msg.stream.trace.environment.items()}
                if env not in self.envs:
                    self.envs.append(env)

    def named(self, name):
        return [e for e in self.events if e["name"] == name]


def kernel_events(path):
    """(name, ts, cpu_id, payload dict, stream id) of every event of a trace that sclat
    convert wrote (one stream per CPU), read with bt2."""
    evs = []
    for msg in bt2.TraceCollectionMessageIterator(str(path)):
        if type(msg) is bt2._EventMessageConst:
            ev = msg.event
            evs.append((ev.name, msg.default_clock_snapshot.value,
                        int(ev.packet.context_field["cpu_id"]),
                        {k: (str(v) if isinstance(v, bt2._StringFieldConst) else int(v))
                         for k, v in ev.payload_field.items()}, ev.stream.addr))
    return evs


# --- Synthetic sclat traces, written by babeltrace2's own sink.ctf.fs ----------

S = 10**9
EPOCH_S = 1700000000    # the synthetic trace's clock offset
SYSCALL_NRS = {"read": 0, "write": 1, "wait4": 61, "clock_nanosleep": 230, "futex": 202}


def synthetic_outlier(ts, syscall, tid, cpu, entry_ts, latency_ns, comm="slow", pid=None,
                      epoch_skew_ns=0, off_cpu=None, waker=None):
    """(event time, payload) of an sclat:syscall_outlier that reached the trace at ts.
    Its entry_epoch_ns field is entry_ts by the trace clock, plus epoch_skew_ns. With
    off_cpu, a list of (cpu, kind, out_ts, wake_ts, in_ts, in_cpu), it explains itself as
    trace version 7 does; waker: (index of the stretch, tid, comm) of its waker."""
    epoch_ns = (entry_ts + EPOCH_S * S + epoch_skew_ns + 2**63) % 2**64 - 2**63   # an s64
    fields = dict(nr=SYSCALL_NRS.get(syscall, 999), syscall=syscall,
                  pid=tid if pid is None else pid, tid=tid, comm=comm, cpu=cpu,
                  entry_ts=entry_ts, entry_epoch_ns=epoch_ns, latency_ns=latency_ns, ret=0,
                  args=[0, 0, 0, 0, 0, 0], threshold_ns=S // 1000)
    if off_cpu is not None:
        index, waker_tid, waker_comm = waker or (-1, 0, "")
        fields.update(on_cpu_ns=latency_ns, runqueue_ns=0, sleep_ns=0, io_wait_ns=0,
                      switches=len(off_cpu), waker_pid=waker_tid, waker_tid=waker_tid,
                      waker_comm=waker_comm, target="", kernel_stack="", off_cpu_unlisted=0,
                      off_cpu_waker=index)
        for i, key in enumerate(("off_cpu_cpu", "off_cpu_kind", "off_cpu_out_ts",
                                 "off_cpu_wake_ts", "off_cpu_in_ts", "off_cpu_in_cpu")):
            fields[key] = [s[i] for s in off_cpu]
    return ts, fields


# What an outlier without stretches off the CPU holds in a trace where others have some.
SYNTHETIC_NOT_EXPLAINED = dict(
    on_cpu_ns=0, runqueue_ns=0, sleep_ns=0, io_wait_ns=0, switches=0, waker_pid=0, waker_tid=0,
    waker_comm="", target="", kernel_stack="", off_cpu_cpu=[], off_cpu_kind=[],
    off_cpu_out_ts=[], off_cpu_wake_ts=[], off_cpu_in_ts=[], off_cpu_in_cpu=[],
    off_cpu_unlisted=0, off_cpu_waker=-1)


class _SyntheticIter(bt2._UserMessageIterator):
    def __init__(self, config, port):
        tc, sc, ec, events = port.user_data
        stream = tc().create_stream(sc)
        packet = stream.create_packet()
        msgs = [self._create_stream_beginning_message(stream),
                self._create_packet_beginning_message(packet, events[0][0])]
        for ts, fields in events:
            msg = self._create_event_message(ec, packet, ts)
            for k, v in fields.items():
                msg.event.payload_field[k] = v
            msgs.append(msg)
        msgs += [self._create_packet_end_message(packet, events[-1][0]),
                 self._create_stream_end_message(stream)]
        self._msgs = iter(msgs)

    def __next__(self):
        return next(self._msgs)


class _SyntheticSource(bt2._UserSourceComponent, message_iterator_class=_SyntheticIter):
    """sclat:syscall_outlier events as sclat's UST tracepoint lays them out."""

    def __init__(self, config, params, obj):
        events, epoch_origin, offset_s = obj
        tc = self._create_trace_class()
        cc = self._create_clock_class(frequency=S, name="monotonic",
                                      offset=bt2.ClockClassOffset(offset_s, 0),
                                      origin_is_unix_epoch=epoch_origin)
        sc = tc.create_stream_class(default_clock_class=cc, supports_packets=True,
                                    packets_have_beginning_default_clock_snapshot=True,
                                    packets_have_end_default_clock_snapshot=True)
        u64 = tc.create_unsigned_integer_field_class
        s64 = tc.create_signed_integer_field_class
        payload = tc.create_structure_field_class()
        for name, fc in (("nr", u64(32)), ("syscall", tc.create_string_field_class()),
                         ("pid", s64(32)), ("tid", s64(32)),
                         ("comm", tc.create_string_field_class()), ("cpu", u64(32)),
                         ("entry_ts", u64(64)), ("entry_epoch_ns", s64(64)),
                         ("latency_ns", u64(64)), ("ret", s64(64)),
                         ("args", tc.create_static_array_field_class(u64(64), 6)),
                         ("threshold_ns", u64(64))):
            payload.append_member(name, fc)
        # Trace version 7's explanation, when an outlier has one.
        if any("off_cpu_cpu" in fields for _, fields in events):
            string = tc.create_string_field_class
            for name, fc in (("on_cpu_ns", u64(64)), ("runqueue_ns", u64(64)),
                             ("sleep_ns", u64(64)), ("io_wait_ns", u64(64)),
                             ("switches", u64(32)), ("waker_pid", s64(32)),
                             ("waker_tid", s64(32)), ("waker_comm", string()),
                             ("target", string()), ("kernel_stack", string()),
                             ("off_cpu_cpu", tc.create_dynamic_array_field_class(u64(32))),
                             ("off_cpu_kind", tc.create_dynamic_array_field_class(u64(8))),
                             ("off_cpu_out_ts", tc.create_dynamic_array_field_class(u64(64))),
                             ("off_cpu_wake_ts", tc.create_dynamic_array_field_class(u64(64))),
                             ("off_cpu_in_ts", tc.create_dynamic_array_field_class(u64(64))),
                             ("off_cpu_in_cpu", tc.create_dynamic_array_field_class(u64(32))),
                             ("off_cpu_unlisted", u64(32)), ("off_cpu_waker", s64(32))):
                payload.append_member(name, fc)
            events = [(ts, dict(SYNTHETIC_NOT_EXPLAINED, **fields)) for ts, fields in events]
        ec = sc.create_event_class(name="sclat:syscall_outlier", payload_field_class=payload)
        self._add_output_port("out", (tc, sc, ec, sorted(events, key=lambda e: e[0])))


def write_synthetic_trace(path, events, epoch_origin=True, offset_s=EPOCH_S):
    """A CTF trace of the outliers events (see synthetic_outlier) at path; its clock counts
    from offset_s seconds after the epoch, or after an unknown origin."""
    graph = bt2.Graph()
    src = graph.add_component(_SyntheticSource, "src", obj=(events, epoch_origin, offset_s))
    sink = graph.add_component(bt2.find_plugin("ctf").sink_component_classes["fs"], "out",
                               {"path": path, "assume-single-trace": True, "quiet": True})
    graph.connect_ports(src.output_ports["out"], sink.input_ports["in"])
    graph.run()


# --- A recording whose outliers explain themselves (trace version 3) ------------------

@pytest.fixture(scope="module")
def pipe_trace(root, lttng_daemon, tmp_path_factory):
    """`sclat record` of tests/workloads/waits' pipe scenario: a read that a writer thread
    satisfies 20 ms later, the readers' ground truth. (trace, what the workload knows, the
    read's sclat:syscall_outlier fields)"""
    lttng_daemon.start()
    tmp = tmp_path_factory.mktemp("pipe")
    trace, facts = str(tmp / "trace"), tmp / "facts"
    r = run_sclat("record", "-o", trace, "--threshold", "5ms", "--", workload("waits"), "pipe",
                  "--report", str(facts))
    assert r.returncode == 0, r.stderr
    known = json.loads(facts.read_text().splitlines()[0])
    reads = [e["fields"] for e in Trace(trace, keep={"sclat:syscall_outlier"}).events
             if e["fields"]["syscall"] == "read" and e["fields"]["tid"] == known["reader_tid"]]
    assert len(reads) == 1, reads
    assert reads[0]["target"] == "pipe:[%d]" % known["pipe_ino"], reads[0]
    return trace, known, reads[0]


# The processes a scope holds at once (PROBES_SCOPE_PIDS_MAX in user/kernel/probes.h).
SCOPE_PIDS_MAX = 8192


def possible_cpus():
    """The possible CPUs (/sys/devices/system/cpu/possible): sclat's pages and per-CPU maps
    are for each of them, online or not."""
    with open("/sys/devices/system/cpu/possible") as f:
        n = 0
        for part in f.read().strip().split(","):
            first, _, last = part.partition("-")
            n += int(last or first) - int(first) + 1
    return n
