# SPDX-License-Identifier: GPL-2.0-only
"""A fork storm under classes = process (issue 38, item 10): thousands of short
processes, each asking for a class, fill the 255 class ids and the kernel's
4096-key table with ids and refusals. Once they are gone, a new process gets a
class of its own at once, not class_idle (60 s here) later: the classes of
processes that are gone retire when ids run short, and their refused keys go.
"""
import os
import time

from conftest import Watch, wait_until

POLICY = """\
[global]
interval = 200ms
budget = 0
classes = process
class_idle = 60s
sample = 1
[default]
mode = off
[syscall read]
mode = adaptive
quantile = 0.99
margin = 1
min_samples = 100
"""

# Spawns /bin/true (its loader reads libc: one classed read each) until told the table is
# full, at most 60 s; then a reader that stays, its pid in a file.
STORM = """
import os, subprocess, sys, time
done, pidfile = os.environ["DONE"], os.environ["PIDFILE"]
end = time.monotonic() + 60
n = 0
while not os.path.exists(done) and time.monotonic() < end:
    pid = os.posix_spawn("/bin/true", ["true"], os.environ)
    os.waitpid(pid, 0)
    n += 1
print("spawned", n, flush=True)
reader = subprocess.Popen([sys.executable, "-c",
    "import os, time\\nfd = os.open('/dev/zero', os.O_RDONLY)\\nend = time.monotonic() + 15\\n"
    "while time.monotonic() < end:\\n    os.read(fd, 64)\\n    time.sleep(0.001)"])
with open(pidfile + ".tmp", "w") as f:
    f.write(str(reader.pid))
os.rename(pidfile + ".tmp", pidfile)
reader.wait()
"""


def test_a_new_process_gets_a_class_after_a_fork_storm_filled_the_key_table(root, tmp_path):
    policy, done, pidfile = tmp_path / "p.ini", tmp_path / "done", tmp_path / "reader.pid"
    policy.write_text(POLICY)
    env = dict(os.environ, SCLAT_RUN_DIR=str(tmp_path / "run"), DONE=str(done),
               PIDFILE=str(pidfile))
    w = Watch(env, "--policy", str(policy), "--", "/usr/bin/python3", "-c", STORM)
    last = {}
    try:
        # Until the ids are all given and the key table is full: requests lost.
        def full():
            last.update(w.try_status() or {})
            return last and last["class_ids"] >= 250 and last["class_requests_lost"] > 0
        assert wait_until(full, timeout=60, step=0.5), \
            {k: last.get(k) for k in ("class_ids", "class_ids_refused", "class_requests_lost")}
        done.touch()
        assert wait_until(pidfile.exists, timeout=20), "".join(w.stderr)
        started = time.monotonic()
        name = "pid %s " % pidfile.read_text()

        def classed():
            st = w.try_status() or {}
            read = next((s for s in st.get("syscalls", []) if s["syscall"] == "read"), {})
            return [c for c in read.get("classes", []) if c["class"].startswith(name)]
        got = wait_until(classed, timeout=10, step=0.2)
        assert got, "the reader %s got no class in 10 s after the storm (class_idle 60 s): %s" % (
            name, {k: (w.try_status() or {}).get(k)
                   for k in ("class_ids", "class_ids_refused", "class_requests_lost")})
        assert time.monotonic() - started < 10
    finally:
        w.stop()
