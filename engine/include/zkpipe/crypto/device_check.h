// zkpipe/crypto/device_check.h: the GPU side of the BLS12-381 core. engine/crypto/cuda/ compiles
// the same headers with nvcc (ZKP_HD), static_asserts there pin the limb layout of Fp, Fr, Fp2
// and the points to the host's, and crypto_device_self_test runs products and point additions
// on the GPU and compares them with the host's, bit for bit. Built only with CUDA
// (ZKPIPE_HAVE_CUDA); link zkpipe::crypto_cuda. Thread-safety: the self-test may run
// concurrently (each call has its own buffers and stream).
#pragma once

#include <cstddef>

#include "zkpipe/sdk/status.h"

namespace zkpipe::crypto {

// On `device`: n Fp, Fr and Fp2 products, Fp and Fr squares (every pair of the edge values of
// zkpipe/crypto/field_edges.h first, then random) and n G1 Jacobian additions, doublings and mixed
// additions, compared with the host's results. UNAVAILABLE without a driver or device; INTERNAL
// naming the first differing operation and index otherwise. (G2 is left to the CUDA backend:
// its forced-inline Fp2 point code alone took nvcc 6 minutes for three architectures.)
Status crypto_device_self_test(int device, size_t n = 4096);

}  // namespace zkpipe::crypto
