// The host emulation of the GPU G1 MSM (msm_emulate.h): the launches of msm.cu in order, each
// kernel a loop over its thread index. Thread-safety: see the header.
#include "msm_emulate.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "msm_digits.h"

namespace zkpipe::cuda_backend {

using crypto::G1Affine;

namespace {

// The pairwise fold of p[0, count) into p[0] (fold kernels: count / 2 threads per step).
void fold_all(std::vector<G1Xyzz>& p, size_t count) {
  for (; count > 1; count = (count + 1) / 2) {
    for (size_t i = 0; i < count / 2; ++i) fold_step(p.data(), count, i);
  }
}

// The accumulation levels of one pass over `entries` sorted entries; returns the level count and
// raises max_elements to the most elements one thread added.
unsigned accumulate(const G1Affine* bases, const std::vector<uint32_t>& keys,
                    const std::vector<uint32_t>& values, uint32_t skip, bool add_to,
                    std::vector<G1Xyzz>& buckets, uint64_t& max_elements) {
  const size_t entries = keys.size();
  uint32_t span = msm_span(entries);
  size_t threads = span_threads(entries, span);
  std::vector<uint32_t> piece_keys(2 * threads), next_keys(2 * threads);
  std::vector<G1Xyzz> pieces(2 * threads), next(2 * threads);
  for (size_t t = 0; t < threads; ++t) {
    accumulate_entries(bases, keys.data(), values.data(), entries, span, t, skip, add_to,
                       buckets.data(), piece_keys.data(), pieces.data());
  }
  max_elements = std::max<uint64_t>(max_elements, std::min<uint64_t>(span, entries));
  unsigned levels = 1;
  while (threads > 1) {
    const size_t count = 2 * threads;
    span = msm_span(count);
    threads = span_threads(count, span);
    for (size_t t = 0; t < threads; ++t) {
      accumulate_pieces(piece_keys.data(), pieces.data(), count, span, t, skip, add_to,
                        buckets.data(), next_keys.data(), next.data());
    }
    max_elements = std::max<uint64_t>(max_elements, std::min<uint64_t>(span, count));
    piece_keys.swap(next_keys);
    pieces.swap(next);
    ++levels;
  }
  return levels;
}

}  // namespace

MsmEmulation msm_g1_emulate(const G1Affine* bases, const crypto::Fr* scalars, size_t n,
                            const MsmOptions& options) {
  MsmEmulation r;
  r.sum = crypto::G1::identity();
  if (n == 0) return r;
  // The split (a stable three-way partition of the point indices).
  std::vector<uint32_t> ones, others;
  for (size_t i = 0; i < n; ++i) {
    const ScalarClass k = scalar_class(scalars[i]);
    if (k == ScalarClass::kOne) ones.push_back(static_cast<uint32_t>(i));
    if (k == ScalarClass::kOther) others.push_back(static_cast<uint32_t>(i));
  }
  r.ones = ones.size();
  r.others = others.size();
  // The ones: a span per thread, then the fold.
  G1Xyzz ones_sum = G1Xyzz::identity();
  if (!ones.empty()) {
    const uint32_t span = msm_span(ones.size());
    std::vector<G1Xyzz> partial(span_threads(ones.size(), span));
    for (size_t t = 0; t < partial.size(); ++t) {
      partial[t] = sum_indexed_bases(bases, ones.data(), ones.size(), span, t);
    }
    r.max_thread_elements = std::min<uint64_t>(span, ones.size());
    fold_all(partial, partial.size());
    ones_sum = partial[0];
  }
  const uint64_t budget = options.scratch_bytes != 0 ? options.scratch_bytes : uint64_t{64} << 30;
  r.plan = plan_msm_g1(others.size(), budget - std::min(budget, msm_split_bytes(n).split()),
                       options.window_bits);
  const MsmGpuPlan& plan = r.plan;
  if (plan.passes == 0) {
    r.sum = ones_sum.to_jacobian();
    return r;
  }
  const unsigned c = plan.window_bits;
  const uint32_t skip = static_cast<uint32_t>(plan.buckets);
  std::vector<G1Xyzz> buckets(plan.buckets, G1Xyzz::identity());  // zeroed once
  for (size_t pass = 0; pass < plan.passes; ++pass) {
    const size_t first = pass * plan.chunk;
    const size_t count = std::min(plan.chunk, plan.n - first);
    const size_t entries = count * plan.windows;
    // Digits kernel: one thread per point of the pass.
    std::vector<uint32_t> keys(entries), values(entries);
    for (size_t i = 0; i < count; ++i) {
      const uint32_t index = others[first + i];
      write_digit_entries(scalars[index], index, static_cast<uint32_t>(i), count, c, plan.windows,
                          keys.data(), values.data());
    }
    // Radix sort by the low key_bits of the keys (stable, as CUB's is).
    std::vector<uint32_t> order(entries);
    std::iota(order.begin(), order.end(), 0u);
    const uint32_t key_mask =
        plan.key_bits >= 32 ? ~uint32_t{0} : (uint32_t{1} << plan.key_bits) - 1;
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return (keys[a] & key_mask) < (keys[b] & key_mask);
    });
    std::vector<uint32_t> sorted_keys(entries), sorted_values(entries);
    for (size_t j = 0; j < entries; ++j) {
      sorted_keys[j] = keys[order[j]];
      sorted_values[j] = values[order[j]];
    }
    r.levels = std::max(r.levels, accumulate(bases, sorted_keys, sorted_values, skip, pass > 0,
                                             buckets, r.max_thread_elements));
  }
  // Reduction kernel: one thread per (window, segment).
  std::vector<G1Xyzz> partials(size_t{plan.windows} * plan.segments);
  for (size_t t = 0; t < partials.size(); ++t) {
    const size_t w = t / plan.segments, s = t % plan.segments;
    partials[t] = reduce_segment(buckets.data() + w * plan.window_buckets,
                                 static_cast<uint32_t>(s * plan.segment_len), plan.segment_len);
  }
  // Fold kernels: log2(segments) launches, one thread per (window, i < half).
  for (uint32_t half = plan.segments / 2; half >= 1; half /= 2) {
    for (size_t t = 0; t < size_t{plan.windows} * half; ++t) {
      fold_partials(partials.data() + (t / half) * plan.segments, half,
                    static_cast<uint32_t>(t % half));
    }
  }
  // Copy of the window sums (strided: partial 0 of each window), then Horner on the host.
  std::vector<G1Xyzz> sums(plan.windows);
  for (unsigned w = 0; w < plan.windows; ++w) sums[w] = partials[size_t{w} * plan.segments];
  r.sum = combine_windows(sums.data(), plan.windows, c, ones_sum);
  return r;
}

}  // namespace zkpipe::cuda_backend
