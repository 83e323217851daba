#!/usr/bin/env python3
"""filecoin_daemon_test.py BUILD_DIR: Filecoin's four proof kinds at 2KiB through `zkpipe serve`.
The daemon proves with the build's shared Filecoin parameter directory (params.filecoin_dir:
development files under Filecoin's registered names, in bellperson's layout, made once by
whichever test needs them first); for each of filecoin_porep, filecoin_snapdeals,
filecoin_window_post and filecoin_winning_post a sample request is submitted over the unix
socket and awaited, the proof is 192 bytes a partition, `zkpipe-tool filecoin verify` accepts it
under the .vk beside the .params with the public inputs it derives from the request's public
description alone, and refuses it for a changed description. Standard library only; every wait
is bounded."""
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading

BUILD = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "build")
ZKPIPE = os.path.join(BUILD, "bin", "zkpipe")
TOOL = os.path.join(BUILD, "bin", "zkpipe-tool")
SHARED = os.path.join(BUILD, "tests", "params")
FILECOIN = os.path.join(BUILD, "tests", "filecoin-params")
failures = []

KINDS = [  # proof type, preset, sample seed
    ("filecoin_winning_post", "StackedDrgWinning2KiBV1", 3),
    ("filecoin_window_post", "StackedDrgWindow2KiBV1_2", 3),
    ("filecoin_snapdeals", "StackedDrg2KiBV1", 2),
    ("filecoin_porep", "StackedDrg2KiBV1_1", 5),
]


def check(what, ok, detail=""):
    print(("PASS  " if ok else "FAIL  ") + what + ("" if ok else f": {detail}"))
    if not ok:
        failures.append(what)
    return ok


def run(program, *args, timeout=900):
    p = subprocess.run([program, *args], capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout + p.stderr


def description(kind, request):
    """The public description `zkpipe-tool filecoin verify` takes: the request without its
    vanilla proofs (PoRep: the sector's fields from its C1 output)."""
    r = json.load(open(request))
    if kind != "filecoin_porep":
        r.pop("vanilla_proofs", None)
        return r
    c1 = r["commit1_output"]
    return {"registered_proof": c1["registered_proof"], "comm_r": c1["comm_r"],
            "comm_d": c1["comm_d"], "prover_id": r["prover_id"], "sector_id": r["sector_id"],
            "ticket": c1["ticket"], "seed": c1["seed"]}


def changed(kind, desc):
    """The description with one public field changed."""
    d = json.loads(json.dumps(desc))
    if kind == "filecoin_porep":
        d["seed"][0] ^= 1
    elif kind == "filecoin_snapdeals":
        d["comm_d_new"] = ("1" if d["comm_d_new"][0] == "0" else "0") + d["comm_d_new"][1:]
    else:
        d["randomness"] = "1" * 64
    return d


def main():
    tmp = tempfile.mkdtemp(prefix="zkp-filecoin-daemon-")
    sock = f"unix://{tmp}/zk.sock"
    config = os.path.join(tmp, "serve.yaml")
    with open(config, "w") as f:
        f.write(f"""version: 1
plugin_dirs: [{BUILD}/plugins]
memory: {{backend: pageable}}
compute: {{threads: 2}}
params: {{dir: {SHARED}, filecoin_dir: {FILECOIN}, missing: setup}}
server:
  listen: ["{sock}"]
  http: ""
  proof_types: [{", ".join(k for k, _, _ in KINDS)}]
store: {{sqlite: {{path: {tmp}/jobs.db}}}}
""")
    requests = {}
    for kind, preset, seed in KINDS:
        path = os.path.join(tmp, kind + ".json")
        rc, out = run(TOOL, "proof-type", kind, "sample", "--preset", preset, "--seed", str(seed),
                      "--out", path)
        if not check(f"{kind}: a {preset} sample is made", rc == 0, out[-400:]):
            return 1
        requests[kind] = path

    err = open(os.path.join(tmp, "serve.err"), "w")
    daemon = subprocess.Popen([ZKPIPE, "serve", "--config", config], stdout=subprocess.PIPE,
                              stderr=err, text=True, start_new_session=True)
    try:
        lines, ready = [], threading.Event()
        def reader():
            for line in daemon.stdout:
                lines.append(line)
                if line.startswith("serve: ready"):
                    ready.set()
            ready.set()
        threading.Thread(target=reader, daemon=True).start()
        ready.wait(120)
        if not check("serve starts and says ready", any(l.startswith("serve: ready")
                                                         for l in lines), "".join(lines)[-600:]):
            return 1
        for kind, preset, _ in KINDS:
            proof = os.path.join(tmp, kind + ".proof")
            rc, out = run(ZKPIPE, "submit", "--addr", sock, "--proof", kind, "--input",
                          requests[kind], "--wait", "--timeout", "15m", "--out", proof)
            if not check(f"{kind}: proved through the daemon", rc == 0 and os.path.exists(proof)
                         and os.path.getsize(proof) % 192 == 0, out[-600:]):
                continue
            rc, info = run(TOOL, "proof-type", kind, "info", "--preset", preset, "--json")
            name = json.loads(info)["filecoin_params"] if rc == 0 else ""
            vk = os.path.join(FILECOIN, name[:-len(".params")] + ".vk")
            check(f"{kind}: its params are Filecoin's file name, labeled development",
                  name.startswith("v28-") and
                  os.path.exists(os.path.join(FILECOIN, name + ".development")), info[-300:])
            desc = description(kind, requests[kind])
            with open(os.path.join(tmp, kind + ".desc.json"), "w") as f:
                json.dump(desc, f)
            rc, out = run(TOOL, "filecoin", "verify", "--vk", vk, "--proof", proof, "--json",
                          os.path.join(tmp, kind + ".desc.json"))
            check(f"{kind}: zkpipe-tool filecoin verify accepts it from the description", rc == 0,
                  out[-400:])
            with open(os.path.join(tmp, kind + ".other.json"), "w") as f:
                json.dump(changed(kind, desc), f)
            rc, out = run(TOOL, "filecoin", "verify", "--vk", vk, "--proof", proof, "--json",
                          os.path.join(tmp, kind + ".other.json"))
            check(f"{kind}: and refuses it for a changed description", rc == 1, out[-400:])
    finally:
        os.killpg(daemon.pid, signal.SIGTERM)
        try:
            daemon.wait(120)
        except subprocess.TimeoutExpired:
            os.killpg(daemon.pid, signal.SIGKILL)
            daemon.wait()
    check("serve exits 0 on SIGTERM", daemon.returncode == 0, str(daemon.returncode))
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
