# SPDX-License-Identifier: GPL-2.0-only
"""--metrics: the tracer's /metrics, read by the real thing. Debian's Prometheus scrapes it
every second and answers histogram_quantile() of a syscall driven at a known latency as
`sclat status` does, within the bucket; promtool finds the page clean; classes by cgroup
carry each cgroup's path as their class label; only GET /metrics is served, on loopback
unless told otherwise."""
import json
import os
import shlex
import socket
import subprocess
import urllib.error
import urllib.parse
import urllib.request

from conftest import (SCLAT, Watch, cgroup2_mount, env_of, free_ports, reap, run_sclat,
                      wait_until)

# Nine sleeps of 100 us, then one of 10 ms, until STOPFILE exists: the 0.99 quantile of its
# clock_nanosleep calls is the 0.9 quantile of the 10 ms ones, deep inside the bucket
# (8.4 ms, 16.8 ms] even when the machine's load delays some of them: it leaves it only if
# a tenth of them are 6.7 ms late.
SLEEPER = r"""
import os, sys, time
stop = sys.argv[1]
while not os.path.exists(stop):
    for _ in range(9):
        time.sleep(0.0001)
    time.sleep(0.01)
"""

# The exported bounds, in ns (README, "Prometheus metrics").
BOUNDS = [1 << k for k in range(8, 34)]


def bucket_of(ns):
    """The exported bucket (lo, hi] that holds a latency of ns."""
    lo = 0
    for hi in BOUNDS:
        if ns <= hi:
            return lo, hi
        lo = hi
    return lo, float("inf")


def scrape(port, path="/metrics", method="GET"):
    """(HTTP status, body) of one request to sclat's endpoint; (None, "") when nothing
    listens."""
    req = urllib.request.Request("http://127.0.0.1:%d%s" % (port, path), method=method)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()
    except (urllib.error.URLError, ConnectionError):
        # Not listening yet (sclat starts it before loading its programs), or any more.
        return None, ""


def samples(text, name):
    """{frozenset of label pairs: value} of the samples of metric name in a page."""
    out = {}
    for line in text.splitlines():
        if not line.startswith(name + "{"):
            continue
        labels, value = line[len(name) + 1:].rsplit("} ", 1)
        pairs = []
        for part in labels.split('",'):
            k, v = part.split('="', 1)
            pairs.append((k, v.rstrip('"')))
        out[frozenset(pairs)] = float(value)
    return out


class Prometheus:
    """Debian's prometheus on loopback, in a directory of its own, scraping sclat every
    second; its HTTP API asked with query()."""

    def __init__(self, tmp_path, target_port):
        self.port = free_ports(1)[0]
        d = tmp_path / "prometheus"
        d.mkdir()
        (d / "prometheus.yml").write_text(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
            "scrape_configs:\n  - job_name: sclat\n    static_configs:\n"
            "      - targets: ['127.0.0.1:%d']\n" % target_port)
        self.log = open(d / "log", "w")
        self.proc = subprocess.Popen(
            ["prometheus", "--config.file=%s" % (d / "prometheus.yml"),
             "--storage.tsdb.path=%s" % (d / "data"),
             "--web.listen-address=127.0.0.1:%d" % self.port],
            stdout=self.log, stderr=subprocess.STDOUT, cwd=d)

    def query(self, q):
        """The instant vector's values of PromQL q, as floats; [] when empty or not ready."""
        url = "http://127.0.0.1:%d/api/v1/query?%s" % (
            self.port, urllib.parse.urlencode({"query": q}))
        try:
            with urllib.request.urlopen(url, timeout=10) as r:
                answer = json.load(r)
        except (urllib.error.URLError, ConnectionError):
            return []
        assert answer["status"] == "success", answer
        return [float(v["value"][1]) for v in answer["data"]["result"]]

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                reap(self.proc)
        self.log.close()


def sleeper_watch(tmp_path, port, *extra):
    stop = tmp_path / "stop"
    w = Watch(env_of(tmp_path), "--metrics", "127.0.0.1:%d" % port, *extra, "--",
              "/usr/bin/python3", "-c", SLEEPER, str(stop))
    return w, stop


def nanosleep_row(w):
    st = w.try_status()
    if not st:
        return None
    return next((s for s in st["syscalls"] if s["syscall"] == "clock_nanosleep"), None)


def test_prometheus_p99_of_a_known_latency_agrees_with_status_within_its_bucket(root,
                                                                                 tmp_path):
    port = free_ports(1)[0]
    w, stop = sleeper_watch(tmp_path, port)
    prom = None
    try:
        # Enough 10 ms sleeps for a p99 of its own: 1000 calls put 10 above it.
        assert wait_until(lambda: (nanosleep_row(w) or {}).get("calls", 0) >= 2000,
                          timeout=40, step=0.5), "".join(w.stderr)
        prom = Prometheus(tmp_path, port)
        # Two scrapes of the histogram in the range rate() reads, and up.
        series = 'sclat_syscall_latency_seconds_bucket{syscall="clock_nanosleep",class=""}'
        assert wait_until(lambda: prom.query('count_over_time(%s[30s]) >= 3'
                                             % series.replace("_bucket{", '_count{')),
                          timeout=60, step=1), open(prom.log.name).read()[-3000:]
        assert prom.query('up{job="sclat"}') == [1.0]
        q = "histogram_quantile(0.99, rate(%s[30s]))" % series
        answer = prom.query(q)
        p99 = nanosleep_row(w)["p99_ns"]
        assert len(answer) == 1, (q, answer)
        prom_ns = answer[0] * 1e9
        # Both in one exported bucket, and so within its bound: the one the 10 ms sleeps
        # fill (8.4 ms, 16.8 ms], or one above it on a machine loaded enough to delay a
        # tenth of them by 6.7 ms; never below it.
        lo, hi = bucket_of(prom_ns)
        assert lo < p99 <= hi, ("prometheus", prom_ns, "status", p99, (lo, hi))
        assert lo >= 1 << 23, (prom_ns, p99)

        # The page itself is clean by promtool's rules, and only GET /metrics is served.
        code, page = scrape(port)
        assert code == 200
        lint = subprocess.run(["promtool", "check", "metrics"], input=page, text=True,
                              capture_output=True)
        assert lint.returncode == 0 and not lint.stdout.strip() and not lint.stderr.strip(), \
            lint.stdout + lint.stderr
        assert scrape(port, "/")[0] == 404
        assert scrape(port, "/metrics/x")[0] == 404
        assert scrape(port, "/metrics", "POST")[0] == 405
        # +Inf is the count, and the count sclat's own calls of clock_nanosleep or more.
        inf = samples(page, "sclat_syscall_latency_seconds_bucket")
        count = samples(page, "sclat_syscall_latency_seconds_count")
        key = frozenset([("syscall", "clock_nanosleep")])
        assert inf[key | {("le", "+Inf")}] == count[key] > 0
        assert samples(page, "sclat_build_info")
        assert samples(page, "sclat_bpf_run_seconds_total")
    finally:
        stop.write_text("")
        if prom:
            prom.stop()
        # The sleeper ends at the stop file, and sclat with it: a SIGTERM that came while
        # sclat was still ending would be in its exit status (143).
        try:
            w.wait(timeout=30)
        finally:
            w.stop()
    assert w.proc.returncode == 0, "".join(w.stderr)


def test_record_serves_metrics_while_it_records_and_closes_the_port_at_its_end(
        lttng_sessiond, tmp_path):
    port, stop, out = free_ports(1)[0], tmp_path / "stop", tmp_path / "trace"
    rec = subprocess.Popen([SCLAT, "record", "-o", str(out), "--metrics", "localhost:%d" % port,
                            "--", "/usr/bin/python3", "-c", SLEEPER, str(stop)],
                           env=env_of(tmp_path), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
    key = frozenset([("syscall", "clock_nanosleep")])
    page = {}

    def counted():
        code, text = scrape(port)
        page["count"] = samples(text, "sclat_syscall_latency_seconds_count").get(key, 0) \
            if code == 200 else 0
        return page["count"] >= 100
    try:
        assert wait_until(counted, timeout=40, step=0.5), page
    finally:
        stop.write_text("")
        try:
            stdout, stderr = rec.communicate(timeout=60)
        finally:
            reap(rec)
    assert rec.returncode == 0, stderr
    assert stdout.splitlines()[-1] == str(out)
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", port)) != 0, "still listening after the run"


CGROUP_SLEEPER = r"""
import os, sys, time
where, secs, pidfile, stop = sys.argv[1:5]
with open(os.path.join(where, "cgroup.procs"), "w") as f:
    f.write(str(os.getpid()))
open(pidfile, "w").close()
while not os.path.exists(stop):
    time.sleep(float(secs))
"""

CGROUP_POLICY = """\
[global]
interval = 200ms
budget = 0
classes = cgroup
class_idle = 10s
[default]
mode = off
[syscall clock_nanosleep]
mode = adaptive
quantile = 0.99
margin = 1
min_samples = 50
"""


def test_classes_by_cgroup_carry_each_cgroup_path_as_their_class_label(root, cgroup2_dir,
                                                                       tmp_path):
    dirs = [os.path.join(cgroup2_dir, d) for d in ("fast", "slow")]
    for d in dirs:
        os.mkdir(d)
    port, stop = free_ports(1)[0], tmp_path / "stop"
    policy = tmp_path / "policy.ini"
    policy.write_text(CGROUP_POLICY)
    # 200 us sleeps in one cgroup, 3 ms ones in the other.
    started = [tmp_path / "fast.pid", tmp_path / "slow.pid"]
    script = " & ".join(" ".join(shlex.quote(str(a)) for a in (
        "/usr/bin/python3", "-c", CGROUP_SLEEPER, d, secs, pidfile, stop))
        for d, secs, pidfile in zip(dirs, ("0.0002", "0.003"), started)) + "; wait"
    w = Watch(env_of(tmp_path), "--policy", str(policy), "--metrics", "127.0.0.1:%d" % port,
              "--", "/bin/sh", "-c", script)
    mount = cgroup2_mount() or str(tmp_path / "cgroup2")
    fast, slow = ("/" + os.path.relpath(d, mount) for d in dirs)
    count = {}
    try:
        assert wait_until(lambda: all(p.exists() for p in started), timeout=30), \
            "".join(w.stderr)

        def both_counted():
            code, page = scrape(port)
            if code != 200:
                return False
            count.clear()
            count.update({dict(k).get("class"): v for k, v in samples(
                page, "sclat_syscall_latency_seconds_count").items()
                if ("syscall", "clock_nanosleep") in k})
            count["page"] = page
            return count.get(fast, 0) >= 200 and count.get(slow, 0) >= 200
        assert wait_until(both_counted, timeout=30, step=0.5), \
            (sorted(k for k in count if k != "page"), "".join(w.stderr))
    finally:
        stop.write_text("")
        w.stop()
        for d in dirs:
            wait_until(lambda: not open(os.path.join(d, "cgroup.procs")).read(), timeout=10)
            os.rmdir(d)
    page = count["page"]
    buckets = samples(page, "sclat_syscall_latency_seconds_bucket")

    def under(cls, ns):
        return buckets[frozenset([("syscall", "clock_nanosleep"), ("class", cls),
                                  ("le", "%.9f" % (ns / 1e9))])]
    # Each class's histogram is its own cgroup's calls: 200 us sleeps all but a few under
    # 2.1 ms, the 3 ms ones none.
    assert under(fast, 1 << 21) >= 0.9 * count[fast], (fast, count[fast])
    assert under(slow, 1 << 21) <= 0.05 * count[slow], (slow, count[slow])
    # The syscall's own series counts both cgroups' calls (and its other callers').
    assert count[None] >= count[fast] + count[slow]
    # Each class has its counters and its threshold under the same label.
    for cls in (fast, slow):
        key = frozenset([("syscall", "clock_nanosleep"), ("class", cls)])
        assert samples(page, "sclat_syscall_calls_total")[key] > 0
        assert key in samples(page, "sclat_syscall_threshold_seconds")
    lint = subprocess.run(["promtool", "check", "metrics"], input=page, text=True,
                          capture_output=True)
    assert lint.returncode == 0, lint.stdout + lint.stderr


def test_a_port_taken_or_a_public_address_is_refused_before_tracing(root, tmp_path):
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    addr = "127.0.0.1:%d" % taken.getsockname()[1]
    try:
        r = run_sclat("watch", "--metrics", addr, "--", "/bin/true", env=env_of(tmp_path))
    finally:
        taken.close()
    assert r.returncode == 1, r.stderr
    assert "--metrics %s: cannot listen there: Address already in use" % addr in r.stderr, \
        r.stderr
    r = run_sclat("record", "--metrics", "0.0.0.0:9464", "--", "/bin/true")
    assert r.returncode == 2 and "not a loopback address" in r.stderr \
        and "--metrics-bind-any" in r.stderr, r.stderr
