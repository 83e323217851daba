#!/usr/bin/env python3
"""tools/bench/gpu/static_report.py: what the CUDA code costs, read off its sm_90 cubins (no GPU).

Compiles tools/bench/gpu/static_probe.cu (one kernel per field and curve operation) and, with
--kernels, the compute backend's msm.cu and ntt.cu, each to an sm_90 cubin with the build's
flags, `ptxas -v` and -rdc=true: relocatable code keeps every out-of-line function (the
ZKP_HD_COLD equal-x cases of the point additions) in its own section, so a kernel's count is its
own code, the hot path, and the cold functions are listed apart (in the library's whole-program
build they are appended to each calling kernel's code but run only on their rare path). From each cubin's ELF section table (readelf) it takes every kernel's SASS
instruction count: sm_90 encodes every instruction in 16 bytes, so a kernel's .text bytes / 16,
including its trailing branch-to-self and alignment NOPs (an operation's count is its probe
kernel's minus the skeleton kernel's, which loads and stores the same operands: +-8). From
ptxas it takes registers, stack frame and spill bytes. Writes DIR/static.json and, when the
build has zkpipe-bench-gpu, runs `zkpipe-bench-gpu --static DIR/static.json`, which prints the
table and the cost model's predictions of a 2^24 MSM and NTT on an H200 (labelled so: nothing
here ran on a GPU).

usage: static_report.py [--build BUILD] [--nvcc NVCC] [--kernels] [--out DIR]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
FLAGS = ["-cubin", "-rdc=true", "-arch=sm_90", "-std=c++20", "--expt-relaxed-constexpr", "-O2",
         "-Xptxas", "-v", "-I" + os.path.join(ROOT, "engine", "include"),
         "-I" + os.path.join(ROOT, "backends", "compute", "cuda")]
SOURCES = {"probe": "tools/bench/gpu/static_probe.cu",
           "msm": "backends/compute/cuda/msm.cu",
           "ntt": "backends/compute/cuda/ntt.cu"}
# Operation -> (probe kernel, skeleton kernel).
FP_MUL_GOAL = 700  # SASS instructions (issue 14)
OPS = {"fp_mul": ("fp_mul", "fp_skeleton"), "fp_mul_portable": ("fp_mul_portable", "fp_skeleton"),
       "fp_sqr": ("fp_sqr", "fp_skeleton"), "fp_sqr_sos": ("fp_sqr_sos", "fp_skeleton"),
       "fp_add": ("fp_add", "fp_skeleton"),
       "fr_mul": ("fr_mul", "fr_skeleton"), "fr_mul_portable": ("fr_mul_portable", "fr_skeleton"),
       "fr_sqr": ("fr_sqr", "fr_skeleton"), "fr_sqr_sos": ("fr_sqr_sos", "fr_skeleton"),
       "fr_add": ("fr_add", "fr_skeleton"),
       "g1_add_mixed": ("g1_add_mixed", "g1_mixed_skeleton"),
       "g1_add": ("g1_add", "g1_skeleton"), "g1_dbl": ("g1_dbl", "g1_skeleton"),
       "xyzz_madd": ("xyzz_madd", "xyzz_mixed_skeleton"),
       "xyzz_add": ("xyzz_add", "xyzz_skeleton"), "xyzz_dbl": ("xyzz_dbl", "xyzz_skeleton")}


def fail(msg):
    print("static_report: " + msg, file=sys.stderr)
    sys.exit(1)


def find_nvcc(given):
    for c in [given, os.environ.get("CUDACXX"), shutil.which("nvcc"), "/usr/local/cuda/bin/nvcc"]:
        if c and os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    fail("no nvcc (give --nvcc, set CUDACXX, or put it on PATH)")


def compile_cubin(nvcc, name, out_dir):
    src = os.path.join(ROOT, SOURCES[name])
    cubin = os.path.join(out_dir, name + ".cubin")
    p = subprocess.run([nvcc] + FLAGS + [src, "-o", cubin], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    log = os.path.join(out_dir, name + ".ptxas.txt")
    open(log, "w").write(p.stdout)
    if p.returncode != 0:
        fail("nvcc failed on %s (exit %d; log %s):\n%s" % (src, p.returncode, log, p.stdout[-3000:]))
    return cubin, p.stdout


def demangle(names):
    if not names or not shutil.which("c++filt"):
        return {n: n for n in names}
    out = subprocess.run(["c++filt"], input="\n".join(names), stdout=subprocess.PIPE, text=True)
    return dict(zip(names, out.stdout.split("\n")))


def kernel_sizes(cubin):
    p = subprocess.run(["readelf", "-S", "-W", cubin], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    if p.returncode != 0:
        fail("readelf could not read %s" % cubin)
    sizes = {}
    for line in p.stdout.splitlines():
        m = re.search(r"\.text\.(\S+)\s+PROGBITS\s+\S+\s+\S+\s+([0-9a-f]+)", line)
        if m:
            sizes[m.group(1)] = int(m.group(2), 16)
    if not sizes:
        fail("%s has no .text sections (not a cubin?)" % cubin)
    return sizes


def ptxas_usage(log):
    """Function -> {registers, stack, spill_stores, spill_loads} from ptxas -v output."""
    usage, current = {}, None
    for line in log.splitlines():
        m = re.search(r"Compiling entry function '(\S+)'", line)
        if m:
            current = m.group(1)
            usage.setdefault(current, {})["entry"] = True
            continue
        m = re.search(r"Function properties for (\S+)", line)
        if m:
            current = m.group(1)
            usage.setdefault(current, {})
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads",
                      line)
        if m and current:
            usage[current].update(stack=int(m.group(1)), spill_stores=int(m.group(2)),
                                  spill_loads=int(m.group(3)))
            continue
        m = re.search(r"Used (\d+) registers", line)
        if m and current:
            usage[current]["registers"] = int(m.group(1))
    return usage


def functions(cubin, log):
    sizes, usage = kernel_sizes(cubin), ptxas_usage(log)
    names = demangle(sorted(sizes))
    out = {}
    for mangled, size in sizes.items():
        u = usage.get(mangled, {})
        out[mangled] = {"name": names.get(mangled, mangled), "instructions": size // 16,
                        "registers": u.get("registers"), "stack": u.get("stack", 0),
                        "spill_stores": u.get("spill_stores", 0),
                        "spill_loads": u.get("spill_loads", 0), "entry": u.get("entry", False)}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--nvcc")
    ap.add_argument("--kernels", action="store_true",
                    help="also compile msm.cu and ntt.cu (minutes of nvcc)")
    ap.add_argument("--out", help="default BUILD/gpu-static")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 unless an Fp product is at most %d SASS instructions and no "
                         "kernel spills" % FP_MUL_GOAL)
    args = ap.parse_args()
    nvcc = find_nvcc(args.nvcc)
    if not shutil.which("readelf"):
        fail("no readelf (Debian: binutils)")
    out_dir = args.out or os.path.join(args.build, "gpu-static")
    os.makedirs(out_dir, exist_ok=True)
    version = subprocess.run([nvcc, "--version"], stdout=subprocess.PIPE, text=True).stdout
    report = {"nvcc": version.strip().splitlines()[-1], "arch": "sm_90", "ops": {},
              "kernels": {}}
    cubin, log = compile_cubin(nvcc, "probe", out_dir)
    probe = {f["name"].replace("zkp_probe_", ""): f for f in functions(cubin, log).values()}
    for op, (kernel, skeleton) in OPS.items():
        if kernel not in probe or skeleton not in probe:
            fail("the probe cubin lacks zkp_probe_%s or zkp_probe_%s" % (kernel, skeleton))
        k = probe[kernel]
        report["ops"][op] = dict(k, instructions=k["instructions"] -
                                 probe[skeleton]["instructions"])
    if args.kernels:
        for name in ("msm", "ntt"):
            cubin, log = compile_cubin(nvcc, name, out_dir)
            for f in functions(cubin, log).values():
                report["kernels"][name + ": " + f["name"]] = f
    path = os.path.join(out_dir, "static.json")
    with open(path, "w") as f:
        json.dump(report, f, indent=1)
    print("static_report: wrote " + path)
    bench = os.path.join(args.build, "bin", "zkpipe-bench-gpu")
    rc = 0
    if os.path.exists(bench):
        rc = subprocess.run([bench, "--static", path]).returncode
    else:
        print("static_report: no %s (a CUDA build): the table is in %s" % (bench, path))
    if args.check:
        problems = []
        if report["ops"]["fp_mul"]["instructions"] > FP_MUL_GOAL:
            problems.append("an Fp product is %d SASS instructions (goal <= %d)" %
                            (report["ops"]["fp_mul"]["instructions"], FP_MUL_GOAL))
        # Kernels only: under -rdc an out-of-line cold function (the equal-x cases) is compiled
        # alone to the call ABI and may spill on its rare path; the library's whole-program
        # build compiles it into its callers, where ptxas -Werror refuses any spill.
        for name, f in list(probe.items()) + list(report["kernels"].items()):
            if not f["entry"]:
                continue
            if f["spill_stores"] or f["spill_loads"]:
                problems.append("%s spills (%d B stored, %d B loaded)" %
                                (name, f["spill_stores"], f["spill_loads"]))
        for p in problems:
            print("static_report: FAIL: " + p, file=sys.stderr)
        if problems:
            rc = 1
        else:
            print("static_report: check passed (Fp product %d <= %d SASS instructions, no spills)"
                  % (report["ops"]["fp_mul"]["instructions"], FP_MUL_GOAL))
    sys.exit(rc)


if __name__ == "__main__":
    main()
