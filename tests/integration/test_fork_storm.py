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

# Spawns /bin/true (its loader reads libc: one classed read each) 4400 times, more than the
# ids (255) and the key table (4096) hold, at most 60 s; then a reader that stays, its pid in a
# file, and the count spawned in another.
STORM = """
import os, subprocess, sys, time
pidfile, countfile = os.environ["PIDFILE"], os.environ["COUNTFILE"]
end = time.monotonic() + 60
n = 0
while n < 4400 and time.monotonic() < end:
    pid = os.posix_spawn("/bin/true", ["true"], os.environ)
    os.waitpid(pid, 0)
    n += 1
with open(countfile, "w") as f:
    f.write(str(n))
time.sleep(0.5)
reader = subprocess.Popen([sys.executable, "-c",
    "import os, time\\nfd = os.open('/dev/zero', os.O_RDONLY)\\nend = time.monotonic() + 15\\n"
    "while time.monotonic() < end:\\n    os.read(fd, 64)\\n    time.sleep(0.001)"])
with open(pidfile + ".tmp", "w") as f:
    f.write(str(reader.pid))
os.rename(pidfile + ".tmp", pidfile)
reader.wait()
"""


def test_a_new_process_gets_a_class_after_a_fork_storm_filled_the_key_table(root, tmp_path):
    policy, pidfile, countfile = tmp_path / "p.ini", tmp_path / "reader.pid", tmp_path / "n"
    policy.write_text(POLICY)
    env = dict(os.environ, SCLAT_RUN_DIR=str(tmp_path / "run"), PIDFILE=str(pidfile),
               COUNTFILE=str(countfile))
    w = Watch(env, "--policy", str(policy), "--", "/usr/bin/python3", "-c", STORM)
    pressure = {}
    try:
        def storm_over():
            st = w.try_status() or {}
            if st.get("class_ids_refused", 0) or st.get("class_requests_lost", 0):
                pressure.update({k: st[k] for k in ("class_ids", "class_ids_refused",
                                                    "class_requests_lost")})
            return pidfile.exists()
        assert wait_until(storm_over, timeout=90, step=0.5), "".join(w.stderr)
        assert int(countfile.read_text()) == 4400, "spawned %s in 60 s" % countfile.read_text()
        # The storm ran the ids out: new processes were refused, or could not even ask.
        assert pressure, "no class refused during the storm"
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
