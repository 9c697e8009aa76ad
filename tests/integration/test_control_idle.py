# SPDX-License-Identifier: GPL-2.0-only
"""The control socket's slots (issue 38, item 9): clients that connect and say nothing must
not keep `sclat status` (or `sclat top`) waiting for their whole deadline."""
import os
import socket
import time

from conftest import wait_until
from test_policy_runtime import Tracer

QUIET_POLICY = "[global]\ninterval = 300ms\n[default]\nmode = off\n"


def test_eight_idle_clients_do_not_keep_status_waiting(root, tmp_path):
    """Eight connections that send nothing took the tracer's 8 slots: status waited 4.5 s
    for them to reach their 5 s deadline. Now an idle one gives its slot to the one that
    waits."""
    policy = tmp_path / "quiet.ini"
    policy.write_text(QUIET_POLICY)
    t = Tracer(str(policy), dict(os.environ, SCLAT_RUN_DIR=str(tmp_path / "run")))
    idle = []
    try:
        assert wait_until(lambda: t.ctl("status").returncode == 0, timeout=10)
        for _ in range(8):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(t.socket)
            idle.append(s)
        for _ in range(3):
            start = time.monotonic()
            r = t.ctl("status")
            took = time.monotonic() - start
            assert r.returncode == 0, r.stderr
            assert took < 3, "status waited %.1f s for idle clients" % took
        # A client that sends its request at once is served whatever the idle ones do.
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(3)
            s.connect(t.socket)
            s.sendall(b"status text\n")
            assert s.recv(3) == b"ok "
    finally:
        for s in idle:
            s.close()
        t.stop()
