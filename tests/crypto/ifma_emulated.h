// tests/crypto/ifma_emulated.h: the IFMA kernels compiled over scalar stand-ins for the
// intrinsics (ifma_emulated_batch_add.cpp, ifma_emulated_ntt.cpp; engine/crypto/ifma_lanes.h
// says how). The same contracts as the native functions (engine/crypto/batch_add_ifma.h,
// ntt_kernels.h); available on every x86-64, slow. Thread-safety: as the native functions.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/crypto/ntt_kernels.h"
#include "zkpipe/crypto/curves.h"

namespace zkpipe::crypto::msm_detail::emulated {
void batch_add_g1_ifma(G1Affine* const* dst, const G1Affine* const* src, const uint8_t* neg,
                       size_t m);
}  // namespace zkpipe::crypto::msm_detail::emulated

namespace zkpipe::crypto::emulated {
void ntt_ifma_run(Fr* data, size_t n, const NttTwiddles& tw, bool gs, unsigned threads);
}  // namespace zkpipe::crypto::emulated
