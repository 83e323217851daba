// zkpipe/crypto/ntt.h: the number-theoretic transform over Fr (sizes n = 2^k, k <= 32), in the
// bellperson/arkworks convention: r - 1 = 2^32 t, the 2^32-th root of unity is 7^t, omega_n =
// (7^t)^(2^(32-k)), forward y_i = sum_j x_j omega_n^(ij), coset shift g = 7. In place,
// multithreaded (parallel.h), with one process-wide twiddle table built on first use.
// Thread-safety: every function may be called concurrently on distinct arrays; the twiddle
// cache is guarded by a mutex taken once per call (never inside the transform).
#pragma once

#include <cstddef>
#include <cstdint>

#include "zkpipe/crypto/fields.h"
#include "zkpipe/sdk/status.h"

namespace zkpipe::crypto {

inline constexpr uint64_t kNttGenerator = 7;  // multiplicative generator of Fr*, coset shift
inline constexpr unsigned kNttMaxLog = static_cast<unsigned>(Fr::kTwoAdicity);  // 32

// omega_n for n = 2^log_n (log_n <= 32), derived from the generator: 7^(t 2^(32 - log_n)).
Fr ntt_root_of_unity(unsigned log_n);
// The coset shift g = 7 as an Fr.
Fr ntt_coset_shift();

// ---- natural order in and out (the public transforms) ----------------------------------------
// Every function needs n a power of two with n <= 2^32, and n == 0 is refused; on a bad size
// the data is untouched and the Status is INVALID_ARGUMENT. threads == 0: all hardware threads.
// forward: y_i = sum_j x_j omega_n^(ij).
Status ntt_forward(Fr* data, size_t n, unsigned threads = 0);
// inverse: x_j = n^-1 sum_i y_i omega_n^(-ij).
Status ntt_inverse(Fr* data, size_t n, unsigned threads = 0);
// coset forward: y_i = sum_j x_j (g omega_n^i)^j, i.e. the forward transform of x_j g^j.
Status ntt_coset_forward(Fr* data, size_t n, unsigned threads = 0);
// coset inverse: the inverse of ntt_coset_forward.
Status ntt_coset_inverse(Fr* data, size_t n, unsigned threads = 0);

// ---- lower level: bit-reversed order, no scaling ---------------------------------------------
// For callers that can keep one side in bit-reversed order and skip the permutation, e.g. the
// Groth16 quotient: evaluations --ntt_nr(kInverse)--> coefficients (bit-reversed, times n)
// --ntt_scale_powers(n^-1, g, bit-reversed)--> --ntt_rn(kForward)--> coset evaluations
// (natural) --pointwise--> ntt_nr(kInverse), ntt_scale_powers(n^-1, g^-1, bit-reversed).
// brv(i) below reverses the k low bits of i.
enum class NttDirection { kForward, kInverse };  // root omega_n or omega_n^-1, no 1/n factor

// Natural in, bit-reversed out: data[brv(i)] = sum_j x_j w^(ij), w = omega_n^(+-1).
Status ntt_nr(Fr* data, size_t n, NttDirection direction, unsigned threads = 0);
// Bit-reversed in, natural out: y_i = sum_j data[brv(j)] w^(ij).
Status ntt_rn(Fr* data, size_t n, NttDirection direction, unsigned threads = 0);
// data[i] <-> data[brv(i)] (cache-blocked).
Status bit_reverse_permute(Fr* data, size_t n, unsigned threads = 0);
// data[i] *= c * g^e(i), e(i) = i (natural) or brv(i) (bit_reversed).
Status ntt_scale_powers(Fr* data, size_t n, const Fr& c, const Fr& g, bool bit_reversed,
                        unsigned threads = 0);

// ---- reference ---------------------------------------------------------------------------------
// Textbook single-threaded radix-2 (bit reversal, then log n passes, twiddles by repeated
// multiplication); the same result as ntt_forward / ntt_inverse (with 1/n), for tests and
// benchmarks.
// Memory of the NTTs of size n, in bytes, for memory budgets: `tables` is the twiddle table the
// process keeps from the first NTT of that size on (shared by every NTT up to it; it only
// grows), `scratch` the most one call allocates besides (while a table grows, the old one is
// copied: included).
struct NttMemory {
  uint64_t tables = 0, scratch = 0;
};
NttMemory ntt_memory(size_t n);

Status ntt_radix2(Fr* data, size_t n, NttDirection direction);

}  // namespace zkpipe::crypto
