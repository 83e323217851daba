// The host emulation of the GPU G1 MSM (msm_emulate.h): the launches of msm.cu in order, each
// kernel a loop over its thread index. Thread-safety: see the header.
#include "msm_emulate.h"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "msm_digits.h"

namespace zkpipe::cuda_backend {

using crypto::G1;

G1 msm_g1_emulate(const crypto::G1Affine* bases, const crypto::Fr* scalars, size_t n,
                  const MsmGpuPlan& plan) {
  if (n == 0 || plan.passes == 0) return G1::identity();
  const unsigned c = plan.window_bits;
  const uint32_t skip = static_cast<uint32_t>(plan.buckets);
  std::vector<G1> buckets(plan.buckets);
  for (size_t pass = 0; pass < plan.passes; ++pass) {
    const size_t first = pass * plan.chunk;
    const size_t count = std::min(plan.chunk, n - first);
    const size_t entries = count * plan.windows;
    // Digits kernel: one thread per point.
    std::vector<uint32_t> keys(entries), values(entries);
    for (size_t i = 0; i < count; ++i) {
      write_digit_entries(scalars[first + i], static_cast<uint32_t>(i), count, c, plan.windows,
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
    // Bounds kernel (after zeroing begin/end): one thread per sorted entry.
    std::vector<uint32_t> begin(plan.buckets, 0), end(plan.buckets, 0);
    for (size_t j = 0; j < entries; ++j) {
      mark_run_bounds(sorted_keys.data(), entries, j, skip, begin.data(), end.data());
    }
    // Accumulation kernel: one thread per bucket; later passes add to the earlier ones' buckets.
    for (uint64_t b = 0; b < plan.buckets; ++b) {
      const G1 start = pass == 0 ? G1::identity() : buckets[b];
      buckets[b] = accumulate_bucket(start, bases + first, sorted_values.data(), begin[b], end[b]);
    }
  }
  // Reduction kernel: one thread per (window, segment).
  std::vector<G1> partials(size_t{plan.windows} * plan.segments);
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
  std::vector<G1> sums(plan.windows);
  for (unsigned w = 0; w < plan.windows; ++w) sums[w] = partials[size_t{w} * plan.segments];
  return combine_windows(sums.data(), plan.windows, c);
}

}  // namespace zkpipe::cuda_backend
