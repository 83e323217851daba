// backends/compute/cuda/ntt.h: the Fr NTT on a CUDA device, in the conventions of
// zkpipe/crypto/ntt.h (omega_n = ntt_root_of_unity(log_n), coset shift g = 7, nr: natural in /
// bit-reversed out, rn: bit-reversed in / natural out), and the Groth16 quotient built from it.
// Every call is stream-ordered: it enqueues kernels on `stream` and returns (no synchronization,
// no host allocation); errors of the launches are returned, errors of the kernels surface at the
// caller's next synchronization. Pointers are device pointers (or, for `src`, mapped host memory).
// Thread-safety: NttTwiddles is immutable after create() and may be shared by streams on its
// device; the functions may be called concurrently on distinct arrays.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

#include "device.h"
#include "ntt_plan.h"
#include "zkpipe/crypto/fields.h"
#include "zkpipe/crypto/ntt.h"
#include "zkpipe/sdk/status.h"

namespace zkpipe::cuda_backend {

// The two-level twiddle tables (ntt_plan.h) of one device, for transforms up to 2^max_log_n.
class NttTwiddles {
 public:
  // Computes the tables on the host and uploads them on `stream` to the current device (waits
  // for the copy). max_log_n in [1, 32].
  static Result<NttTwiddles> create(unsigned max_log_n, cudaStream_t stream);

  NttTwiddles() = default;

  unsigned max_log_n() const { return layout_.max_log_n; }
  int device() const { return device_; }
  size_t bytes() const { return table_.bytes(); }
  NttTwiddleView view(crypto::NttDirection d) const { return layout_.view(table_.as<Fr>(), d); }

 private:
  NttTwiddleLayout layout_;
  DeviceMemory table_;  // layout_.elements() of Fr
  int device_ = -1;
};

// Natural in, bit-reversed out, like crypto::ntt_nr, on `batch` vectors of n = 2^log_n at
// data + k n. src == nullptr: in place; otherwise the first pass reads src + k n (device memory
// or cudaHostAllocMapped host memory, read in place) and writes data, later passes work on data.
// log_n in [1, tw.max_log_n()], batch in [1, 65535]; the current device must be tw's.
Status ntt_nr(Fr* data, const Fr* src, unsigned log_n, crypto::NttDirection direction,
              const NttTwiddles& tw, cudaStream_t stream, unsigned batch = 1);
// Bit-reversed in, natural out, like crypto::ntt_rn; otherwise as ntt_nr.
Status ntt_rn(Fr* data, const Fr* src, unsigned log_n, crypto::NttDirection direction,
              const NttTwiddles& tw, cudaStream_t stream, unsigned batch = 1);

// data[i] *= c * g^e(i), e(i) = i or brv(i), like crypto::ntt_scale_powers; batch vectors of n.
Status scale_powers(Fr* data, size_t n, const Fr& c, const Fr& g, bool bit_reversed,
                    cudaStream_t stream, unsigned batch = 1);
// data[i] <-> data[brv(i)], like crypto::bit_reverse_permute.
Status bit_reverse(Fr* data, size_t n, cudaStream_t stream);
// a[i] = (a[i] b[i] - c[i]) z_inv.
Status quotient_pointwise(Fr* a, const Fr* b, const Fr* c, size_t n, const Fr& z_inv,
                          cudaStream_t stream);

// The Groth16 H computation of groth16/prover.cpp's quotient(): from the evaluations a, b, c
// on the domain, the coefficients of H = (a b - c) / Z in a (natural order); b and c are
// overwritten. When b == a + n and c == b + n the three coset transforms run batched.
Status quotient(Fr* a, Fr* b, Fr* c, size_t n, const NttTwiddles& tw, cudaStream_t stream);
// Its two halves, for callers that interleave them with copies (the prover): evaluations ->
// coset evaluations of `batch` vectors (src as in ntt_nr: the first pass may read it in place);
// then from the three coset vectors to H's coefficients in a (natural order).
Status to_coset(Fr* data, const Fr* src, unsigned log_n, const NttTwiddles& tw, cudaStream_t stream,
                unsigned batch = 1);
Status quotient_from_coset(Fr* a, const Fr* b, const Fr* c, size_t n, const NttTwiddles& tw,
                           cudaStream_t stream);

// Natural in and out, like the CPU functions of crypto/ntt.h (for benchmarks and tests).
Status ntt_forward(Fr* data, size_t n, const NttTwiddles& tw, cudaStream_t stream);
Status ntt_inverse(Fr* data, size_t n, const NttTwiddles& tw, cudaStream_t stream);
Status ntt_coset_forward(Fr* data, size_t n, const NttTwiddles& tw, cudaStream_t stream);
Status ntt_coset_inverse(Fr* data, size_t n, const NttTwiddles& tw, cudaStream_t stream);

}  // namespace zkpipe::cuda_backend
