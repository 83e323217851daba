#!/usr/bin/env bash
# ZKPIPE_CPU_KERNELS (zkpipe/crypto/cpu_kernels.h) through zkpipe-bench-ops: `scalar` runs the
# portable path and says so, `auto` (and unset) runs the IFMA kernels exactly where
# /proc/cpuinfo lists avx512ifma, both paths give the same MSM and NTT results (check=), and a
# misspelt value is refused naming the variable, by the bench and by the engine at start (zkpipe
# plan), which logs the path it runs. Usage: cpu_kernels_test.sh BENCH_OPS ZKPIPE CONFIG
set -euo pipefail
ops=$1 zkpipe=$2 config=$3
fail() { echo "cpu_kernels_test: $*" >&2; exit 1; }
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }

if grep -qw avx512ifma /proc/cpuinfo && grep -qw avx512f /proc/cpuinfo; then want=ifma; else want=scalar; fi
for op in "g1_msm --logn=10" "ntt --logn=12"; do
  # shellcheck disable=SC2086
  auto=$(env -u ZKPIPE_CPU_KERNELS "$ops" $op --threads=1 --runs=1 --warmup=0)
  # shellcheck disable=SC2086
  named=$(ZKPIPE_CPU_KERNELS=auto "$ops" $op --threads=1 --runs=1 --warmup=0)
  # shellcheck disable=SC2086
  scalar=$(ZKPIPE_CPU_KERNELS=scalar "$ops" $op --threads=1 --runs=1 --warmup=0)
  [ "$(field kernels <<<"$auto")" = "$want" ] || fail "$op unset: want kernels=$want: $auto"
  [ "$(field kernels <<<"$named")" = "$want" ] || fail "$op auto: want kernels=$want: $named"
  [ "$(field kernels <<<"$scalar")" = scalar ] || fail "$op scalar: want kernels=scalar: $scalar"
  c1=$(field check <<<"$auto") c2=$(field check <<<"$scalar")
  [ -n "$c1" ] && [ "$c1" = "$c2" ] || fail "$op: the two paths disagree: $auto / $scalar"
done

set +e
err=$(ZKPIPE_CPU_KERNELS=avx512 "$ops" fp_mul --iters=10 --runs=1 2>&1 >/dev/null)
rc=$?
set -e
[ "$rc" = 2 ] || fail "ZKPIPE_CPU_KERNELS=avx512: exit $rc, want 2"
grep -q "ZKPIPE_CPU_KERNELS='avx512'" <<<"$err" || fail "the refusal does not name the value: $err"
grep -q "scalar" <<<"$err" || fail "the refusal does not name the accepted values: $err"
plan=(plan --config "$config" --proof porep --preset tiny)
set +e
err=$(ZKPIPE_CPU_KERNELS=avx512 "$zkpipe" "${plan[@]}" 2>&1)
rc=$?
set -e
[ "$rc" != 0 ] || fail "zkpipe plan with ZKPIPE_CPU_KERNELS=avx512 exited 0: $err"
grep -q "INVALID_ARGUMENT: ZKPIPE_CPU_KERNELS='avx512'" <<<"$err" ||
  fail "zkpipe plan does not refuse ZKPIPE_CPU_KERNELS=avx512 by name: $err"
log=$(ZKPIPE_CPU_KERNELS=scalar "$zkpipe" "${plan[@]}" 2>&1 >/dev/null)
grep -q "cpu kernels: scalar" <<<"$log" || fail "zkpipe plan does not log the scalar path: $log"
echo "cpu_kernels_test: ok (this CPU: $want)"
