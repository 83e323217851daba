# tests/hostile/cases_daemon.py: hostile clients of `zkpipe serve` (class 10, issue 34). Each case
# starts a daemon of its own in its directory (the test plugin mimc_jobs, whose tiny circuits
# prove in milliseconds and whose "hold" key parks a job inside its claim; a SQLite store),
# does its worst, and then stops the daemon with SIGTERM: a daemon that does not exit within
# 30 s is a HANG, one that dies of a signal a CRASH (hostile.forced_verdict). LOST: an accepted
# job that is not in the store or never ends after a kill -9 and a restart.
import json
import os
import re
import resource
import signal
import socket
import sqlite3
import subprocess
import threading
import time
import urllib.request

from hostile import LOST, OK, QUICK_TIMEOUT, UNCLEAR, WRONG, Case, Run, longest_echo, ECHO_LIMIT

CLS = "10 daemon"
READY_TIMEOUT = 30  # seconds from start to "serve: ready"
STOP_TIMEOUT = 30  # seconds from SIGTERM to exit


class Daemon:
    """`zkpipe serve` in the case's directory; `stop()` records it as one of the case's runs."""

    def __init__(self, ctx, server_extra="", store_extra="", name="serve",
                 proof_types="mimc_jobs", nofile=None):
        self.ctx, self.name = ctx, name
        self.sock = f"unix://{ctx.path(name + '.sock')}"
        self.config = ctx.path(name + ".yaml")
        fx = ctx.fx
        with open(self.config, "w") as f:
            f.write(f"""version: 1
plugin_dirs: [{fx.plugins}, {fx.build}/tests/pipeline_plugins]
log: {{level: info}}
memory: {{backend: pageable}}
compute: {{threads: 1}}
params: {{dir: {ctx.path('params')}, missing: setup}}
store: {{backend: sqlite, sqlite: {{path: {ctx.path('jobs.db')}}}{store_extra}}}
server:
  listen: ["{self.sock}", "127.0.0.1:0"]
  http: "127.0.0.1:0"
  proof_types: [{proof_types}]
{server_extra}
""")
        self.log = ctx.path(name + ".log")
        self.t0 = time.monotonic()
        limit = (lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))) \
            if nofile else None
        self.p = subprocess.Popen([fx.zkpipe, "serve", "--config", self.config],
                                  stdout=open(self.log, "ab"), stderr=subprocess.STDOUT,
                                  start_new_session=True, cwd=ctx.dir, preexec_fn=limit)
        self.ready = self._wait_ready()
        text = self.text()
        m = re.search(r"HTTP on (http://127\.0\.0\.1:\d+)", text)
        self.web = m.group(1) if m else None
        m = re.search(r"gRPC on .*?127\.0\.0\.1:(\d+)", text)
        self.grpc_port = int(m.group(1)) if m else None
        self.stopped = False

    def text(self):
        with open(self.log, errors="replace") as f:
            return f.read()

    def _wait_ready(self):
        until = time.monotonic() + READY_TIMEOUT
        while time.monotonic() < until:
            if "serve: ready" in self.text():
                return True
            if self.p.poll() is not None:
                return False
            time.sleep(0.05)
        return False

    def client(self, *args, timeout=QUICK_TIMEOUT, **kw):
        return self.ctx.run([self.ctx.fx.zkpipe, args[0], "--addr", self.sock, *args[1:]],
                            timeout=timeout, **kw)

    def healthy(self):
        try:
            with urllib.request.urlopen(self.web + "/healthz", timeout=5) as r:
                return r.status == 200
        except Exception:  # noqa: BLE001: any failure means not healthy
            return False

    def _record(self, rc, sig, timed_out, sent=None):
        self.ctx.runs.append(Run([self.ctx.fx.zkpipe, "serve", "--config", self.config], rc,
                                 sig, self.text(), timed_out, time.monotonic() - self.t0, sent))

    def stop(self):
        """SIGTERM and wait; records the daemon's run (a HANG past STOP_TIMEOUT)."""
        if self.stopped:
            return
        self.stopped = True
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
        try:
            self.p.wait(timeout=STOP_TIMEOUT)
            timed_out = False
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(self.p.pid, signal.SIGKILL)
            self.p.wait()
        rc = self.p.returncode
        self._record(None if rc < 0 else rc, -rc if rc < 0 else None, timed_out)

    def kill9(self):
        os.killpg(self.p.pid, signal.SIGKILL)
        self.p.wait()
        self.stopped = True
        self._record(None, signal.SIGKILL, False, sent=signal.SIGKILL)


def with_daemon(fn, **daemon_kw):
    """A case body fn(ctx, daemon) with the daemon started before and stopped after."""
    def case(ctx):
        d = Daemon(ctx, **daemon_kw)
        try:
            if not d.ready:
                d.stop()
                return WRONG, "the daemon did not get ready: " + d.text()[-300:]
            return fn(ctx, d)
        finally:
            d.stop()
    return case


def request(ctx, name, rounds=64, partitions=1, seed=1, **extra):
    path = ctx.path(name)
    with open(path, "w") as f:
        json.dump({"rounds": rounds, "partitions": partitions, "seed": seed, **extra}, f)
    return path


def job_id(r):
    m = re.search(r"job (\d+)", r.out)
    return m.group(1) if m else None


def wait_file(path, seconds):
    until = time.monotonic() + seconds
    while time.monotonic() < until:
        if os.path.exists(path):
            return True
        time.sleep(0.02)
    return False


class HeldJob:
    """The daemon's first job, parked inside its claim (mimc_jobs "hold": the engine's parse waits
    for PATH.go). Its submit answers only once the parse ends, so it runs on a thread."""

    def __init__(self, ctx, d, name="held"):
        self.hold = ctx.path(name)
        self.id = "1"  # the first job of the case's fresh store
        path = request(ctx, name + ".json", seed=7, hold=self.hold)
        self.submit = None
        self.thread = threading.Thread(target=self._submit, args=(d, path))
        self.thread.start()
        self.parked = wait_file(self.hold + ".parsing", 20)

    def _submit(self, d, path):
        self.submit = d.client("submit", "--proof", "mimc_jobs", "--input", path, timeout=60)

    def release(self):
        open(self.hold + ".go", "w").close()
        self.thread.join()
        return self.submit


# ---- the cases -----------------------------------------------------------------------------

def slow_clients(ctx, d):
    host, port = d.web[len("http://"):].rsplit(":", 1)
    conns = []
    for _ in range(40):
        s = socket.create_connection((host, int(port)), timeout=5)
        s.sendall(b"GE")
        conns.append(s)
    stop = threading.Event()

    def trickle():
        for k in range(12):  # a byte a connection every 0.5 s, 6 s in all
            if stop.wait(0.5):
                return
            for s in conns:
                try:
                    s.sendall(b"T /healthz HTTP/1.1\r\nX: "[k % 10:k % 10 + 1])
                except OSError:
                    pass
    t = threading.Thread(target=trickle)
    t.start()
    time.sleep(1)
    answered = sum(d.healthy() for _ in range(5))
    stop.set()
    t.join()
    for s in conns:
        s.close()
    if answered < 5:
        return WRONG, f"{answered} of 5 /healthz probes answered beside 40 slow clients"
    return OK, "5 of 5 probes answered beside 40 slow clients"


def out_of_descriptors(ctx, d):
    """The daemon under RLIMIT_NOFILE 256 and 300 connections that never send a byte: the gate
    runs out of file descriptors, drops half-read connections and keeps answering probes,
    without spinning on the listener (its CPU time stays low)."""
    host, port = d.web[len("http://"):].rsplit(":", 1)
    cpu = lambda: sum(int(x) for x in open(f"/proc/{d.p.pid}/stat").read().rsplit(")", 1)[1]
                      .split()[11:13])  # utime + stime, clock ticks
    before = cpu()
    conns = []
    for _ in range(300):
        try:
            conns.append(socket.create_connection((host, int(port)), timeout=5))
        except OSError:
            break
    time.sleep(2)
    answered = sum(d.healthy() for _ in range(5))
    spent = (cpu() - before) / os.sysconf("SC_CLK_TCK")
    for s in conns:
        s.close()
    if answered < 5:
        return WRONG, f"{answered} of 5 probes answered with {len(conns)} idle connections"
    if spent > 1.5:
        return WRONG, f"the daemon spent {spent:.1f} s of CPU in 2 s with idle connections"
    return OK, f"{len(conns)} idle connections, 5 of 5 probes, {spent:.2f} s of CPU"


def long_circuit_id(ctx, d):
    long_id = "c" * 256
    first = d.client("params", "preload", long_id)
    again = d.client("params", "preload", long_id)
    if first.rc == 0 or again.rc == 0:
        return WRONG, "a 256-byte circuit id was accepted"
    if again.timed_out or not d.healthy():
        return WRONG, "the daemon stopped answering after a 256-byte circuit id"
    if longest_echo(first.out) > ECHO_LIMIT:
        return WRONG, f"the refusal echoes {longest_echo(first.out)} characters of the id"
    return OK, f"refused twice ({first.describe()}), the daemon still answers"


def long_request_id(ctx, d):
    r = d.client("await", "--request-id", "r" * 100_000, "--timeout", "1s")
    if r.rc == 0:
        return WRONG, "await of an unknown 100 kB request id succeeded"
    if longest_echo(r.out) > ECHO_LIMIT:
        return WRONG, f"the answer echoes {longest_echo(r.out)} characters of the id"
    if not d.healthy():
        return WRONG, "the daemon stopped answering"
    return OK, f"refused ({r.describe()}), quoting at most {longest_echo(r.out)} characters"


def second_daemon(which):
    def fn(ctx, d):
        port = d.grpc_port if which == "gRPC" else int(d.web.rsplit(":", 1)[1])
        if port is None:
            return UNCLEAR, "the first daemon's TCP gRPC port is not in its log"
        grpc = f"127.0.0.1:{port}" if which == "gRPC" else "127.0.0.1:0"
        http = f"127.0.0.1:{port}" if which == "HTTP" else "127.0.0.1:0"
        config = ctx.path("second.yaml")
        with open(d.config) as f:
            text = f.read()
        text = text.replace(d.sock, d.sock + "2").replace('"127.0.0.1:0"]', f'"{grpc}"]')
        text = text.replace('http: "127.0.0.1:0"', f'http: "{http}"')
        text = text.replace(ctx.path("jobs.db"), ctx.path("jobs2.db"))
        with open(config, "w") as f:
            f.write(text)
        # A refusal takes well under a second; still running after 5 s, it has started.
        r = ctx.run([ctx.fx.zkpipe, "serve", "--config", config], timeout=QUICK_TIMEOUT,
                    kill_after=5)
        if r.sent is not None or "serve: ready" in r.out:
            return WRONG, f"a second daemon started on the first's {which} port {port}"
        if f"port {port} is taken" not in r.out:
            return UNCLEAR, f"refused ({r.describe()}) without naming port {port} as taken"
        if not d.healthy():
            return WRONG, "the first daemon stopped answering"
        return OK, f"refused, naming port {port} and its holder"
    return fn


def overflowing_config(section, line, key):
    def fn(ctx):
        d = (Daemon(ctx, server_extra=f"  {line}") if section == "server"
             else Daemon(ctx, store_extra=f", {line}"))
        try:
            if d.ready:
                return WRONG, f"started with {section}.{line}"
        finally:
            d.stop()
        if key not in d.text():
            return UNCLEAR, f"refused without naming {key}"
        return OK, f"refused, naming {key}"
    return fn


def overflowing_await(ctx, d):
    job = HeldJob(ctx, d)
    if not job.parked:
        job.release()
        return UNCLEAR, "the held job was not claimed within 20 s"
    # Past the bound (10 years): refused, naming it; just under it: waits (saturated deadline).
    over = d.client("await", job.id, "--timeout", "3000000h")
    under = d.client("await", job.id, "--timeout", "87000h", timeout=QUICK_TIMEOUT, kill_after=3)
    job.release()
    if over.rc != 2 or "--timeout" not in over.out:
        return WRONG, f"await --timeout 3000000h: {over.describe()}, not refused naming --timeout"
    if under.sent is None:
        return WRONG, f"await --timeout 87000h of a running job returned at once: {under.describe()}"
    return OK, "3000000h refused naming --timeout; 87000h kept waiting"


def cancel_during_claim(ctx, d):
    job = HeldJob(ctx, d)
    if not job.parked:
        job.release()
        return UNCLEAR, "the held job was not claimed within 20 s"
    c = d.client("cancel", job.id)
    job.release()
    a = d.client("await", job.id, "--timeout", "30s", timeout=40)
    if c.rc != 0:
        return UNCLEAR, f"cancel during the claim: {c.describe()}"
    if a.rc == 0:
        return WRONG, "the cancel was acknowledged, yet the job was proved (await exit 0)"
    if "CANCEL" not in a.out.upper():
        return UNCLEAR, f"await after the cancel: {a.describe()} without CANCELLED"
    return OK, "acknowledged and the job ended CANCELLED"


def await_exhaustion(ctx, d):
    job = HeldJob(ctx, d)
    if not job.parked:
        job.release()
        return UNCLEAR, "the held job was not claimed within 20 s"
    results = []
    lock = threading.Lock()

    def wait():
        r = d.client("await", job.id, "--timeout", "60s", timeout=70)
        with lock:
            results.append(r)
    waiters = [threading.Thread(target=wait) for _ in range(6)]
    for t in waiters:
        t.start()
    time.sleep(1.5)
    status = d.client("status")
    # A submit claims at once and answers after the engine's parse, which waits behind the held
    # one: it runs beside the release.
    submitted = []
    submitter = threading.Thread(target=lambda: submitted.append(d.client(
        "submit", "--proof", "mimc_jobs", "--input", request(ctx, "q.json"), timeout=60)))
    submitter.start()
    time.sleep(0.5)
    job.release()
    submitter.join()
    submit = submitted[0]
    for t in waiters:
        t.join()
    refused = [r for r in results if r.rc != 0]
    if status.rc != 0 or submit.rc != 0:
        return WRONG, f"with 6 awaits waiting: status {status.describe()}, submit {submit.describe()}"
    if len(refused) != 3 or not all("max_waiting_calls" in r.out for r in refused):
        return WRONG, (f"{len(refused)} of 6 awaits refused past server.max_waiting_calls = 3 "
                       "(3 expected, naming the key)")
    return OK, "3 awaits wait, 3 are refused naming the key; status and submit answer"


def kill9_storm(ctx):
    """Jobs accepted, kill -9 while they run, a restart: each ends exactly once (else LOST)."""
    d = Daemon(ctx)
    if not d.ready:
        d.stop()
        return WRONG, "the daemon did not get ready"
    names = [f"storm-{i}" for i in range(6)]
    accepted = []
    for i, name in enumerate(names):
        r = d.client("submit", "--proof", "mimc_jobs", "--request-id", name, "--input",
                     request(ctx, name + ".json", rounds=8192, partitions=2, seed=20 + i))
        if r.rc == 0:
            accepted.append(name)
    d.kill9()
    con = sqlite3.connect(f"file:{ctx.path('jobs.db')}?mode=ro", uri=True, timeout=10)
    open_at_kill = con.execute("SELECT count(*) FROM zk_job WHERE state != 'done'").fetchone()[0]
    con.close()
    d2 = Daemon(ctx, name="serve-again")
    try:
        if not d2.ready:
            return WRONG, "the daemon did not get ready after kill -9"
        for name in accepted:
            r = d2.client("await", "--request-id", name, "--timeout", "60s", timeout=70)
            if r.rc != 0:
                return LOST, f"{name}, accepted before the kill, did not end: {r.describe()}"
    finally:
        d2.stop()
    con = sqlite3.connect(f"file:{ctx.path('jobs.db')}?mode=ro", uri=True, timeout=10)
    rows = dict((r[0], r[1:]) for r in con.execute(
        "SELECT request_id, state, completions FROM zk_job"))
    con.close()
    missing = [n for n in accepted if n not in rows]
    if missing:
        return LOST, f"accepted, not in the store: {missing}"
    twice = [n for n in accepted if rows[n][1] != 1]
    if twice:
        return WRONG, f"ended other than exactly once: {[(n, rows[n]) for n in twice]}"
    return OK, (f"{len(accepted)} accepted jobs ({open_at_kill} not done at the kill), each done "
                "exactly once after the restart")


def vm_kib(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field):
                return int(line.split()[1])
    return 0


def huge_request(ctx, d):
    """A 64 MiB window_post request whose bulk is an unknown key: refused naming it, and the
    daemon's peak memory grows by the message's copies only (it grew ~1.5 GiB, issue 34 #3)."""
    path = ctx.path("huge.json")
    with open(path, "w") as f:
        f.write('{"type": "window_post", "pad": [0')
        f.write(",0" * (32 << 20))
        f.write("]}")
    with open(f"/proc/{d.p.pid}/clear_refs", "w") as f:
        f.write("5")  # the peak starts again from the current resident memory
    before = vm_kib(d.p.pid, "VmRSS:")
    r = d.client("submit", "--proof", "window_post", "--input", path, timeout=60)
    grew = (vm_kib(d.p.pid, "VmHWM:") - before) // 1024
    if r.rc == 0:
        return WRONG, "a request with an unknown 64 MiB key was accepted"
    if ".pad: unknown key" not in r.out:
        return UNCLEAR, f"refused ({r.describe()}) without naming .pad"
    if grew > 320:
        return WRONG, f"refused, but the daemon's peak memory grew {grew} MiB for 64 MiB"
    return OK, f"refused naming .pad; the daemon's peak grew {grew} MiB"


def cases(fx, rng, quick):
    out = [
        Case(CLS, "40 slow HTTP clients, /healthz probes", with_daemon(slow_clients)),
        Case(CLS, "300 idle connections under RLIMIT_NOFILE 256",
             with_daemon(out_of_descriptors, nofile=256)),
        Case(CLS, "params preload of a 256-byte circuit id, twice", with_daemon(long_circuit_id)),
        Case(CLS, "await of a 100 kB request id", with_daemon(long_request_id)),
        Case(CLS, "a second daemon on the first's gRPC port", with_daemon(second_daemon("gRPC"))),
        Case(CLS, "a second daemon on the first's HTTP port", with_daemon(second_daemon("HTTP"))),
        Case(CLS, "server.drain_timeout: 3000000h",
             overflowing_config("server", "drain_timeout: 3000000h", "drain_timeout")),
        Case(CLS, "store.lease: 2562047788015h",
             overflowing_config("store", "lease: 2562047788015h", "lease")),
        Case(CLS, "await --timeout 3000000h / 87000h of a running job",
             with_daemon(overflowing_await)),
        Case(CLS, "cancel during the claim's parse", with_daemon(cancel_during_claim)),
        Case(CLS, "6 awaits past server.max_waiting_calls = 3",
             with_daemon(await_exhaustion, server_extra="  max_waiting_calls: 3")),
        Case(CLS, "kill -9 with 6 accepted jobs, restart", kill9_storm, heavy=True),
        Case(CLS, "a 64 MiB window_post request, unknown key",
             with_daemon(huge_request, proof_types="mimc_jobs, window_post"), heavy=True),
    ]
    return out
