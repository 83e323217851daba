#!/usr/bin/env python3
# tests/hostile/run.py BUILD_DIR [--seed N] [--quick] [--only REGEX] [--list] [--keep] [-v]:
# the hostile suite (issue 13). Generates hostile inputs and faults for zkpipe and zkpipe-tool
# (cases_*.py, one module per area), runs each case in a fresh temporary directory under a
# timeout, and classifies it OK / UNCLEAR / CRASH / HANG / WRONG / LOST (hostile.py). Prints every
# non-OK case with its commands and output tails, then one summary line
#   hostile: N cases, C crash, H hang, W wrong, L lost (U unclear; seed S; T s)
# and exits 1 on any CRASH, HANG, WRONG or LOST (UNCLEAR is printed, not failing). Cases that prove
# run one at a time; quick refusals run four at once. Python 3 standard library only.
import argparse
import os
import random
import re
import shutil
import sys
import tempfile
import time
import traceback
from concurrent.futures import ThreadPoolExecutor

sys.dont_write_bytecode = True  # the source tree is left as it was
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import cases_daemon  # noqa: E402
import cases_groth16  # noqa: E402
import cases_outputs  # noqa: E402
import cases_plugins  # noqa: E402
import cases_process  # noqa: E402
import cases_requests  # noqa: E402
import hostile  # noqa: E402
from fixtures import FixtureError, Fixtures  # noqa: E402

MODULES = (cases_groth16, cases_outputs, cases_plugins, cases_requests, cases_process,
           cases_daemon)
LIGHT_WORKERS = 4


def generate(fx, seed, quick):
    out = []
    for m in MODULES:
        out += m.cases(fx, random.Random(f"{seed}:{m.__name__}"), quick)
    return out


def run_case(index, case, fx, work, keep):
    d = os.path.join(work, "cases", f"{index:03d}")
    os.makedirs(d)
    ctx = hostile.Context(d, fx)
    t0 = time.monotonic()
    try:
        verdict, note = case.fn(ctx)
    except FixtureError as e:
        ctx.runs.append(e.run)
        verdict, note = hostile.WRONG, f"the fixture '{e.what}' failed: {e.run.describe()}"
    except Exception:  # a defect of the suite itself: fails the run, never passes silently
        verdict, note = "ERROR", "the case raised:\n" + traceback.format_exc()
    forced = hostile.forced_verdict(ctx.runs)
    if forced and verdict != "ERROR":
        verdict, note = forced[0], f"{forced[1]} ({note})"
    secs = time.monotonic() - t0
    if not keep and verdict == hostile.OK:
        shutil.rmtree(d, ignore_errors=True)
    return verdict, note, secs, ctx.runs


def report(index, case, result, verbose):
    verdict, note, secs, runs = result
    print(f"{verdict:<8}{case.cls:<20}{case.name} ({secs:.1f} s)", flush=True)
    if verdict == hostile.OK and not verbose:
        return
    print(f"        {note}")
    for r in runs:
        cmd = " ".join(r.cmd)
        print(f"      $ {cmd if len(cmd) < 400 else cmd[:400] + ' ...'}")
        print(f"        -> {r.describe()} in {r.secs:.1f} s")
        if r.out.strip() and (verdict != hostile.OK or verbose):
            print(hostile.tail(r.out))
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser(description="zkpipe's hostile suite (issue 13)")
    ap.add_argument("build_dir")
    ap.add_argument("--seed", type=int, default=int(os.environ.get("ZKPIPE_HOSTILE_SEED", "1")),
                    help="seed of every sampled mutation (default $ZKPIPE_HOSTILE_SEED or 1)")
    ap.add_argument("--quick", action="store_true", help="fewer samples per class")
    ap.add_argument("--only", help="run only cases whose 'class name' matches this regex")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("--keep", action="store_true", help="keep every case's directory")
    ap.add_argument("-v", "--verbose", action="store_true", help="print OK cases' commands too")
    args = ap.parse_args()

    t0 = time.monotonic()
    work = tempfile.mkdtemp(prefix="zkpipe-hostile-")
    os.chmod(work, 0o755)  # a case may run a program as another user (read-only outputs)
    fx = Fixtures(args.build_dir, work, args.seed)
    for exe in (fx.tool, fx.zkpipe):
        if not os.access(exe, os.X_OK):
            print(f"hostile: {exe} not found: build zkpipe and zkpipe-tool first", file=sys.stderr)
            return 1
    all_cases = generate(fx, args.seed, args.quick)
    if args.only:
        all_cases = [c for c in all_cases if re.search(args.only, f"{c.cls} {c.name}")]
    if args.list:
        for c in all_cases:
            print(f"{c.cls:<20}{c.name}{'  [heavy]' if c.heavy else ''}")
        return 0

    print(f"hostile: {len(all_cases)} cases (seed {args.seed}{', quick' if args.quick else ''}); "
          f"work dir {work}", flush=True)
    results = {}
    indexed = list(enumerate(all_cases))
    # Heavy cases first and alone (they time kills and share the CPU); then the light ones.
    for i, c in indexed:
        if c.heavy:
            results[i] = run_case(i, c, fx, work, args.keep)
            report(i, c, results[i], args.verbose)
    with ThreadPoolExecutor(LIGHT_WORKERS) as pool:
        futures = {i: pool.submit(run_case, i, c, fx, work, args.keep)
                   for i, c in indexed if not c.heavy}
        for i, f in futures.items():
            results[i] = f.result()
            report(i, all_cases[i], results[i], args.verbose)

    counts = {v: 0 for v in (hostile.OK, hostile.UNCLEAR, hostile.CRASH, hostile.HANG,
                             hostile.WRONG, hostile.LOST, "ERROR")}
    for verdict, *_ in results.values():
        counts[verdict] += 1
    failing = counts[hostile.CRASH] + counts[hostile.HANG] + counts[hostile.WRONG] + \
        counts[hostile.LOST] + counts["ERROR"]
    if failing == 0 and not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    errors = f"; {counts['ERROR']} suite error(s)" if counts["ERROR"] else ""
    print(f"hostile: {len(results)} cases, {counts[hostile.CRASH]} crash, "
          f"{counts[hostile.HANG]} hang, {counts[hostile.WRONG]} wrong, "
          f"{counts[hostile.LOST]} lost "
          f"({counts[hostile.UNCLEAR]} unclear; seed {args.seed}; "
          f"{time.monotonic() - t0:.0f} s{errors})")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
