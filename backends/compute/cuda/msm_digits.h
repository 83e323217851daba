// backends/compute/cuda/msm_digits.h: the per-thread steps of the GPU G1 MSM (msm.cu), as ZKP_HD
// functions that the host emulation (msm_emulate.h) runs too: signed c-bit digits of a scalar and
// their sort keys/values, bucket run bounds in the sorted entries, one bucket's accumulation,
// one segment of a window's weighted bucket sum, the pairwise fold of the segments, and the
// host's Horner combination of the window sums.
// Thread-safety: pure functions; each writes only the slots its (thread) index names.
#pragma once

#include <cstddef>
#include <cstdint>

#include "zkpipe/crypto/curves.h"
#include "zkpipe/crypto/hd.h"

namespace zkpipe::cuda_backend {

inline constexpr uint32_t kMsmNegBit = uint32_t{1} << 31;  // sort value: index | kMsmNegBit

// Bits [pos, pos + c) of the 256-bit integer k (zero above bit 255); c <= 32.
ZKP_HD uint32_t scalar_window(const crypto::Fr::L& k, unsigned pos, unsigned c) {
  const unsigned limb = pos / 64, off = pos % 64;
  if (limb >= 4) return 0;
  uint64_t v = k[limb] >> off;
  if (off + c > 64 && limb + 1 < 4) v |= k[limb + 1] << (64 - off);
  return static_cast<uint32_t>(v & ((uint64_t{1} << c) - 1));
}

// Signed digits d_0..d_{windows-1} in [-2^(c-1), 2^(c-1)] with sum d_w 2^(c w) = k: each window's
// bits plus the carry from below; above 2^(c-1) it becomes negative and carries one up. Calls
// f(w, d) for every window; returns the carry out of the top window (0 when windows c >= 256
// and k < 2^255).
template <typename F>
ZKP_HD uint32_t for_each_digit(const crypto::Fr::L& k, unsigned c, unsigned windows, F&& f) {
  const uint32_t half = uint32_t{1} << (c - 1);
  uint32_t carry = 0;
  for (unsigned w = 0; w < windows; ++w) {
    const uint32_t v = scalar_window(k, w * c, c) + carry;
    carry = v > half ? 1 : 0;
    f(w, carry ? static_cast<int32_t>(v) - static_cast<int32_t>(uint32_t{2} * half)
               : static_cast<int32_t>(v));
  }
  return carry;
}

// Sort key of digit d of window w: w 2^(c-1) + |d| - 1, or `skip` (= windows 2^(c-1), sorting
// after every bucket) for d = 0.
ZKP_HD uint32_t digit_key(unsigned w, int32_t d, unsigned c, uint32_t skip) {
  if (d == 0) return skip;
  const uint32_t mag = static_cast<uint32_t>(d < 0 ? -d : d);
  return (static_cast<uint32_t>(w) << (c - 1)) + mag - 1;
}

// The digits kernel's thread i (point i of the pass, i < count): the key and value of each window
// w at w * count + i (consecutive threads write consecutive words).
ZKP_HD void write_digit_entries(const crypto::Fr& scalar, uint32_t i, size_t count, unsigned c,
                                unsigned windows, uint32_t* keys, uint32_t* values) {
  const crypto::Fr::L k = scalar.to_canonical();
  const uint32_t skip = static_cast<uint32_t>(windows) << (c - 1);
  for_each_digit(k, c, windows, [&](unsigned w, int32_t d) {
    keys[w * count + i] = digit_key(w, d, c, skip);
    values[w * count + i] = i | (d < 0 ? kMsmNegBit : 0);
  });
}

// The bounds kernel's thread i over the sorted keys: sets begin[key] at the first entry of a
// key's run and end[key] one past its last (begin/end start zeroed: empty buckets stay [0, 0)).
// Keys >= skip are the zero digits' and are left out.
ZKP_HD void mark_run_bounds(const uint32_t* keys, size_t count, size_t i, uint32_t skip,
                            uint32_t* begin, uint32_t* end) {
  const uint32_t key = keys[i];
  if (key >= skip) return;
  if (i == 0 || keys[i - 1] != key) begin[key] = static_cast<uint32_t>(i);
  if (i + 1 == count || keys[i + 1] != key) end[key] = static_cast<uint32_t>(i + 1);
}

// The accumulation kernel's thread for one bucket: acc plus the (possibly negated) bases of the
// sorted values [begin, end); infinity bases add nothing.
ZKP_HD crypto::G1 accumulate_bucket(crypto::G1 acc, const crypto::G1Affine* bases,
                                    const uint32_t* values, uint32_t begin, uint32_t end) {
  for (uint32_t j = begin; j < end; ++j) {
    const uint32_t v = values[j];
    const crypto::G1Affine& p = bases[v & ~kMsmNegBit];
    if (p.infinity) continue;
    acc = (v & kMsmNegBit) ? acc.add_mixed(-p) : acc.add_mixed(p);
  }
  return acc;
}

// k p for a small k (double-and-add from the top bit).
ZKP_HD crypto::G1 mul_small(const crypto::G1& p, uint32_t k) {
  crypto::G1 r = crypto::G1::identity();
  for (int bit = 31; bit >= 0; --bit) {
    r = r.dbl();
    if ((k >> bit) & 1) r = r + p;
  }
  return r;
}

// The reduction kernel's thread for buckets [first, first + len) of one window (b the window's
// bucket array): sum_j (first + j + 1) B_{first+j}. Running sums from the top give
// total = sum_j (j + 1) B_j and running = sum_j B_j; the segment's offset adds first * running.
ZKP_HD crypto::G1 reduce_segment(const crypto::G1* b, uint32_t first, uint32_t len) {
  crypto::G1 running = crypto::G1::identity(), total = crypto::G1::identity();
  for (uint32_t j = len; j-- > 0;) {
    running = running + b[first + j];
    total = total + running;
  }
  return first == 0 ? total : total + mul_small(running, first);
}

// One fold step over a window's `2 * half` partials (p the window's array): thread i < half adds
// p[i + half] into p[i]. After log2(segments) steps p[0] is the window's sum.
ZKP_HD void fold_partials(crypto::G1* p, uint32_t half, uint32_t i) {
  p[i] = p[i] + p[i + half];
}

// sum_w 2^(c w) S_w by Horner's rule (host, after the window sums come back).
inline crypto::G1 combine_windows(const crypto::G1* sums, unsigned windows, unsigned c) {
  crypto::G1 acc = crypto::G1::identity();
  for (unsigned w = windows; w-- > 0;) {
    for (unsigned i = 0; i < c; ++i) acc = acc.dbl();
    acc = acc + sums[w];
  }
  return acc;
}

}  // namespace zkpipe::cuda_backend
