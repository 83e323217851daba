// Fixed-base batch multiplication (fixed_base.h). Table row j holds d 2^(wj) B for d = 1 ..
// 2^(w-1) (affine); scalar k is sum_j digit_j(k) 2^(wj) with Booth digits, so k B is one table
// point per window, added into an affine accumulator per scalar. Chunks of scalars run in
// parallel, each window's additions as one batch (one inversion per chunk and window).
// Thread-safety: see fixed_base.h.
#include "zkpipe/crypto/fixed_base.h"

#include <algorithm>
#include <vector>

#include "msm_buckets.h"
#include "zkpipe/crypto/parallel.h"

namespace zkpipe::crypto {
namespace {

using msm_detail::AffineAdder;
using msm_detail::booth_digit;

constexpr unsigned kDigitBits = 256;  // scalars below r < 2^255 (see booth_digit)
constexpr size_t kChunk = 1024;       // scalars per task and per batch inversion
// Cost of one table point (Jacobian addition + share of the normalization) against one
// batch-affine accumulator addition, in multiplications; table capped at 2^20 points.
constexpr double kTablePointCost = 22.0;
constexpr double kAccumulateCost = 9.0;
constexpr unsigned kMaxWindowBits = 16;

unsigned windows_for(unsigned w) {
  return (kDigitBits + w - 1) / w;
}

template <typename P>
void run(const typename P::Affine& base, const Fr* scalars, size_t n, typename P::Affine* out,
         unsigned threads) {
  using A = typename P::Affine;
  if (n == 0) return;
  threads = resolve_threads(threads);
  if (base.infinity) {
    std::fill(out, out + n, A::identity());
    return;
  }
  const unsigned w = fixed_base_window_bits(n);
  const unsigned windows = windows_for(w);
  const size_t row = size_t{1} << (w - 1);
  // Row starts 2^(wj) B, then the rows in parallel, then one normalization.
  std::vector<P> starts(windows);
  starts[0] = P::from_affine(base);
  for (unsigned j = 1; j < windows; ++j) {
    P s = starts[j - 1];
    for (unsigned i = 0; i < w; ++i) s = msm_detail::point_dbl(s);
    starts[j] = s;
  }
  std::vector<P> jac(windows * row);
  parallel_for(windows, threads, [&](size_t j) {
    P acc = starts[j];
    for (size_t d = 0; d < row; ++d) {
      jac[j * row + d] = acc;
      if (d + 1 < row) acc = msm_detail::point_add(acc, starts[j]);
    }
  });
  std::vector<A> table(jac.size());
  parallel_for_ranges(jac.size(), size_t{1} << 12, threads, [&](size_t b, size_t e) {
    P::batch_to_affine(jac.data() + b, table.data() + b, e - b);
  });
  jac = {};
  parallel_for_ranges(n, kChunk, threads, [&](size_t b, size_t e) {
    std::vector<Fr::L> k(e - b);
    for (size_t i = b; i < e; ++i) k[i - b] = scalars[i].to_canonical();
    A* acc = out + b;
    std::fill(acc, acc + (e - b), A::identity());
    AffineAdder<typename P::Field> adder;
    for (unsigned j = 0; j < windows; ++j) {
      const A* t = table.data() + j * row;
      for (size_t i = 0; i < e - b; ++i) {
        const int32_t d = booth_digit(k[i], j, w);
        if (d == 0) continue;
        const A& src = t[(d < 0 ? -d : d) - 1];
        if (acc[i].infinity) {
          acc[i] = d < 0 ? -src : src;
        } else {
          adder.push(acc + i, &src, d < 0);
        }
      }
      adder.flush();
    }
  });
}

}  // namespace

unsigned fixed_base_window_bits(size_t n) {
  unsigned best = 1;
  double best_cost = -1;
  for (unsigned w = 1; w <= kMaxWindowBits; ++w) {
    const double windows = windows_for(w);
    const double table = windows * static_cast<double>(size_t{1} << (w - 1));
    if (table > static_cast<double>(size_t{1} << 20)) break;
    const double cost =
        table * kTablePointCost + static_cast<double>(n) * windows * kAccumulateCost;
    if (best_cost < 0 || cost < best_cost) {
      best_cost = cost;
      best = w;
    }
  }
  return best;
}

void fixed_base_mul(const G1Affine& base, const Fr* scalars, size_t n, G1Affine* out,
                    unsigned threads) {
  run<G1>(base, scalars, n, out, threads);
}

void fixed_base_mul(const G2Affine& base, const Fr* scalars, size_t n, G2Affine* out,
                    unsigned threads) {
  run<G2>(base, scalars, n, out, threads);
}

}  // namespace zkpipe::crypto
