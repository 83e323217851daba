#!/usr/bin/env bash
# tests/sdk_plugin/run_proof_type.sh BUILD_DIR PLUGIN_DIR WORK_DIR: the out-of-tree proof type
# sha256_preimage (built against the installed SDK into PLUGIN_DIR) through the zkpipe binary,
# with a config whose plugin_dirs are BUILD_DIR/plugins (memory and compute) and PLUGIN_DIR:
# `zkpipe bench --preset 32B` makes its sample request through the plugin and proves it (params
# made by the seeded setup into WORK_DIR/params); `zkpipe prove --input` proves the cached
# request and writes snarkjs files; snarkjs verifies both partitions and rejects a changed public
# input and a partition's proof against the other's inputs; an unknown preset and a cut request
# are refused with exit 2 before any proving. Needs node and npm (snarkjs is installed as
# tests/interop/run.sh does): fails, never skips, without them. One line per check; exit 1 on
# any failure.
set -euo pipefail

if [[ $# -ne 3 ]]; then
  echo "usage: $0 BUILD_DIR PLUGIN_DIR WORK_DIR" >&2
  exit 2
fi
BUILD_DIR=$(cd "$1" && pwd)
PLUGIN_DIR=$(cd "$2" && pwd)
WORK=$3
ZKPIPE="$BUILD_DIR/bin/zkpipe"
TYPE=sha256_preimage
# The BLS12-381 group order r: a public input is changed modulo r.
R=52435875175126190479447740508185965837690552500527637822603658699938581184513

source "$(dirname "$0")/../interop/snarkjs.sh"
ensure_snarkjs "$BUILD_DIR" || exit 1

rm -rf "$WORK"
mkdir -p "$WORK"
cat >"$WORK/config.yaml" <<EOF
version: 1
plugin_dirs: [$BUILD_DIR/plugins, $PLUGIN_DIR]
log: {level: warn}
memory: {backend: pageable}
params: {dir: $WORK/params, missing: setup}
EOF

passed=0
failed=0
step=0
# check DESCRIPTION EXPECTED_EXIT_CODE COMMAND...: runs COMMAND with its output in a log file.
check() {
  local desc=$1 want=$2
  shift 2
  step=$((step + 1))
  local log="$WORK/step$step.log" rc=0 t0=$SECONDS
  "$@" >"$log" 2>&1 || rc=$?
  if [[ $rc -eq $want ]]; then
    echo "PASS  $desc ($((SECONDS - t0)) s)"
    passed=$((passed + 1))
    return 0
  fi
  echo "FAIL  $desc (exit $rc, expected $want; log $log)"
  sed 's/\x1b\[[0-9;]*m//g' "$log" | tail -n 8 | sed 's/^/        /'
  failed=$((failed + 1))
  return 1
}

# expect_output WANT COMMAND...: COMMAND exits 2 (bad input) and prints WANT.
expect_output() {
  local want=$1 out rc=0
  shift
  out=$("$@" 2>&1) || rc=$?
  printf '%s\n' "$out"
  [[ $rc -eq 2 ]] && grep -qF -- "$want" <<<"$out"
}

# snarkjs exits 1 for an invalid proof and for errors alike: a rejection says "Invalid proof".
snarkjs_rejects() {
  local out rc=0
  out=$("$SNARKJS_BIN" groth16 verify "$@" 2>&1) || rc=$?
  printf '%s\n' "$out"
  [[ $rc -eq 1 ]] && grep -q "Invalid proof" <<<"$out"
}

# tamper_public IN OUT: the public inputs with the first one plus 1 (mod r).
tamper_public() {
  node -e '
    const fs = require("fs");
    const p = JSON.parse(fs.readFileSync(process.argv[1], "utf8"));
    p[0] = ((BigInt(p[0]) + 1n) % BigInt(process.argv[3])).toString();
    fs.writeFileSync(process.argv[2], JSON.stringify(p));' "$1" "$2" "$R"
}

REQUEST="$WORK/cache/$TYPE-32B-1.request"
bench_ok() {
  "$ZKPIPE" bench --config "$WORK/config.yaml" --proof "$TYPE" --preset 32B --seed 1 --jobs 1 \
    --out-dir "$WORK/bench" --cache-dir "$WORK/cache" &&
    [[ -s "$REQUEST" && -s "$WORK/bench/bench.json" ]]
}
check "zkpipe bench --preset 32B: the plugin makes the request (cached), the pipeline proves it" \
  0 bench_ok || true
check "zkpipe bench: an unknown preset is refused, listing the presets" 0 \
  expect_output "unknown preset 'nope' (presets: 32B, 64B)" "$ZKPIPE" bench \
  --config "$WORK/config.yaml" --proof "$TYPE" --preset nope --out-dir "$WORK/bench-nope" || true
if [[ -s "$REQUEST" ]]; then
  head -c 30 "$REQUEST" >"$WORK/cut.request"
  check "zkpipe prove: a cut request is refused, naming the byte offset" 0 \
    expect_output "byte offset" "$ZKPIPE" prove --config "$WORK/config.yaml" --proof "$TYPE" \
    --input "$WORK/cut.request" || true
  S="$WORK/snarkjs"
  if check "zkpipe prove --input (the cached sample request) proves and verifies" 0 \
    "$ZKPIPE" prove --config "$WORK/config.yaml" --proof "$TYPE" --input "$REQUEST" \
    --out "$WORK/proof.bin" --snarkjs "$S"; then
    for k in 0 1; do
      check "snarkjs verifies partition $k" 0 "$SNARKJS_BIN" groth16 verify \
        "$S/verification_key.json" "$S/public_$k.json" "$S/proof_$k.json" || true
    done
    tamper_public "$S/public_0.json" "$S/public_0_tampered.json"
    check "snarkjs rejects partition 0 with a public input changed" 0 snarkjs_rejects \
      "$S/verification_key.json" "$S/public_0_tampered.json" "$S/proof_0.json" || true
    check "snarkjs rejects partition 1's proof with partition 0's public inputs" 0 \
      snarkjs_rejects "$S/verification_key.json" "$S/public_0.json" "$S/proof_1.json" || true
  fi
fi

echo "$TYPE: $passed passed, $failed failed (snarkjs $SNARKJS_VERSION, logs in $WORK)"
[[ $failed -eq 0 && $passed -gt 0 ]]
