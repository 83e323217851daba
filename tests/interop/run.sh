#!/usr/bin/env bash
# tests/interop/run.sh BUILD_DIR: zkpipe's Groth16 against snarkjs 0.7.6 (curve bls12381), both
# ways, for the cubic and mimc example circuits: snarkjs verifies zkpipe's proofs and rejects them
# with a public input changed, snarkjs accepts zkpipe's .r1cs/.wtns, and zkpipe's verifier accepts
# snarkjs's proofs (from a power-10 ptau with fixed entropy) and rejects them when tampered, and
# zkpipe proves with snarkjs's .zkey (groth16 prove-zkey) a proof snarkjs verifies. Then the
# proof types end to end (porep and snapdeals, tiny and 2KiB): seal, vanilla proofs, prove-once
# through the plugins, snarkjs verifies every partition's proof; at tiny also `zkpipe prove` (the
# pipeline, configs/cpu.yaml) and snarkjs verifies its proofs; then the daemon (`zkpipe serve`,
# the client's submit --wait over a unix socket and TCP, snarkjs verifies what it served); then
# `zkpipe bench` with cpu.yaml and pageable.yaml side by side. The PoSt types (window_post,
# winning_post: plugins built against the installed SDK) go the same way from sealed sectors,
# through their own `zkpipe-tool proof-type TYPE vanilla` and `zkpipe prove`. Filecoin's own 2KiB
# PoRep and WindowPoSt proofs (polka-storage's): zkpipe and snarkjs both verify them.
# Needs BUILD_DIR/bin/zkpipe-tool, node and npm; snarkjs and the prepared ptau are cached under
# BUILD_DIR/interop. One line per check, a summary, exit 1 on any failure.
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 BUILD_DIR   (BUILD_DIR/bin/zkpipe-tool must exist)" >&2
  exit 2
fi
BUILD_DIR=$(cd "$1" && pwd)
TOOL="$BUILD_DIR/bin/zkpipe-tool"
ZKPIPE="$BUILD_DIR/bin/zkpipe"
CONFIGS="$(cd "$(dirname "$0")/../../configs" && pwd)"
PTAU_POWER=10  # 2^10 rows; preparation takes ~23 s and grows ~2.2x per power: keep CI <= 10
PTAU_ENTROPY="zkpipe interop test: fixed entropy, not a ceremony"
CACHE="$BUILD_DIR/interop"
PTAU="$CACHE/pot${PTAU_POWER}_final.ptau"
WORK="$CACHE/run"
# Params: the build's shared test params (the golden, memory and package tests make the same
# circuits there; whichever comes first makes them, under the params lock), kept between runs.
PARAMS="$BUILD_DIR/tests/params"
# The BLS12-381 group order r: public inputs are changed modulo r.
R=52435875175126190479447740508185965837690552500527637822603658699938581184513

if [[ ! -x "$TOOL" ]]; then
  echo "interop: $TOOL not found: build zkpipe-tool first" >&2
  exit 1
fi
# snarkjs, pinned, installed with npm into $CACHE/npm when missing (tests/interop/snarkjs.sh).
source "$(dirname "$0")/snarkjs.sh"
ensure_snarkjs "$BUILD_DIR" || exit 1

snarkjs() { "$SNARKJS_BIN" "$@"; }

rm -rf "$WORK"
mkdir -p "$WORK" "$PARAMS"
passed=0
failed=0
step=0

# check DESCRIPTION EXPECTED_EXIT_CODE COMMAND...: runs COMMAND with its output in a log file.
check() {
  local desc=$1 want=$2
  shift 2
  step=$((step + 1))
  local log="$WORK/step$step.log" rc=0
  "$@" >"$log" 2>&1 || rc=$?
  if [[ $rc -eq $want ]]; then
    echo "PASS  $desc"
    passed=$((passed + 1))
    return 0
  fi
  echo "FAIL  $desc (exit $rc, expected $want; log $log)"
  sed 's/\x1b\[[0-9;]*m//g' "$log" | tail -n 5 | sed 's/^/        /'
  failed=$((failed + 1))
  return 1
}

# snarkjs prints colour codes and exits 1 for an invalid proof and for errors alike: a rejection
# is exit 1 with "Invalid proof" in the output.
snarkjs_rejects() {
  local out rc=0
  out=$(snarkjs groth16 verify "$@" 2>&1) || rc=$?
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

# corrupt_wtns IN OUT: the witness with the low bit of its last value flipped.
corrupt_wtns() {
  node -e '
    const fs = require("fs");
    const b = fs.readFileSync(process.argv[1]);
    b[b.length - 32] ^= 1;
    fs.writeFileSync(process.argv[2], b);' "$1" "$2"
}

# same_json A B: the two files hold the same JSON value.
same_json() {
  node -e '
    const fs = require("fs");
    const [a, b] = process.argv.slice(1).map((f) => JSON.parse(fs.readFileSync(f, "utf8")));
    process.exit(JSON.stringify(a) === JSON.stringify(b) ? 0 : 1);' "$1" "$2"
}

# The prepared ptau, made once per build directory (new, one contribution with fixed entropy,
# prepare phase 2), written under a temporary name so an interrupted run leaves no bad cache.
prepare_ptau() {
  local tmp="$CACHE/ptau.tmp"
  rm -rf "$tmp"
  mkdir -p "$tmp"
  snarkjs powersoftau new bls12381 "$PTAU_POWER" "$tmp/0.ptau" &&
    snarkjs powersoftau contribute "$tmp/0.ptau" "$tmp/1.ptau" --name=zkpipe-interop \
      -e="$PTAU_ENTROPY" &&
    snarkjs powersoftau prepare phase2 "$tmp/1.ptau" "$tmp/final.ptau" &&
    mv "$tmp/final.ptau" "$PTAU" && rm -rf "$tmp"
}

# snarkjs_setup_prove DIR OUT: snarkjs's key, proof and verifying key for DIR/circuit.{r1cs,wtns}.
snarkjs_setup_prove() {
  snarkjs groth16 setup "$1/circuit.r1cs" "$PTAU" "$2/circuit.zkey" &&
    snarkjs groth16 prove "$2/circuit.zkey" "$1/circuit.wtns" "$2/proof.json" "$2/public.json" &&
    snarkjs zkey export verificationkey "$2/circuit.zkey" "$2/verification_key.json"
}

ptau_ok=1
if [[ ! -s "$PTAU" ]]; then
  echo "interop: preparing a power-$PTAU_POWER ptau (about 25 s, cached in $PTAU)"
  check "snarkjs prepares a power-$PTAU_POWER ptau (cached)" 0 prepare_ptau || ptau_ok=0
fi

# run_circuit NAME DEMO_ARGS...
run_circuit() {
  local name=$1
  shift
  local dir="$WORK/$name"
  if ! check "$name: zkpipe-tool groth16 demo proves and verifies" 0 \
    "$TOOL" groth16 demo "$@" --out "$dir"; then
    echo "SKIP  $name: the remaining checks need the demo's files"
    failed=$((failed + 1))
    return
  fi
  tamper_public "$dir/public.json" "$dir/public_tampered.json"

  # zkpipe -> snarkjs
  check "$name: snarkjs verifies zkpipe's proof" 0 \
    snarkjs groth16 verify "$dir/verification_key.json" "$dir/public.json" "$dir/proof.json" || true
  check "$name: snarkjs rejects zkpipe's proof with a public input changed" 0 \
    snarkjs_rejects "$dir/verification_key.json" "$dir/public_tampered.json" "$dir/proof.json" ||
    true
  check "$name: snarkjs wtns check accepts zkpipe's circuit.r1cs and circuit.wtns" 0 \
    snarkjs wtns check "$dir/circuit.r1cs" "$dir/circuit.wtns" || true
  corrupt_wtns "$dir/circuit.wtns" "$dir/corrupt.wtns"
  check "$name: snarkjs wtns check rejects the witness with its last value changed" 1 \
    snarkjs wtns check "$dir/circuit.r1cs" "$dir/corrupt.wtns" || true
  check "$name: zkpipe-tool groth16 verify accepts its own JSON files" 0 \
    "$TOOL" groth16 verify --vk "$dir/verification_key.json" --proof "$dir/proof.json" \
    --public "$dir/public.json" || true

  # snarkjs -> zkpipe: snarkjs's setup and prover over zkpipe's .r1cs/.wtns
  if [[ $ptau_ok -ne 1 ]]; then
    echo "SKIP  $name: snarkjs setup and prove (no ptau)"
    failed=$((failed + 1))
    return
  fi
  local sj="$dir/snarkjs"
  mkdir -p "$sj"
  if ! check "$name: snarkjs groth16 setup, prove and zkey export verificationkey" 0 \
    snarkjs_setup_prove "$dir" "$sj"; then
    return
  fi
  tamper_public "$sj/public.json" "$sj/public_tampered.json"
  check "$name: snarkjs's public.json equals zkpipe's (same wire order)" 0 \
    same_json "$sj/public.json" "$dir/public.json" || true
  check "$name: zkpipe verifies snarkjs's proof" 0 \
    "$TOOL" groth16 verify --vk "$sj/verification_key.json" --proof "$sj/proof.json" \
    --public "$sj/public.json" || true
  check "$name: zkpipe rejects snarkjs's proof with a public input changed" 1 \
    "$TOOL" groth16 verify --vk "$sj/verification_key.json" --proof "$sj/proof.json" \
    --public "$sj/public_tampered.json" || true

  # snarkjs's key -> zkpipe's prover -> snarkjs's verifier
  local zp="$dir/zkey_prove"
  mkdir -p "$zp"
  if ! check "$name: zkpipe proves with snarkjs's zkey (groth16 prove-zkey)" 0 \
    "$TOOL" groth16 prove-zkey --zkey "$sj/circuit.zkey" --wtns "$dir/circuit.wtns" \
    --proof "$zp/proof.json" --public "$zp/public.json"; then
    return
  fi
  tamper_public "$zp/public.json" "$zp/public_tampered.json"
  check "$name: snarkjs verifies zkpipe's proof made with its zkey" 0 \
    snarkjs groth16 verify "$sj/verification_key.json" "$zp/public.json" "$zp/proof.json" || true
  check "$name: snarkjs rejects it with a public input changed" 0 \
    snarkjs_rejects "$sj/verification_key.json" "$zp/public_tampered.json" "$zp/proof.json" ||
    true
}

run_circuit cubic --circuit cubic --seed 1
run_circuit mimc --circuit mimc --size 100 --seed 2

# flip_byte IN OUT OFFSET: a copy of IN with the byte at OFFSET (from the end when negative)
# changed.
flip_byte() {
  node -e '
    const fs = require("fs");
    const b = fs.readFileSync(process.argv[1]);
    const i = Number(process.argv[3]);
    b[i < 0 ? b.length + i : i] ^= 0x5a;
    fs.writeFileSync(process.argv[2], b);' "$1" "$2" "$3"
}

# expect_output WANT COMMAND...: COMMAND exits 2 (bad input) and prints WANT.
expect_output() {
  local want=$1 out rc=0
  shift
  out=$("$@" 2>&1) || rc=$?
  printf '%s\n' "$out"
  [[ $rc -eq 2 ]] && grep -qF -- "$want" <<<"$out"
}

# run_proof_type TYPE SHAPE: a synthetic sector end to end through the TYPE plugin: seal (for
# snapdeals an empty sector, then the update), vanilla proofs, the native check, prove-once
# (params made once per circuit, every partition verified, batch verified), snarkjs verifies
# each partition's proof and rejects it against another partition's public inputs; a tampered
# and a truncated request are refused before any proving work.
run_proof_type() {
  local type=$1 shape=$2 dir="$WORK/$1-$2" name="$1 $2"
  mkdir -p "$dir"
  local vanilla="$dir/vanilla.bin"
  if [[ $type == porep ]]; then
    check "$name: porep seal" 0 "$TOOL" proof-type porep seal --shape "$shape" --seed "$shape" \
      --out "$dir/sector" || return
    check "$name: porep vanilla (every partition)" 0 "$TOOL" proof-type porep vanilla --sector \
      "$dir/sector" --challenge-seed "c-$shape" --out "$vanilla" || return
  else
    check "$name: porep seal --empty (the sector key)" 0 "$TOOL" proof-type porep seal --shape "$shape" \
      --empty --seed "$shape" --out "$dir/sector" || return
    check "$name: snapdeals update (every partition)" 0 "$TOOL" proof-type snapdeals update --sector \
      "$dir/sector" --data-seed "d-$shape" --out "$vanilla" || return
  fi
  check "$name: $type check accepts the vanilla proofs" 0 "$TOOL" proof-type "$type" check "$vanilla" || true
  check "$name: prove-once proves and verifies every partition" 0 "$TOOL" prove-once \
    --type "$type" --request "$vanilla" --params-dir "$PARAMS" --out "$dir/out" || return
  check "$name: snarkjs verifies partition 0" 0 snarkjs groth16 verify \
    "$dir/out/verification_key.json" "$dir/out/public_0.json" "$dir/out/proof_0.json" || true
  check "$name: snarkjs verifies partition 1" 0 snarkjs groth16 verify \
    "$dir/out/verification_key.json" "$dir/out/public_1.json" "$dir/out/proof_1.json" || true
  check "$name: snarkjs rejects partition 1's proof with partition 0's public inputs" 0 \
    snarkjs_rejects "$dir/out/verification_key.json" "$dir/out/public_0.json" \
    "$dir/out/proof_1.json" || true
  if [[ $shape == tiny ]]; then
    check "$name: zkpipe prove (the pipeline, cpu.yaml) proves and verifies" 0 "$ZKPIPE" prove \
      --config "$CONFIGS/cpu.yaml" --proof "$type" --input "$vanilla" \
      --params-dir "$PARAMS" --out "$dir/pipeline.bin" --snarkjs "$dir/pipeline" || true
    check "$name: snarkjs verifies the pipeline's partition 0" 0 snarkjs groth16 verify \
      "$dir/pipeline/verification_key.json" "$dir/pipeline/public_0.json" \
      "$dir/pipeline/proof_0.json" || true
    check "$name: snarkjs verifies the pipeline's partition 1" 0 snarkjs groth16 verify \
      "$dir/pipeline/verification_key.json" "$dir/pipeline/public_1.json" \
      "$dir/pipeline/proof_1.json" || true
    check "$name: snarkjs rejects the pipeline's partition 1 with partition 0's inputs" 0 \
      snarkjs_rejects "$dir/pipeline/verification_key.json" "$dir/pipeline/public_0.json" \
      "$dir/pipeline/proof_1.json" || true
  fi
  flip_byte "$vanilla" "$dir/tampered.bin" -40
  check "$name: prove-once refuses a tampered path element, naming the partition" 0 \
    expect_output "partition 1, challenge" "$TOOL" prove-once --type "$type" \
    --request "$dir/tampered.bin" --params-dir "$PARAMS" || true
  head -c 300 "$vanilla" >"$dir/truncated.bin"
  check "$name: prove-once refuses a truncated request, naming the byte offset" 0 \
    expect_output "byte offset" "$TOOL" prove-once --type "$type" \
    --request "$dir/truncated.bin" --params-dir "$PARAMS" || true
}

for type in porep snapdeals; do
  for shape in tiny 2KiB; do
    run_proof_type "$type" "$shape"
  done
done

# The PoSt types (plugins/post, built against the installed SDK): three tiny sectors sealed with
# `porep seal`, the vanilla proofs made by the plugin's own command line (`zkpipe-tool proof-type
# TYPE vanilla`), proved through the pipeline (`zkpipe prove`, params made by the seeded setup);
# snarkjs verifies every partition (window_post: 2, the second padded; winning_post: 1) and
# rejects a changed public input; a tampered path element and a sector listed twice are refused
# before any proving.
POST_CONFIG="$WORK/post.yaml"
cat >"$POST_CONFIG" <<EOF
version: 1
plugin_dirs: [$BUILD_DIR/plugins]
log: {level: warn}
memory: {backend: pageable}
params: {dir: $PARAMS, missing: setup}
EOF
POST_RANDOMNESS=$(printf '%064x' 2026)
seal_post_sectors() {
  for i in 1 2 3; do
    "$TOOL" proof-type porep seal --shape tiny --seed "post-$i" --out "$WORK/post-s$i.sector" || return
  done
}
# run_post TYPE PARTITIONS
run_post() {
  local type=$1 parts=$2 dir="$WORK/$1" k
  mkdir -p "$dir"
  local sectors=(--sector "$WORK/post-s1.sector:101" --sector "$WORK/post-s2.sector:102"
                 --sector "$WORK/post-s3.sector:103")
  check "$type: zkpipe-tool proof-type $type vanilla (3 tiny sectors)" 0 "$TOOL" proof-type \
    "$type" vanilla "${sectors[@]}" --randomness "$POST_RANDOMNESS" --out "$dir/vanilla.bin" ||
    return
  check "$type: zkpipe prove (the pipeline, params by the seeded setup) proves and verifies" 0 \
    "$ZKPIPE" prove --config "$POST_CONFIG" --proof "$type" --input "$dir/vanilla.bin" \
    --out "$dir/proof.bin" --snarkjs "$dir/sj" || return
  for ((k = 0; k < parts; k++)); do
    check "$type: snarkjs verifies partition $k" 0 snarkjs groth16 verify \
      "$dir/sj/verification_key.json" "$dir/sj/public_$k.json" "$dir/sj/proof_$k.json" || true
  done
  check "$type: exactly $parts partition(s) proved" 1 test -e "$dir/sj/proof_$parts.json" || true
  tamper_public "$dir/sj/public_0.json" "$dir/sj/public_0_tampered.json"
  check "$type: snarkjs rejects partition 0 with its comm_r changed" 0 snarkjs_rejects \
    "$dir/sj/verification_key.json" "$dir/sj/public_0_tampered.json" "$dir/sj/proof_0.json" ||
    true
  flip_byte "$dir/vanilla.bin" "$dir/tampered.bin" -40
  check "$type: zkpipe prove refuses a tampered path element before proving, naming it" 0 \
    expect_output "do not lead to comm_r_last" "$ZKPIPE" prove --config "$POST_CONFIG" \
    --proof "$type" --input "$dir/tampered.bin" || true
  check "$type: proof-type $type vanilla refuses a sector listed twice" 0 \
    expect_output "sector 101 is listed twice" "$TOOL" proof-type "$type" vanilla \
    --sector "$WORK/post-s1.sector:101" --sector "$WORK/post-s2.sector:101" \
    --randomness "$POST_RANDOMNESS" --out "$dir/twice.bin" || true
}
if check "PoSt: porep seal three tiny sectors" 0 seal_post_sectors; then
  run_post window_post 2
  run_post winning_post 1
fi

# The daemon: `zkpipe serve` (cpu.yaml, the params made above) on a unix socket and on
# 127.0.0.1; the client submits each tiny request (porep, snapdeals, window_post, winning_post)
# over one of them, and snarkjs verifies the proofs the server reported verified. SIGTERM then
# drains and exits 0.
serve_started() {
  local out="$WORK/serve.out"
  "$ZKPIPE" serve --config "$CONFIGS/cpu.yaml" --params-dir "$PARAMS" --http '' \
    --listen "unix://$WORK/zk.sock" --listen 127.0.0.1:0 >"$out" 2>"$WORK/serve.err" &
  SERVE_PID=$!
  for _ in $(seq 1 300); do
    grep -q '^serve: ready' "$out" 2>/dev/null && break
    kill -0 "$SERVE_PID" 2>/dev/null || return 1
    sleep 0.2
  done
  grep -q '^serve: ready' "$out" || return 1
  SERVE_TCP=$(sed -n 's/^serve: gRPC on .*, \(127\.0\.0\.1:[0-9]*\)$/\1/p' "$out")
  [[ -n $SERVE_TCP ]]
}
serve_stopped() {
  kill -TERM "$SERVE_PID" && wait "$SERVE_PID"
}
if check "zkpipe serve: starts on a unix socket and 127.0.0.1" 0 serve_started; then
  # type:partitions; the PoSt requests are the ones run_post made (their plugins' own priority
  # and deadline: winning_post CRITICAL, window_post HIGH).
  for spec in porep:2 snapdeals:2 window_post:2 winning_post:1; do
    type=${spec%%:*}
    addr="unix://$WORK/zk.sock"
    [[ $type == snapdeals || $type == winning_post ]] && addr=$SERVE_TCP
    dir="$WORK/$type-tiny"
    [[ $type == *_post ]] && dir="$WORK/$type"
    check "zkpipe serve: $type tiny through zkpipe submit --wait ($addr)" 0 "$ZKPIPE" submit \
      --addr "$addr" --proof "$type" --input "$dir/vanilla.bin" --wait \
      --out "$dir/served.bin" --snarkjs "$dir/served" || true
    for ((k = 0; k < ${spec##*:}; k++)); do
      check "zkpipe serve: snarkjs verifies the served $type partition $k" 0 snarkjs groth16 \
        verify "$dir/served/verification_key.json" "$dir/served/public_$k.json" \
        "$dir/served/proof_$k.json" || true
    done
  done
  check "zkpipe serve: SIGTERM drains and exits 0" 0 serve_stopped || true
fi

# Filecoin's own proofs (tests/filecoin/data: polka-storage's 2KiB PoRep and WindowPoSt, made by
# filecoin-proofs 18.1): zkpipe derives the public inputs from each description and verifies;
# snarkjs, an independent verifier, accepts the same key, proof and inputs, and rejects them with
# an input changed.
FIL_DATA="$(cd "$(dirname "$0")/../filecoin/data" && pwd)"
filecoin_descs() {
  python3 - "$FIL_DATA" "$WORK" <<'PY'
import json, sys
data, work = sys.argv[1], sys.argv[2]
d = json.load(open(f"{data}/polka_porep_2kib.json")); i = d["inputs"]
porep = {"porep_config": {"sector_size": 2048, "partitions": 1, "api_version": "V1_2_0",
         "porep_id": d["porep_config"]["porep_id_hex"], "api_features": []},
         "comm_r": i["comm_r_hex"], "comm_d": i["comm_d_hex"], "prover_id": i["prover_id_hex"],
         "sector_id": i["sector_number"], "ticket": i["ticket_hex"], "seed": i["seed_hex"]}
p = json.load(open(f"{data}/polka_post_2kib.json")); r = p["inputs"]["replicas"][0]
post = {"registered_proof": "StackedDrgWindow2KiBV1_2", "randomness": p["inputs"]["randomness_hex"],
        "sectors": [{"sector_id": r["sector_number"], "comm_r": r["comm_r_hex"]}]}
json.dump(porep, open(f"{work}/filecoin_porep.json", "w"))
json.dump(post, open(f"{work}/filecoin_post.json", "w"))
PY
}
if check "filecoin: descriptions of polka-storage's 2KiB PoRep and WindowPoSt" 0 filecoin_descs; then
  for kind in porep post; do
    out="$WORK/filecoin-$kind"
    check "filecoin: zkpipe verifies the real 2KiB $kind proof with the inputs it derives" 0 \
      "$TOOL" filecoin verify --vk "$FIL_DATA/polka_${kind}_2kib.vk.bin" \
      --proof "$FIL_DATA/polka_${kind}_2kib.proof.bin" --json "$WORK/filecoin_$kind.json" \
      --snarkjs "$out" || true
    check "filecoin: snarkjs verifies the same $kind proof, key and inputs" 0 snarkjs groth16 \
      verify "$out/verification_key.json" "$out/public_0.json" "$out/proof_0.json" || true
    tamper_public "$out/public_0.json" "$out/public_tampered.json"
    check "filecoin: snarkjs rejects it with an input changed" 0 snarkjs_rejects \
      "$out/verification_key.json" "$out/public_tampered.json" "$out/proof_0.json" || true
  done
fi

bench_ok() {
  "$ZKPIPE" bench --config "$CONFIGS/cpu.yaml" --config "$CONFIGS/pageable.yaml" --proof porep \
    --preset tiny --jobs 2 --params-dir "$PARAMS" --out-dir "$WORK/bench" &&
    for f in cpu.trace.json pageable.trace.json cpu.svg pageable.svg bench.json; do
      [[ -s "$WORK/bench/$f" ]] || { echo "missing $WORK/bench/$f"; return 1; }
    done
}
check "zkpipe bench: cpu.yaml and pageable.yaml side by side, traces and timelines" 0 bench_ok ||
  true

echo "interop: $passed passed, $failed failed (snarkjs $SNARKJS_VERSION, logs in $WORK)"
[[ $failed -eq 0 ]]
