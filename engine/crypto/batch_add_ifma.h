// engine/crypto/batch_add_ifma.h (private to zkpipe_crypto): batched affine additions on G1 with
// AVX-512 IFMA, 8 additions side by side (batch_add_ifma.cpp explains the method). A drop-in for
// the addition case of AffineAdder<Fp>::flush (msm_buckets.h): the same results, bit for bit.
// Thread-safety: the functions may run concurrently (per-thread scratch).
#pragma once

#include <cstddef>
#include <cstdint>

#include "ifma_variant.h"
#include "zkpipe/crypto/curves.h"

namespace zkpipe::crypto::msm_detail {
inline namespace ZKP_IFMA_VARIANT {

// True when the CPU has AVX-512F and AVX-512 IFMA (checked once); always, emulated.
bool batch_add_g1_ifma_available();

// For i in [0, m): *dst[i] = *dst[i] + (neg[i] ? -*src[i] : *src[i]) on affine G1 points, with
// one field inversion per call (per 2048 additions for larger m; variable time, see the .cpp).
// Needs batch_add_g1_ifma_available(); m = 0 does nothing.
// Preconditions (the caller guarantees): no dst or src is the identity; all dst distinct; no
// src is a dst; dst[i]->x != src[i]->x for every i (the caller routes doubling / cancelling
// pairs to scalar code: one such pair would spoil the whole batch's inversion). Results are
// fully reduced Montgomery-form Fp, identical to the scalar code's; only x and y of the dst
// points are written. Faster than the scalar flush at every m (per call overhead ~3-4 us).
// The per-thread scratch batch_add_g1_ifma(..., m) grows to (kept until the thread exits), in
// bytes; for memory budgets.
uint64_t batch_add_g1_ifma_scratch_bytes(size_t m);

void batch_add_g1_ifma(G1Affine* const* dst, const G1Affine* const* src, const uint8_t* neg,
                       size_t m);

}  // namespace ZKP_IFMA_VARIANT
}  // namespace zkpipe::crypto::msm_detail
