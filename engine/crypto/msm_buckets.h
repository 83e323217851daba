// engine/crypto/msm_buckets.h (private to zkpipe_crypto): signed (Booth) scalar digits, batched
// affine additions (one field inversion per batch, Montgomery's trick) and the bucket forms of
// the Pippenger MSM built on them: affine buckets with conflict deferral, Jacobian buckets, and
// the bucket reductions sum_j (j + 1) B_j. Used by msm_impl.h and fixed_base.cpp.
// Thread-safety: plain objects, one per task.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include "batch_add_ifma.h"
#include "zkpipe/crypto/bigint.h"
#include "zkpipe/crypto/curve.h"

namespace zkpipe::crypto::msm_detail {

// Out-of-line point operations: the curve's own are always_inline, and expanding them at every
// call site multiplies compile time; one call per point operation costs nothing measurable.
template <typename P>
[[gnu::noinline]] P point_add(const P& a, const P& b) {
  return a + b;
}
template <typename P>
[[gnu::noinline]] P point_add_mixed(const P& a, const typename P::Affine& b) {
  return a.add_mixed(b);
}
template <typename P>
[[gnu::noinline]] P point_dbl(const P& a) {
  return a.dbl();
}

// Signed digit of window w: bits [wc, wc + c) plus bit wc - 1, minus 2^c times bit wc + c - 1,
// in [-2^(c-1), 2^(c-1)]. sum_w digit_w 2^(wc) is the scalar when bit Wc - 1 is clear
// (W windows): Wc >= 256 for scalars below r < 2^255, Wc >= 129 for GLV halves below 2^128.
template <size_t N>
inline int32_t booth_digit(const Limbs<N>& s, unsigned w, unsigned c) {
  const size_t bit = size_t{w} * c;  // reads bits [bit - 1, bit + c)
  uint64_t v;
  if (bit == 0) {
    v = s[0] << 1;
  } else {
    const size_t pos = bit - 1, limb = pos / 64, off = pos % 64;
    v = limb < N ? s[limb] >> off : 0;
    if (off != 0 && limb + 1 < N) v |= s[limb + 1] << (64 - off);
  }
  v &= (uint64_t{2} << c) - 1;
  return static_cast<int32_t>(v >> 1) + static_cast<int32_t>(v & 1) -
         (static_cast<int32_t>((v >> c) & 1) << c);
}

// Pending additions dst += (neg ? -src : src) on affine points, applied together by flush().
// Every dst of one batch must be distinct, and no src may be a dst of the same batch; neither
// may be the identity (callers set or skip those directly).
template <typename F>
class AffineAdder {
 public:
  using A = AffinePoint<F>;

  void push(A* dst, const A* src, bool neg) {
    __builtin_prefetch(dst);
    ops_.push_back({dst, src, neg});
  }
  size_t size() const { return ops_.size(); }

  // Applies the pending additions: on G1 with AVX-512 IFMA the vector kernel
  // (batch_add_ifma.h, ~4x faster), otherwise flush_scalar.
  [[gnu::noinline]] void flush() {
    if constexpr (std::is_same_v<F, Fp>) {
      if (batch_add_g1_ifma_available()) {
        flush_ifma();
        return;
      }
    }
    flush_scalar();
  }

  // 6 multiplications per addition plus one inversion per batch.
  void flush_scalar() {
    const size_t m = ops_.size();
    if (m == 0) return;
    prefix_.resize(m);
    den_.resize(m);
    F acc = F::one();
    for (size_t i = 0; i < m; ++i) {
      Op& op = ops_[i];
      F d = op.src->x - op.dst->x;
      if (d.is_zero()) {  // dst == +-src: double, or cancel (y == 0 has no point in G1 / G2)
        const bool same = (op.neg ? -op.src->y : op.src->y) == op.dst->y;
        op.kind = same && !op.dst->y.is_zero() ? kDouble : kVanish;
        d = op.kind == kDouble ? op.dst->y.dbl() : F::one();
      }
      prefix_[i] = acc;
      den_[i] = d;
      acc *= d;
    }
    F inv = acc.inverse();
    for (size_t i = m; i-- > 0;) {
      const Op& op = ops_[i];
      A& b = *op.dst;
      const F dinv = inv * prefix_[i];
      inv *= den_[i];
      if (op.kind == kVanish) {
        b = A::identity();
        continue;
      }
      // lambda = (sy - by) / (sx - bx) with sy = -y when neg: then use lambda' = (y + by) / ..
      // = -lambda and y3 = lambda' (x3 - bx) - by.
      F lambda;
      bool flip = op.neg;
      if (op.kind == kDouble) {
        const F xx = b.x.sqr();
        lambda = (xx.dbl() + xx) * dinv;
        flip = false;
      } else {
        lambda = (op.neg ? op.src->y + b.y : op.src->y - b.y) * dinv;
      }
      const F x3 = lambda.sqr() - b.x - op.src->x;
      b.y = lambda * (flip ? x3 - b.x : b.x - x3) - b.y;
      b.x = x3;
    }
    ops_.clear();
  }

 private:
  // The kernel takes only true additions (x1 != x2): doublings and cancellations, rare, are
  // done here first, one by one (each dst is in the batch once and is no src of it).
  void flush_ifma() {
    dsts_.clear();
    srcs_.clear();
    negs_.clear();
    for (const Op& op : ops_) {
      A& b = *op.dst;
      if (op.src->x == b.x) {
        const bool same = (op.neg ? -op.src->y : op.src->y) == b.y;
        if (same && !b.y.is_zero()) {
          const F xx = b.x.sqr();
          const F lambda = (xx.dbl() + xx) * b.y.dbl().inverse();
          const F x3 = lambda.sqr() - b.x.dbl();
          b.y = lambda * (b.x - x3) - b.y;
          b.x = x3;
        } else {
          b = A::identity();
        }
        continue;
      }
      dsts_.push_back(op.dst);
      srcs_.push_back(op.src);
      negs_.push_back(op.neg ? 1 : 0);
    }
    batch_add_g1_ifma(dsts_.data(), srcs_.data(), negs_.data(), dsts_.size());
    ops_.clear();
  }

  enum : uint8_t { kAdd, kDouble, kVanish };
  struct Op {
    A* dst;
    const A* src;
    bool neg;
    uint8_t kind = kAdd;
  };
  std::vector<Op> ops_;
  std::vector<F> prefix_, den_;
  std::vector<A*> dsts_;  // flush_ifma's arguments
  std::vector<const A*> srcs_;
  std::vector<uint8_t> negs_;
};

// Additions per batch inversion for affine buckets: large batches amortize the inversion, but
// a bucket can be in a batch only once and deferrals grow with batch / buckets; a quarter of
// the buckets, within [64, 1024], measured best.
inline size_t batch_size(size_t buckets) {
  return std::clamp<size_t>(buckets / 4, 64, 1024);
}

// Affine buckets. add() queues bucket += point; a bucket already in the batch defers its
// addition to the next batch, and when deferrals pile up (many equal digits) they go to
// Jacobian overflow buckets instead.
template <typename P>
class AffineBuckets {
 public:
  using A = typename P::Affine;

  explicit AffineBuckets(size_t buckets)
      : buckets_(buckets, A::identity()), busy_(buckets, 0), cap_(batch_size(buckets)) {}

  void add(uint32_t bucket, const A* point, bool neg) {
    push({bucket, neg, point});
    if (adder_.size() >= cap_) {
      while (adder_.size() >= cap_) round();
    } else if (deferred_.size() >= 4 * cap_) {
      spill();
    }
  }

  void finish() {
    while (adder_.size() != 0 || !deferred_.empty()) {
      round();
      if (deferred_.size() > adder_.size()) spill();
    }
  }

  P reduce();
  // sum_j b_j, unweighted (Jacobian; one addition per bucket).
  P sum() const {
    P total = P::identity();
    for (const A& b : buckets_) {
      if (!b.infinity) total = point_add_mixed(total, b);
    }
    for (const P& o : overflow_) total = point_add(total, o);
    return total;
  }

 private:
  struct Op {
    uint32_t bucket;
    bool neg;
    const A* point;
  };

  void push(const Op& op) {
    A& b = buckets_[op.bucket];
    if (busy_[op.bucket]) {
      deferred_.push_back(op);
    } else if (b.infinity) {
      b = op.neg ? -*op.point : *op.point;
    } else {
      busy_[op.bucket] = 1;
      pending_.push_back(op.bucket);
      adder_.push(&b, op.point, op.neg);
    }
  }

  void round() {
    adder_.flush();
    for (uint32_t b : pending_) busy_[b] = 0;
    pending_.clear();
    retry_.swap(deferred_);
    for (const Op& op : retry_) push(op);
    retry_.clear();
  }

  void spill() {
    if (overflow_.empty()) overflow_.assign(buckets_.size(), P::identity());
    for (const Op& op : deferred_) {
      overflow_[op.bucket] = point_add_mixed(overflow_[op.bucket], op.neg ? -*op.point : *op.point);
    }
    deferred_.clear();
  }

  std::vector<A> buckets_;
  std::vector<uint8_t> busy_;
  std::vector<uint32_t> pending_;
  std::vector<P> overflow_;  // empty until the first spill
  std::vector<Op> deferred_, retry_;
  AffineAdder<typename P::Field> adder_;
  size_t cap_;
};

// sum_j (j + 1) b_j by running sums from the top (Jacobian; 2 additions per bucket).
template <typename P, typename B>
P running_sum(const std::vector<B>& b) {
  P running = P::identity(), total = P::identity();
  for (size_t j = b.size(); j-- > 0;) {
    if constexpr (std::is_same_v<B, P>) {
      running = point_add(running, b[j]);
    } else if (!b[j].infinity) {
      running = point_add_mixed(running, b[j]);
    }
    total = point_add(total, running);
  }
  return total;
}

// sum_j (j + 1) b_j for affine b (a power-of-two count) in batch-affine form: G segments of L
// buckets run their running sums side by side, each step one batch of 2G additions; then
// sum = sum_g T_g + L sum_g g S_g (T_g: the segment's weighted sum, S_g: its plain sum).
inline constexpr size_t kAffineSumSegments = 256;
template <typename P>
P affine_running_sum(const std::vector<typename P::Affine>& b) {
  using A = typename P::Affine;
  constexpr size_t kSegments = kAffineSumSegments;
  if (b.size() < 4 * kSegments) return running_sum<P>(b);
  const size_t len = b.size() / kSegments;
  std::vector<A> sum(kSegments, A::identity()), weighted(kSegments, A::identity()), old(kSegments);
  AffineAdder<typename P::Field> adder;
  auto add = [&](A& dst, const A& src) {
    if (src.infinity) return;
    if (dst.infinity) {
      dst = src;
    } else {
      adder.push(&dst, &src, false);
    }
  };
  for (size_t i = len; i-- > 0;) {
    old = sum;
    for (size_t g = 0; g < kSegments; ++g) {
      add(weighted[g], old[g]);
      add(sum[g], b[g * len + i]);
    }
    adder.flush();
  }
  for (size_t g = 0; g < kSegments; ++g) add(weighted[g], sum[g]);
  adder.flush();
  P total = P::identity(), running = P::identity(), scaled = P::identity();
  for (size_t g = kSegments; g-- > 0;) {
    if (!weighted[g].infinity) total = point_add_mixed(total, weighted[g]);
    if (g == 0) break;
    if (!sum[g].infinity) running = point_add_mixed(running, sum[g]);
    scaled = point_add(scaled, running);  // sum_g g S_g
  }
  for (size_t s = len; s > 1; s /= 2) scaled = point_dbl(scaled);
  return point_add(total, scaled);
}

template <typename P>
P AffineBuckets<P>::reduce() {
  P total = affine_running_sum<P>(buckets_);
  if (!overflow_.empty()) total = point_add(total, running_sum<P>(overflow_));
  return total;
}

// Jacobian buckets: one mixed addition per point.
template <typename P>
class JacobianBuckets {
 public:
  using A = typename P::Affine;
  explicit JacobianBuckets(size_t buckets) : buckets_(buckets, P::identity()) {}
  void add(uint32_t bucket, const A* point, bool neg) {
    buckets_[bucket] = point_add_mixed(buckets_[bucket], neg ? -*point : *point);
  }
  void finish() {}
  P reduce() const { return running_sum<P>(buckets_); }

 private:
  std::vector<P> buckets_;
};

}  // namespace zkpipe::crypto::msm_detail
