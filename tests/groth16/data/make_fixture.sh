#!/usr/bin/env bash
# tests/groth16/data/make_fixture.sh BUILD_DIR: regenerates cubic.zkey, cubic.wtns and cubic_vk.json
# (the fixture of tests/groth16/zkey_test.cpp) with the snarkjs 0.7.6 and the power-10 ptau that
# tests/interop/run.sh caches under BUILD_DIR/interop (run it once first). The circuit and
# witness come from `zkpipe-tool groth16 demo --circuit cubic --seed 1`.
set -euo pipefail

if [[ $# -ne 1 ]]; then
  echo "usage: $0 BUILD_DIR   (after tests/interop/run.sh BUILD_DIR)" >&2
  exit 2
fi
BUILD_DIR=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
TOOL="$BUILD_DIR/bin/zkpipe-tool"
SNARKJS="$BUILD_DIR/interop/npm/node_modules/.bin/snarkjs"
PTAU="$BUILD_DIR/interop/pot10_final.ptau"
for f in "$TOOL" "$SNARKJS" "$PTAU"; do
  if [[ ! -e "$f" ]]; then
    echo "make_fixture: $f is missing: build zkpipe-tool and run tests/interop/run.sh first" >&2
    exit 1
  fi
done

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
"$TOOL" groth16 demo --circuit cubic --seed 1 --out "$TMP" >/dev/null
"$SNARKJS" groth16 setup "$TMP/circuit.r1cs" "$PTAU" "$TMP/cubic.zkey" >/dev/null
"$SNARKJS" zkey export verificationkey "$TMP/cubic.zkey" "$TMP/cubic_vk.json" >/dev/null
cp "$TMP/cubic.zkey" "$TMP/cubic_vk.json" "$HERE/"
cp "$TMP/circuit.wtns" "$HERE/cubic.wtns"
echo "make_fixture: wrote $HERE/{cubic.zkey, cubic.wtns, cubic_vk.json}"
