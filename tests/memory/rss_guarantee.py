#!/usr/bin/env python3
"""tests/memory/rss_guarantee.py BUILD_DIR: the memory budget is a promise and `zkpipe plan` a
prediction, checked on real proofs (CPU backend, porep 2KiB and snapdeals tiny).

For each workload: params are made first (the development setup's own memory is not the
prover's), then `zkpipe plan --json` gives the budget for one partition and for all in flight;
with pipeline.budget between the two and pipeline.overhead 64 MiB, `zkpipe bench` runs 1 to 3
jobs at once (1 and 3), and each run's peak RSS (VmHWM) must stay at most budget + overhead, and the
prediction (bench.json predicted_peak_bytes, the same model as `zkpipe plan`) must not be more
than 8% under the measured peak nor more than 25% over it (the goal is -5% .. +10%: README
"Memory" has the measured errors). A budget 1 MiB short of one
partition must be refused at submit, naming the bytes needed. Prints a table of predicted
against measured. Bounded: every run has a timeout; about 3 minutes on 2 cores once params exist.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

MIB = 1 << 20
OVERHEAD = 64 * MIB
# One job and three at once bound the model (a second job in flight is between them); two-job
# runs were dropped for CI time (issue 15). Two workloads, the model's extremes in
# docs/performance.md: porep 2KiB (its worst under-prediction, 3 jobs under a tight budget) and
# snapdeals tiny (its largest over-predictions); porep tiny and snapdeals 2KiB, between them,
# were dropped for CI time.
WORKLOADS = [("porep", "2KiB", (1, 3)), ("snapdeals", "tiny", (1, 3))]


def config_text(source, params_dir, budget=None):
    text = open(source).read()
    text = re.sub(r"(?m)^(\s*dir:\s*)\S+", lambda m: m.group(1) + params_dir, text)
    if budget is not None:
        text = re.sub(r"(?m)^(\s*budget:\s*)\S+", lambda m: m.group(1) + str(budget), text)
        text = re.sub(r"(?m)^(\s*retries:.*)$",
                      lambda m: m.group(1) + "\n  overhead: %d" % OVERHEAD, text)
    return text


def run(cmd, timeout=600):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout


def main():
    build = os.path.abspath(sys.argv[1])
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "configs",
                          "cpu.yaml")
    zkpipe = os.path.join(build, "bin", "zkpipe")
    work = os.path.join(build, "tests", "rss_guarantee")  # the requests, kept
    # The build's shared test params (golden, package and interop use them too): made once.
    params = os.path.join(build, "tests", "params")
    os.makedirs(params, exist_ok=True)
    failures, rows = [], []
    with tempfile.TemporaryDirectory() as tmp:
        auto = os.path.join(tmp, "auto.yaml")
        open(auto, "w").write(config_text(source, params))
        for proof, preset, job_counts in WORKLOADS:
            name = "%s %s" % (proof, preset)
            out = os.path.join(tmp, "warm")
            rc, text = run([zkpipe, "bench", "--config", auto, "--proof", proof, "--preset",
                            preset, "--jobs", "1", "--out-dir", out, "--cache-dir", work])
            if rc != 0:
                failures.append("%s: the warm-up run failed:\n%s" % (name, text[-3000:]))
                continue
            for jobs in job_counts:
                rc, text = run([zkpipe, "plan", "--config", auto, "--proof", proof, "--preset",
                                preset, "--jobs", str(jobs), "--json", "--cache-dir", work])
                if rc != 0:
                    failures.append("%s: zkpipe plan failed:\n%s" % (name, text[-3000:]))
                    continue
                plan = json.loads(text[text.index("{"):])
                one, full = plan["budget_for_one_bytes"], plan["budget_for_all_bytes"]
                budget = one + (full - one) // 2
                tight = os.path.join(tmp, "tight.yaml")
                open(tight, "w").write(config_text(source, params, budget))
                out = os.path.join(tmp, "out-%s-%s-%d" % (proof, preset, jobs))
                rc, text = run([zkpipe, "bench", "--config", tight, "--proof", proof,
                                "--preset", preset, "--jobs", str(jobs), "--out-dir", out,
                                "--cache-dir", work])
                if rc != 0:
                    failures.append("%s x%d under a %d-byte budget failed:\n%s" %
                                    (name, jobs, budget, text[-3000:]))
                    continue
                summary = json.load(open(os.path.join(out, "bench.json")))[0]
                peak, predicted = summary["peak_rss_bytes"], summary["predicted_peak_bytes"]
                rows.append((name, jobs, budget, peak, predicted))
                if peak > budget + OVERHEAD:
                    failures.append("%s x%d: peak RSS %d > budget %d + overhead %d" %
                                    (name, jobs, peak, budget, OVERHEAD))
                if predicted < 0.92 * peak or predicted > 1.25 * peak:
                    failures.append("%s x%d: predicted %d against a measured peak of %d" %
                                    (name, jobs, predicted, peak))
            # Too small for one partition: refused at submit, with the number needed.
            small = os.path.join(tmp, "small.yaml")
            rc, text = run([zkpipe, "plan", "--config", auto, "--proof", proof, "--preset",
                            preset, "--json", "--cache-dir", work])
            one = json.loads(text[text.index("{"):])["budget_for_one_bytes"]
            open(small, "w").write(config_text(source, params, one - MIB))
            rc, text = run([zkpipe, "bench", "--config", small, "--proof", proof, "--preset",
                            preset, "--jobs", "1", "--out-dir", os.path.join(tmp, "small"),
                            "--cache-dir", work])
            if rc != 1 or "more than the whole memory budget" not in text or "needs" not in text:
                failures.append("%s: a budget 1 MiB short of one partition was not refused at "
                                "submit with the bytes needed (exit %d):\n%s" %
                                (name, rc, text[-2000:]))
    print("%-16s %4s %12s %12s %12s %8s" % ("workload", "jobs", "budget MiB", "peak MiB",
                                          "predicted", "error"))
    for name, jobs, budget, peak, predicted in rows:
        print("%-16s %4d %12.1f %12.1f %12.1f %+7.1f%%" %
              (name, jobs, budget / MIB, peak / MIB, predicted / MIB,
               100.0 * (predicted / peak - 1)))
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures or not rows else 0


if __name__ == "__main__":
    sys.exit(main())
