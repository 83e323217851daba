// tools/bench/gpu/static_probe.cu: one kernel per field or curve operation, for the static report
// (static_report.py compiles this file to an sm_90 cubin and counts each kernel's SASS
// instructions; nothing here runs). Each kernel loads its operands, applies the operation once
// and stores the result; a skeleton kernel does the same loads and stores around an XOR, so an
// operation's count is its kernel's minus its skeleton's. The *_portable kernels are the 64-bit
// CIOS product the device used before the carry chains (mont_mul32.h), kept for the comparison.
#include "zkpipe/crypto/curves.h"
#include "zkpipe/crypto/xyzz.h"

using zkpipe::crypto::Fp;
using zkpipe::crypto::Fr;
using zkpipe::crypto::G1;
using zkpipe::crypto::G1Affine;
using zkpipe::crypto::G1Xyzz;

namespace {

template <typename T>
__device__ __forceinline__ T mix(const T& a, const T& b) {
  const uint64_t* x = reinterpret_cast<const uint64_t*>(&a);
  const uint64_t* y = reinterpret_cast<const uint64_t*>(&b);
  T r;
  uint64_t* z = reinterpret_cast<uint64_t*>(&r);
#pragma unroll
  for (size_t i = 0; i < sizeof(T) / 8; ++i) z[i] = x[i] ^ y[i];
  return r;
}

}  // namespace

#define ZKP_PROBE2(name, T, U, expr)                                \
  extern "C" __global__ void name(T* out, const T* a, const U* b) { \
    const unsigned i = threadIdx.x;                                 \
    out[i] = (expr);                                                \
  }

// Fields: two operands in, one out.
ZKP_PROBE2(zkp_probe_fp_skeleton, Fp, Fp, mix(a[i], b[i]))
ZKP_PROBE2(zkp_probe_fp_mul, Fp, Fp, a[i] * b[i])
ZKP_PROBE2(zkp_probe_fp_mul_portable, Fp, Fp, a[i].mul_portable(b[i]))
ZKP_PROBE2(zkp_probe_fp_sqr, Fp, Fp, mix(a[i].sqr(), b[i]))
ZKP_PROBE2(zkp_probe_fp_sqr_sos, Fp, Fp, mix(a[i].sqr_chain<zkpipe::crypto::mul32::Ptx>(), b[i]))
ZKP_PROBE2(zkp_probe_fp_add, Fp, Fp, a[i] + b[i])
ZKP_PROBE2(zkp_probe_fr_skeleton, Fr, Fr, mix(a[i], b[i]))
ZKP_PROBE2(zkp_probe_fr_mul, Fr, Fr, a[i] * b[i])
ZKP_PROBE2(zkp_probe_fr_mul_portable, Fr, Fr, a[i].mul_portable(b[i]))
ZKP_PROBE2(zkp_probe_fr_sqr, Fr, Fr, mix(a[i].sqr(), b[i]))
ZKP_PROBE2(zkp_probe_fr_sqr_sos, Fr, Fr, mix(a[i].sqr_chain<zkpipe::crypto::mul32::Ptx>(), b[i]))
ZKP_PROBE2(zkp_probe_fr_add, Fr, Fr, a[i] + b[i])

// G1: a Jacobian accumulator and an affine (mixed) or Jacobian point in, a Jacobian point out.
ZKP_PROBE2(zkp_probe_g1_mixed_skeleton, G1, G1Affine,
           (G1{mix(a[i].x, b[i].x), mix(a[i].y, b[i].y), b[i].infinity ? a[i].z : a[i].x}))
ZKP_PROBE2(zkp_probe_g1_add_mixed, G1, G1Affine, a[i].add_mixed(b[i]))
ZKP_PROBE2(zkp_probe_g1_skeleton, G1, G1, mix(a[i], b[i]))
ZKP_PROBE2(zkp_probe_g1_add, G1, G1, a[i] + b[i])
ZKP_PROBE2(zkp_probe_g1_dbl, G1, G1, mix(a[i].dbl(), b[i]))

// XYZZ buckets (the MSM's): the mixed addition as the accumulation adds a base, its y negated or
// not by the digit's sign (here the thread index's low bit), and the XYZZ addition and doubling.
ZKP_PROBE2(zkp_probe_xyzz_mixed_skeleton, G1Xyzz, G1Affine,
           (G1Xyzz{mix(a[i].x, b[i].x), mix(a[i].y, b[i].y), b[i].infinity ? a[i].zz : a[i].x,
                   a[i].zzz}))
ZKP_PROBE2(zkp_probe_xyzz_madd, G1Xyzz, G1Affine,
           a[i].add_affine(b[i].x, zkpipe::crypto::negate_if(b[i].y, (i & 1) != 0)))
ZKP_PROBE2(zkp_probe_xyzz_skeleton, G1Xyzz, G1Xyzz, mix(a[i], b[i]))
ZKP_PROBE2(zkp_probe_xyzz_add, G1Xyzz, G1Xyzz, a[i] + b[i])
ZKP_PROBE2(zkp_probe_xyzz_dbl, G1Xyzz, G1Xyzz, mix(a[i].dbl(), b[i]))
