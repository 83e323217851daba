#!/usr/bin/env python3
"""load_test.py BUILD_DIR: a bounded load on `zkpipe serve` over a unix socket: 8 concurrent
clients (`zkpipe bench --addr`, one job outstanding each) x 25 mimc_jobs jobs, priorities mixed,
must all complete with verified proofs and 0 errors; the daemon's RSS after the run must be
within 10% of its RSS after the first 25 jobs (nothing grows per job); and a CRITICAL job
submitted behind the backlog must start its first partition before every NORMAL job that was
still queued when it came (read from the daemon's /trace). Prints proofs/min and the submit and
end-to-end latency percentiles of each client. The CRITICAL job comes after the load, behind a
backlog of 12 NORMAL jobs submitted at once. Standard library only; every wait is bounded."""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
ZKPIPE = os.path.join(BUILD, "bin", "zkpipe")
CLIENTS, JOBS = 8, 25
BACKLOG = 12  # NORMAL jobs (2048 rounds, 2 partitions) submitted at once before the CRITICAL one
PRIORITIES = ["normal", "low", "high", "normal", "normal", "low", "high", "normal"]


def get(url):
    with urllib.request.urlopen(url, timeout=10) as r:
        return json.loads(r.read().decode())


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"VmRSS:\s+(\d+) kB", f.read()).group(1))


def main():
    tmp = tempfile.mkdtemp(prefix="zkp-load-")
    sock = f"unix://{tmp}/zk.sock"
    config = os.path.join(tmp, "serve.yaml")
    with open(config, "w") as f:
        f.write(f"""version: 1
plugin_dirs: [{BUILD}/plugins, {BUILD}/tests/pipeline_plugins]
log: {{level: warn}}
memory: {{backend: pageable}}
compute: {{threads: 1}}
params: {{dir: {tmp}/params, missing: setup}}
server: {{listen: ["{sock}"], http: "127.0.0.1:0", proof_types: [mimc_jobs],
         retain_results: {{count: 16, age: 1h}}, trace_window: 60s}}
""")
    req = os.path.join(tmp, "req.json")
    with open(req, "w") as f:
        json.dump({"rounds": 512, "partitions": 2, "seed": 5}, f)
    backlog_req = os.path.join(tmp, "backlog.json")
    with open(backlog_req, "w") as f:
        json.dump({"rounds": 2048, "partitions": 2, "seed": 7}, f)
    critical = os.path.join(tmp, "critical.json")
    with open(critical, "w") as f:
        json.dump({"rounds": 512, "partitions": 2, "seed": 99}, f)
    daemon = subprocess.Popen([ZKPIPE, "serve", "--config", config], stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, start_new_session=True)
    lines, ready = [], threading.Event()

    def reader():
        for line in daemon.stdout:
            lines.append(line)
            if line.startswith("serve: ready"):
                ready.set()
        ready.set()
    threading.Thread(target=reader, daemon=True).start()
    failed = []
    try:
        ready.wait(60)
        out = "".join(lines)
        m = re.search(r"HTTP on (http://127\.0\.0\.1:\d+)", out)
        if "serve: ready" not in out or not m:
            print("FAIL  the daemon did not start:\n" + out[-2000:])
            return 1
        web = m.group(1)
        # Params made once, before the clock starts.
        subprocess.run([ZKPIPE, "submit", "--addr", sock, "--proof", "mimc_jobs", "--input", req,
                        "--wait"], capture_output=True, timeout=120, check=True)
        benches = []
        for i in range(CLIENTS):
            cmd = [ZKPIPE, "bench", "--addr", sock, "--proof", "mimc_jobs", "--input", req,
                   "--jobs", str(JOBS), "--concurrency", "1", "--priority", PRIORITIES[i],
                   "--timeout", "5m", "--json", os.path.join(tmp, f"client{i}.json")]
            benches.append(subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                            stderr=subprocess.STDOUT, text=True))
        t0 = time.time()
        rss_first = None
        while time.time() - t0 < 600 and any(b.poll() is None for b in benches):
            st = get(web + "/status")
            done = st["counters"]["jobs_done"] - 1
            if rss_first is None and done >= JOBS:
                rss_first = rss_kib(daemon.pid)
            time.sleep(0.1)
        wall = time.time() - t0
        outputs = []
        for b in benches:
            try:
                o, _ = b.communicate(timeout=300)
            except subprocess.TimeoutExpired:
                b.kill()
                o = "timed out"
            outputs.append((b.returncode, o))
        rss_end = rss_kib(daemon.pid)
        results = [json.load(open(os.path.join(tmp, f"client{i}.json")))
                   for i in range(CLIENTS) if os.path.exists(os.path.join(tmp, f"client{i}.json"))]
        total_done = sum(r["jobs_done"] for r in results)
        errors = sum(r["errors"] for r in results)
        if not (len(results) == CLIENTS and total_done == CLIENTS * JOBS and errors == 0 and
                all(rc == 0 for rc, _ in outputs)):
            failed.append(f"every job completes and verifies: {total_done} done, {errors} errors")
            for rc, o in outputs:
                if rc != 0:
                    print(o[-800:])
        partitions = sum(r["partitions"] for r in results)
        print(f"load: {CLIENTS} clients x {JOBS} jobs (mimc_jobs, 512 rounds, 2 partitions), "
              f"{total_done} done, {errors} errors, {wall:.1f} s, "
              f"{60 * partitions / wall:.0f} proofs/min overall")
        for i, r in enumerate(results):
            print(f"  client {i} ({PRIORITIES[i]}): submit p50 {r['submit_p50_ms']:.1f} ms "
                  f"p99 {r['submit_p99_ms']:.1f} ms, end-to-end p50 {r['e2e_p50_ms']:.1f} ms "
                  f"p99 {r['e2e_p99_ms']:.1f} ms")
        if rss_first is None:
            failed.append("no RSS sample after the first 25 jobs")
        else:
            growth = (rss_end - rss_first) / rss_first
            print(f"load: RSS after {JOBS} jobs {rss_first / 1024:.1f} MiB, after "
                  f"{total_done} jobs {rss_end / 1024:.1f} MiB ({100 * growth:+.1f}%)")
            if growth > 0.10:
                failed.append(f"RSS grew {100 * growth:.1f}% (more than 10%)")
        # Overtaking, on a backlog made on purpose (the clients' load may drain as fast as it
        # comes on a loaded machine, so it cannot be relied on): BACKLOG NORMAL jobs submitted
        # without waiting, then one CRITICAL job. Every NORMAL job the engine still shows as
        # queued once the CRITICAL one is accepted must start its first partition after it, by
        # the engine's own record (/trace), whatever the machine's speed.
        critical_job, queued_normal = None, []
        for attempt in range(3):
            normals = []
            for _ in range(BACKLOG):
                p = subprocess.run([ZKPIPE, "submit", "--addr", sock, "--proof", "mimc_jobs",
                                    "--input", backlog_req, "--priority", "normal"],
                                   capture_output=True, text=True, timeout=60)
                normals.append(int(re.search(r"job (\d+)", p.stdout).group(1)))
            p = subprocess.run([ZKPIPE, "submit", "--addr", sock, "--proof", "mimc_jobs",
                                "--input", critical, "--priority", "critical"],
                               capture_output=True, text=True, timeout=60)
            critical_job = int(re.search(r"job (\d+)", p.stdout).group(1))
            st = get(web + "/status")
            queued_normal = [j["job"] for j in st["jobs"]
                             if j["job"] in normals and j["state"] == "queued"]
            for job in normals + [critical_job]:
                subprocess.run([ZKPIPE, "await", "--addr", sock, str(job), "--timeout", "5m"],
                               capture_output=True, timeout=400)
            if queued_normal:
                break
        if not queued_normal:
            failed.append(f"no NORMAL job of {BACKLOG} was still queued in 3 tries: no backlog")
        else:
            with urllib.request.urlopen(web + "/trace?seconds=60", timeout=10) as r:
                events = json.loads(r.read().decode())["traceEvents"]
            starts = {}
            for e in events:
                if e.get("name") == "synthesis" and "job" in e.get("args", {}):
                    j = e["args"]["job"]
                    starts[j] = min(starts.get(j, e["ts"]), e["ts"])
            first = starts.get(critical_job)
            later = [j for j in queued_normal if starts.get(j, float("inf")) < (first or 0)]
            print(f"load: CRITICAL job {critical_job} came behind {len(queued_normal)} queued "
                  f"NORMAL job(s); {len(later)} of them started first")
            if first is None or later:
                failed.append(f"CRITICAL job {critical_job} did not start first: {later}")
        daemon.send_signal(signal.SIGTERM)
        if daemon.wait(timeout=120) != 0:
            failed.append(f"SIGTERM exit {daemon.returncode}")
    finally:
        if daemon.poll() is None:
            os.killpg(daemon.pid, signal.SIGKILL)
            daemon.wait()
    for f in failed:
        print("FAIL  " + f)
    if failed:
        return 1
    print("load_test: all passed")
    subprocess.run(["rm", "-rf", tmp])
    return 0


if __name__ == "__main__":
    sys.exit(main())
