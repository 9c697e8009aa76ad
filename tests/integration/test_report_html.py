# SPDX-License-Identifier: GPL-2.0-only
"""`sclat report --html` (issue 37): one self-contained page, checked in a real browser.

Debian's headless Chromium loads the page of a recorded trace (tests/workloads/waits' pipe
read, slow_read <- handle_request <- main, 20 ms on a pipe a writer fills) and the tests read
the DOM it built: the read's histogram and threshold line, the flame graph's frames naming the
workload's functions, the top outlier's why, a script that ran to its end with no console
error; a screenshot is kept under the test's output. A trace whose names are markup renders
them as text, never as elements.

SCLAT_UPDATE_SCREENSHOT=1 also writes test_a_learned_threshold_is_on_its_timeline's screenshot
to tests/integration/report-html.png, the picture in README.md.
"""
import html.parser
import json
import random
import os
import re
import shutil
import subprocess

from conftest import (ROOT, SCLAT, S, run_sclat, synthetic_outlier, workload,
                      write_synthetic_trace)
from test_learned import COLD, LATGEN

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
SCREENSHOT = os.path.join(ROOT, "tests", "integration", "report-html.png")
CONSOLE = re.compile(r":CONSOLE[:(]\d+\)?\]|Uncaught")   # INFO:CONSOLE:1] "message", source: ...


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent = tag, dict(attrs), parent
        self.children, self.text = [], ""

    def all_text(self):
        return self.text + "".join(c.all_text() for c in self.children)

    def walk(self):
        yield self
        for c in self.children:
            yield from c.walk()

    def find(self, tag=None, cls=None):
        return [n for n in self.walk() if (tag is None or n.tag == tag) and
                (cls is None or cls in n.attrs.get("class", "").split())]


VOID = {"meta", "input", "br", "img", "link", "hr", "area", "base", "col", "embed", "source",
        "track", "wbr"}


class DomParser(html.parser.HTMLParser):
    """The DOM Chromium dumped, as a tree of Nodes (the stdlib parser, entities decoded)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = self.at = Node("#document", [], None)

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.at)
        self.at.children.append(n)
        if tag not in VOID:
            self.at = n

    def handle_startendtag(self, tag, attrs):
        self.at.children.append(Node(tag, attrs, self.at))

    def handle_endtag(self, tag):
        n = self.at
        while n is not None and n.tag != tag:
            n = n.parent
        if n is not None and n.parent is not None:
            self.at = n.parent

    def handle_data(self, data):
        # Text goes to the node it is in: before or after its children, it is all its own.
        self.at.text += data


def chromium(tmp_path, page, *args):
    """Run headless Chromium on page; (stdout, stderr). Its own profile: tests share the
    machine."""
    r = subprocess.run([CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu",
                        "--user-data-dir=%s" % (tmp_path / "chromium-profile"),
                        "--enable-logging=stderr", "--v=0", *args, "file://%s" % page],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout, r.stderr


def load(tmp_path, page):
    """The DOM after the page's script ran, and the console's complaints."""
    out, err = chromium(tmp_path, page, "--dump-dom")
    p = DomParser()
    p.feed(out)
    return p.root, [l for l in err.splitlines() if CONSOLE.search(l)]


def report_html(tmp_path, trace, *args):
    page = tmp_path / "report.html"
    r = subprocess.run([SCLAT, "report", trace, "--html", str(page), *args],
                       capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return page


def screenshot(tmp_path, page, height):
    """A picture of the page, kept with the test's output."""
    shot = tmp_path / "report.png"
    chromium(tmp_path, page, "--screenshot=%s" % shot, "--window-size=1400,%d" % height,
             "--hide-scrollbars")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    return shot


def frame_names(dom, kind):
    return [g.find("title")[0].all_text().split("\n")[0] for g in dom.find("g", kind)]


def test_console_errors_are_seen(tmp_path):
    """The check below is not blind: a page that throws is caught by it."""
    bad = tmp_path / "bad.html"
    bad.write_text("<!DOCTYPE html><html><body><script>console.error('boom');"
                   "null.x;</script></body></html>")
    _, complaints = load(tmp_path, bad)
    assert any("boom" in l for l in complaints), complaints
    assert any("Uncaught" in l for l in complaints), complaints


def test_page_of_a_recorded_trace(pipe_trace, tmp_path):
    trace, known, read = pipe_trace
    page = report_html(tmp_path, trace)
    raw = page.read_text()
    # Self-contained: nothing to fetch (the only URL is SVG's namespace, a name).
    assert not re.search(r"<(link|img|iframe)\b|\bsrc=|@import|url\(", raw), raw[:2000]
    assert set(re.findall(r"https?://[^\"' )]+", raw)) <= {"http://www.w3.org/2000/svg"}

    dom, complaints = load(tmp_path, page)
    assert complaints == [], complaints
    body = dom.find("body")[0]
    assert body.attrs.get("data-js") == "ok", "the page's script did not run to its end"

    # The read's card: its histogram (a bar per bucket), its threshold marked, its timeline.
    cards = [c for c in dom.find("div", "card") if c.find("h3")[0].all_text().strip() == "read"]
    assert len(cards) == 1, [c.find("h3")[0].all_text() for c in dom.find("div", "card")]
    hist = cards[0].find("svg", "hist")
    assert len(hist) == 1 and hist[0].find("rect", "bar"), cards[0].all_text()
    bars = {b.find("title")[0].all_text() for b in hist[0].find("rect", "bar")}
    assert any(re.search(r": [1-9]\d*$", b) for b in bars), bars
    assert "threshold 5ms" in [t.all_text() for t in hist[0].find("title")]
    assert cards[0].find("svg", "thrsvg")

    # The flame graph: the workload's functions, then the syscall, then the kernel's frames.
    user = frame_names(dom, "usr")
    for fn in ("main", "handle_request", "slow_read"):
        assert any(n == fn or n.startswith(fn + ".") for n in user), (fn, user)
    assert "read" in frame_names(dom, "sys")
    kernel = frame_names(dom, "krn")
    assert any("pipe_read" in n for n in kernel), kernel

    # Every top outlier has its why; the read's: asleep on the pipe, woken by the writer.
    tops = dom.find("article", "top")
    assert tops and all(t.find("p", "whyline") for t in tops), "a top outlier without its why"
    first = [t for t in tops if re.match(r"\d+\. read .*/%d\]" % known["reader_tid"],
                                         t.find("h3")[0].all_text())]
    assert len(first) == 1, [t.find("h3")[0].all_text() for t in tops]
    first = first[0]
    why = first.find("p", "whyline")[0].all_text()
    assert "pipe:[%d]" % known["pipe_ino"] in why and "woken by writer" in why, why
    assert first.find("svg", "bd")[0].find("rect", "sl"), "no sleep in the breakdown bar"
    assert "slow_read" in first.all_text()

    # Its point in the scatter says the same.
    titles = [c.find("title")[0].all_text() for c in dom.find("circle", "pt")]
    assert any("pipe:[%d]" % known["pipe_ino"] in t for t in titles), titles

    screenshot(tmp_path, page, 2000)


# What the page may build: any other element came from a trace.
ALLOWED = {"#document", "html", "head", "meta", "title", "style", "body", "h1", "h2", "h3",
           "h4", "p", "a", "b", "i", "span", "section", "div", "article", "table", "tbody",
           "tr", "th", "td", "dl", "dt", "dd", "ol", "li", "input", "button", "script", "svg",
           "g", "rect", "line", "text", "circle", "path"}

HOSTILE_COMM = "<script>\"'\u202e"
HOSTILE_SYSCALL = "<img src=x onerror=alert(1)>"
HOSTILE_STACK = "</title><svg onload=alert(2)>+0x1;pipe_read+0x2"
HOSTILE_TARGET = "</script><script>alert(3)</script>"


def test_hostile_names_render_as_text(tmp_path):
    ts, fields = synthetic_outlier(2 * S + 3000, HOSTILE_SYSCALL, 101, 0, 2 * S, 20_000_000,
                                   comm=HOSTILE_COMM, off_cpu=[])
    fields.update(kernel_stack=HOSTILE_STACK, target=HOSTILE_TARGET, waker_comm=HOSTILE_COMM,
                  waker_pid=7, waker_tid=7)
    other = synthetic_outlier(3 * S, "read", 102, 1, 3 * S - 5000, 9_000_000, comm="café",
                              off_cpu=[])
    trace = str(tmp_path / "trace")
    write_synthetic_trace(trace, [(ts, fields), other])
    page = report_html(tmp_path, trace)
    raw = page.read_bytes()
    assert "\u202e".encode() not in raw, "a bidirectional control reached the page"
    dom, complaints = load(tmp_path, page)
    assert complaints == [], complaints
    assert dom.find("body")[0].attrs.get("data-js") == "ok"
    tags = {n.tag for n in dom.walk()}
    assert tags <= ALLOWED, tags - ALLOWED
    assert len(dom.find("script")) == 1
    assert not [a for n in dom.walk() for a in n.attrs if a.startswith("on")]
    text = dom.all_text()
    # Shown as text, as the terminal report shows it: the bidi control as its bytes.
    shown_comm = "<script>\"'\\xe2\\x80\\xae"
    assert shown_comm in text, text
    assert HOSTILE_SYSCALL in text and HOSTILE_TARGET in text
    # A frame is its function: up to a blank, an offset or the next frame.
    assert "</title><svg" in frame_names(dom, "krn")
    assert "café" in text


def synthetic_page(tmp_path, n, stacks, seed=7):
    """The page of a synthetic trace of n outliers whose kernel stacks are drawn from stacks
    distinct ones (8 frames of 300 names each)."""
    rnd = random.Random(seed)
    names = ["fn_%03d" % i for i in range(300)]
    pool = [";".join("%s+0x10" % rnd.choice(names) for _ in range(8)) for _ in range(stacks)]
    events = []
    for i in range(n):
        lat = int(10 ** rnd.uniform(6, 8))
        entry = S + i * 100_000
        ts, f = synthetic_outlier(entry + lat + 1000, rnd.choice(["read", "write", "futex"]),
                                  100 + i % 7, i % 2, entry, lat, off_cpu=[])
        f.update(kernel_stack=rnd.choice(pool), sleep_ns=lat)
        events.append((ts, f))
    trace = str(tmp_path / "trace")
    write_synthetic_trace(trace, events)
    return trace


def test_past_its_bounds_the_page_samples_and_says_so(tmp_path):
    """20500 outliers: 20000 points drawn, a uniform sample that the page announces, the
    same one each time; the flame graph's frames past its bound left out, and said."""
    trace = synthetic_page(tmp_path, 20500, 3000)
    page = report_html(tmp_path, trace)
    raw = page.read_text()
    assert raw.count('<circle class="pt"') == 20000
    assert "Sampled: 20000 of 20500 outliers drawn" in raw
    frames = raw.count('<g class="fr ')
    drawn = re.search(r"Drawn: (\d+) of (\d+) frames", raw)
    assert drawn and int(drawn.group(1)) == frames <= 6000 < int(drawn.group(2)), drawn
    # Both ends of the run are in the sample: it is spread, not the first 20000.
    xs = [float(x) for x in re.findall(r'<circle class="pt" cx="([\d.]+)"', raw)]
    assert max(xs) > 1100 and min(xs) < 100, (min(xs), max(xs))
    again = tmp_path / "again.html"
    r = subprocess.run([SCLAT, "report", trace, "--html", str(again)], capture_output=True,
                       timeout=120)
    assert r.returncode == 0 and again.read_text() == raw, "the same trace sampled otherwise"


def with_host(trace, host):
    """Name the synthetic trace's host, as LTTng does in its environment."""
    with open(os.path.join(trace, "metadata"), "a") as f:
        f.write('\nenv {\n\thostname = "%s";\n};\n' % host)


def test_hosts_side_by_side(tmp_path):
    a = str(tmp_path / "a")
    b = str(tmp_path / "b")
    write_synthetic_trace(a, [synthetic_outlier(2 * S, "read", 101, 0, 2 * S - 30_000_000,
                                                30_000_000, off_cpu=[])])
    write_synthetic_trace(b, [synthetic_outlier(2 * S, "write", 102, 0, 2 * S - 50_000_000,
                                                50_000_000, off_cpu=[]),
                              synthetic_outlier(3 * S, "write", 102, 0, 3 * S - 40_000_000,
                                                40_000_000, off_cpu=[])])
    with_host(a, "alpha")
    with_host(b, "beta<i>")
    page = tmp_path / "hosts.html"
    r = subprocess.run([SCLAT, "report", a, b, "--html", str(page)], capture_output=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    dom, complaints = load(tmp_path, page)
    assert complaints == []
    table = dom.find("table")[0]
    rows = [[c.all_text() for c in tr.children] for tr in table.find("tr")]
    assert rows[0] == ["host", "alpha", "beta<i>"], rows[0]
    assert ["within the filters", "1", "2"] in rows, rows
    tops = [t.find("h3")[0].all_text() for t in dom.find("article", "top")]
    assert len(tops) == 3 and tops[0].startswith("1. write 50ms") and " on beta<i> " in tops[0], \
        tops
    assert any(" on alpha " in t for t in tops), tops


# Run after the page's own script: a user's clicks and typing, and what the page then shows.
INTERACT = """<script>(function(){
var b=document.body, frs=Array.prototype.slice.call(document.querySelectorAll('#flamesvg g.fr'));
function named(n){return frs.filter(function(g){
  return g.querySelector('title').textContent.split('\\n')[0]===n;})[0];}
function click(el){el.dispatchEvent(new MouseEvent('click',{bubbles:true}));}
click(named('b_outer'));
b.dataset.zoomB=named('b_outer').querySelector('rect').getAttribute('width');
b.dataset.zoomBInner=named('b_inner').querySelector('rect').getAttribute('width');
b.dataset.hiddenA=named('a_outer').style.display;
b.dataset.dimRead=named('read').classList.contains('dim');
click(document.getElementById('freset'));
b.dataset.resetA=named('a_outer').style.display+'|'+
  named('a_outer').querySelector('rect').getAttribute('width');
var q=document.getElementById('fsearch'); q.value='INNER'; q.dispatchEvent(new Event('input'));
b.dataset.hits=document.querySelectorAll('#flamesvg g.fr.hit').length;
b.dataset.fmatch=document.getElementById('fmatch').textContent;
var pt=document.querySelector('#scattersvg .pt'); click(pt);
b.dataset.whyShown=document.getElementById('why').textContent===
  pt.querySelector('title').textContent;
})();</script>"""


def test_flame_graph_zooms_and_searches_a_point_tells_why(tmp_path):
    """Clicking a frame zooms into it (its column fills the width, others hide, those above
    dim), reset undoes it, the search box marks the frames whose name holds the text
    (whatever its case), and a point clicked shows its why."""
    events = []
    for i, (stack, lat) in enumerate((("a_inner+0x1;a_outer+0x2", 31_000_000),
                                      ("b_inner+0x1;b_outer+0x2", 11_000_000))):
        ts, f = synthetic_outlier((2 + i) * S, "read", 101, 0, (2 + i) * S - lat, lat,
                                  off_cpu=[])
        f.update(kernel_stack=stack, sleep_ns=lat)
        events.append((ts, f))
    trace = str(tmp_path / "trace")
    write_synthetic_trace(trace, events)
    page = report_html(tmp_path, trace)
    # Beyond the 1 ms threshold: a's 30 ms and b's 10 ms, three quarters and one.
    assert re.search(r'<g class="fr krn" data-x="[\d.]+" data-w="0.25000', page.read_text())
    tried = tmp_path / "tried.html"
    tried.write_text(page.read_text().replace("</body>", INTERACT + "</body>"))
    dom, complaints = load(tmp_path, tried)
    assert complaints == [], complaints
    b = dom.find("body")[0].attrs
    assert b["data-js"] == "ok"
    assert b["data-zoom-b"] == "1200.0" and b["data-zoom-b-inner"] == "1200.0", b
    assert b["data-hidden-a"] == "none" and b["data-dim-read"] == "true", b
    assert b["data-reset-a"] == "|900.0", b
    assert b["data-hits"] == "2" and b["data-fmatch"] == "2 frames match", b
    assert b["data-why-shown"] == "true", b


def test_a_page_that_cannot_be_written_is_an_error_naming_it(tmp_path):
    trace = str(tmp_path / "trace")
    write_synthetic_trace(trace, [synthetic_outlier(2 * S, "read", 101, 0, S, S, off_cpu=[])])
    bad = tmp_path / "missing" / "page.html"
    r = subprocess.run([SCLAT, "report", trace, "--html", str(bad)], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 1 and r.stdout == "", r
    assert r.stderr.startswith("sclat: %s: cannot write the HTML page there: " % bad), r.stderr
    # With the stacks on stdout, the page is still written.
    page = tmp_path / "page.html"
    r = subprocess.run([SCLAT, "report", trace, "--folded", "-", "--html", str(page)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.startswith("slow;read "), r
    assert page.read_text().startswith("<!DOCTYPE html>")


def test_a_learned_threshold_is_on_its_timeline(root, lttng_sessiond, tmp_path):
    """read(2) adaptive from a cold 0 ns (test_learned's policy): every read is an outlier
    until the threshold is learned; the read's card shows that change as learned, from its
    estimate, and the page of the burst says it sampled. Then waits' pipe read, 300 ms (a
    loaded machine may preempt one of latgen's reads for 20), is the outlier of most impact.
    This page is README's picture."""
    cold = tmp_path / "cold.ini"
    cold.write_text(COLD)
    trace, facts = str(tmp_path / "trace"), tmp_path / "facts"
    r = run_sclat("record", "-o", trace, "--policy", str(cold), "--", "sh", "-c",
                  "%s --duration 3 %s && %s pipe --wait-ms 300 --report %s" % (
                      workload("latgen"), " ".join(LATGEN), workload("waits"), facts))
    assert r.returncode == 0, r.stderr
    known = json.loads(facts.read_text().splitlines()[0])
    page = report_html(tmp_path, trace, "--syscall", "read")
    dom, complaints = load(tmp_path, page)
    assert complaints == [], complaints
    cards = [c for c in dom.find("div", "card") if c.find("h3")[0].all_text().strip() == "read"]
    assert len(cards) == 1
    learned = [g.find("title")[0].all_text() for g in cards[0].find("g", "learned")]
    assert learned and all(re.search(r"^\S+ -> \S+, learned from an estimate of \S+$", t)
                           for t in learned), learned
    # The step line goes through each change.
    assert cards[0].find("path", "step")
    outliers = int(re.search(r"in the trace, (\d+) within the filters",
                             dom.all_text()).group(1))
    sample = [c for c in dom.find("circle", "pt") if "top" not in c.attrs["class"].split()]
    assert len(sample) == min(outliers, 20000), (len(sample), outliers)
    assert ("Sampled: 20000 of %d outliers" % outliers in dom.all_text()) is (outliers > 20000)
    first = dom.find("article", "top")[0]
    assert re.match(r"1\. read .*/%d\]" % known["reader_tid"], first.find("h3")[0].all_text())
    assert "pipe:[%d]" % known["pipe_ino"] in first.find("p", "whyline")[0].all_text()
    # Sampled or not, the outliers of most impact are in the scatter, ringed.
    ringed = [c.find("title")[0].all_text() for c in dom.find("circle", "top")]
    assert len(ringed) == len(dom.find("article", "top")), ringed
    assert any("pipe:[%d]" % known["pipe_ino"] in t for t in ringed), ringed
    shot = screenshot(tmp_path, page, 2700)
    if os.environ.get("SCLAT_UPDATE_SCREENSHOT") == "1":
        shutil.copyfile(shot, SCREENSHOT)
