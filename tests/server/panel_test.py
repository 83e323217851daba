#!/usr/bin/env python3
"""tests/server/panel_test.py BUILD_DIR [--keep DIR]: the live panel of `zkpipe serve`, rendered
by a real browser against the real daemon.

Starts BUILD_DIR/bin/zkpipe serve (CPU backend, the test plugin mimc_jobs, params made by the
development setup) with the panel on a free loopback port, proves 3 mimc_jobs requests through
`zkpipe submit --wait`, then loads http://127.0.0.1:PORT/ in headless Chromium and checks the DOM
it rendered against GET /panel/data: the device list and timeline, the queue numbers per priority,
the totals, a finished row (data-state="done") per job, the failures table, the waterfall legend
and body[data-updated]. Saves a screenshot as BUILD_DIR/tests/server/panel.png (an artifact) and
checks it is a PNG of the window's size. Ends with SIGTERM, which must drain and exit 0.
Every wait is bounded; on failure everything started is killed (process groups) and the
daemon's output is printed. Chromium missing is a failure, never a skip. --keep DIR keeps the
work files (config, requests, dumped DOM, daemon log) in DIR. About 20 s on 2 cores.
"""
import argparse
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from html.parser import HTMLParser

READY_TIMEOUT = 60
SUBMIT_TIMEOUT = 180
CHROME_TIMEOUT = 90
DRAIN_TIMEOUT = 60
SEEDS = (11, 12, 13)
PRIORITIES = ("critical", "high", "normal", "low")
WINDOW = (1400, 1100)
# Flags that let the page's 1 s fetch polling render before the dump: headless Chromium runs on
# virtual time, which waits for pending network loads and then fast-forwards timers; a 4 s budget
# covers the first poll (and a few more) however slow the real clock is.
CHROME_FLAGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                "--virtual-time-budget=4000"]


class Failed(Exception):
    pass


# ---- processes ------------------------------------------------------------------------------

def kill_group(proc):
    """SIGKILL the process group of `proc` (started with start_new_session) and reap it."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def run_bounded(cmd, timeout, what):
    """Runs cmd in its own process group; returns (rc, stdout, stderr). Past `timeout` the group
    is killed and Failed raised. The group is killed after a normal exit too (leftover helpers)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            errors="replace", start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_group(proc)
        out, err = proc.communicate()
        raise Failed("%s: no exit within %d s\n%s" % (what, timeout, tail(out + err, 30)))
    finally:
        kill_group(proc)
    return proc.returncode, out, err


def tail(text, lines):
    return "\n".join(text.rstrip("\n").splitlines()[-lines:])


class Daemon:
    """`zkpipe serve` in its own process group; stdout lines collected by a thread, stderr to a
    file."""

    def __init__(self, cmd, stderr_path):
        self.stderr_path = stderr_path
        self.stdout_lines = []
        self.ready = threading.Event()
        self.stderr_file = open(stderr_path, "w")
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=self.stderr_file,
                                     text=True, errors="replace", start_new_session=True)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for line in self.proc.stdout:
            self.stdout_lines.append(line.rstrip("\n"))
            if "ready" in line:
                self.ready.set()

    def wait_ready(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.ready.wait(0.2):
                return
            if self.proc.poll() is not None:
                raise Failed("zkpipe serve exited with %d before printing 'ready'" %
                             self.proc.returncode)
        raise Failed("zkpipe serve printed no 'ready' line within %d s" % timeout)

    def terminate(self, timeout):
        """SIGTERM; returns the exit status, or raises Failed past `timeout`."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise Failed("zkpipe serve did not exit within %d s of SIGTERM" % timeout)

    def kill(self):
        if self.proc.poll() is None:
            kill_group(self.proc)
        self.reader.join(timeout=5)
        self.stderr_file.close()

    def output_tail(self, lines=40):
        with open(self.stderr_path, errors="replace") as f:
            err = f.read()
        return ("--- zkpipe serve stdout (last %d lines) ---\n%s\n"
                "--- zkpipe serve stderr (last %d lines) ---\n%s" %
                (lines, tail("\n".join(self.stdout_lines), lines), lines, tail(err, lines)))


# ---- HTTP and the DOM -----------------------------------------------------------------------

def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_get(url, timeout=10):
    try:
        with urllib.request.urlopen(url, timeout=timeout) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read()
    except Exception as e:  # noqa: BLE001: any failure is reported with the URL
        raise Failed("GET %s failed: %s" % (url, e))


def panel_data(base):
    status, _, body = http_get(base + "/panel/data")
    if status != 200:
        raise Failed("GET /panel/data: HTTP %d" % status)
    try:
        return json.loads(body)
    except ValueError as e:
        raise Failed("GET /panel/data: not JSON (%s): %r" % (e, body[:200]))


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children = tag, dict(attrs), parent, []

    def text(self):
        return "".join(c if isinstance(c, str) else c.text() for c in self.children).strip()

    def walk(self):
        for c in self.children:
            if isinstance(c, Node):
                yield c
                yield from c.walk()

    def find_all(self, tag=None, **attrs):
        """Descendants with this tag (any when None) and these attribute values (a value of
        True: the attribute is present). Attribute names use _ for -: data_job=7."""
        want = {k.replace("_", "-"): v for k, v in attrs.items()}
        return [n for n in self.walk() if (tag is None or n.tag == tag) and all(
            (k in n.attrs) if v is True else n.attrs.get(k) == str(v) for k, v in want.items())]

    def find(self, tag=None, **attrs):
        found = self.find_all(tag, **attrs)
        return found[0] if found else None


class DomBuilder(HTMLParser):
    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
            "track", "wbr"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {}, None)
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        node = Node(tag, [(k, v or "") for k, v in attrs], self.cur)
        self.cur.children.append(node)
        if tag not in self.VOID:
            self.cur = node

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, [(k, v or "") for k, v in attrs], self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not None and n.tag != tag:
            n = n.parent
        if n is not None and n.parent is not None:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.children.append(data)


def parse_dom(html):
    b = DomBuilder()
    b.feed(html)
    b.close()
    return b.root


# ---- chromium -------------------------------------------------------------------------------

def chromium_errors(err, lines=20):
    """Chromium's stderr without the D-Bus noise of a machine with no session bus."""
    keep = [l for l in err.splitlines() if "dbus" not in l and "unexpected operator" not in l]
    return tail("\n".join(keep), lines)


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        path = shutil.which(name)
        if path:
            return path
    raise Failed("no Chromium: none of chromium, chromium-browser, google-chrome is on PATH "
                 "(Debian: apt-get install chromium); the panel test needs a real browser")


def chromium(browser, profile, url, *extra):
    shutil.rmtree(profile, ignore_errors=True)
    cmd = [browser] + CHROME_FLAGS + ["--user-data-dir=" + profile] + list(extra) + [url]
    return run_bounded(cmd, CHROME_TIMEOUT, "chromium " + " ".join(extra))


def dump_dom(browser, profile, url):
    """The page's DOM after its polling rendered (body[data-updated]); two tries."""
    for attempt in (1, 2):
        rc, out, err = chromium(browser, profile, url, "--dump-dom")
        if rc != 0:
            raise Failed("chromium --dump-dom exited with %d\n%s" % (rc, chromium_errors(err)))
        dom = parse_dom(out)
        body = dom.find("body")
        if body is not None and body.attrs.get("data-updated"):
            return out, dom
        print("panel_test: try %d: the dumped DOM has no body[data-updated] yet" % attempt)
    raise Failed("the panel never rendered panel/data in Chromium (no body[data-updated]); "
                 "chromium stderr:\n%s\nDOM head:\n%s" % (chromium_errors(err), out[:2000]))


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        raise Failed("%s is not a PNG" % path)
    return struct.unpack(">II", head[16:24])


# ---- checks ---------------------------------------------------------------------------------

def check_dom(dom, before, after, failures):
    """Compares the rendered DOM with /panel/data fetched before (`before`) and after (`after`)
    the browser ran. Appends what differs to `failures`."""
    def fail(msg):
        failures.append(msg)

    def by_id(i):
        n = dom.find(id=i)
        if n is None:
            fail("no #%s in the DOM" % i)
        return n

    body = dom.find("body")
    updated = float(body.attrs["data-updated"])
    if not before["now_s"] - 1e-6 <= updated <= after["now_s"] + 1e-6:
        fail("body[data-updated]=%s is outside the daemon clock of the run [%s, %s]" %
             (updated, before["now_s"], after["now_s"]))
    if body.attrs.get("data-connection") != "connected":
        fail("body[data-connection]=%r, expected 'connected'" % body.attrs.get("data-connection"))
    version = by_id("version")
    if version is not None and version.text() != after["version"]:
        fail("#version is %r, /panel/data says %r" % (version.text(), after["version"]))
    accepting = by_id("accepting")
    if accepting is not None and accepting.attrs.get("data-state") != "accepting":
        fail("#accepting[data-state]=%r while the daemon accepts work" %
             accepting.attrs.get("data-state"))

    # Devices: one list item per device of the data, its busy % between the two snapshots.
    for canvas in ("device-timeline", "waterfall", "queue-chart", "memory-chart",
                   "throughput-chart"):
        n = by_id(canvas)
        if n is not None and n.tag != "canvas":
            fail("#%s is a <%s>, not a <canvas>" % (canvas, n.tag))
    names = [d["name"] for d in after["devices"]]
    if not names:
        fail("/panel/data lists no devices")
    if not any(re.fullmatch(r"cpu\d+", n) for n in names):
        fail("/panel/data names no CPU device (cpuN): %s" % names)
    device_list = by_id("device-list")
    if device_list is not None:
        shown = [li.attrs.get("data-device") for li in device_list.find_all("li", data_device=True)]
        if shown != names:
            fail("#device-list shows devices %s, /panel/data has %s" % (shown, names))
        pct_before = {d["name"]: d["busy_pct"] for d in before["devices"]}
        for d in after["devices"]:
            li = device_list.find("li", data_device=d["name"])
            if li is None:
                continue
            pct = li.find(**{"class": "busy-pct"})
            text = pct.text() if pct is not None else ""
            m = re.fullmatch(r"(\d+(?:\.\d)?)%", text)
            if not m:
                fail("device %s: busy %% text %r is not like '42.5%%'" % (d["name"], text))
                continue
            lo = min(pct_before.get(d["name"], d["busy_pct"]), d["busy_pct"]) - 0.051
            hi = max(pct_before.get(d["name"], d["busy_pct"]), d["busy_pct"]) + 0.051
            if not lo <= float(m.group(1)) <= hi:
                fail("device %s: the page shows %s busy, /panel/data said %s then %s" %
                     (d["name"], text, pct_before.get(d["name"]), d["busy_pct"]))

    # Queues: the numbers as text, equal to the data (no work arrives while the browser runs).
    for p in PRIORITIES:
        for key, field in (("jobs", "jobs"), ("partitions", "partitions_queued")):
            n = by_id("queue-%s-%s" % (p, key))
            if n is None:
                continue
            want = {str(before["queues"][p][field]), str(after["queues"][p][field])}
            if n.text() not in want:
                fail("#queue-%s-%s is %r, /panel/data says %s" % (p, key, n.text(), sorted(want)))

    # Totals.
    for key in ("jobs_done", "jobs_failed", "jobs_cancelled", "partitions_proved"):
        n = by_id("counter-" + key)
        if n is not None and n.text() != str(after["counters"][key]):
            fail("#counter-%s is %r, /panel/data says %s" % (key, n.text(), after["counters"][key]))

    # Finished jobs: a row per finished job of the data, with its state.
    table = by_id("finished-jobs")
    if table is not None:
        for j in after["jobs"]:
            if j["state"] in ("done", "failed", "cancelled") and \
                    table.find("tr", data_job=j["job"], data_state=j["state"]) is None:
                fail("#finished-jobs has no tr[data-job=%s][data-state=%s]" % (j["job"], j["state"]))

    # Failures: one row per failure of the data.
    table = by_id("failures")
    if table is not None:
        rows = [tr.attrs["data-job"] for tr in table.find_all("tr", data_job=True)]
        want = [str(f["job"]) for f in after["failures"]]
        if rows != want:
            fail("#failures rows are jobs %s, /panel/data has %s" % (rows, want))

    # Waterfall legend: the span names of the data's jobs.
    legend = by_id("waterfall-legend")
    if legend is not None:
        spans = {s["name"] for j in after["jobs"] for p in j.get("partitions", [])
                 for s in p.get("spans", [])}
        shown = {li.attrs["data-span"] for li in legend.find_all("li", data_span=True)}
        if shown != spans:
            fail("#waterfall-legend shows spans %s, the jobs have %s" % (sorted(shown), sorted(spans)))


def check_data(data, failures):
    """What the daemon must report after our 3 jobs: 3 done mimc_jobs jobs, 6 partitions."""
    done = [j for j in data["jobs"] if j["state"] == "done" and j["proof_type"] == "mimc_jobs"]
    if len(done) != len(SEEDS):
        failures.append("/panel/data lists %d done mimc_jobs jobs, expected %d: %s" %
                        (len(done), len(SEEDS), [(j["job"], j["state"]) for j in data["jobs"]]))
    if data["counters"]["jobs_done"] != len(SEEDS):
        failures.append("/panel/data counters.jobs_done = %s, expected %d" %
                        (data["counters"]["jobs_done"], len(SEEDS)))
    for j in done:
        if len(j["partitions"]) != 2 or any(not p["spans"] for p in j["partitions"]):
            failures.append("job %s: expected 2 partitions with spans, got %s" %
                            (j["job"], j["partitions"]))
    # The params are made while the first job waits (a fresh params dir, missing: setup): that
    # wait is drawn as params time, not as queue wait or synthesis.
    if not any(s["name"] == "params" for j in done for p in j["partitions"] for s in p["spans"]):
        failures.append("no partition shows a 'params' span, though the first job waited for its "
                        "params to be made: %s" % [p["spans"] for j in done for p in j["partitions"]])
    for p in PRIORITIES:
        if data["queues"][p]["jobs"] != 0:
            failures.append("queue %s holds %s jobs after every job finished" %
                            (p, data["queues"][p]["jobs"]))


# ---- the test -------------------------------------------------------------------------------

def write_config(source_root, build, work, path):
    with open(os.path.join(source_root, "configs", "cpu.yaml")) as f:
        text = f.read()
    dirs = ", ".join('"%s"' % d for d in (os.path.join(build, "plugins"),
                                          os.path.join(build, "tests", "pipeline_plugins")))
    text = re.sub(r"(?m)^(version: 1.*)$", r"\1\nplugin_dirs: [%s]" % dirs, text, count=1)
    text = re.sub(r"(?m)^(  level:)\s*\S+", r"\1 warn", text, count=1)
    text = re.sub(r"(?m)^(  dir:)\s*\S+", r"\1 %s" % os.path.join(work, "params"), text, count=1)
    text = re.sub(r"(?m)^(  missing:)\s*\S+", r"\1 setup", text, count=1)
    for needle in ("plugin_dirs:", "level: warn", "missing: setup", os.path.join(work, "params")):
        if needle not in text:
            raise Failed("could not make the config from configs/cpu.yaml (%s)" % needle)
    with open(path, "w") as f:
        f.write(text)


def run_test(build, work, sock_dir):
    source_root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    zkpipe = os.path.join(build, "bin", "zkpipe")
    if not os.access(zkpipe, os.X_OK):
        raise Failed("%s is missing or not executable" % zkpipe)
    browser = find_chromium()
    config = os.path.join(work, "serve.yaml")
    os.makedirs(os.path.join(work, "params"), exist_ok=True)
    write_config(source_root, build, work, config)
    addr = "unix://" + os.path.join(sock_dir, "zk.sock")
    port = free_port()
    base = "http://127.0.0.1:%d" % port
    artifact = os.path.join(build, "tests", "server", "panel.png")
    os.makedirs(os.path.dirname(artifact), exist_ok=True)
    if os.path.exists(artifact):
        os.remove(artifact)

    daemon = Daemon([zkpipe, "serve", "--config", config, "--listen", addr,
                     "--http", "127.0.0.1:%d" % port], os.path.join(work, "daemon.stderr"))
    failures = []
    try:
        daemon.wait_ready(READY_TIMEOUT)
        print("panel_test: zkpipe serve is ready (http %s, grpc %s)" % (base, addr))
        for name, want in (("/", b"panel.js"), ("/panel.js", b"panel/data"),
                           ("/panel.css", b"{"), ("/chart.js", b"Chart")):
            status, _, body = http_get(base + name)
            if status != 200 or want not in body:
                raise Failed("GET %s: HTTP %d, %d bytes, no %r in it" % (name, status, len(body), want))

        for seed in SEEDS:
            request = os.path.join(work, "request-%d.json" % seed)
            with open(request, "w") as f:
                json.dump({"rounds": 64, "partitions": 2, "seed": seed}, f)
            rc, out, err = run_bounded([zkpipe, "submit", "--addr", addr, "--proof", "mimc_jobs",
                                        "--input", request, "--wait"], SUBMIT_TIMEOUT,
                                       "zkpipe submit (seed %d)" % seed)
            if rc != 0:
                raise Failed("zkpipe submit --wait (seed %d) exited with %d\n%s" %
                             (seed, rc, tail(out + err, 30)))
        print("panel_test: 3 jobs proved and verified")

        before = panel_data(base)
        check_data(before, failures)
        profile = os.path.join(work, "chrome")
        html, dom = dump_dom(browser, profile, base + "/")
        after = panel_data(base)
        with open(os.path.join(work, "panel.dom.html"), "w") as f:
            f.write(html)
        with open(os.path.join(work, "panel.data.json"), "w") as f:
            json.dump(after, f, indent=1)
        check_dom(dom, before, after, failures)

        rc, _, err = chromium(browser, profile, base + "/", "--screenshot=" + artifact,
                              "--window-size=%d,%d" % WINDOW, "--hide-scrollbars")
        if rc != 0 or not os.path.isfile(artifact) or os.path.getsize(artifact) == 0:
            failures.append("chromium --screenshot (rc %d) wrote no %s\n%s" % (rc, artifact, chromium_errors(err)))
        else:
            size = png_size(artifact)
            if size != WINDOW:
                failures.append("%s is %dx%d, expected %dx%d" % ((artifact,) + size + WINDOW))
            print("panel_test: screenshot %s (%d bytes)" % (artifact, os.path.getsize(artifact)))

        rc = daemon.terminate(DRAIN_TIMEOUT)
        if rc != 0:
            failures.append("zkpipe serve exited with %d after SIGTERM, expected 0" % rc)
    except Failed as e:
        failures.append(str(e))
    finally:
        daemon.kill()
    if failures:
        print("panel_test: FAILED")
        for f in failures:
            print("  - " + f.replace("\n", "\n    "))
        print(daemon.output_tail())
        return False
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("build_dir")
    ap.add_argument("--keep", metavar="DIR", help="keep the work files in DIR")
    args = ap.parse_args()
    build = os.path.abspath(args.build_dir)
    if args.keep:
        work = os.path.abspath(args.keep)
        os.makedirs(work, exist_ok=True)
    else:
        work = tempfile.mkdtemp(prefix="zkpipe-panel-")
    sock_dir = tempfile.mkdtemp(prefix="zkp-")  # short: a unix socket path has 107 bytes at most
    start = time.monotonic()
    try:
        ok = run_test(build, work, sock_dir)
    except Failed as e:  # before the daemon started
        print("panel_test: FAILED\n  - " + str(e))
        ok = False
    finally:
        shutil.rmtree(sock_dir, ignore_errors=True)
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    if ok:
        print("panel_test: PASS (%.1f s)" % (time.monotonic() - start))
    elif args.keep:
        print("panel_test: work files kept in " + work)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
