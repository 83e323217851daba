#!/usr/bin/env bash
# tools/bench/serve_priority.sh BUILD_DIR [NORMAL_JOBS]: priority under a real backlog on one
# `zkpipe serve` (configs/cpu.yaml, unix socket): the end-to-end time of one snapdeals tiny
# CRITICAL job on the idle daemon, then again submitted 10 s into a backlog of porep 2KiB NORMAL
# jobs (`zkpipe bench --addr`, 2 client threads). Params and requests are made once under
# BUILD_DIR/bench-serve. A benchmark: it prints numbers, it does not pass or fail on them.
set -euo pipefail
BUILD=$(cd "${1:-build}" && pwd)
NORMAL_JOBS=${2:-6}
ZKPIPE="$BUILD/bin/zkpipe"
WORK="$BUILD/bench-serve"
CONFIGS="$(cd "$(dirname "$0")/../../configs" && pwd)"
mkdir -p "$WORK"
sock="unix://$WORK/zk.sock"
"$ZKPIPE" serve --config "$CONFIGS/cpu.yaml" --params-dir "$WORK/params" --listen "$sock" \
  --http '' >"$WORK/serve.log" 2>&1 &
pid=$!
trap 'kill -TERM $pid 2>/dev/null || true' EXIT
for _ in $(seq 1 300); do grep -q '^serve: ready' "$WORK/serve.log" && break; sleep 0.2; done
grep -q '^serve: ready' "$WORK/serve.log"
# Warm-up (params made and hot for both circuits; the requests cached).
"$ZKPIPE" bench --addr "$sock" --proof porep --preset 2KiB --jobs 1 --cache-dir "$WORK" >/dev/null
"$ZKPIPE" bench --addr "$sock" --proof snapdeals --preset tiny --jobs 1 --cache-dir "$WORK" \
  >/dev/null
critical() {
  "$ZKPIPE" bench --addr "$sock" --proof snapdeals --preset tiny --jobs 1 --priority critical \
    --cache-dir "$WORK" --json "$WORK/$1.json" >/dev/null
  python3 -c "import json; print(f'{json.load(open(\"$WORK/$1.json\"))[\"e2e_p50_ms\"]:.0f}')"
}
idle=()
for i in 1 2 3; do idle+=("$(critical idle$i)"); done
"$ZKPIPE" bench --addr "$sock" --proof porep --preset 2KiB --jobs "$NORMAL_JOBS" \
  --concurrency 2 --priority normal --cache-dir "$WORK" --json "$WORK/backlog.json" \
  >"$WORK/backlog.txt" &
backlog=$!
sleep 10
busy=$(critical busy)
wait $backlog
echo "snapdeals tiny CRITICAL, end to end: idle daemon ${idle[*]} ms (3 runs); submitted 10 s" \
  "into a backlog of $NORMAL_JOBS porep 2KiB NORMAL jobs (2 clients): $busy ms"
grep -E "proofs/min|end-to-end" "$WORK/backlog.txt" | sed 's/^/backlog: /'
