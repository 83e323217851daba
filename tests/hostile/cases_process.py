# tests/hostile/cases_process.py: process faults and the params directory, all through
# `zkpipe prove` of a tiny snapdeals request.
# Class 3: `ulimit -v` 512 MiB on a fresh params dir: a clear error (RESOURCE_EXHAUSTED) or a
# success, never death by a signal. Class 4: four (two in a quick run) concurrent proves on one
# fresh params dir: all succeed. Class 5: a params (or .csr) byte changed with its mtime restored (`touch
# -r`): the next prove fails naming params (blaming verification instead is WRONG). Already
# holding: `params verify` and prove refuse flipped or truncated params; kill -9 at seeded
# moments of a prove (during the seeded setup on a fresh dir, or proving with existing params)
# followed by a rerun that must succeed.
import json
import os
import random
import resource
import shutil
import threading
import time

import hostile
from hostile import OK, UNCLEAR, WRONG, Case

CIRCUIT = "snapdeals-v1-n8-h2-c1"  # the tiny snapdeals circuit id
EXPECTED = {f"{CIRCUIT}.params", f"{CIRCUIT}.params.csr", f"{CIRCUIT}.params.lock",
            f"{CIRCUIT}.params.validated"}
# Shared params are linked (fixtures.link_params), not copied: a copy is validated point by point
# on its first load (~40 s on 2 cores), which the budget of the whole suite cannot afford.


def _prove(ctx, pdir, missing, tag, **kw):
    cfg = ctx.fx.config(ctx.path(f"{tag}.yaml"), pdir, missing=missing)
    return ctx.run(ctx.fx.prove_cmd(cfg, ctx.fx.snap_request(), "snapdeals",
                                    "--out", ctx.path(f"{tag}.proof")),
                   timeout=kw.pop("timeout", hostile.PROVE_TIMEOUT), **kw)


def address_limit(mib, fresh):
    def fn(ctx):
        pdir = ctx.path("params")
        if fresh:
            os.mkdir(pdir)
        else:
            ctx.fx.link_params(pdir)
        r = _prove(ctx, pdir, "setup", "limited",
                   limits={resource.RLIMIT_AS: mib << 20})
        if r.rc == 0:
            return OK, f"proved within {mib} MiB of address space"
        if r.names("RESOURCE_EXHAUSTED"):
            return OK, f"RESOURCE_EXHAUSTED ({r.describe()})"
        return UNCLEAR, f"{r.describe()} without RESOURCE_EXHAUSTED"
    return fn


def concurrent(n, fresh):
    def fn(ctx):
        pdir = ctx.path("params")
        if fresh:
            os.mkdir(pdir)
        else:
            ctx.fx.link_params(pdir)
        cfg = ctx.fx.config(ctx.path("c.yaml"), pdir, missing="setup")
        runs = [None] * n

        def one(i):
            runs[i] = ctx.run(ctx.fx.prove_cmd(cfg, ctx.fx.snap_request(), "snapdeals", "--out",
                                               ctx.path(f"proof{i}")),
                              timeout=hostile.PROVE_TIMEOUT * 2)
        threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        failed = [i for i, r in enumerate(runs) if r.rc != 0]
        if failed:
            return WRONG, f"{len(failed)} of {n} concurrent proves failed (#{failed[0]}: " \
                          f"{runs[failed[0]].describe()})"
        return OK, f"all {n} succeeded"
    return fn


def _section_byte(ctx, path, rng):
    """A seeded byte offset inside one of the file's sections (params info --json)."""
    r = ctx.run([ctx.fx.tool, "params", "info", path, "--json"])
    sections = json.loads(r.out)["sections"] if r.rc == 0 else []
    if not sections:  # the .csr: params info may not read it; any byte past the header table
        return 1024 + rng.randrange(os.path.getsize(path) - 1024)
    total = sum(s["length"] for s in sections)
    at = rng.randrange(total)
    for s in sections:
        if at < s["length"]:
            return s["offset"] + at
        at -= s["length"]


def _flip(path, at):
    with open(path, "r+b") as f:
        f.seek(at)
        b = f.read(1)
        f.seek(at)
        f.write(bytes([b[0] ^ 0x10]))


def flipped_params(suffix, restore_mtime, seed):
    def fn(ctx):
        rng = random.Random(seed)
        name = CIRCUIT + ".params" + suffix
        pdir = ctx.fx.link_params(ctx.path("params"), copy=(name,))
        path = os.path.join(pdir, name)
        st = os.stat(path)
        at = _section_byte(ctx, os.path.join(pdir, CIRCUIT + ".params"), rng) if not suffix \
            else 1024 + rng.randrange(st.st_size - 1024)
        _flip(path, at)
        if restore_mtime:
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
        r = _prove(ctx, pdir, "fail", "flipped")
        if r.rc == 0:
            return WRONG, f"proved with byte {at} of {os.path.basename(path)} changed"
        if r.names("params"):
            return OK, f"refused naming params ({r.describe()}; byte {at})"
        return WRONG, f"failed without naming params (byte {at}): the damage blamed elsewhere"
    return fn


def params_verify_flip(seed):
    def fn(ctx):
        rng = random.Random(seed)
        src = os.path.join(ctx.fx.params(), CIRCUIT + ".params")
        path = ctx.path("copy.params")
        shutil.copy(src, path)
        at = _section_byte(ctx, path, rng)
        _flip(path, at)
        r = ctx.run([ctx.fx.tool, "params", "verify", path], timeout=60)
        return hostile.refused(r, "section", "offset", what=f"params with byte {at} changed")
    return fn


def truncated_params(seed):
    def fn(ctx):
        rng = random.Random(seed)
        pdir = ctx.fx.link_params(ctx.path("params"), copy=(CIRCUIT + ".params",))
        path = os.path.join(pdir, CIRCUIT + ".params")
        cut = rng.randrange(os.path.getsize(path))
        os.truncate(path, cut)
        r = _prove(ctx, pdir, "fail", "truncated")
        return hostile.refused(r, "params", what=f"params truncated to {cut} bytes")
    return fn


def _writing_after(pdir, delay):
    """A kill_when predicate: true `delay` seconds after a temporary file (NAME.tmp.*) first
    appears in `pdir`, i.e. inside the window in which params are written."""
    seen = []

    def when():
        if not seen and any(".tmp" in n for n in os.listdir(pdir)):
            seen.append(time.monotonic())
        return bool(seen) and time.monotonic() - seen[0] >= delay
    return when


def killed(fresh, at, while_writing=False):
    """SIGKILL to the prove's process group at fraction `at` of the fixture's measured prove (on
    a fresh dir: the prove that made the params), or `at` seconds after params start being
    written; then a rerun must succeed and leave no temporary file behind."""
    def fn(ctx):
        pdir = ctx.path("params")
        ctx.fx.params()  # measures the proves
        if fresh:
            os.mkdir(pdir)
        else:
            ctx.fx.link_params(pdir)
        if while_writing:
            when = dict(kill_when=_writing_after(pdir, at))
        else:
            when = dict(kill_after=at * (ctx.fx.setup_secs if fresh else ctx.fx.prove_secs))
        first = _prove(ctx, pdir, "setup", "killed", **when)
        again = _prove(ctx, pdir, "setup", "rerun", timeout=hostile.PROVE_TIMEOUT * 2)
        if again.rc != 0:
            return WRONG, f"the rerun after kill -9 at {first.secs:.2f} s failed " \
                          f"({again.describe()})"
        how = "killed" if first.sent else f"finished first ({first.describe()})"
        stale = sorted(set(os.listdir(pdir)) - EXPECTED)
        if stale:
            return UNCLEAR, f"{how} at {first.secs:.2f} s; the rerun succeeded but left " \
                            f"{stale} in the params dir"
        return OK, f"{how} at {first.secs:.2f} s; rerun succeeded"
    return fn


def cases(fx, rng, quick):
    out = []
    out.append(Case("3 ulimit-v", "ulimit -v 512 MiB, fresh params dir",
                    address_limit(512, fresh=True), heavy=True))
    if not quick:
        out.append(Case("3 ulimit-v", "ulimit -v 384 MiB, existing params",
                        address_limit(384, fresh=False), heavy=True))
    # Four at once hold every pair's race too; two in a quick run (CI time: the 2-prove case took
    # 11 s of the suite's serial heavy part).
    n = 2 if quick else 4
    out.append(Case("4 concurrent", f"{n} concurrent proves, fresh params dir",
                    concurrent(n, fresh=True), heavy=True))
    cls = "5 params-flip"
    out.append(Case(cls, "params byte changed, mtime restored (touch -r)",
                    flipped_params("", True, rng.randrange(2**32)), heavy=True))
    out.append(Case(cls, "params.csr byte changed, mtime restored (touch -r)",
                    flipped_params(".csr", True, rng.randrange(2**32)), heavy=True))
    if not quick:
        out.append(Case(cls, "params byte changed (mtime new)",
                        flipped_params("", False, rng.randrange(2**32)), heavy=True))
    cls = "damaged-params"
    for _ in range(1 if quick else 2):
        seed = rng.randrange(2**32)
        out.append(Case(cls, f"params verify: a byte changed (seed {seed})",
                        params_verify_flip(seed), heavy=True))
    out.append(Case(cls, "prove: params truncated", truncated_params(rng.randrange(2**32)),
                    heavy=True))
    cls = "kill-9"
    at = round(rng.uniform(0.05, 0.95), 2)
    out.append(Case(cls, f"kill -9 at {at:.0%} of a prove on a fresh params dir (seeded setup)",
                    killed(True, at), heavy=True))
    at = round(rng.uniform(0.0, 0.15), 3)  # writing the tiny params takes ~0.25 s
    out.append(Case(cls, f"kill -9 {at} s into writing fresh params", killed(True, at, True),
                    heavy=True))
    for _ in range(1 if quick else 2):
        at = round(rng.uniform(0.05, 0.95), 2)
        out.append(Case(cls, f"kill -9 at {at:.0%} of a prove with existing params",
                        killed(False, at), heavy=True))
    return out
