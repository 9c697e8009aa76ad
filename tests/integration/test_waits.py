# SPDX-License-Identifier: GPL-2.0-only
"""The built-in policy's waits for an event or a lock (futex, poll, epoll, select): judged,
once their normal is learnt (initial = off). What a user checks, under the built-in
policy, with `sclat watch` on a command: a thread kept waiting by a stall shows as an
outlier; a process that polls for input that comes now and then does not, at each wait.
"""
import os

from conftest import Watch, fed_pipe_script

# A consumer thread waits on a queue that a producer feeds every millisecond: about a
# thousand futex waits a second, each a millisecond long. After WARM seconds, the producer
# stalls for 0.3 s every 2 s, and the consumer waits for it. Prints its pid, the waits,
# and each stall as monotonic start and end, in ns.
VICTIM = """
import os, queue, sys, threading, time
q = queue.Queue()
start = time.monotonic()
end, warm = start + float(sys.argv[1]), start + float(sys.argv[2])
stalls = []
def produce():
    stall_at = warm
    while time.monotonic() < end:
        if time.monotonic() >= stall_at:
            t = time.monotonic_ns()
            time.sleep(0.3)
            stalls.append("%d:%d" % (t, time.monotonic_ns()))
            stall_at += 2
        q.put(1)
        time.sleep(0.001)
    q.put(None)
threading.Thread(target=produce).start()
waits = 0
while q.get() is not None:
    waits += 1
print("victim", os.getpid(), waits, *stalls, flush=True)
"""

# An event loop with little to do: poll() on a pipe that gets a byte every 0.2 s. Prints
# its pid and its polls.
POLLER = fed_pipe_script(1, """
p = select.poll()
p.register(r, select.POLLIN)
polls = 0
while True:
    p.poll()
    polls += 1
    if not os.read(r, 1):
        break
os.wait()
print("poller", os.getpid(), polls, flush=True)
""")


def test_a_thread_kept_waiting_is_an_outlier_an_idle_poll_is_not(root, tmp_path):
    env = dict(os.environ, SCLAT_RUN_DIR=str(tmp_path / "run"))
    victim, poller = tmp_path / "victim.py", tmp_path / "poller.py"
    victim.write_text(VICTIM)
    poller.write_text(POLLER)
    vout, pout = tmp_path / "victim.out", tmp_path / "poller.out"
    cmd = "/usr/bin/python3 %s 13.5 5 > %s & /usr/bin/python3 %s 12 > %s & wait" % (
        victim, vout, poller, pout)
    w = Watch(env, "--", "/bin/sh", "-c", cmd)
    try:
        assert w.wait(timeout=90) == 0, "".join(w.stderr)
    finally:
        w.stop()
    _, pid, waits, *stalls = vout.read_text().split()
    pid, waits = int(pid), int(waits)
    stalls = [tuple(int(x) for x in s.split(":")) for s in stalls]
    assert waits >= 5000 and len(stalls) >= 4, (waits, stalls)
    outliers = w.outliers()
    futex = [o for o in outliers if o["pid"] == pid and o["syscall"] == "futex"]

    def overlaps(o, stall):  # ts_ns: the call's entry, CLOCK_MONOTONIC
        a, b = stall
        return o["latency_ns"] >= 250_000_000 and o["ts_ns"] < b and \
            o["ts_ns"] + o["latency_ns"] > a

    caught = [s for s in stalls if any(overlaps(o, s) for o in futex)]
    assert len(caught) >= len(stalls) - 1, \
        ("%d of %d stalls caught" % (len(caught), len(stalls)),
         [(o["latency_ns"], o["threshold_ns"], o["class"]) for o in futex[:5]])

    _, ppid, polls = pout.read_text().split()
    ppid, polls = int(ppid), int(polls)
    assert polls >= 40, polls
    idle = [o for o in outliers if o["pid"] == ppid and o["syscall"] in ("poll", "ppoll") and
            o["latency_ns"] >= 50_000_000]
    assert len(idle) <= 3, (len(idle), polls, [(o["latency_ns"], o["threshold_ns"])
                                               for o in idle[:3]])
