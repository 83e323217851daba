// zkpipe/crypto/fixed_base.h: many scalars times ONE base (the Groth16 setup's powers and
// query points): a table of the base's signed-window multiples, then for every scalar one
// affine addition per window, batched across scalars around one inversion. Multithreaded;
// results are affine, so bit-identical whatever the thread count.
// Thread-safety: pure functions; concurrent calls are independent. Host only, variable-time.
#pragma once

#include <cstddef>

#include "zkpipe/crypto/curves.h"

namespace zkpipe::crypto {

// out[i] = scalars[i] * base for i < n (out must not overlap scalars); threads 0 = hardware.
void fixed_base_mul(const G1Affine& base, const Fr* scalars, size_t n, G1Affine* out,
                    unsigned threads = 0);
void fixed_base_mul(const G2Affine& base, const Fr* scalars, size_t n, G2Affine* out,
                    unsigned threads = 0);

// The window size the cost model picks for n scalars: table (ceil(256 / w) 2^(w-1) points)
// against per-scalar work (ceil(256 / w) additions).
unsigned fixed_base_window_bits(size_t n);

}  // namespace zkpipe::crypto
