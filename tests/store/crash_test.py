#!/usr/bin/env python3
"""crash_test.py BUILD_DIR [SEED]: `zkpipe serve` on its default SQLite job store, killed with
SIGKILL at 10 seeded random moments while a backlog of 20 small jobs (mimc_jobs, 3 partitions
each) is proved, and restarted each time. Then: every job is done exactly once (zk_job.completions
= 1), every proof verifies with zkpipe-tool's verifier from the snarkjs files the client writes, a
job acknowledged right before a kill is not lost, checkpointed partitions are not proved again
after a restart, a second daemon on the same store file is refused, a torn input in the store
is detected (the job fails naming the SHA-256; nothing is proved from it), and after a second
SIGTERM the waiting client and the store agree (UNAVAILABLE and queued; the next start proves it).
Prints the kill-to-reclaim times and submit latencies (figures for the README). Standard library
only (+ the sqlite3 CLI); every wait is bounded."""
import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
SEED = int(sys.argv[2]) if len(sys.argv) > 2 else 20261202
ZKPIPE = os.path.join(BUILD, "bin", "zkpipe")
TOOL = os.path.join(BUILD, "bin", "zkpipe-tool")
failures = []


def check(what, ok, detail=""):
    print(("PASS  " if ok else "FAIL  ") + what + ("" if ok else f": {detail}"), flush=True)
    if not ok:
        failures.append(what)
    return ok


def run(*args, timeout=120):
    p = subprocess.run([ZKPIPE, *args], capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout + p.stderr


class Daemon:
    """One `zkpipe serve` process; its output goes to a log file (read for 'serve: ready')."""

    def __init__(self, config, log):
        self.log_path = log
        self.log = open(log, "a")
        self.log.write(f"---- start {time.strftime('%H:%M:%S')}\n")
        self.log.flush()
        self.start_offset = os.path.getsize(log)
        self.p = subprocess.Popen([ZKPIPE, "serve", "--config", config], stdout=self.log,
                                  stderr=subprocess.STDOUT, start_new_session=True)

    def text(self):
        with open(self.log_path) as f:
            f.seek(self.start_offset)
            return f.read()

    def wait_ready(self, seconds=60):
        until = time.time() + seconds
        while time.time() < until:
            t = self.text()
            if "serve: ready" in t:
                return True
            if self.p.poll() is not None:
                return False
            time.sleep(0.05)
        return False

    def kill9(self):
        os.killpg(self.p.pid, signal.SIGKILL)
        self.p.wait(timeout=30)

    def term(self, seconds=60):
        self.p.send_signal(signal.SIGTERM)
        try:
            return self.p.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            self.kill9()
            return None


def wait_state(db, request_id, state, seconds):
    """Whether the stored job of `request_id` reaches `state` within `seconds`."""
    until = time.time() + seconds
    while time.time() < until:
        try:
            con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
            row = con.execute("SELECT state FROM zk_job WHERE request_id = ?",
                              (request_id,)).fetchone()
            con.close()
            if row and row[0] == state:
                return True
        except sqlite3.Error:
            pass
        time.sleep(0.02)
    return False


def wait_partial(db, seconds):
    """A running job with some but not all of its partitions checkpointed: (id, count)."""
    until = time.time() + seconds
    while time.time() < until:
        try:
            con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
            row = con.execute(
                "SELECT j.id, count(p.position) FROM zk_job j JOIN zk_partition p ON p.job_id = "
                "j.id WHERE j.state = 'running' GROUP BY j.id HAVING count(p.position) BETWEEN 1 "
                "AND j.partitions - 1 LIMIT 1").fetchone()
            con.close()
            if row:
                return row
        except sqlite3.Error:
            pass
        time.sleep(0.02)
    return None


def main():
    rng = random.Random(SEED)
    tmp = tempfile.mkdtemp(prefix="zkp-crash-")
    sock = f"unix://{tmp}/zk.sock"
    config = os.path.join(tmp, "serve.yaml")
    db = os.path.join(tmp, "jobs.db")  # the default: beside the params dir
    with open(config, "w") as f:
        f.write(f"""version: 1
plugin_dirs: [{BUILD}/plugins, {BUILD}/tests/pipeline_plugins]
log: {{level: info}}
memory: {{backend: pageable}}
compute: {{threads: 1}}
params: {{dir: {tmp}/params, missing: setup}}
server:
  listen: ["{sock}"]
  http: ""
  proof_types: [mimc_jobs]
store:
  max_attempts: 20
  retry_backoff: 0s
""")

    def request(name, rounds, partitions, seed):
        path = os.path.join(tmp, name)
        with open(path, "w") as f:
            json.dump({"rounds": rounds, "partitions": partitions, "seed": seed}, f)
        return path

    log = os.path.join(tmp, "serve.log")
    d = Daemon(config, log)
    if not check("serve starts on the default SQLite store and says ready", d.wait_ready(120),
                 d.text()[-600:]):
        return 1
    check("the store is jobs.db beside the params dir", os.path.exists(db), os.listdir(tmp))
    rc, text = run("status", "--addr", sock)
    check("status names the SQLite store", rc == 0 and f"store: sqlite {db}" in text, text[-400:])

    # A second daemon on the same store file is refused, naming the file.
    other = os.path.join(tmp, "other.yaml")
    with open(other, "w") as f:
        f.write(open(config).read().replace(f"{tmp}/zk.sock", f"{tmp}/other.sock")
                .replace("store:\n", f"store:\n  sqlite: {{path: {db}}}\n"))
    p = subprocess.run([ZKPIPE, "serve", "--config", other], capture_output=True, text=True,
                       timeout=60)
    check("a second daemon on the same store file is refused, naming it and the holder",
          p.returncode != 0 and db in p.stderr and "in use" in p.stderr, p.stderr[-400:])

    # The backlog: 20 jobs of 3 partitions, about half a second each on 2 cores.
    jobs = {}
    latencies = []
    for i in range(20):
        path = request(f"job{i}.json", 4096, 3, 100 + i)
        t0 = time.time()
        rc, text = run("submit", "--addr", sock, "--proof", "mimc_jobs", "--input", path,
                       "--request-id", f"r{i}")
        latencies.append((time.time() - t0) * 1000)
        m = re.search(r"job (\d+)", text)
        if not check(f"submit r{i} is accepted", rc == 0 and m, text[-300:]):
            return 1
        jobs[f"r{i}"] = int(m.group(1))

    kill_to_ready = []
    accepted_before_kill = None
    partial, partial_offset = None, 0  # (job id, checkpoints) of the job killed half-proved
    for k in range(10):
        time.sleep(rng.uniform(0.2, 1.5))
        if k == 3:  # one kill while a job has some, not all, of its partitions checkpointed
            partial = wait_partial(db, 60)
            partial_offset = os.path.getsize(log)
            check("a kill finds a job with some partitions checkpointed", partial, "none in 60 s")
        if k == 4:  # a job acknowledged right before the kill
            path = request("last.json", 512, 2, 999)
            rc, text = run("submit", "--addr", sock, "--proof", "mimc_jobs", "--input", path,
                           "--request-id", "acked-then-killed")
            check("the job right before a kill is acknowledged", rc == 0, text[-300:])
            accepted_before_kill = "acked-then-killed"
        d.kill9()
        t0 = time.time()
        d = Daemon(config, log)
        ok = d.wait_ready(120)
        kill_to_ready.append(time.time() - t0)
        if not check(f"restart {k + 1} after kill -9 says ready", ok, d.text()[-600:]):
            return 1

    # Everything completes; each exactly once; every proof verifies independently.
    names = list(jobs) + [accepted_before_kill]
    for name in names:
        out = os.path.join(tmp, "snark-" + name)
        rc, text = run("await", "--addr", sock, "--request-id", name, "--timeout", "5m",
                       "--snarkjs", out, timeout=400)
        if not check(f"{name}: awaited after the kills, done", rc == 0, text[-400:]):
            continue
        verified = 0
        for f in sorted(os.listdir(out)):
            m = re.match(r"proof_(\d+)\.json$", f)
            if not m:
                continue
            v = subprocess.run([TOOL, "groth16", "verify", "--vk",
                                os.path.join(out, "verification_key.json"), "--proof",
                                os.path.join(out, f), "--public",
                                os.path.join(out, f"public_{m.group(1)}.json")],
                               capture_output=True, text=True, timeout=120)
            verified += v.returncode == 0
        want = 2 if name == accepted_before_kill else 3
        check(f"{name}: all {want} partition proofs verify (zkpipe-tool groth16 verify)",
              verified == want, f"{verified} verified")

    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10)
    rows = con.execute("SELECT request_id, state, completions, attempts FROM zk_job").fetchall()
    con.close()
    done_once = [r for r in rows if r[1] == "done" and r[2] == 1]
    check("21 jobs stored, each done exactly once (completions = 1)",
          len(rows) == 21 and len(done_once) == 21, rows)
    lost = [n for n in names if n not in {r[0] for r in rows}]
    dup = [r for r in rows if r[2] > 1]
    print(f"figures: jobs lost {len(lost)}, duplicated {len(dup)} over 10 kills; attempts "
          f"{sorted(r[3] for r in rows)}")
    text = open(log).read()
    if partial:
        jid, kept = partial
        reused = re.findall(rf"job {jid}: attempt \d+ on \S+, (\d+) of 3 partition\(s\) already",
                            text[partial_offset:])
        check(f"job {jid}, killed with {kept} of 3 partitions checkpointed, proved only the rest "
              "after the restart", reused and int(reused[0]) >= kept, reused)

    # A torn input: a job whose stored input no longer matches its SHA-256 is failed, not proved.
    path = request("torn.json", 65536, 1, 7)
    rc, text = run("submit", "--addr", sock, "--proof", "mimc_jobs", "--input", path,
                   "--request-id", "torn")
    check("the job to tear is accepted", rc == 0, text[-300:])
    d.kill9()
    con = sqlite3.connect(db, timeout=10)
    con.execute("UPDATE zk_blob SET data = substr(data, 1, length(data) - 1) WHERE sha256 = "
                "(SELECT input_sha256 FROM zk_job WHERE request_id = 'torn')")
    con.commit()
    con.close()
    d = Daemon(config, log)
    check("restart with a torn input says ready", d.wait_ready(120), d.text()[-600:])
    rc, text = run("await", "--addr", sock, "--request-id", "torn", "--timeout", "60s",
                   timeout=120)
    check("the torn input is detected: the job fails naming its SHA-256",
          rc != 0 and "SHA-256" in text, f"rc {rc}: {text[-400:]}")
    code = d.term(60)
    check("SIGTERM: exit 0", code == 0, d.text()[-400:])

    # A second SIGTERM (issue 33 #3): the job in flight goes back to the store's queue, so its
    # waiting client is told UNAVAILABLE (await again), not CANCELLED; the next start proves it.
    d = Daemon(config, log)
    check("restart for the double SIGTERM says ready", d.wait_ready(120), d.text()[-600:])
    path = request("double-term.json", 16384, 3, 9)
    waiter = subprocess.Popen([ZKPIPE, "submit", "--addr", sock, "--proof", "mimc_jobs", "--input",
                               path, "--request-id", "double-term", "--wait"],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    running = wait_state(db, "double-term", "running", 60)
    check("the job to interrupt is running", running)
    d.p.send_signal(signal.SIGTERM)
    time.sleep(0.3)
    d.p.send_signal(signal.SIGTERM)
    try:
        code = d.p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        d.kill9()
        code = None
    check("double SIGTERM: exit 0", code == 0, d.text()[-400:])
    try:
        out, _ = waiter.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        waiter.kill()
        out = "timed out"
    check("double SIGTERM: the waiting client is told UNAVAILABLE (await again), not CANCELLED",
          waiter.returncode != 0 and "UNAVAILABLE" in out and "CANCELLED" not in out.upper(),
          out[-400:])
    check("double SIGTERM: the store keeps the job queued, as the client was told",
          wait_state(db, "double-term", "queued", 5), d.text()[-400:])
    d = Daemon(config, log)
    check("restart after the double SIGTERM says ready", d.wait_ready(120), d.text()[-600:])
    rc, text = run("await", "--addr", sock, "--request-id", "double-term", "--timeout", "5m",
                   timeout=400)
    check("the next start proves the job the double SIGTERM gave back", rc == 0 and
          "verified" in text, f"rc {rc}: {text[-400:]}")
    code = d.term(60)
    check("SIGTERM: exit 0", code == 0, d.text()[-400:])

    latencies.sort()
    print(f"figures: kill -9 to ready (store reopened, jobs re-queued): median "
          f"{sorted(kill_to_ready)[len(kill_to_ready) // 2]:.2f} s, max "
          f"{max(kill_to_ready):.2f} s")
    print(f"figures: submit latency with the SQLite store (zkpipe submit, process start "
          f"included): p50 {latencies[len(latencies) // 2]:.1f} ms, max {latencies[-1]:.1f} ms")
    print(f"crash_test: {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
