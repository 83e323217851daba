#!/usr/bin/env bash
# The one-shot GPU check's mechanics on a machine without a GPU: scripts/gpu-check bundles the
# build (binaries, plugins, configs, libraries) and archives it; the bundle's run.sh first says
# that there is no driver and attempts nothing else; with --force it runs every step, each fails,
# and it still writes a valid report naming why. (On a GPU host the same run is the real check.)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d /tmp/zkpipe_gpu_check.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$root/scripts/gpu-check" --no-build "$work/bundle" >"$work/bundle.log"
for f in bin/zkpipe bin/zkpipe-tool bin/zkpipe_tests bin/zkpipe-bench-gpu bin/zkpipe-bench-h2d \
         plugins/pageable.so plugins/cpu.so plugins/cuda.so plugins/cuda.plugin.toml \
         configs/cuda-pinned-pool.yaml lib/libyaml-cpp.so.0.7 run.sh COMMIT; do
  [ -e "$work/bundle/$f" ] || { echo "FAIL: bundle lacks $f"; exit 1; }
done
if ldd "$work/bundle/bin/zkpipe" | grep -q "libcuda.so"; then
  echo "FAIL: the bundle must not carry the driver"; exit 1
fi
[ -s "$work/bundle.tar.gz" ] || { echo "FAIL: no bundle archive"; exit 1; }
# Without a driver the first line says so and nothing else is attempted.
rc=0
"$work/bundle/run.sh" "$work/first" >"$work/first.log" 2>&1 || rc=$?
[ "$rc" -ne 0 ] || { echo "FAIL: the check passed without a driver"; cat "$work/first.log"; exit 1; }
head -n 1 "$work/first.log" | grep -q "^driver: none, runtime: CUDA [0-9.]*: FAIL: no NVIDIA driver" ||
  { echo "FAIL: the first line does not name the driver"; cat "$work/first.log"; exit 1; }
head -n 1 "$work/first/report.md" | grep -q "^# zkpipe GPU check: driver: none" ||
  { echo "FAIL: report.md does not start with the driver"; exit 1; }
[ ! -e "$work/first/cuda-tests.log" ] || { echo "FAIL: steps ran past a failed driver check"; exit 1; }
python3 - "$work/first/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["ok"] is False and [s["name"] for s in r["steps"]] == ["driver"], r
assert "no NVIDIA driver" in r["driver"], r["driver"]
PY
# --force runs every step anyway: each fails, and the report still says why.
rc=0
"$work/bundle/run.sh" "$work/out" --quick --force >"$work/run.log" 2>&1 || rc=$?
[ "$rc" -ne 0 ] || { echo "FAIL: the check passed without a GPU"; cat "$work/run.log"; exit 1; }
python3 - "$work/out/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["ok"] is False, r
names = [s["name"] for s in r["steps"]]
for step in ["driver", "check-system", "cuda-tests", "bench-h2d", "bench-gpu", "pipeline"]:
    assert step in names, (step, names)
assert r["cuda_tests"]["failures"] > 0, r["cuda_tests"]
assert r["pipeline"] is None or isinstance(r["pipeline"], (dict, list)), r["pipeline"]
print("report ok:", names)
PY
grep -qE "UNAVAILABLE: .*(libcuda.so.1|insufficient|no CUDA)" "$work/out/bench-gpu.log" || { echo "FAIL: bench-gpu does not say why"; exit 1; }
grep -q "^# zkpipe GPU check" "$work/out/report.md"
grep -q "Result: FAIL" "$work/out/report.md"
echo "PASS"
