// Filecoin's Poseidon in-circuit, neptune's way (zkpipe/filecoin_circuit/poseidon.h).
#include "zkpipe/filecoin_circuit/poseidon.h"

#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include "zkpipe/filecoin/poseidon.h"

namespace zkpipe::filecoin_circuit {
namespace {

using Matrix = std::vector<std::vector<Fr>>;

Matrix identity(size_t n) {
  Matrix m(n, std::vector<Fr>(n, Fr::zero()));
  for (size_t i = 0; i < n; ++i) m[i][i] = Fr::one();
  return m;
}

Matrix transpose(const Matrix& m) {
  Matrix t(m[0].size(), std::vector<Fr>(m.size()));
  for (size_t i = 0; i < m.size(); ++i) {
    for (size_t j = 0; j < m[i].size(); ++j) t[j][i] = m[i][j];
  }
  return t;
}

Matrix mat_mul(const Matrix& a, const Matrix& b) {
  Matrix r(a.size(), std::vector<Fr>(b[0].size(), Fr::zero()));
  for (size_t i = 0; i < a.size(); ++i) {
    for (size_t k = 0; k < b.size(); ++k) {
      for (size_t j = 0; j < b[0].size(); ++j) r[i][j] += a[i][k] * b[k][j];
    }
  }
  return r;
}

// The inverse is unique, so any elimination gives neptune's. Throws if singular.
Matrix invert(Matrix m) {
  const size_t n = m.size();
  Matrix inv = identity(n);
  for (size_t col = 0; col < n; ++col) {
    size_t pivot = col;
    while (pivot < n && m[pivot][col].is_zero()) ++pivot;
    if (pivot == n) throw std::logic_error("poseidon: singular matrix");
    std::swap(m[pivot], m[col]);
    std::swap(inv[pivot], inv[col]);
    const Fr s = m[col][col].inverse();
    for (size_t j = 0; j < n; ++j) {
      m[col][j] *= s;
      inv[col][j] *= s;
    }
    for (size_t i = 0; i < n; ++i) {
      if (i == col || m[i][col].is_zero()) continue;
      const Fr f = m[i][col];
      for (size_t j = 0; j < n; ++j) {
        m[i][j] -= f * m[col][j];
        inv[i][j] -= f * inv[col][j];
      }
    }
  }
  return inv;
}

Matrix minor00(const Matrix& m) {
  Matrix r;
  for (size_t i = 1; i < m.size(); ++i) r.emplace_back(m[i].begin() + 1, m[i].end());
  return r;
}

// neptune's left_apply_matrix: (m v)[i] = sum_j m[i][j] v[j].
std::vector<Fr> left_apply(const Matrix& m, std::span<const Fr> v) {
  std::vector<Fr> r(v.size(), Fr::zero());
  for (size_t i = 0; i < m.size(); ++i) {
    for (size_t j = 0; j < v.size(); ++j) r[i] += m[i][j] * v[j];
  }
  return r;
}

// neptune's make_prime: row 0 = e_0, the other rows keep their entries after the first.
Matrix make_prime(const Matrix& m) {
  Matrix r(m.size(), std::vector<Fr>(m.size(), Fr::zero()));
  r[0][0] = Fr::one();
  for (size_t i = 1; i < m.size(); ++i) {
    for (size_t j = 1; j < m.size(); ++j) r[i][j] = m[i][j];
  }
  return r;
}

// neptune's make_double_prime: row 0 = m's row 0; row i = w_hat[i-1] e_0 + e_i with
// w_hat = minor(m)^-1 w, w the first column below row 0.
Matrix make_double_prime(const Matrix& m) {
  const size_t n = m.size();
  std::vector<Fr> w;
  for (size_t i = 1; i < n; ++i) w.push_back(m[i][0]);
  const std::vector<Fr> w_hat = left_apply(invert(minor00(m)), w);
  Matrix r(n, std::vector<Fr>(n, Fr::zero()));
  r[0] = m[0];
  for (size_t i = 1; i < n; ++i) {
    r[i][0] = w_hat[i - 1];
    r[i][i] = Fr::one();
  }
  return r;
}

std::unique_ptr<NeptuneConstants> derive(uint32_t arity) {
  const crypto::PoseidonParams& p = filecoin::poseidon(arity);
  auto out = std::make_unique<NeptuneConstants>();
  NeptuneConstants& c = *out;
  const size_t w = p.width, half = p.full_rounds / 2, partial = p.partial_rounds;
  c.width = p.width;
  c.full_rounds = p.full_rounds;
  c.partial_rounds = p.partial_rounds;
  c.domain_tag = Fr::from_u64((uint64_t{1} << arity) - 1);

  Matrix m(w, std::vector<Fr>(w));
  for (size_t i = 0; i < w; ++i) {
    for (size_t j = 0; j < w; ++j) m[i][j] = p.mds[i * w + j];
  }
  const Matrix m_inv = invert(m);
  auto round_keys = [&](size_t r) { return std::span<const Fr>(&p.round_constants[r * w], w); };
  auto append = [&](std::span<const Fr> v) {
    c.compressed_round_constants.insert(c.compressed_round_constants.end(), v.begin(), v.end());
  };

  // neptune's compress_round_constants with every partial round preprocessed.
  append(round_keys(0));
  for (size_t i = 0; i + 1 < half; ++i) append(left_apply(m_inv, round_keys(i + 1)));
  const size_t final_round = half + partial;
  std::vector<Fr> acc(round_keys(final_round).begin(), round_keys(final_round).end());
  std::vector<Fr> partial_keys;
  for (size_t i = 0; i < partial; ++i) {
    std::vector<Fr> inverted = left_apply(m_inv, acc);
    partial_keys.push_back(inverted[0]);
    inverted[0] = Fr::zero();
    const std::span<const Fr> previous = round_keys(final_round - i - 1);
    for (size_t j = 0; j < w; ++j) acc[j] = previous[j] + inverted[j];
  }
  append(left_apply(m_inv, acc));
  for (size_t i = partial_keys.size(); i-- > 0;)
    c.compressed_round_constants.push_back(partial_keys[i]);
  for (size_t i = 1; i < half; ++i) append(left_apply(m_inv, round_keys(i + final_round)));
  if (c.compressed_round_constants.size() != p.full_rounds * w + partial) {
    throw std::logic_error("poseidon: compressed constants have the wrong length");
  }

  // neptune's factor_to_sparse_matrices over the transposed MDS.
  const Matrix base = transpose(m);
  Matrix curr = base;
  std::vector<Matrix> doubles;
  for (size_t i = 0; i < partial; ++i) {
    (void)invert(curr);  // neptune derives the inverse too and requires it to exist
    doubles.push_back(make_double_prime(curr));
    curr = mat_mul(base, make_prime(curr));
  }
  for (size_t i = doubles.size(); i-- > 0;) {
    NeptuneConstants::Sparse s;
    for (size_t r = 0; r < w; ++r) s.w_hat.push_back(doubles[i][r][0]);
    s.v_rest.assign(doubles[i][0].begin() + 1, doubles[i][0].end());
    c.sparse.push_back(std::move(s));
  }
  for (const auto& row : m) c.mds.insert(c.mds.end(), row.begin(), row.end());
  for (const auto& row : curr) c.pre_sparse.insert(c.pre_sparse.end(), row.begin(), row.end());
  return out;
}

// neptune's Elt: an allocated number, or a linear combination with its value (the terms are
// kept only when the ConstraintSystem records).
struct Elt {
  bool allocated = false;
  Num num;  // when allocated
  LinearCombination lc;
  Fr value;

  static Elt of(const Num& n) { return {true, n, {}, n.value}; }
  static Elt constant(const Fr& v, bool record) {
    Elt e{false, {}, {}, v};
    if (record) e.lc.add(v, Variable::one());
    return e;
  }
};

class Circuit {
 public:
  Circuit(ConstraintSystem& cs, const NeptuneConstants& k, std::vector<Elt> elements)
      : cs_(cs), k_(k), record_(!cs.witness_only()), e_(std::move(elements)) {}

  Num hash() {
    const uint32_t half = k_.full_rounds / 2;
    full_round(true, false);
    for (uint32_t i = 1; i < half; ++i) full_round(false, false);
    for (uint32_t i = 0; i < k_.partial_rounds; ++i) partial_round();
    for (uint32_t i = 0; i + 1 < half; ++i) full_round(false, false);
    full_round(false, true);
    return ensure_allocated(e_[1]);
  }

 private:
  const Fr& key(size_t i) const { return k_.compressed_round_constants[i]; }

  // The value of an Elt as a linear combination (its terms, or its variable).
  void add_scaled(LinearCombination& to, const Elt& e, const Fr& s) const {
    if (e.allocated) {
      to.add(s, e.num.var);
      return;
    }
    for (const auto& [v, c] : e.lc.terms()) to.add(c * s, v);
  }

  Num ensure_allocated(const Elt& e) {
    if (e.allocated) return e.num;
    const Num v = Num::alloc(cs_, e.value);
    cs_.enforce_with([&](LinearCombination& a) { a = e.lc; },
                     [](LinearCombination& b) { b += Variable::one(); },
                     [&](LinearCombination& c) { c += v.var; });
    return v;
  }

  // l4 * (l + pre) + post, allocated; (l + pre) * l4 = res - post.
  Num mul_sum(const Num& l4, const Num& l, const Fr* pre, const Fr* post) {
    Fr t = l.value;
    if (pre) t += *pre;
    t *= l4.value;
    if (post) t += *post;
    const Num res = Num::alloc(cs_, t);
    cs_.enforce_with(
        [&](LinearCombination& a) {
          a += l.var;
          if (pre) a.add(*pre, Variable::one());
        },
        [&](LinearCombination& b) { b += l4.var; },
        [&](LinearCombination& c) {
          c += res.var;
          if (post) c.add(-*post, Variable::one());
        });
    return res;
  }

  Elt s_box(const Elt& e, const Fr* post) {
    const Num l = ensure_allocated(e);
    const Num l2 = square(cs_, l);
    const Num l4 = square(cs_, l2);
    return Elt::of(mul_sum(l4, l, nullptr, post));
  }

  Elt s_box_pre_add(const Elt& e, const Fr& pre, const Fr& post) {
    const Num l = ensure_allocated(e);
    const Fr s = l.value + pre;
    const Num l2 = Num::alloc(cs_, s * s);
    cs_.enforce_with(
        [&](LinearCombination& a) {
          a += l.var;
          a.add(pre, Variable::one());
        },
        [&](LinearCombination& b) {
          b += l.var;
          b.add(pre, Variable::one());
        },
        [&](LinearCombination& c) { c += l2.var; });
    const Num l4 = square(cs_, l2);
    return Elt::of(mul_sum(l4, l, &pre, &post));
  }

  void full_round(bool first, bool last) {
    const size_t w = k_.width;
    size_t offset = offset_;
    const size_t pre = offset;
    if (first) offset += w;
    const size_t post = offset;
    const bool has_post = first || !last;
    if (has_post) offset += w;
    for (size_t i = 0; i < w; ++i) {
      const Fr* post_key = has_post ? &key(post + i) : nullptr;
      if (first && i == 0) {
        // The tag is a constant: its S-box is computed, not constrained.
        Fr t = e_[0].value + key(pre);
        t = t.sqr().sqr() * t + *post_key;
        e_[0] = Elt::constant(t, record_);
      } else if (first) {
        e_[i] = s_box_pre_add(e_[i], key(pre + i), *post_key);
      } else {
        e_[i] = s_box(e_[i], post_key);
      }
    }
    offset_ = offset;
    product_mds();
  }

  void partial_round() {
    const Fr& k = key(offset_++);
    e_[0] = s_box(e_[0], &k);
    product_mds();
  }

  // result[j] = sum_i e[i] m[i][j] (neptune's product_mds_with_matrix).
  void dense(const std::vector<Fr>& m) {
    const size_t w = k_.width;
    std::vector<Elt> r(w);
    for (size_t j = 0; j < w; ++j) {
      Fr v = Fr::zero();
      for (size_t i = 0; i < w; ++i) {
        v += e_[i].value * m[i * w + j];
        if (record_) add_scaled(r[j].lc, e_[i], m[i * w + j]);
      }
      r[j].value = v;
    }
    e_ = std::move(r);
  }

  // result[0] = sum_i e[i] w_hat[i]; result[j] = e[j] + e[0] v_rest[j-1].
  void sparse(const NeptuneConstants::Sparse& s) {
    const size_t w = k_.width;
    std::vector<Elt> r(w);
    Fr v = Fr::zero();
    for (size_t i = 0; i < w; ++i) {
      v += e_[i].value * s.w_hat[i];
      if (record_) add_scaled(r[0].lc, e_[i], s.w_hat[i]);
    }
    r[0].value = v;
    for (size_t j = 1; j < w; ++j) {
      r[j].value = e_[j].value + e_[0].value * s.v_rest[j - 1];
      if (record_) {
        add_scaled(r[j].lc, e_[j], Fr::one());
        add_scaled(r[j].lc, e_[0], s.v_rest[j - 1]);
      }
    }
    e_ = std::move(r);
  }

  void product_mds() {
    const uint32_t half = k_.full_rounds / 2, sparse_offset = half - 1;
    if (round_ == sparse_offset) {
      dense(k_.pre_sparse);
    } else if (round_ > sparse_offset && round_ < half + k_.partial_rounds) {
      sparse(k_.sparse[round_ - sparse_offset - 1]);
    } else {
      dense(k_.mds);
    }
    ++round_;
  }

  ConstraintSystem& cs_;
  const NeptuneConstants& k_;
  const bool record_;
  std::vector<Elt> e_;
  size_t offset_ = 0;
  uint32_t round_ = 0;
};

}  // namespace

const NeptuneConstants& neptune_constants(uint32_t arity) {
  static std::mutex mu;
  static std::map<uint32_t, std::unique_ptr<NeptuneConstants>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto& slot = cache[arity];
  if (!slot) slot = derive(arity);  // filecoin::poseidon throws for an unsupported arity
  return *slot;
}

namespace {

Num tagged_hash(ConstraintSystem& cs, std::span<const Num> preimage, const Fr* tag) {
  const NeptuneConstants& k = neptune_constants(static_cast<uint32_t>(preimage.size()));
  std::vector<Elt> elements;
  elements.reserve(k.width);
  elements.push_back(Elt::constant(tag ? *tag : k.domain_tag, !cs.witness_only()));
  for (const Num& n : preimage) elements.push_back(Elt::of(n));
  return Circuit(cs, k, std::move(elements)).hash();
}

}  // namespace

Num poseidon_hash(ConstraintSystem& cs, std::span<const Num> preimage) {
  return tagged_hash(cs, preimage, nullptr);
}

Num poseidon_hash_custom(ConstraintSystem& cs, uint32_t id, std::span<const Num> preimage) {
  if (id < 1 || id > 256) throw std::invalid_argument("poseidon custom hash type: id 1..256");
  const Fr tag = Fr::from_u64(uint64_t{id} << 40);
  return tagged_hash(cs, preimage, &tag);
}

uint64_t poseidon_hash_constraints(uint32_t arity) {
  const NeptuneConstants& k = neptune_constants(arity);
  const uint64_t s_boxes = uint64_t{k.width} * k.full_rounds + k.partial_rounds - 1;
  return 3 * s_boxes + uint64_t{k.width} * k.full_rounds + k.partial_rounds - arity;
}

}  // namespace zkpipe::filecoin_circuit
