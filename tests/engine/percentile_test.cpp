// tests/engine/percentile_test.cpp: the two statistics of zkpipe/sdk/percentile.h on known samples
// (median: the mean of the two middle values for an even count; nearest_rank: always a sample),
// and zkpipe/sdk/clock.h's readings moving forward.
#include <catch2/catch.hpp>

#include <vector>

#include "zkpipe/sdk/clock.h"
#include "zkpipe/sdk/percentile.h"

TEST_CASE("Percentile: median averages the middle pair, nearest rank picks a sample", "[engine]") {
  using zkpipe::median;
  using zkpipe::nearest_rank;
  CHECK(median({}) == 0);
  CHECK(median({4.0}) == 4.0);
  CHECK(median({3.0, 1.0, 2.0}) == 2.0);       // any order
  CHECK(median({4.0, 1.0, 3.0, 2.0}) == 2.5);  // (2 + 3) / 2
  CHECK(median({1.0, 1.0, 9.0, 9.0}) == 5.0);
  const std::vector<double> sorted = {1.0, 2.0, 3.0, 4.0};
  CHECK(nearest_rank(sorted, 50) == 2.0);  // the lower middle sample: a p50, not a median
  CHECK(nearest_rank(sorted, 99) == 4.0);
  CHECK(nearest_rank(std::vector<double>{}, 50) == 0.0);
}

TEST_CASE("Clock: now_ns is monotonic and the elapsed times agree", "[engine]") {
  const int64_t t0 = zkpipe::now_ns();
  const int64_t t1 = zkpipe::now_ns();
  CHECK(t1 >= t0);
  const double s = zkpipe::seconds_since(t0), ms = zkpipe::ms_since(t0);
  CHECK(s >= 0);
  CHECK(ms >= s * 1e3);  // read later
}
