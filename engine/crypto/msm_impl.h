// engine/crypto/msm_impl.h (private to zkpipe_crypto): the Pippenger MSM of msm.h as one
// template over the Jacobian point type (G1 or G2): GLV scalar splitting, Booth digits, the
// cost model and the driver; the buckets are in msm_buckets.h. Instantiated in msm.cpp.
// Thread-safety: each task owns its buckets; the driver writes one result slot per task and
// combines them in a fixed order.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "msm_buckets.h"
#include "zkpipe/crypto/group_ops.h"
#include "zkpipe/crypto/msm.h"
#include "zkpipe/crypto/parallel.h"

namespace zkpipe::crypto::msm_detail {

inline constexpr unsigned kGlvDigitBits = 129;    // k1, k2 < x^2 < 2^128
inline constexpr unsigned kPlainDigitBits = 256;  // k < r < 2^255
inline constexpr unsigned kMaxWindowBits = 22;

// Operation costs in coordinate-field multiplications (msm.cpp says how they were measured).
struct MsmCosts {
  double add_affine;       // one batch-affine bucket addition, its inversion share excluded
  double add_mixed;        // Jacobian bucket += affine point
  double inversion;        // one field inversion
  double reduce_affine;    // per bucket, batch-affine running sums
  double reduce_jacobian;  // per bucket, Jacobian running sums
};

// The buckets window w can reach: 2^(c-1), except in the top window, whose digits come from
// the scalar's last digit_bits - w c bits only (|digit| <= 2^bits there). Affine buckets need
// that number: a batch can hold each bucket once, so the top window of a badly fitting c
// (e.g. 3 bits left) would defer nearly every addition.
inline size_t window_buckets(unsigned w, unsigned c, unsigned digit_bits) {
  const size_t full = size_t{1} << (c - 1);
  const unsigned left = digit_bits > w * c ? digit_bits - w * c : 1;
  return left >= c ? full : std::min(full, size_t{1} << left);
}
// Below this many reachable buckets a window uses Jacobian buckets even in batch-affine plans
// (batches of at least 64 into fewer than 4x as many buckets mostly defer).
inline constexpr size_t kMinAffineBuckets = 256;

// The plan with the least estimated time: the windows' tasks (each window's own bucket count)
// spread over the threads, never less than the longest task; the window size or bucket form
// is fixed when the options fix it.
inline MsmPlan choose_plan(size_t points, unsigned digit_bits, unsigned threads, const MsmCosts& k,
                           MsmBuckets mode, unsigned window_bits) {
  MsmPlan best;
  double best_cost = -1;
  const unsigned c_lo = window_bits ? window_bits : 1;
  const unsigned c_hi = window_bits ? window_bits : kMaxWindowBits;
  for (unsigned c = c_lo; c <= c_hi; ++c) {
    const unsigned windows = (digit_bits + c - 1) / c;
    for (size_t chunks = 1; chunks <= std::max<size_t>(1, 4 * threads) && chunks <= points;
         chunks *= 2) {
      const double m = static_cast<double>((points + chunks - 1) / chunks);
      for (bool ba : {false, true}) {
        if ((mode == MsmBuckets::kJacobian && ba) || (mode == MsmBuckets::kBatchAffine && !ba)) {
          continue;
        }
        double total = 0, longest = 0;
        for (unsigned w = 0; w < windows; ++w) {
          const size_t buckets = window_buckets(w, c, digit_bits);
          const double nb = static_cast<double>(buckets);
          double task;
          if (ba && buckets >= kMinAffineBuckets) {
            const double batches = m / static_cast<double>(batch_size(buckets)) + 2;
            // Affine running sums (4 * kAffineSumSegments buckets and up) end with a Jacobian
            // pass over the segments: two mixed additions and one addition each.
            const double reduce =
                buckets >= 4 * kAffineSumSegments
                    ? nb * k.reduce_affine +
                          kAffineSumSegments * (2 * k.add_mixed + k.reduce_jacobian / 2)
                    : nb * k.reduce_jacobian;
            task = m * k.add_affine + batches * k.inversion + reduce;
          } else {
            task = m * k.add_mixed + nb * k.reduce_jacobian;
          }
          total += task * static_cast<double>(chunks);
          longest = std::max(longest, task);
        }
        const double cost =
            std::max(total / threads, longest) + static_cast<double>(windows * chunks) * 16;
        if (best_cost < 0 || cost < best_cost) {
          best_cost = cost;
          best = MsmPlan{c, windows, chunks, ba};
        }
      }
    }
  }
  return best;
}

// Adds digit_w(k_i) P_i for i in [begin, end) to the buckets.
template <typename Buckets, typename A, size_t N>
void fill(Buckets& buckets, const A* pts, const Limbs<N>* k, size_t begin, size_t end, unsigned w,
          unsigned c) {
  for (size_t i = begin; i < end; ++i) {
    const int32_t d = booth_digit(k[i], w, c);
    if (d == 0 || pts[i].infinity) continue;
    buckets.add(static_cast<uint32_t>((d < 0 ? -d : d) - 1), pts + i, d < 0);
  }
}

// Pippenger over the concatenation of two point/scalar arrays (the second may be empty).
template <typename P, size_t N>
P pippenger(const typename P::Affine* const pts[2], const Limbs<N>* const k[2], size_t half,
            size_t count, const MsmPlan& plan, unsigned threads) {
  const size_t chunk = (count + plan.chunks - 1) / plan.chunks;
  std::vector<P> partial(plan.windows * plan.chunks);
  parallel_for(partial.size(), threads, [&](size_t t) {
    const unsigned w = static_cast<unsigned>(t % plan.windows);
    const size_t begin = std::min(count, t / plan.windows * chunk);
    const size_t end = std::min(count, begin + chunk);
    auto run = [&](auto& b) {
      fill(b, pts[0], k[0], std::min(begin, half), std::min(end, half), w, plan.window_bits);
      fill(b, pts[1], k[1], std::max(begin, half) - half, std::max(end, half) - half, w,
           plan.window_bits);
      b.finish();
      partial[t] = b.reduce();
    };
    const size_t buckets =
        window_buckets(w, plan.window_bits, N == 2 ? kGlvDigitBits : kPlainDigitBits);
    if (plan.batch_affine && buckets >= kMinAffineBuckets) {
      AffineBuckets<P> b(buckets);
      run(b);
    } else {
      JacobianBuckets<P> b(buckets);
      run(b);
    }
  });
  P acc = P::identity();
  for (unsigned w = plan.windows; w-- > 0;) {
    for (unsigned i = 0; i < plan.window_bits; ++i) acc = point_dbl(acc);
    for (size_t p = 0; p < plan.chunks; ++p) acc = point_add(acc, partial[p * plan.windows + w]);
  }
  return acc;
}

// Pippenger over all n points (not normalized). endo(P) = [x^2] P on the affine point P (not
// the identity).
template <typename P, typename Endo>
P msm_all(const typename P::Affine* bases, const Fr* scalars, size_t n, const MsmOptions& options,
          const MsmCosts& costs, const Endo& endo) {
  using A = typename P::Affine;
  if (n == 0) return P::identity();
  const unsigned threads = resolve_threads(options.threads);
  const unsigned c = std::min(options.window_bits, kMaxWindowBits);
  constexpr size_t kGrain = size_t{1} << 12;
  P r;
  if (options.endomorphism) {
    // k P = k1 P + k2 [x^2] P with k = k1 + k2 x^2, k1, k2 < x^2 < 2^128.
    const MsmPlan plan = choose_plan(2 * n, kGlvDigitBits, threads, costs, options.buckets, c);
    std::vector<A> second(n);
    std::vector<Limbs<2>> k1(n), k2(n);
    parallel_for_ranges(n, kGrain, threads, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) {
        second[i] = bases[i].infinity ? bases[i] : endo(bases[i]);
        const GlvScalars s = glv_decompose(scalars[i]);
        k1[i] = s.k1;
        k2[i] = s.k2;
      }
    });
    const A* pts[2] = {bases, second.data()};
    const Limbs<2>* ks[2] = {k1.data(), k2.data()};
    r = pippenger<P, 2>(pts, ks, n, 2 * n, plan, threads);
  } else {
    const MsmPlan plan = choose_plan(n, kPlainDigitBits, threads, costs, options.buckets, c);
    std::vector<Fr::L> k(n);
    parallel_for_ranges(n, kGrain, threads, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) k[i] = scalars[i].to_canonical();
    });
    const A* pts[2] = {bases, nullptr};
    const Fr::L* ks[2] = {k.data(), nullptr};
    r = pippenger<P, 4>(pts, ks, n, n, plan, threads);
  }
  return r;  // not normalized: msm() normalizes once
}

// The ones' sum: each task sums its range's bases of scalar 1 round-robin into affine buckets
// (batch-affine additions without conflicts), then adds its buckets up. As many buckets as the
// plan's window 0 has, at most 1024, so a ones task never takes more memory than a window task
// (scratch_bytes holds without a term of its own); Jacobian where window 0's tasks are.
inline constexpr size_t kMaxOnesBuckets = 1024;
inline size_t ones_buckets(const MsmPlan& plan) {
  return std::min(window_buckets(0, plan.window_bits, kGlvDigitBits), kMaxOnesBuckets);
}

// How the split cuts [0, n): enough ranges to balance the threads; range t is [begin, end).
struct SplitRanges {
  size_t n, count, chunk;
  SplitRanges(size_t n_, unsigned threads)
      : n(n_),
        count(std::clamp<size_t>(n_ >> 12, 1, 4 * size_t{threads})),
        chunk((n_ + count - 1) / count) {}
  size_t begin(size_t t) const { return std::min(n, t * chunk); }
  size_t end(size_t t) const { return std::min(n, begin(t) + chunk); }
};

template <typename P>
P sum_ones(const typename P::Affine* bases, const Fr* scalars, size_t n, size_t ones,
           unsigned threads, size_t buckets, bool affine) {
  const SplitRanges ranges(n, threads);
  const Fr one = Fr::one();
  std::vector<P> partial(ranges.count, P::identity());
  parallel_for(ranges.count, threads, [&](size_t t) {
    if (!affine || ones < 8 * buckets) {
      P acc = P::identity();
      for (size_t i = ranges.begin(t); i < ranges.end(t); ++i) {
        if (scalars[i] == one && !bases[i].infinity) acc = point_add_mixed(acc, bases[i]);
      }
      partial[t] = acc;
      return;
    }
    AffineBuckets<P> b(buckets);
    uint32_t next = 0;
    for (size_t i = ranges.begin(t); i < ranges.end(t); ++i) {
      if (scalars[i] != one || bases[i].infinity) continue;
      b.add(next, bases + i, false);
      next = next + 1 == buckets ? 0 : next + 1;
    }
    b.finish();
    partial[t] = b.sum();
  });
  P total = P::identity();
  for (const P& p : partial) total = point_add(total, p);
  return total;
}

// sum_i k_i P_i: the 0/1 split (msm.h) when it applies, else msm_all. The split's compact copy
// of the rest (bases and scalars) and msm_all's GLV copies of it take 2 x 136 bytes (G1) per
// remaining point at most half of n, within what msm_all of n takes (scratch_bytes).
template <typename P, typename Endo>
P msm(const typename P::Affine* bases, const Fr* scalars, size_t n, const MsmOptions& options,
      const MsmCosts& costs, const Endo& endo) {
  using A = typename P::Affine;
  if (n == 0) return P::identity();
  if (!options.split_ones || !options.endomorphism) {
    return P::from_affine(msm_all<P>(bases, scalars, n, options, costs, endo).to_affine());
  }
  const unsigned threads = resolve_threads(options.threads);
  const SplitRanges ranges(n, threads);
  const Fr one = Fr::one();
  std::vector<size_t> rest(ranges.count, 0), ones(ranges.count, 0);
  parallel_for(ranges.count, threads, [&](size_t t) {
    for (size_t i = ranges.begin(t); i < ranges.end(t); ++i) {
      if (scalars[i].is_zero()) continue;
      ++(scalars[i] == one ? ones[t] : rest[t]);
    }
  });
  size_t total_rest = 0, total_ones = 0;
  for (size_t t = 0; t < ranges.count; ++t) {
    const size_t r = rest[t];
    rest[t] = total_rest;  // now the range's offset in the compact copy
    total_rest += r;
    total_ones += ones[t];
  }
  if (2 * total_rest > n) {
    return P::from_affine(msm_all<P>(bases, scalars, n, options, costs, endo).to_affine());
  }
  std::vector<A> rest_bases(total_rest);
  std::vector<Fr> rest_scalars(total_rest);
  parallel_for(ranges.count, threads, [&](size_t t) {
    size_t at = rest[t];
    for (size_t i = ranges.begin(t); i < ranges.end(t); ++i) {
      if (scalars[i].is_zero() || scalars[i] == one) continue;
      rest_bases[at] = bases[i];
      rest_scalars[at++] = scalars[i];
    }
  });
  const MsmPlan plan = choose_plan(2 * n, kGlvDigitBits, threads, costs, options.buckets,
                                   std::min(options.window_bits, kMaxWindowBits));
  const size_t buckets = ones_buckets(plan);
  const bool affine = plan.batch_affine && buckets >= kMinAffineBuckets;
  P r = total_ones == 0 ? P::identity()
                        : sum_ones<P>(bases, scalars, n, total_ones, threads, buckets, affine);
  if (total_rest > 0) {
    r = point_add(
        r, msm_all<P>(rest_bases.data(), rest_scalars.data(), total_rest, options, costs, endo));
  }
  return P::from_affine(r.to_affine());
}

// The most one (window, chunk) task's buckets allocate: the bucket array; in affine form also
// the busy flags, the Jacobian overflow buckets (after a spill) and the batch vectors (the
// adder's operations, prefixes and denominators, the kernel's argument arrays, the pending,
// deferred and retried operations; capacities may double past their sizes); `ifma`: with the
// per-thread scratch of the G1 IFMA adder for its batches (kept by the thread that ran it).
template <typename P>
uint64_t task_bytes(size_t buckets, bool affine, bool ifma) {
  using A = typename P::Affine;
  if (!affine) return uint64_t{buckets} * sizeof(P);
  constexpr uint64_t kOp = 32;  // an adder or bucket operation: two pointers and flags at most
  const uint64_t cap = batch_size(buckets);
  const uint64_t kernel = ifma ? batch_add_g1_ifma_scratch_bytes(cap) : 0;
  // A round re-queues up to 5 cap deferred operations into the adder, so its vectors (and the
  // pending list) reach 6 cap entries, their capacities 12 cap; deferred and retried <= 10 cap.
  const uint64_t batch =
      12 * cap * (kOp + 2 * sizeof(typename P::Field) + 2 * sizeof(void*) + 1 + sizeof(uint32_t)) +
      2 * 10 * cap * kOp;
  return uint64_t{buckets} * (sizeof(A) + 1 + sizeof(P)) + batch + kernel;
}

// msm()'s allocations at most (see msm.h): the same plan, then the scalar and base copies, the
// per-task sums and the largest tasks' buckets times the threads that run tasks at once.
template <typename P>
uint64_t scratch_bytes(size_t n, const MsmOptions& options, const MsmCosts& costs, bool ifma) {
  using A = typename P::Affine;
  if (n == 0) return 0;
  const unsigned threads = resolve_threads(options.threads);
  const unsigned c = std::min(options.window_bits, kMaxWindowBits);
  const bool glv = options.endomorphism;
  const unsigned digit_bits = glv ? kGlvDigitBits : kPlainDigitBits;
  const MsmPlan plan = choose_plan(glv ? 2 * n : n, digit_bits, threads, costs, options.buckets, c);
  uint64_t bytes = glv ? uint64_t{n} * (sizeof(A) + 2 * sizeof(Limbs<2>)) : n * sizeof(Fr::L);
  bytes += uint64_t{plan.windows} * plan.chunks * sizeof(P);
  uint64_t largest = 0;
  for (unsigned w = 0; w < plan.windows; ++w) {
    const size_t buckets = window_buckets(w, plan.window_bits, digit_bits);
    const bool affine = plan.batch_affine && buckets >= kMinAffineBuckets;
    largest = std::max(largest, task_bytes<P>(buckets, affine, ifma));
  }
  const uint64_t tasks = uint64_t{plan.windows} * plan.chunks;
  const uint64_t running = std::min<uint64_t>(threads, tasks);
  // parallel_for's threads and the allocator's per-block headers: a few KiB.
  return bytes + running * (largest + 1024) + 4096;
}

}  // namespace zkpipe::crypto::msm_detail
