// zkpipe/sdk/percentile.h: the statistics of samples the tree reports: nearest_rank, the one
// percentile (trace gap summaries, `zkpipe bench`, zkpipe-bench-store: p50, p99), and median, the
// one median (the benchmarks' "median of the runs"). They differ on purpose for an even count:
// nearest_rank(v, 50) is the lower middle sample, median the mean of the two middle ones.
// Header-only. Thread-safety: pure functions of their arguments.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace zkpipe {

// Nearest-rank percentile of ascending `sorted`: the ceil(p/100 * n)-th smallest (the smallest
// for p <= 0, the largest for p >= 100); T{} when empty.
template <typename T>
T nearest_rank(const std::vector<T>& sorted, double p) {
  if (sorted.empty()) return T{};
  const double rank = std::ceil(p / 100.0 * static_cast<double>(sorted.size()));
  const size_t i = rank < 1 ? 0 : static_cast<size_t>(rank) - 1;
  return sorted[i < sorted.size() ? i : sorted.size() - 1];
}

// The median of `samples` (any order): the middle value, for an even count the mean of the two
// middle values; 0 when empty.
inline double median(std::vector<double> samples) {
  if (samples.empty()) return 0;
  const size_t n = samples.size();
  std::nth_element(samples.begin(), samples.begin() + n / 2, samples.end());
  const double upper = samples[n / 2];
  if (n % 2 == 1) return upper;
  const double lower = *std::max_element(samples.begin(), samples.begin() + n / 2);
  return (lower + upper) / 2;
}

}  // namespace zkpipe
