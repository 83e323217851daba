#!/usr/bin/env python3
"""cluster_test.py BUILD_DIR: three `zkpipe serve` daemons on loopback sharing one PostgreSQL job
store (a real server: run under tests/store/with_postgres.sh, which exports PG*). The test proof
type is mimc_jobs with partitions of about 100 ms; leases are short (2 s). Checks:
 (1) 200 jobs submitted round-robin: each done once (completions = 1), partition counts exact;
 (2) kill -9 of a daemon owning a job with committed partitions: re-queued within lease + reaper
     period, finished elsewhere, only the missing partitions proved again;
 (3) SIGSTOP of an owner past its lease, another finishes, SIGCONT: the stale one aborts its work
     and the stored result does not change;
 (4) PostgreSQL restarted mid-run: workers reconnect, no job lost;
 (5) a duplicate submit by request id on another daemon attaches; other bytes: ALREADY_EXISTS;
 (6) a poison job fails after store.max_attempts with its last error kept;
 (7) priority across the cluster: a CRITICAL job ends before every LOW job queued before it;
 and a daemon given a wrong password or an unreachable server refuses to start, saying why.
Prints figures (claims/s, kill to re-claim). Standard library + psql; every wait is bounded."""
import concurrent.futures
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
ZKPIPE = os.path.join(BUILD, "bin", "zkpipe")
failures = []
LEASE_S, REAP_S = 2.0, 0.5


def check(what, ok, detail=""):
    print(("PASS  " if ok else "FAIL  ") + what + ("" if ok else f": {detail}"), flush=True)
    if not ok:
        failures.append(what)
    return ok


def run(*args, timeout=120):
    p = subprocess.run([ZKPIPE, *args], capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout + p.stderr


def sql(query):
    p = subprocess.run(["psql", "-X", "-q", "-At", "-F", "|", "-c", query], capture_output=True,
                       text=True, timeout=30)
    if p.returncode != 0:
        raise RuntimeError(f"psql: {p.stderr}")
    return [line.split("|") for line in p.stdout.splitlines() if line]


def wait_for(pred, seconds, step=0.05):
    until = time.time() + seconds
    while time.time() < until:
        try:
            v = pred()
        except RuntimeError:
            v = None
        if v:
            return v
        time.sleep(step)
    return None


class Daemon:
    def __init__(self, tmp, name, extra=""):
        self.name, self.tmp = name, tmp
        self.sock = f"unix://{tmp}/{name}.sock"
        self.config = os.path.join(tmp, f"{name}.yaml")
        with open(self.config, "w") as f:
            f.write(f"""version: 1
plugin_dirs: [{BUILD}/plugins, {BUILD}/tests/pipeline_plugins]
log: {{level: info}}
memory: {{backend: pageable}}
compute: {{threads: 1}}
pipeline: {{ready_depth: 1}}
params: {{dir: {tmp}/params, missing: setup}}
server:
  listen: ["{self.sock}"]
  http: ""
  proof_types: [mimc_jobs]
store:
  backend: postgres
  worker: {name}
  lease: 2s
  heartbeat: 500ms
  poll: 100ms
  reap: 500ms
  max_attempts: 3
  retry_backoff: 200ms
  claim_ahead: 0
{extra}""")
        self.log = os.path.join(tmp, f"{name}.log")
        self.start()

    def start(self):
        self.out = open(self.log, "a")
        self.offset = os.path.getsize(self.log)
        self.p = subprocess.Popen([ZKPIPE, "serve", "--config", self.config], stdout=self.out,
                                  stderr=subprocess.STDOUT, start_new_session=True)

    def text(self, all_runs=False):
        with open(self.log) as f:
            if not all_runs:
                f.seek(self.offset)
            return f.read()

    def ready(self, seconds=120):
        return wait_for(lambda: "serve: ready" in self.text() or self.p.poll() is not None,
                        seconds) and "serve: ready" in self.text()

    def signal(self, sig):
        os.killpg(self.p.pid, sig)

    def stop(self):
        if self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.signal(signal.SIGKILL)
                self.p.wait(timeout=10)


def request(tmp, name, rounds, partitions, seed, **extra):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        json.dump({"rounds": rounds, "partitions": partitions, "seed": seed, **extra}, f)
    return path


def submit(d, path, rid, priority=None):
    args = ["submit", "--addr", d.sock, "--proof", "mimc_jobs", "--input", path, "--request-id",
            rid]
    if priority:
        args += ["--priority", priority]
    rc, text = run(*args)
    m = re.search(r"job (\d+)", text)
    return (int(m.group(1)) if rc == 0 and m else None), text


def all_done(ids):
    rows = sql("SELECT count(*) FROM zk_job WHERE state = 'done' AND id IN (%s)" %
               ",".join(str(i) for i in ids))
    return int(rows[0][0]) == len(ids)


def owned_running(min_parts=0):
    rows = sql("SELECT j.id, j.owner, count(p.position) FROM zk_job j LEFT JOIN zk_partition p "
               "ON p.job_id = j.id WHERE j.state = 'running' GROUP BY j.id, j.owner "
               f"HAVING count(p.position) >= {min_parts} ORDER BY j.id LIMIT 1")
    return rows[0] if rows else None


def main():
    for var in ("PGHOST", "PGPORT"):
        if not os.environ.get(var):
            print(f"cluster_test: {var} is not set: run under tests/store/with_postgres.sh")
            return 1
    tmp = tempfile.mkdtemp(prefix="zkp-cluster-")

    # Bad input first: a wrong password and an unreachable server refuse to start.
    bad = Daemon(tmp, "bad", "  postgres: {conninfo: 'password=wrong-secret user=zkp_nobody'}\n")
    code = bad.p.wait(timeout=60)
    text = bad.text()
    check("a wrong password: the daemon refuses to start, naming the store, hiding the password",
          code != 0 and "postgres" in text and "wrong-secret" not in text, text[-400:])
    bad2 = Daemon(tmp, "bad2", "  postgres: {conninfo: 'host=127.0.0.1 port=1'}\n")
    code = bad2.p.wait(timeout=60)
    check("an unreachable server: the daemon refuses to start, naming it",
          code != 0 and "port=1" in bad2.text(), bad2.text()[-400:])

    a = Daemon(tmp, "w-a")
    if not check("daemon w-a ready (params made once)", a.ready(), a.text()[-600:]):
        return 1
    # Params for the circuits the test uses, made by one daemon before the others start.
    warm = [request(tmp, f"warm{r}.json", r, 1, 1) for r in (1024, 8192)]
    for i, w in enumerate(warm):
        jid, text = submit(a, w, f"warm{i}")
        rc, out = run("await", "--addr", a.sock, str(jid or 0), "--timeout", "5m", timeout=400)
        check(f"warm-up job {i} done", rc == 0, out[-300:])
    b, c = Daemon(tmp, "w-b"), Daemon(tmp, "w-c")
    check("daemons w-b and w-c ready", b.ready() and c.ready(), b.text()[-300:] + c.text()[-300:])
    daemons = [a, b, c]
    rc, text = run("status", "--addr", b.sock, "--cluster")
    check("status --cluster lists the three workers",
          rc == 0 and all(n in text for n in ("w-a", "w-b", "w-c")), text[-800:])
    check("status --cluster shows w-a's hot params (its warm-up circuits)",
          re.search(r"w-a .*hot params: .*mimc-test-r", text), text[-800:])

    # (1) 200 jobs round-robin.
    ids = []
    t0 = time.time()
    for i in range(200):
        path = request(tmp, f"j{i}.json", 1024, 1 + i % 2, 1000 + i)
        jid, text = submit(daemons[i % 3], path, f"j{i}")
        if jid is None:
            check(f"submit j{i}", False, text[-300:])
            break
        ids.append(jid)
    done = wait_for(lambda: all_done(ids), 300, 0.5)
    took = time.time() - t0
    check("(1) 200 jobs done across the cluster", bool(done) and len(ids) == 200)
    rows = sql("SELECT j.id, j.completions, j.partitions, count(p.position) FROM zk_job j LEFT "
               "JOIN zk_partition p ON p.job_id = j.id WHERE j.id IN (%s) GROUP BY j.id" %
               ",".join(map(str, ids)))
    check("(1) each job completed exactly once (one fenced completion)",
          all(r[1] == "1" for r in rows) and len(rows) == 200, [r for r in rows if r[1] != "1"])
    check("(1) partition counts exact (checkpoints = partitions)",
          all(r[2] == r[3] for r in rows), [r for r in rows if r[2] != r[3]][:5])
    owners = sql("SELECT owner, count(*) FROM zk_job WHERE id IN (%s) GROUP BY owner" %
                 ",".join(map(str, ids)))
    check("(1) every daemon proved some of them", len(owners) == 3, owners)
    print(f"figures: 200 jobs (300 partitions) through 3 daemons in {took:.1f} s: "
          f"{200 / took:.1f} jobs/s; by owner {owners}")
    rc, text = run("await", "--addr", c.sock, "--request-id", "j0", "--out",
                   os.path.join(tmp, "j0.proof"))
    check("(1) a job submitted to w-a is awaited on w-c",
          rc == 0 and os.path.getsize(os.path.join(tmp, "j0.proof")) == 192, text[-300:])

    # (2) kill -9 of an owner with committed partitions.
    big = request(tmp, "big.json", 8192, 8, 77)
    jid, text = submit(b, big, "big")
    owner = wait_for(lambda: owned_running(2), 120)
    if check("(2) a job of 8 partitions runs with committed partitions", owner, text):
        victim = next(d for d in daemons if d.name == owner[1])
        committed = int(owner[2])
        victim.signal(signal.SIGKILL)
        victim.p.wait(timeout=30)
        t_kill = time.time()
        reclaimed = wait_for(lambda: sql(f"SELECT owner FROM zk_job WHERE id = {jid} AND state "
                                         f"IN ('running', 'done') AND owner <> '{victim.name}'"),
                             LEASE_S + REAP_S + 10)
        t_reclaim = time.time() - t_kill
        check(f"(2) re-claimed by another worker within lease + reaper period "
              f"({t_reclaim:.2f} s)", reclaimed and t_reclaim <= LEASE_S + REAP_S + 3,
              t_reclaim)
        finished = wait_for(lambda: all_done([jid]), 120)
        check("(2) finished elsewhere", finished)
        new_owner = sql(f"SELECT owner, attempts FROM zk_job WHERE id = {jid}")[0]
        other = next(d for d in daemons if d.name == new_owner[0])
        m = re.findall(rf"job {jid}: attempt \d+ on \S+, (\d+) of 8 partition\(s\) already proved",
                       other.text())
        check("(2) only the missing partitions proved again (the checkpoints were reused)",
              m and int(m[-1]) >= committed, f"committed {committed}, log says {m}")
        print(f"figures: kill -9 to re-claim {t_reclaim:.2f} s (lease {LEASE_S} s, reaper "
              f"{REAP_S} s); {committed} of 8 partitions reused")
        rc, table = run("await", "--addr", other.sock, str(jid), "--timeout", "60s")
        tries = [int(t) for t in re.findall(r"(?m)^ *\d+ +\S+ +(\d+) +\d", table)]
        check("(2) its timing table counts the killed worker's attempt: the re-proved "
              "partitions are try 2", rc == 0 and tries and 1 not in tries and max(tries) >= 2,
              f"tries {tries}: {table[-900:]}")
        survivor = other if other is not victim else next(d for d in daemons if d is not victim)
        rc, text = run("status", "--addr", survivor.sock, "--cluster")
        check("(2) status --cluster keeps the killed worker, shown as lost with its last-seen time",
              rc == 0 and re.search(rf"{victim.name} +lost .*last seen \d+\.\d s ago", text),
              text[-800:])
        rc, text = run("status", "--addr", survivor.sock, "--json")
        doc = json.loads(text) if rc == 0 else {}
        lost = [w for w in doc.get("store", {}).get("workers", []) if w.get("name") == victim.name]
        check("(2) status --json has it too (state lost, numbers as numbers)",
              lost and lost[0].get("state") == "lost" and
              isinstance(lost[0].get("last_seen_seconds_ago"), float) and
              isinstance(doc.get("counters", {}).get("jobs_done"), int), text[-600:])
        victim.start()
        check("(2) the killed daemon restarts", victim.ready())

    # (3) SIGSTOP an owner past its lease.
    slow = request(tmp, "slow.json", 8192, 6, 55)
    jid, text = submit(c, slow, "slow")
    owner = wait_for(lambda: sql(f"SELECT owner FROM zk_job WHERE id = {jid} AND state = "
                                 "'running'"), 60)
    if check("(3) the slow job is claimed", owner, text):
        stale = next(d for d in daemons if d.name == owner[0][0])
        stale.signal(signal.SIGSTOP)
        done = wait_for(lambda: all_done([jid]), 180, 0.2)
        check("(3) another worker finished it while the owner was stopped", done)
        before = sql(f"SELECT md5(result), completions, owner FROM zk_job WHERE id = {jid}")[0]
        stale.signal(signal.SIGCONT)
        lost = wait_for(lambda: f"job {jid}: this worker's lease was lost" in stale.text(),
                        LEASE_S * 5)
        check("(3) the stale owner notices it lost the lease and aborts its work", lost,
              stale.text()[-500:])
        rc, text = run("status", "--addr", stale.sock, "--json")
        mine = [j for j in (json.loads(text).get("jobs", []) if rc == 0 else [])
                if j.get("job") == jid]
        check("(3) its status (and so the panel's failures) counts the expired lease as a "
              "failure, saying why", mine and mine[0].get("state") == "failed" and
              "lease" in mine[0].get("error", "") and "expired" in mine[0].get("error", ""),
              text[-800:])
        time.sleep(LEASE_S)
        after = sql(f"SELECT md5(result), completions, owner FROM zk_job WHERE id = {jid}")[0]
        check("(3) the stored result did not change (one completion)",
              before == after and after[1] == "1" and after[2] != stale.name, (before, after))

    # (4) PostgreSQL restarted mid-run.
    ids = []
    for i in range(20):
        jid, text = submit(daemons[i % 3], request(tmp, f"pg{i}.json", 1024, 2, 5000 + i),
                           f"pg{i}")
        if jid:
            ids.append(jid)
    r = subprocess.run(["pg_ctlcluster", os.environ.get("PGVERSION", "15"), "regress", "restart"],
                       capture_output=True, text=True, timeout=120)
    check("(4) PostgreSQL restarted", r.returncode == 0, r.stderr)
    done = wait_for(lambda: all_done(ids), 180, 0.5)
    check("(4) after the restart every job is done, none lost", done and len(ids) == 20,
          sql("SELECT state, count(*) FROM zk_job GROUP BY state"))

    # (5) duplicate submit by request id.
    dup = request(tmp, "dup.json", 1024, 1, 31337)
    j1, _ = submit(a, dup, "dup")
    j2, text = submit(b, dup, "dup")
    check("(5) the same request id with the same bytes on another daemon attaches",
          j1 is not None and j1 == j2, text[-300:])
    j3, text = submit(c, request(tmp, "dup2.json", 1024, 1, 31338), "dup")
    check("(5) the same request id with other bytes: ALREADY_EXISTS",
          j3 is None and "ALREADY_EXISTS" in text, text[-300:])

    # (6) a poison job.
    # Partition 1 fails its synthesis every time (partition 0 parses and proves).
    poison = request(tmp, "poison.json", 1024, 2, 9, fail_partition=1)
    jid, text = submit(a, poison, "poison")
    rc, out = run("await", "--addr", a.sock, str(jid or 0), "--timeout", "2m", timeout=200)
    row = sql(f"SELECT state, attempts, error FROM zk_job WHERE id = {jid or 0}")
    check("(6) a poison job fails after max_attempts (3) with its last error kept",
          rc != 0 and row and row[0][0] == "failed" and row[0][1] == "3" and
          "injected synthesis failure" in row[0][2], (rc, row, out[-300:]))

    # (7) priority across the cluster: LOW backlog, then CRITICAL.
    # More than the 3 x 4 jobs the daemons claim at once, submitted 6 at a time so the backlog
    # builds faster than the daemons prove it, even on a loaded machine.
    paths = [request(tmp, f"low{i}.json", 8192, 2, 7000 + i) for i in range(24)]
    with concurrent.futures.ThreadPoolExecutor(6) as pool:
        lows = list(pool.map(lambda i: submit(daemons[i % 3], paths[i], f"low{i}", "low")[0],
                             range(24)))
    check("(7) 24 LOW jobs accepted", all(lows), lows)
    lows = [j for j in lows if j]
    time.sleep(0.3)
    queued = [int(r[0]) for r in sql("SELECT id FROM zk_job WHERE state = 'queued' AND "
                                     "priority = 4")]
    crit, text = submit(b, request(tmp, "crit.json", 1024, 1, 8000), "crit", "critical")
    wait_for(lambda: all_done(lows + [crit]), 240, 0.5)
    ends = dict((int(r[0]), int(r[1])) for r in sql(
        "SELECT id, ended_ms FROM zk_job WHERE id IN (%s)" % ",".join(map(str, lows + [crit]))))
    later = [q for q in queued if ends.get(q, 0) > ends.get(crit, 1 << 62)]
    check(f"(7) the CRITICAL job ended before every LOW job still queued when it came "
          f"({len(queued)} queued)", len(queued) > 0 and len(later) == len(queued),
          (queued, later))

    for d in daemons:
        d.stop()
        check(f"{d.name}: SIGTERM exits 0", d.p.returncode == 0, d.text()[-300:])
    counts = sql("SELECT state, count(*), sum(completions) FROM zk_job GROUP BY state")
    print(f"figures: store at the end: {counts}")
    print(f"cluster_test: {len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
