# tests/hostile/cases_requests.py: hostile requests (vanilla proofs) and configs.
# Class 8: tiny porep and snapdeals requests (zkpipe-tool proof-type porep vanilla / snapdeals update) with
# shape.partitions changed from 2 to 3 or 64 (JSON and binary), unknown JSON keys, a 3 MB number
# (a message may not echo more than ~200 characters of it), a config nested 10,000 levels deep
# ("nesting too deep"), a config that is a symlink loop ("symlink loop"), a FIFO or a private
# /dev/zero as the request: each refused by `porep check` / `snapdeals check` and by `zkpipe
# prove` before any proving work.
# Class 9: a request holding only partition 1: `zkpipe prove --snarkjs DIR` names its files by
# the sector's partition index (proof_1.json, public_1.json) and they verify.
# Already holding: requests truncated or with a byte changed (exit 0 WRONG), configs truncated or
# with a byte changed (exit 0 is fine for a still-valid config; a refusal must name the file).
import json
import os
import random
import stat
import struct

import hostile
from hostile import OK, UNCLEAR, WRONG, Case

# Byte offset of shape.partitions in the binary layouts (vanilla.h of each type).
PARTITIONS_AT = {"porep": 8 + 4 + 4 + 8 + 4 * 4, "snapdeals": 8 + 4 + 4 + 8 + 4 + 4}


def _request(fx, kind, json_form=False, partitions=()):
    if kind == "porep":
        return fx.porep_request(json=json_form, partitions=partitions)
    return fx.snap_request(json=json_form, partitions=partitions)


def _write(path, data):
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)
    return path


def _check(ctx, kind, path):
    return ctx.run([ctx.fx.tool, "proof-type", kind, "check", path])


def _prove_refuses(ctx, kind, path, *names):
    """`zkpipe prove` of `path`: refused before proving. porep has no params here (a request that
    got past parsing fails on missing params, which names no input key: UNCLEAR)."""
    pdir = ctx.fx.params() if kind == "snapdeals" else ctx.path("no-params")
    os.makedirs(pdir, exist_ok=True)
    cfg = ctx.fx.config(ctx.path("c.yaml"), pdir, missing="fail")
    r = ctx.run(ctx.fx.prove_cmd(cfg, path, kind, "--out", ctx.path("proof")),
                timeout=hostile.PROVE_TIMEOUT)
    return r


def _judge_both(ctx, kind, path, names, echo_check=False):
    verdicts = []
    for r in (_check(ctx, kind, path), _prove_refuses(ctx, kind, path, *names)):
        if echo_check and hostile.longest_echo(r.out) > hostile.ECHO_LIMIT:
            return WRONG, f"the message echoes {hostile.longest_echo(r.out)} characters of the input"
        verdicts.append(hostile.refused(r, *names, what="a hostile request"))
    worst = next((v for v in verdicts if v[0] == WRONG), None) or next(
        (v for v in verdicts if v[0] != OK), None)
    return worst or (OK, "refused by check and prove")


def json_mutation(kind, mutate, names, echo_check=False):
    def fn(ctx):
        with open(_request(ctx.fx, kind, json_form=True)) as f:
            doc = json.load(f)
        text = mutate(doc)
        path = _write(ctx.path("request.json"), text if isinstance(text, str) else json.dumps(doc))
        return _judge_both(ctx, kind, path, names, echo_check)
    return fn


def binary_partitions(kind, value):
    def fn(ctx):
        with open(_request(ctx.fx, kind), "rb") as f:
            data = bytearray(f.read())
        struct.pack_into("<I", data, PARTITIONS_AT[kind], value)
        path = _write(ctx.path("request.bin"), bytes(data))
        return _judge_both(ctx, kind, path, ["partitions"])
    return fn


def binary_damage(kind, how, seed):
    def fn(ctx):
        rng = random.Random(seed)
        with open(_request(ctx.fx, kind), "rb") as f:
            data = bytearray(f.read())
        if how == "truncate":
            data = data[:rng.randrange(len(data))]
        else:
            at = rng.randrange(len(data))
            data[at] ^= 1 << rng.randrange(8)
        r = _check(ctx, kind, _write(ctx.path("request.bin"), bytes(data)))
        return hostile.refused(r, "byte offset", "partition", "request.bin",
                               what="a damaged request")
    return fn


def odd_input(kind, make):
    def fn(ctx):
        path = make(ctx)
        if path is None:
            return UNCLEAR, "cannot mknod here (no CAP_MKNOD): not tried"
        return _judge_both(ctx, kind, path, ["regular file", "symlink loop", path])
    return fn


def private_zero(ctx):
    p = ctx.path("zero")
    try:
        os.mknod(p, stat.S_IFCHR | 0o666, os.makedev(1, 5))
    except PermissionError:
        return None
    return p


def config_case(make, names):
    """A config written by `make(ctx) -> path`; `zkpipe prove` and `zkpipe-tool validate` must
    refuse it naming one of `names`."""
    def fn(ctx):
        cfg = make(ctx)
        for cmd in ([ctx.fx.tool, "validate", cfg, "--no-self-test"],
                    ctx.fx.prove_cmd(cfg, ctx.fx.snap_request(), "snapdeals")):
            r = ctx.run(cmd, timeout=hostile.PROVE_TIMEOUT)
            if hostile.longest_echo(r.out) > hostile.ECHO_LIMIT:
                return WRONG, "the message echoes the hostile config"
            v = hostile.refused(r, *names, what="a hostile config")
            if v[0] != OK:
                return v
        return OK, "refused by validate and prove"
    return fn


def config_damage(how, seed):
    """cpu.yaml with real params truncated or with one byte changed: still valid (exit 0) or
    refused naming the file."""
    def fn(ctx):
        rng = random.Random(seed)
        text = ctx.fx.config_text(ctx.fx.params(), missing="fail")
        if how == "truncate":
            text = text[:rng.randrange(len(text))]
        else:
            at = rng.randrange(len(text))
            text = text[:at] + chr(rng.randrange(32, 127)) + text[at + 1:]
        cfg = _write(ctx.path("c.yaml"), text)
        r = ctx.run([ctx.fx.tool, "validate", cfg, "--no-self-test", "--allow-unavailable"])
        if r.rc == 0:
            return OK, "still a valid config (exit 0)"
        if r.names("c.yaml"):
            return OK, f"refused naming the file ({r.describe()})"
        return UNCLEAR, f"{r.describe()} without naming c.yaml"
    return fn


def only_partition_1(ctx):
    fx = ctx.fx
    req = fx.snap_request(partitions=(1,))
    cfg = fx.config(ctx.path("c.yaml"), fx.params(), missing="fail")
    sj = ctx.path("snarkjs")
    r = ctx.run(fx.prove_cmd(cfg, req, "snapdeals", "--out", ctx.path("proof"), "--snarkjs", sj),
                timeout=hostile.PROVE_TIMEOUT)
    if r.rc != 0:
        return WRONG, f"a valid one-partition request failed ({r.describe()})"
    files = sorted(os.listdir(sj)) if os.path.isdir(sj) else []
    if "proof_1.json" not in files or "public_1.json" not in files or "proof_0.json" in files:
        return WRONG, f"snarkjs files are not named by the sector's partition: {files}"
    v = ctx.run([fx.tool, "groth16", "verify", "--vk", os.path.join(sj, "verification_key.json"),
                 "--proof", os.path.join(sj, "proof_1.json"), "--public",
                 os.path.join(sj, "public_1.json")])
    if v.rc != 0:
        return WRONG, "proof_1.json does not verify against public_1.json"
    timing = [ln for ln in r.out.splitlines() if "GPU_TIMING" in ln]
    if any("partition=0" in ln for ln in timing):
        return WRONG, "the log names partition 0 for a request holding only partition 1"
    return OK, "proof_1.json and public_1.json, verified"


def cases(fx, rng, quick):
    out = []
    cls = "8 requests"
    for kind in ("porep", "snapdeals"):
        for value in (3, 64):
            out.append(Case(cls, f"{kind} JSON: shape.partitions 2 -> {value}", json_mutation(
                kind, lambda d, v=value: d["shape"].__setitem__("partitions", v), ["partitions"])))
            out.append(Case(cls, f"{kind} binary: shape.partitions 2 -> {value}",
                            binary_partitions(kind, value)))
        out.append(Case(cls, f"{kind} JSON: an unknown top-level key", json_mutation(
            kind, lambda d: d.__setitem__("hostile_extra", 1), ["unknown key", "hostile_extra"])))
        out.append(Case(cls, f"{kind} JSON: an unknown key in a challenge", json_mutation(
            kind, lambda d: d["partitions"][0]["challenges"][0].__setitem__("hostile", "0x00"),
            ["unknown key", "hostile"])))
        out.append(Case(cls, f"{kind} JSON: shape.nodes a 3 MB number", json_mutation(
            kind, lambda d: json.dumps(d).replace('"nodes": 8', '"nodes": ' + "9" * 3_000_000),
            ["nodes", "number", "parse"], echo_check=True)))
        if not quick:
            out.append(Case(cls, f"{kind} JSON: a 3 MB string as a commitment", json_mutation(
                kind, lambda d: d.__setitem__(next(k for k in d if k.startswith("comm_")),
                                              "0x" + "a" * 3_000_000),
                ["comm_"], echo_check=True)))
    out += [
        Case(cls, "snapdeals request: a FIFO", odd_input(
            "snapdeals", lambda ctx: os.mkfifo(ctx.path("fifo")) or ctx.path("fifo"))),
        Case(cls, "snapdeals request: a private /dev/zero (mknod c 1 5)",
             odd_input("snapdeals", private_zero)),
        Case(cls, "snapdeals request: a symlink loop", odd_input(
            "snapdeals", lambda ctx: (os.symlink("b", ctx.path("a")), os.symlink("a", ctx.path("b")),
                                      ctx.path("a"))[2])),
    ]

    def nested(opener, closer):
        def make(ctx):
            body = opener * 10000 + "1" + closer * 10000
            return _write(ctx.path("c.yaml"), "version: 1\nmemory: " + body + "\n")
        return make

    def loop(ctx):
        os.symlink("d.yaml", ctx.path("c.yaml"))
        os.symlink("c.yaml", ctx.path("d.yaml"))
        return ctx.path("c.yaml")

    out += [
        Case(cls, "config: a 10,000-level nested flow sequence",
             config_case(nested("[", "]"), ["nesting too deep"])),
        Case(cls, "config: a 10,000-level nested flow mapping",
             config_case(nested("{a: ", "}"), ["nesting too deep"])),
        Case(cls, "config: a symlink loop", config_case(loop, ["symlink loop"])),
        Case(cls, "config: a 3 MB number as compute.threads", config_case(
            lambda ctx: _write(ctx.path("c.yaml"), ctx.fx.config_text(ctx.fx.params()).replace(
                "threads: 0", "threads: " + "9" * 3_000_000, 1)), ["compute.threads", "threads"])),
    ]

    cls = "9 partition-index"
    out.append(Case(cls, "a request holding only partition 1: --snarkjs names by sector index",
                    only_partition_1, heavy=True))

    cls = "damaged-requests"
    for kind in ("porep", "snapdeals"):
        for how in ("truncate", "flip"):
            for _ in range(1 if quick else 3):
                seed = rng.randrange(2**32)
                out.append(Case(cls, f"{kind} binary request: {how} (seed {seed})",
                                binary_damage(kind, how, seed)))
    cls = "damaged-configs"
    for how in ("truncate", "byte"):
        for _ in range(2 if quick else 4):
            seed = rng.randrange(2**32)
            out.append(Case(cls, f"cpu.yaml: {how} (seed {seed})", config_damage(how, seed)))
    return out
