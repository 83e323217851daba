// zkpipe/percentile.h: the one percentile of the tree, nearest rank over sorted samples (trace
// gap summaries, `zkpipe bench`, zkpipe-bench-store). Header-only.
// Thread-safety: a pure function of its arguments.
#pragma once

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

}  // namespace zkpipe
