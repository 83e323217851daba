// zkpipe/crypto/field_edges.h: the edge values of a Montgomery field's products, shared by the CPU
// tests (tests/crypto/field_test.cpp) and the device self-test (engine/crypto/cuda): 0, 1, -1,
// +-2, and the raw Montgomery words 1, p - 1, p - 2 and 2^(64(n-1)) (the extremes of the
// reduction). Thread-safety: pure.
#pragma once

#include <cstdint>
#include <vector>

namespace zkpipe::crypto {

template <typename F>
std::vector<F> field_edge_values() {
  std::vector<F> v{F::zero(), F::one(), -F::one(), -F::from_u64(2), F::from_u64(2)};
  for (uint64_t k : {1, 2}) {
    F x;
    for (size_t i = 0; i < F::kLimbs; ++i) x.l[i] = F::kModulus[i];
    x.l[0] -= k;
    v.push_back(x);
  }
  F one_raw{}, top{};
  one_raw.l[0] = 1;
  top.l[F::kLimbs - 1] = 1;
  v.push_back(one_raw);
  v.push_back(top);
  return v;
}

}  // namespace zkpipe::crypto
