# tests/hostile/cases_groth16.py: `zkpipe-tool groth16 verify` against hostile snarkjs files.
# Class 1: degenerate verifying keys (gamma, delta, alpha or beta at infinity) with the forgery
# they admit (pi_a = alpha, pi_b = beta, pi_c = O verifies for any input when gamma = O), and
# proofs with pi_a or pi_b at infinity: "verified" is WRONG; a refusal must name the element.
# Already holding: digits changed, truncations, trailing bytes, deep nesting and huge numbers in
# the demo's verification_key.json, proof.json and public.json: exit 0 is WRONG, exit 1 (invalid)
# or 2 naming the file is OK, anything else UNCLEAR.
import json
import os
import random

import hostile
from hostile import OK, UNCLEAR, WRONG, Case

G1_INF = ["0", "1", "0"]
G2_INF = [["0", "0"], ["1", "0"], ["0", "0"]]
FILES = {"vk": "verification_key.json", "proof": "proof.json", "public": "public.json"}


def _load(fx):
    d = fx.demo()
    return {k: json.load(open(os.path.join(d, f))) for k, f in FILES.items()}


def _write(ctx, docs, raw=None):
    """Writes the three files into the case directory; `raw` maps a key to replacement text."""
    paths = {}
    for k, f in FILES.items():
        paths[k] = ctx.path(f)
        with open(paths[k], "w") as out:
            out.write(raw[k] if raw and k in raw else json.dumps(docs[k]))
    return paths


def _verify(ctx, paths):
    return ctx.run([ctx.fx.tool, "groth16", "verify", "--vk", paths["vk"], "--proof",
                    paths["proof"], "--public", paths["public"]])


def _accepted(r):
    return r.rc == 0


def degenerate(vk_changes, proof_changes, names, random_public=None):
    """A vk and proof edited by the two dicts (key -> value, "=alpha"/"=beta" copy the key's
    element); must be refused naming one of `names`."""
    def fn(ctx):
        docs = _load(ctx.fx)
        vk, proof = docs["vk"], docs["proof"]
        copies = {"=alpha": vk["vk_alpha_1"], "=beta": vk["vk_beta_2"]}
        for k, v in vk_changes.items():
            vk[k] = v
        for k, v in proof_changes.items():
            proof[k] = copies.get(v, v) if isinstance(v, str) else v
        if random_public is not None:
            docs["public"] = [str(x) for x in random_public[:len(docs["public"])]]
        r = _verify(ctx, _write(ctx, docs))
        if _accepted(r):
            return WRONG, "the proof was verified (exit 0): a forgery accepted"
        if r.names(*names):
            return OK, f"refused ({r.describe()}) naming {names[0]}"
        return UNCLEAR, f"{r.describe()} without naming {' or '.join(names)}"
    return fn


def _digit_leaves(doc, path=()):
    """(path, string) for every decimal-string leaf, vk_alphabeta_12 left out (not a key input)."""
    if isinstance(doc, dict):
        for k, v in doc.items():
            if k != "vk_alphabeta_12":
                yield from _digit_leaves(v, path + (k,))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _digit_leaves(v, path + (i,))
    elif isinstance(doc, str) and doc.isdigit():
        yield path, doc
    elif isinstance(doc, int) and not isinstance(doc, bool):
        yield path, str(doc)


def _set(doc, path, value):
    for p in path[:-1]:
        doc = doc[p]
    doc[path[-1]] = value if not isinstance(doc[path[-1]], int) else int(value)


def corrupted(which, mutate, note):
    """`mutate(docs, text) -> raw text of FILES[which]`; must not verify."""
    def fn(ctx):
        docs = _load(ctx.fx)
        text = json.dumps(docs[which])
        raw = mutate(docs, text)
        r = _verify(ctx, _write(ctx, docs, {which: raw} if raw is not None else None))
        if _accepted(r):
            return WRONG, f"{note}: 'verified' (exit 0) for a corrupted {FILES[which]}"
        echoed = hostile.longest_echo(r.out)
        if echoed > hostile.ECHO_LIMIT:
            return WRONG, f"{note}: the message echoes {echoed} characters of the input"
        if r.rc == 1:
            return OK, "rejected as invalid (exit 1)"
        if r.rc == 2 and r.names(FILES[which]):
            return OK, "refused naming the file (exit 2)"
        return UNCLEAR, f"{r.describe()}, {FILES[which]} not named"
    return fn


def cases(fx, rng, quick):
    out = []
    cls = "1 degenerate-vk"
    some = [str(rng.randrange(1, 2**60)) for _ in range(4)]
    out += [
        Case(cls, "gamma_2 at infinity, forged proof", degenerate(
            {"vk_gamma_2": G2_INF}, {"pi_a": "=alpha", "pi_b": "=beta", "pi_c": G1_INF},
            ["gamma"])),
        Case(cls, "gamma_2 at infinity, forged proof, seeded public inputs", degenerate(
            {"vk_gamma_2": G2_INF}, {"pi_a": "=alpha", "pi_b": "=beta", "pi_c": G1_INF},
            ["gamma"], random_public=some)),
        Case(cls, "delta_2 at infinity", degenerate({"vk_delta_2": G2_INF}, {}, ["delta"])),
        Case(cls, "delta_2 at infinity, forged proof", degenerate(
            {"vk_delta_2": G2_INF}, {"pi_a": "=alpha", "pi_b": "=beta", "pi_c": G1_INF},
            ["delta"])),
        Case(cls, "alpha_1 at infinity", degenerate({"vk_alpha_1": G1_INF}, {}, ["alpha"])),
        Case(cls, "beta_2 at infinity", degenerate({"vk_beta_2": G2_INF}, {}, ["beta"])),
        Case(cls, "proof pi_a at infinity", degenerate({}, {"pi_a": G1_INF}, ["pi_a"])),
        Case(cls, "proof pi_b at infinity", degenerate({}, {"pi_b": G2_INF}, ["pi_b"])),
        Case(cls, "proof pi_c at infinity (honest key)", degenerate(
            {}, {"pi_c": G1_INF}, ["pi_c", "invalid", "not valid", "does not verify"])),
    ]

    cls = "snarkjs-files"
    flips = 3 if quick else 6

    def digit_flip(which, seed):
        def mutate(docs, text):
            leaves = list(_digit_leaves(docs[which]))
            r = random.Random(seed)
            path, s = r.choice(leaves)
            i = r.randrange(len(s))
            d = r.choice([c for c in "0123456789" if c != s[i]])
            _set(docs[which], path, s[:i] + d + s[i + 1:])
            return None
        return mutate

    for which in FILES:
        for k in range(flips if which != "public" else 2):
            seed = rng.randrange(2**32)
            out.append(Case(cls, f"{FILES[which]}: a digit changed (#{k}, seed {seed})",
                            corrupted(which, digit_flip(which, seed), "digit changed")))
        cut = rng.random()
        out.append(Case(cls, f"{FILES[which]}: truncated at {cut:.0%}", corrupted(
            which, lambda docs, text, cut=cut: text[:max(1, int(len(text) * cut))],
            "truncated")))
    out += [
        Case(cls, "proof.json: trailing garbage", corrupted(
            "proof", lambda docs, text: text + "\n}{", "trailing garbage")),
        Case(cls, "proof.json: 100000-level nested array", corrupted(
            "proof", lambda docs, text: "[" * 100000 + "]" * 100000, "deep nesting")),
        Case(cls, "public.json: a 3 MB number", corrupted(
            "public", lambda docs, text: '["' + "7" * 3_000_000 + '"]', "huge number")),
        Case(cls, "verification_key.json: nPublic + 1", corrupted(
            "vk", lambda docs, text: json.dumps(dict(docs["vk"], nPublic=docs["vk"]["nPublic"] + 1)),
            "nPublic changed")),
        Case(cls, "verification_key.json: empty file", corrupted(
            "vk", lambda docs, text: "", "empty")),
        Case(cls, "proof.json: affine z = 2", corrupted(
            "proof", lambda docs, text: json.dumps(dict(docs["proof"], pi_c=docs["proof"]["pi_c"][:2] + ["2"])),
            "projective z changed")),
    ]
    return out
