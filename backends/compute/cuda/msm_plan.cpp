// The GPU MSM plan (msm_plan.h): the cost model of the kernels in msm.cu and the scratch sizes.
// Thread-safety: pure functions.
#include "msm_plan.h"

#include <algorithm>
#include <cmath>

namespace zkpipe::cuda_backend {
namespace {

// The cost model, in units of one thread's mixed addition on a full device. Modelled, not measured
// (the development machine has no GPU): replace with timings of msm.cu on the target GPU.
// kParallel: threads that run additions at once (H200: 132 SMs x ~512 resident threads at the
// ~128 registers an XYZZ accumulator needs, rounded to 2^16).
constexpr double kParallel = 65536;
// Per (window, point) entry: digit extraction, two stores, and a ~4-pass radix sort of 8-byte
// pairs; a sort moves ~5 G pairs/s against ~2.5 G additions/s for the whole device, so ~0.5.
constexpr double kEntryCost = 0.5;
// An XYZZ addition (12M + 2S) against a mixed one (8M + 2S).
constexpr double kAddCost = 1.4;
// Per bucket: zero it, add the finished run into it (usually onto the identity: a copy).
constexpr double kBucketCost = 1.0;
// Device memory left aside for the CUDA context, the bases and scalars' neighbours, fragmentation.
constexpr double kUsableFraction = 0.9;
// Below this many points a pass is not worth splitting further.
constexpr size_t kMinChunk = size_t{1} << 10;

uint64_t round256(uint64_t b) {
  return (b + 255) / 256 * 256;
}

unsigned windows_for(unsigned c) {
  return (kMsmScalarBits + c - 1) / c;
}

unsigned bit_width(uint64_t v) {
  unsigned b = 0;
  while (v != 0) ++b, v >>= 1;
  return b;
}

// Waves of `threads` threads: never less than one (an underfilled device is not faster).
double waves(double threads) {
  return std::max(1.0, threads / kParallel);
}

// Reduction: windows x segments threads, each 2 L additions (running sums) plus the carry
// correction, (s L) times its running sum: ~1.5 log2(2^(c-1)) operations; then log2(segments)
// pairwise folds. All are XYZZ additions.
double reduce_cost(unsigned c, uint32_t segment_len) {
  const double w = windows_for(c);
  const double segments = static_cast<double>((uint64_t{1} << (c - 1)) / segment_len);
  const double per_thread = 2.0 * segment_len + 1.5 * (c - 1);
  return kAddCost *
         (waves(w * segments) * per_thread + std::log2(segments) * waves(w * segments / 2));
}

// The segment length with the least reduction cost.
uint32_t best_segment_len(unsigned c) {
  const uint32_t half = uint32_t{1} << (c - 1);
  uint32_t best = 1;
  for (uint32_t l = 1; l <= half; l *= 2) {
    if (reduce_cost(c, l) < reduce_cost(c, best)) best = l;
  }
  return best;
}

unsigned clamp_bits(unsigned c) {
  return std::clamp(c, kMsmMinWindowBits, kMsmMaxWindowBits);
}

// The smallest window size whose cost is within kNearBest of the least: the model's curve is
// flat near its minimum (fewer windows against more buckets) while scratch grows as 2^c and the
// model is unmeasured, so near-ties go to the smaller c.
constexpr double kNearBest = 1.03;
unsigned best_window_bits(size_t points) {
  double costs[kMsmMaxWindowBits + 1] = {};
  double least = -1;
  for (unsigned c = kMsmMinWindowBits; c <= kMsmMaxWindowBits; ++c) {
    costs[c] = msm_pass_cost(points, c, best_segment_len(c));
    if (least < 0 || costs[c] < least) least = costs[c];
  }
  for (unsigned c = kMsmMinWindowBits; c <= kMsmMaxWindowBits; ++c) {
    if (costs[c] <= least * kNearBest) return c;
  }
  return kMsmMaxWindowBits;
}

uint64_t estimate_sort_temp(uint64_t entries, unsigned) {
  // CUB's onesweep radix sort over double buffers: histograms and per-tile look-back, well under
  // a quarter byte per item; 1 MiB covers the fixed part.
  return entries / 4 + (uint64_t{1} << 20);
}

}  // namespace

uint32_t msm_span(uint64_t count) {
  uint32_t span = kMsmMinSpan;
  while (span < kMsmMaxSpan && static_cast<double>(count) / (2.0 * span) >= kParallel) span *= 2;
  return span;
}

// digits + sort: n W entries; accumulation: every thread a span of entries (the device busy for
// max(entries / parallel, span) additions), its cut runs summed again as pieces (2 per thread, at
// an XYZZ addition each); a bucket cost per bucket; reduction as above.
double msm_pass_cost(size_t points, unsigned window_bits, uint32_t segment_len) {
  const unsigned c = clamp_bits(window_bits);
  const double n = static_cast<double>(points);
  const double w = windows_for(c);
  const double buckets = w * static_cast<double>(uint64_t{1} << (c - 1));
  const double entries = n * w;
  const double span = msm_span(static_cast<uint64_t>(entries));
  const double threads = std::ceil(entries / span);
  const double sort = entries * kEntryCost / kParallel;
  const double accumulate = waves(threads) * span + kAddCost * waves(2 * threads) * kMsmMinSpan;
  return sort + accumulate + buckets * kBucketCost / kParallel + reduce_cost(c, segment_len);
}

MsmScratchBytes msm_split_bytes(size_t n, uint64_t split_temp) {
  MsmScratchBytes s;
  s.indices = 2 * round256(uint64_t{n} * 4);
  // CUB's three-way partition: per-tile look-back state, well under a byte per item.
  s.split_temp = round256(split_temp != 0 ? split_temp : uint64_t{n} / 8 + (uint64_t{1} << 20));
  s.ones = round256((n + kMsmMinSpan - 1) / kMsmMinSpan * kMsmBucketBytes);
  return s;
}

MsmScratchBytes msm_scratch_bytes(size_t chunk, unsigned window_bits, uint32_t segment_len,
                                  const MsmSortTempBytes& sort_temp) {
  const unsigned c = clamp_bits(window_bits);
  const uint64_t w = windows_for(c);
  const uint64_t buckets = w << (c - 1);
  const uint64_t entries = static_cast<uint64_t>(chunk) * w;
  const uint64_t threads = (entries + msm_span(entries) - 1) / msm_span(entries);
  MsmScratchBytes s;
  s.keys = 2 * round256(entries * 4);
  s.values = 2 * round256(entries * 4);
  s.sort_temp = round256(sort_temp ? sort_temp(entries, bit_width(buckets))
                                   : estimate_sort_temp(entries, bit_width(buckets)));
  s.piece_keys = 2 * round256(2 * threads * 4);
  s.pieces = 2 * round256(2 * threads * kMsmBucketBytes);
  s.buckets = round256(buckets * kMsmBucketBytes);
  s.partials = round256(w * ((uint64_t{1} << (c - 1)) / segment_len) * kMsmBucketBytes);
  return s;
}

MsmGpuPlan plan_msm_g1(size_t n, uint64_t device_bytes_free, unsigned window_bits_override,
                       const MsmSortTempBytes& sort_temp) {
  MsmGpuPlan p;
  if (n == 0) {
    p.fits = true;
    return p;
  }
  const double usable = static_cast<double>(device_bytes_free) * kUsableFraction;
  auto fill = [&](unsigned c) {
    p.window_bits = c;
    p.windows = windows_for(c);
    p.window_buckets = uint32_t{1} << (c - 1);
    p.buckets = uint64_t{p.windows} * p.window_buckets;
    p.key_bits = bit_width(p.buckets);  // the skip key `buckets` itself must sort last
    p.segment_len = best_segment_len(c);
    p.segments = p.window_buckets / p.segment_len;
    auto bytes = [&](size_t chunk) {
      return msm_scratch_bytes(chunk, c, p.segment_len, sort_temp).pippenger();
    };
    // Halve the pass until its scratch fits (or it reaches kMinChunk, or n).
    size_t chunk = std::min<uint64_t>(n, kMsmMaxEntries / p.windows);
    while (chunk > kMinChunk && static_cast<double>(bytes(chunk)) > usable) {
      chunk = (chunk + 1) / 2;
    }
    p.chunk = chunk;
    p.passes = (n + chunk - 1) / chunk;
    p.scratch = msm_scratch_bytes(chunk, c, p.segment_len, sort_temp);
    p.fits = static_cast<double>(p.scratch.pippenger()) <= usable;
    p.cost = static_cast<double>(p.passes) * msm_pass_cost(chunk, c, p.segment_len);
  };
  p.n = n;
  if (window_bits_override != 0) {
    fill(clamp_bits(window_bits_override));
    return p;
  }
  fill(best_window_bits(n));
  // A chunked MSM runs passes of `chunk` points: choose c for that size instead.
  if (p.chunk < n) fill(best_window_bits(p.chunk));
  return p;
}

}  // namespace zkpipe::cuda_backend
