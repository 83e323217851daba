// backends/compute/cuda/msm_digits.h: the per-thread steps of the GPU G1 MSM (msm.cu), as ZKP_HD
// functions that the host emulation (msm_emulate.h) runs too. The MSM splits its scalars: 0 adds
// nothing, 1 adds its base once (a parallel sum of those bases: fixed spans per thread, then a
// pairwise fold), and only the rest go through Pippenger: signed c-bit digits and their sort
// keys/values, then the sorted entries cut into fixed spans, one per thread, so a thread's work
// is bounded whatever the scalars (one bucket holding every entry included): a run of one key
// inside a span is a finished bucket sum; a run cut by a span's edge leaves a piece, and the
// pieces are summed the same way, level after level, until none is left. Buckets are XYZZ
// (zkpipe/crypto/xyzz.h). Then one segment of a window's weighted bucket sum per thread, the
// pairwise fold of the segments, and the host's Horner combination of the window sums.
// Thread-safety: pure functions; each writes only the slots its (thread) index names.
#pragma once

#include <cstddef>
#include <cstdint>

#include "zkpipe/crypto/curves.h"
#include "zkpipe/crypto/hd.h"
#include "zkpipe/crypto/xyzz.h"

namespace zkpipe::cuda_backend {

using crypto::G1Xyzz;

inline constexpr uint32_t kMsmNegBit = uint32_t{1} << 31;  // sort value: index | kMsmNegBit

// ---- the split ---------------------------------------------------------------------------------

enum class ScalarClass : uint8_t { kZero, kOne, kOther };

// Compared in Montgomery form: no conversion.
ZKP_HD ScalarClass scalar_class(const crypto::Fr& k) {
  if (k.is_zero()) return ScalarClass::kZero;
  return k == crypto::Fr::one() ? ScalarClass::kOne : ScalarClass::kOther;
}

// The affine base at `index`, negated when the sort value's sign bit says so (branch-free), added
// to acc; the identity base adds nothing.
ZKP_HD void add_base(G1Xyzz& acc, const crypto::G1Affine* bases, uint32_t value) {
  const crypto::G1Affine& p = bases[value & ~kMsmNegBit];
  if (p.infinity) return;
  acc = acc.add_affine(p.x, crypto::negate_if(p.y, (value & kMsmNegBit) != 0));
}

// The ones kernel's thread t: the sum of bases[idx[j]] for j in [t span, (t + 1) span) ∩ [0,
// count).
ZKP_HD G1Xyzz sum_indexed_bases(const crypto::G1Affine* bases, const uint32_t* idx, size_t count,
                                uint32_t span, size_t t) {
  G1Xyzz acc = G1Xyzz::identity();
  const size_t end = (t + 1) * span < count ? (t + 1) * span : count;
  for (size_t j = t * span; j < end; ++j) add_base(acc, bases, idx[j]);
  return acc;
}

// One step of the pairwise fold of `count` points into ceil(count / 2): thread i < count / 2 adds
// p[i + half] into p[i], half = ceil(count / 2). Repeat with count = half until it is 1.
ZKP_HD void fold_step(G1Xyzz* p, size_t count, size_t i) {
  const size_t half = (count + 1) / 2;
  p[i] = p[i] + p[i + half];
}

// ---- digits ------------------------------------------------------------------------------------

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

// The digits kernel's thread i (entry slot i < count) for the scalar of base `index`: the key and
// value of each window w at w * count + i (consecutive threads write consecutive words).
ZKP_HD void write_digit_entries(const crypto::Fr& scalar, uint32_t index, uint32_t i, size_t count,
                                unsigned c, unsigned windows, uint32_t* keys, uint32_t* values) {
  const crypto::Fr::L k = scalar.to_canonical();
  const uint32_t skip = static_cast<uint32_t>(windows) << (c - 1);
  for_each_digit(k, c, windows, [&](unsigned w, int32_t d) {
    keys[w * count + i] = digit_key(w, d, c, skip);
    values[w * count + i] = index | (d < 0 ? kMsmNegBit : 0);
  });
}

// ---- bounded bucket accumulation ---------------------------------------------------------------

// Thread t of one level over keys[0, count): keys below `skip` are bucket keys, in runs of equal
// keys that never have a key >= skip inside them (level 0: the sorted entries, zero digits last;
// later levels: the pieces, empty slots holding skip). The thread takes the span
// [t span, (t + 1) span) in one flat loop (a warp's threads stay in step whatever their run
// lengths; only the writes diverge); add(acc, j) adds element j. A run inside the span is its
// bucket's sum for this pass: stored in buckets[key] (its only writer in the pass; add_to: added
// to what earlier passes left there). A run cut by the span's start goes to piece slot 2t, one
// cut by its end to 2t + 1 (a run cut at both ends: the sum in 2t, the identity under the same
// key in 2t + 1, so a key's pieces stay adjacent); unused slots get skip. The pieces are the next
// level's elements.
template <typename Add>
ZKP_HD void accumulate_span(const uint32_t* keys, size_t count, uint32_t span, size_t t,
                            uint32_t skip, bool add_to, Add&& add, G1Xyzz* buckets,
                            uint32_t* piece_keys, G1Xyzz* pieces) {
  const size_t a = t * span, b = a + span < count ? a + span : count;
  piece_keys[2 * t] = skip;
  piece_keys[2 * t + 1] = skip;
  auto flush = [&](uint32_t key, size_t start, size_t end, const G1Xyzz& acc) {
    if (key >= skip) return;
    const bool cut_start = start == a && a > 0 && keys[a - 1] == key;
    const bool cut_end = end == b && b < count && keys[b] == key;
    if (!cut_start && !cut_end) {
      buckets[key] = add_to ? buckets[key] + acc : acc;
    } else if (cut_start) {
      piece_keys[2 * t] = key;
      pieces[2 * t] = acc;
      if (cut_end) {
        piece_keys[2 * t + 1] = key;
        pieces[2 * t + 1] = G1Xyzz::identity();
      }
    } else {
      piece_keys[2 * t + 1] = key;
      pieces[2 * t + 1] = acc;
    }
  };
  if (a >= b) return;
  uint32_t key = keys[a];
  size_t start = a;
  G1Xyzz acc = G1Xyzz::identity();
  for (size_t j = a; j < b; ++j) {
    const uint32_t k = keys[j];
    if (k != key) {
      flush(key, start, j, acc);
      key = k;
      start = j;
      acc = G1Xyzz::identity();
    }
    if (k < skip) add(acc, j);
  }
  flush(key, start, b, acc);
}

// Level 0's thread t: the elements are the sorted entries, each a (possibly negated) base.
ZKP_HD void accumulate_entries(const crypto::G1Affine* bases, const uint32_t* keys,
                               const uint32_t* values, size_t count, uint32_t span, size_t t,
                               uint32_t skip, bool add_to, G1Xyzz* buckets, uint32_t* piece_keys,
                               G1Xyzz* pieces) {
  accumulate_span(
      keys, count, span, t, skip, add_to,
      [&](G1Xyzz& acc, size_t j) { add_base(acc, bases, values[j]); }, buckets, piece_keys, pieces);
}

// A later level's thread t: the elements are the previous level's pieces.
ZKP_HD void accumulate_pieces(const uint32_t* keys, const G1Xyzz* points, size_t count,
                              uint32_t span, size_t t, uint32_t skip, bool add_to, G1Xyzz* buckets,
                              uint32_t* piece_keys, G1Xyzz* pieces) {
  accumulate_span(
      keys, count, span, t, skip, add_to, [&](G1Xyzz& acc, size_t j) { acc = acc + points[j]; },
      buckets, piece_keys, pieces);
}

// The threads of a level over `count` elements, and so the next level's 2 x threads elements.
// One thread: nothing is cut, the last level.
inline size_t span_threads(size_t count, uint32_t span) {
  return (count + span - 1) / span;
}

// ---- window sums -------------------------------------------------------------------------------

// k p for a small k (double-and-add from the top bit).
ZKP_HD G1Xyzz mul_small(const G1Xyzz& p, uint32_t k) {
  G1Xyzz r = G1Xyzz::identity();
  for (int bit = 31; bit >= 0; --bit) {
    r = r.dbl();
    if ((k >> bit) & 1) r = r + p;
  }
  return r;
}

// The reduction kernel's thread for buckets [first, first + len) of one window (b the window's
// bucket array): sum_j (first + j + 1) B_{first+j}. Running sums from the top give
// total = sum_j (j + 1) B_j and running = sum_j B_j; the segment's offset adds first * running.
ZKP_HD G1Xyzz reduce_segment(const G1Xyzz* b, uint32_t first, uint32_t len) {
  G1Xyzz running = G1Xyzz::identity(), total = G1Xyzz::identity();
  for (uint32_t j = len; j-- > 0;) {
    running = running + b[first + j];
    total = total + running;
  }
  return first == 0 ? total : total + mul_small(running, first);
}

// One fold step over a window's `2 * half` partials (p the window's array): thread i < half adds
// p[i + half] into p[i]. After log2(segments) steps p[0] is the window's sum.
ZKP_HD void fold_partials(G1Xyzz* p, uint32_t half, uint32_t i) {
  p[i] = p[i] + p[i + half];
}

// sum_w 2^(c w) S_w by Horner's rule, plus the ones' sum (host, after the sums come back).
inline crypto::G1 combine_windows(const G1Xyzz* sums, unsigned windows, unsigned c,
                                  const G1Xyzz& ones) {
  crypto::G1 acc = crypto::G1::identity();
  for (unsigned w = windows; w-- > 0;) {
    for (unsigned i = 0; i < c; ++i) acc = acc.dbl();
    acc = acc + sums[w].to_jacobian();
  }
  return acc + ones.to_jacobian();
}

}  // namespace zkpipe::cuda_backend
