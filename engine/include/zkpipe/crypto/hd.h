// zkpipe/crypto/hd.h: what lets one arithmetic source compile for the CPU and the GPU:
// ZKP_HD marks functions callable on both, and the 64-bit primitives (multiply with high half,
// add with carry, subtract with borrow) pick __int128 on the host and intrinsics on the device.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <type_traits>

#if defined(__x86_64__) && !defined(__CUDA_ARCH__)
#include <x86intrin.h>
#define ZKP_X86_CARRY_INTRINSICS 1
#endif

#if defined(__CUDACC__)
#define ZKP_HD __host__ __device__ __forceinline__
#define ZKP_HD_CONSTEXPR __host__ __device__ constexpr
// A rare path kept out of its caller's code (a call, not a second inlined copy).
#define ZKP_HD_COLD __host__ __device__ __noinline__
#else
#define ZKP_HD inline __attribute__((always_inline))
#define ZKP_HD_CONSTEXPR constexpr
#define ZKP_HD_COLD __attribute__((noinline))
#endif

namespace zkpipe::crypto {

#if !defined(__CUDA_ARCH__)
using u128 = unsigned __int128;
#endif

// lo + hi * 2^64 = a * b + c + d (cannot overflow: (2^64-1)^2 + 2 (2^64-1) = 2^128 - 1).
ZKP_HD_CONSTEXPR uint64_t mac(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t& hi) {
#if defined(__CUDA_ARCH__)
  uint64_t lo = a * b;
  uint64_t h = __umul64hi(a, b);
  lo += c;
  h += (lo < c);
  lo += d;
  h += (lo < d);
  hi = h;
  return lo;
#else
  u128 t = static_cast<u128>(a) * b + c + d;
  hi = static_cast<uint64_t>(t >> 64);
  return static_cast<uint64_t>(t);
#endif
}

// a + b + carry_in; carry_out in {0, 1}.
// On x86-64 hosts the carry intrinsics compile to one ADC per limb (the portable form below
// compiles to compare-and-set chains); constant evaluation takes the portable form.
ZKP_HD_CONSTEXPR uint64_t adc(uint64_t a, uint64_t b, uint64_t carry_in, uint64_t& carry_out) {
#if defined(ZKP_X86_CARRY_INTRINSICS)
  if (!std::is_constant_evaluated()) {
    unsigned long long r;
    carry_out = _addcarry_u64(static_cast<unsigned char>(carry_in), a, b, &r);
    return r;
  }
#endif
  uint64_t s = a + b;
  uint64_t c1 = s < a;
  uint64_t t = s + carry_in;
  carry_out = c1 | (t < s);
  return t;
}

// a - b - borrow_in; borrow_out in {0, 1}.
ZKP_HD_CONSTEXPR uint64_t sbb(uint64_t a, uint64_t b, uint64_t borrow_in, uint64_t& borrow_out) {
#if defined(ZKP_X86_CARRY_INTRINSICS)
  if (!std::is_constant_evaluated()) {
    unsigned long long r;
    borrow_out = _subborrow_u64(static_cast<unsigned char>(borrow_in), a, b, &r);
    return r;
  }
#endif
  uint64_t d = a - b;
  uint64_t b1 = a < b;
  uint64_t t = d - borrow_in;
  borrow_out = b1 | (d < borrow_in);
  return t;
}

}  // namespace zkpipe::crypto
