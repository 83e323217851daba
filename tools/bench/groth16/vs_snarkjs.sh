#!/usr/bin/env bash
# Proves the same synthetic circuits with zkpipe and with snarkjs, interleaved round by round,
# and prints the medians and their ratio. snarkjs proves our exported .r1cs/.wtns with a zkey
# from its own setup over a prepared powers-of-tau file (make one with `snarkjs powersoftau new
# bls12381 P`, `contribute`, `prepare phase2`; P >= the largest logn; about 9 minutes at P = 14
# on 2 cores). snarkjs is timed as a whole process (node start-up ~0.7 s included, as a user
# runs it); zkpipe as synthesis + prove inside zkpipe-bench-groth16 (its setup excluded).
# Usage: vs_snarkjs.sh SNARKJS PTAU BUILD_DIR "12 14" [ROUNDS]
set -euo pipefail
snarkjs=$1 ptau=$2 build=$3 sizes=$4 rounds=${5:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
bench="$build/bin/zkpipe-bench-groth16"
for k in $sizes; do
  "$bench" --logn="$k" --runs=1 --export="$work" >/dev/null
  "$snarkjs" groth16 setup "$work/k$k.r1cs" "$ptau" "$work/k$k.zkey" >/dev/null
  zk=() sj=()
  for ((r = 0; r < rounds; r++)); do
    line=$("$bench" --logn="$k" --runs=1)
    zk+=("$(sed -n 's/.* total_s=\([0-9.]*\).*/\1/p' <<<"$line")")
    start=$(date +%s.%N)
    "$snarkjs" groth16 prove "$work/k$k.zkey" "$work/k$k.wtns" "$work/p.json" "$work/x.json" \
      >/dev/null
    sj+=("$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {print b - a}')")
  done
  # The timed snarkjs proofs are real: its own verifier accepts the last one.
  "$snarkjs" zkey export verificationkey "$work/k$k.zkey" "$work/vk.json" >/dev/null
  "$snarkjs" groth16 verify "$work/vk.json" "$work/x.json" "$work/p.json" >/dev/null ||
    { echo "vs_snarkjs: snarkjs's proof at logn=$k does not verify" >&2; exit 1; }
  med() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
  z=$(med "${zk[@]}") s=$(med "${sj[@]}")
  printf 'op=groth16_vs_snarkjs logn=%s constraints=%s zkpipe_s=%s snarkjs_s=%.3f speedup=%.2f\n' \
    "$k" "$(((1 << k) - 3))" "$z" "$s" "$(awk -v a="$s" -v b="$z" 'BEGIN {print a / b}')"
done
