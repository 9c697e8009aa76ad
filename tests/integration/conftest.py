# SPDX-License-Identifier: GPL-2.0-only
"""Shared fixtures: the built sclat, workloads, root, and no-skip enforcement.

Under SCLAT_REQUIRE_ALL=1 (what .ci/run sets) a test that would be skipped
fails instead: CI must prove the BPF and LTTng paths, not step around them.
"""
import json
import os
import subprocess
import time

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


def run_sclat(*args, timeout=60, **kw):
    """Run sclat to completion; returns the CompletedProcess (text mode)."""
    return subprocess.run([SCLAT, *args], capture_output=True, text=True,
                          timeout=timeout, **kw)


def json_lines(text):
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def sclat_progs():
    """Ids of the BPF programs named sclat_* loaded in the kernel now."""
    out = subprocess.run(["bpftool", "-j", "prog", "show"], capture_output=True,
                         text=True, check=True).stdout
    return [p["id"] for p in json.loads(out) if p.get("name", "").startswith("sclat_")]


def prog_ids_of(pid):
    """Ids of the BPF programs process pid holds open (from /proc/PID/fdinfo)."""
    ids = set()
    try:
        fds = os.listdir("/proc/%d/fdinfo" % pid)
    except OSError:
        return ids
    for fd in fds:
        try:
            with open("/proc/%d/fdinfo/%s" % (pid, fd)) as f:
                for line in f:
                    if line.startswith("prog_id:"):
                        ids.add(int(line.split()[1]))
        except OSError:
            pass
    return ids


def wait_until(cond, timeout=10.0, step=0.05):
    """Poll cond() until it is true or timeout passes; returns its last value."""
    deadline = time.monotonic() + timeout
    while True:
        v = cond()
        if v or time.monotonic() >= deadline:
            return v
        time.sleep(step)
