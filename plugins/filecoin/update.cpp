// Filecoin's SnapDeals circuit (zkpipe/filecoin_circuit/update.h).
#include "zkpipe/filecoin_circuit/update.h"

#include <bit>
#include <stdexcept>
#include <string>

#include "zkpipe/filecoin/poseidon.h"
#include "zkpipe/filecoin_circuit/poseidon.h"
#include "zkpipe/filecoin_circuit/sha256.h"

namespace zkpipe::filecoin_circuit {
namespace {

constexpr uint32_t kGenRandomness = 1;  // HASH_TYPE_GEN_RANDOMNESS: Custom(Arbitrary(1))
constexpr uint64_t k8KiB = 1 << 8, k32KiB = 1 << 10, k16MiB = 1 << 19;

uint32_t log2_exact(uint64_t v) {
  return static_cast<uint32_t>(std::countr_zero(v));
}

Fr gen_randomness(const Fr& a, const Fr& b) {
  const Fr pair[2] = {a, b};
  return filecoin::poseidon_custom(kGenRandomness, pair);
}

uint32_t digests_per_partition(const UpdateShape& s) {
  const uint32_t per_digest = kFrCapacity / (s.challenge_bit_len - s.partition_bit_len);
  return (s.challenge_count + per_digest - 1) / per_digest;
}

bool fr_bit(const Fr& x, unsigned i) {
  return (x.to_canonical()[i / 64] >> (i % 64)) & 1;
}

Fr pow2(unsigned i) {
  Fr r = Fr::one();
  for (unsigned k = 0; k < i; ++k) r = r.dbl();
  return r;
}

std::vector<Num> alloc_all(ConstraintSystem& cs, const std::vector<Fr>& values) {
  std::vector<Num> out;
  out.reserve(values.size());
  for (const Fr& v : values) out.push_back(Num::alloc(cs, v));
  return out;
}

// Single-sibling path levels, allocated.
std::vector<std::vector<Num>> alloc_binary_path(ConstraintSystem& cs, std::span<const Fr> path) {
  std::vector<std::vector<Num>> out;
  out.reserve(path.size());
  for (const Fr& v : path) out.push_back({Num::alloc(cs, v)});
  return out;
}

// allocated_num_to_allocated_bits: 255 bits, then (sum 2^i b_i) * 1 = num.
std::vector<Boolean> num_to_allocated_bits(ConstraintSystem& cs, const Num& num) {
  std::vector<Boolean> bits;
  bits.reserve(255);
  for (unsigned i = 0; i < 255; ++i) bits.push_back(alloc_bit(cs, fr_bit(num.value, i)));
  cs.enforce_with(
      [&](LinearCombination& l) {
        Fr c = Fr::one();
        for (const Boolean& b : bits) {
          l.add(c, b.variable());
          c = c.dbl();
        }
      },
      [](LinearCombination& l) { l += Variable::one(); },
      [&](LinearCombination& l) { l += num.var; });
  return bits;
}

// apex_por: the apex tree over the partition's leaves (SHA-256 pairs, row by row), then the
// apex root's path up to comm_d, positioned by the partition bits.
void apex_por(ConstraintSystem& cs, const std::vector<Num>& apex_leafs,
              std::span<const Boolean> partition_bits,
              const std::vector<std::vector<Num>>& partition_path, const Num& comm_d) {
  std::vector<Num> row = apex_leafs;
  while (row.size() > 1) {
    std::vector<Num> up;
    up.reserve(row.size() / 2);
    for (size_t i = 0; i < row.size(); i += 2) up.push_back(sha256_hash2(cs, row[i], row[i + 1]));
    row = std::move(up);
  }
  por_no_challenge_input(cs, TreeHasher::kSha256, partition_bits, row[0], partition_path, comm_d);
}

}  // namespace

std::vector<std::vector<Boolean>> update_challenge_bits(ConstraintSystem& cs, const UpdateShape& s,
                                                        const Num& comm_r_new,
                                                        const Num& partition) {
  const uint32_t bits_per_challenge = s.challenge_bit_len - s.partition_bit_len;
  const uint32_t per_digest = kFrCapacity / bits_per_challenge;
  const uint32_t digests = digests_per_partition(s);
  std::vector<std::vector<Boolean>> out;
  out.reserve(s.challenge_count);
  const Fr dpp = Fr::from_u64(digests);
  for (uint32_t j = 0; j < digests; ++j) {
    const Fr fj = Fr::from_u64(j);
    const Num digest_index = Num::alloc(cs, partition.value * dpp + fj);
    cs.enforce_with(
        [&](LinearCombination& l) {
          l.add(dpp, partition.var);
          l.add(fj, Variable::one());
        },
        [](LinearCombination& l) { l += Variable::one(); },
        [&](LinearCombination& l) { l += digest_index.var; });
    const Num digest = update_gen_randomness(cs, comm_r_new, digest_index);
    const std::vector<Boolean> bits = num_to_allocated_bits(cs, digest);
    const uint32_t take =
        j == digests - 1 ? s.challenge_count - static_cast<uint32_t>(out.size()) : per_digest;
    for (uint32_t c = 0; c < take; ++c) {
      out.emplace_back(bits.begin() + c * bits_per_challenge,
                       bits.begin() + (c + 1) * bits_per_challenge);
    }
  }
  return out;
}

Num update_gen_randomness(ConstraintSystem& cs, const Num& a, const Num& b) {
  const Num pair[2] = {a, b};
  return poseidon_hash_custom(cs, kGenRandomness, pair);
}

Num update_challenge_high_bits(ConstraintSystem& cs, const UpdateShape& s,
                               std::span<const Boolean> c_bits,
                               std::span<const Boolean> h_select_bits) {
  std::vector<Num> c_high_or_zero;
  for (size_t k = 0; k < s.hs.size(); ++k) {
    const Num c_high = pack_bits(cs, c_bits.subspan(c_bits.size() - s.hs[k]));
    const Boolean& select = h_select_bits[k];
    const Num chosen = Num::alloc(cs, select.value() ? c_high.value : Fr::zero());
    cs.enforce_with([&](LinearCombination& l) { l += c_high.var; },
                    [&](LinearCombination& l) { l += select.variable(); },
                    [&](LinearCombination& l) { l += chosen.var; });
    c_high_or_zero.push_back(chosen);
  }
  Fr sum = Fr::zero();
  for (const Num& n : c_high_or_zero) sum += n.value;
  const Num selected = Num::alloc(cs, sum);
  cs.enforce_with(
      [&](LinearCombination& l) {
        for (const Num& n : c_high_or_zero) l += n.var;
      },
      [](LinearCombination& l) { l += Variable::one(); },
      [&](LinearCombination& l) { l += selected.var; });
  return selected;
}

// label_r_new: d * rho allocated (AllocatedNum::mul), then r_old + d rho = r_new.
Num update_label_r_new(ConstraintSystem& cs, const Num& r_old, const Num& d_new, const Num& rho) {
  const Num product = Num::alloc(cs, d_new.value * rho.value);
  cs.enforce_with([&](LinearCombination& l) { l += d_new.var; },
                  [&](LinearCombination& l) { l += rho.var; },
                  [&](LinearCombination& l) { l += product.var; });
  const Num r_new = Num::alloc(cs, r_old.value + product.value);
  cs.enforce_with(
      [&](LinearCombination& l) {
        l += r_old.var;
        l += product.var;
      },
      [](LinearCombination& l) { l += Variable::one(); },
      [&](LinearCombination& l) { l += r_new.var; });
  return r_new;
}

namespace {

uint32_t tree_r_path_levels(const UpdateShape& s) {
  return base_path_length(s.sector_nodes, s.tree_r) + (s.tree_r.sub != 0) + (s.tree_r.top != 0);
}

void check_shape(const UpdateShape& s, const UpdateWitness& w) {
  const auto fail = [](const std::string& what) {
    throw std::invalid_argument("SnapDeals witness: " + what);
  };
  if (w.apex_leafs.size() != s.apex_leaf_count) fail("wrong apex leaf count");
  if (w.challenges.size() != s.challenge_count) fail("wrong challenge count");
  const uint32_t levels = tree_r_path_levels(s);
  const uint32_t base = base_path_length(s.sector_nodes, s.tree_r);
  for (size_t i = 0; i < w.challenges.size(); ++i) {
    const UpdateChallengeWitness& c = w.challenges[i];
    const std::string at = " (challenge " + std::to_string(i) + ")";
    if (c.path_d_new.size() != s.challenge_bit_len) fail("tree_d path length" + at);
    for (const auto* path : {&c.path_r_old, &c.path_r_new}) {
      if (path->size() != levels) fail("tree_r path length" + at);
      for (uint32_t l = 0; l < levels; ++l) {
        if ((*path)[l].size() + 1 != level_arity(l, base, s.tree_r)) fail("tree_r arity" + at);
      }
    }
    for (uint32_t l = s.challenge_bit_len - s.partition_bit_len; l < s.challenge_bit_len; ++l) {
      if (!(c.path_d_new[l] == w.challenges[0].path_d_new[l])) {
        fail("partition path differs from the first challenge's" + at);
      }
    }
  }
}

}  // namespace

UpdateShape update_shape(uint64_t sector_nodes) {
  struct Row {
    uint64_t nodes;
    TreeArities tree_r;
  };
  static constexpr Row kRows[] = {
      {1 << 5, {8, 4, 0}},
      {1 << 6, {8, 0, 0}},
      {1 << 7, {8, 2, 0}},
      {1 << 8, {8, 4, 0}},
      {1 << 9, {8, 8, 0}},
      {1 << 10, {8, 8, 2}},
      {1 << 18, {8, 0, 0}},
      {1 << 19, {8, 2, 0}},
      {1 << 24, {8, 0, 0}},
      {1 << 30, {8, 8, 0}},
      {uint64_t{1} << 31, {8, 8, 2}},
  };
  for (const Row& r : kRows) {
    if (r.nodes != sector_nodes) continue;
    UpdateShape s;
    s.sector_nodes = sector_nodes;
    s.tree_r = r.tree_r;
    s.challenge_bit_len = log2_exact(sector_nodes);
    s.challenge_count = sector_nodes <= k16MiB ? 10 : 86;
    s.partition_count = sector_nodes <= k8KiB    ? 1
                        : sector_nodes <= k32KiB ? 2
                        : sector_nodes <= k16MiB ? 4
                                                 : 16;
    s.partition_bit_len = log2_exact(s.partition_count);
    s.apex_leaf_count = sector_nodes <= k8KiB ? 8 : 128;
    s.apex_leaf_bit_len = log2_exact(s.apex_leaf_count);
    s.hs = sector_nodes <= k32KiB ? std::array<uint32_t, 6>{1, 1, 1, 1, 1, 1}
                                  : std::array<uint32_t, 6>{7, 8, 9, 10, 11, 12};
    return s;
  }
  throw std::invalid_argument("SnapDeals: sector of " + std::to_string(sector_nodes) +
                              " nodes is not an allowed size");
}

UpdateShape update_poseidon_shape(uint64_t sector_nodes) {
  UpdateShape s = update_shape(sector_nodes);
  s.challenge_count *= s.partition_count;
  s.partition_count = 1;
  s.partition_bit_len = 0;
  s.apex_leaf_count = 0;
  s.apex_leaf_bit_len = 0;
  return s;
}

std::vector<uint32_t> update_challenges(const UpdateShape& s, const Fr& comm_r_new, uint32_t k) {
  if (k >= s.partition_count) throw std::invalid_argument("SnapDeals: partition out of range");
  const uint32_t bits = s.challenge_bit_len - s.partition_bit_len;
  const uint32_t per_digest = kFrCapacity / bits;
  uint64_t digest_index = uint64_t{k} * digests_per_partition(s);
  std::vector<uint32_t> out;
  out.reserve(s.challenge_count);
  uint32_t i = 0;
  Fr digest;
  while (out.size() < s.challenge_count) {
    if (i == 0) digest = gen_randomness(comm_r_new, Fr::from_u64(digest_index));
    uint32_t c = 0;
    for (uint32_t b = 0; b < bits; ++b) {
      if (fr_bit(digest, i * bits + b)) c |= uint32_t{1} << b;
    }
    out.push_back(c | (k << bits));
    if (++i == per_digest) {
      i = 0;
      ++digest_index;
    }
  }
  return out;
}

Fr update_phi(const Fr& comm_d_new, const Fr& comm_r_old) {
  return gen_randomness(comm_d_new, comm_r_old);
}

Fr update_rho(const UpdateShape& s, const Fr& phi, uint32_t h, uint64_t node) {
  return gen_randomness(phi, Fr::from_u64(node >> (s.challenge_bit_len - h)));
}

uint64_t update_k_and_h_select(const UpdateShape& s, uint32_t k, uint32_t h) {
  for (size_t i = 0; i < s.hs.size(); ++i) {
    if (s.hs[i] == h) return uint64_t{k} | (uint64_t{1} << i) << s.partition_bit_len;
  }
  throw std::invalid_argument("SnapDeals: h = " + std::to_string(h) +
                              " is not allowed for this sector size");
}

UpdateWitness blank_update(const UpdateShape& s) {
  UpdateWitness w;
  w.apex_leafs.assign(s.apex_leaf_count, Fr::zero());
  const MerkleOpening r = blank_opening(s.sector_nodes, s.tree_r);
  UpdateChallengeWitness c;
  for (const PathElement& e : r.path) c.path_r_old.push_back(e.siblings);
  c.path_r_new = c.path_r_old;
  c.path_d_new.assign(s.challenge_bit_len, Fr::zero());
  w.challenges.assign(s.challenge_count, c);
  return w;
}

void synthesize_update(ConstraintSystem& cs, const UpdateShape& s, const UpdateWitness& w) {
  check_shape(s, w);
  const uint32_t select_len = static_cast<uint32_t>(s.hs.size());

  const Num k_and_h_select = Num::alloc(cs, Fr::from_u64(w.k_and_h_select));
  inputize(cs, k_and_h_select);
  std::vector<Boolean> kh_bits;
  for (uint32_t i = 0; i < s.partition_bit_len + select_len; ++i) {
    kh_bits.push_back(alloc_bit(cs, (w.k_and_h_select >> i) & 1));
  }
  cs.enforce_with(
      [&](LinearCombination& l) {
        for (size_t i = 0; i < kh_bits.size(); ++i) l.add(pow2(i), kh_bits[i].variable());
      },
      [](LinearCombination& l) { l += Variable::one(); },
      [&](LinearCombination& l) { l += k_and_h_select.var; });
  const std::span<const Boolean> partition_bits(kh_bits.data(), s.partition_bit_len);
  const std::span<const Boolean> h_select_bits(kh_bits.data() + s.partition_bit_len, select_len);
  const Num partition = pack_bits(cs, partition_bits);

  const Num comm_r_old = Num::alloc(cs, w.comm_r_old);
  inputize(cs, comm_r_old);
  const Num comm_d_new = Num::alloc(cs, w.comm_d_new);
  inputize(cs, comm_d_new);
  const Num comm_r_new = Num::alloc(cs, w.comm_r_new);
  inputize(cs, comm_r_new);
  const Num phi = update_gen_randomness(cs, comm_d_new, comm_r_old);

  const Num comm_c = Num::alloc(cs, w.comm_c);
  const Num root_r_old = Num::alloc(cs, w.root_r_old);
  const Num root_r_new = Num::alloc(cs, w.root_r_new);
  const std::vector<Num> apex_leafs = alloc_all(cs, w.apex_leafs);
  const uint32_t below_partition = s.challenge_bit_len - s.partition_bit_len;
  const std::vector<std::vector<Num>> partition_path = alloc_binary_path(
      cs, std::span<const Fr>(w.challenges[0].path_d_new).subspan(below_partition));

  const Num pair_old[2] = {comm_c, root_r_old};
  equal(cs, poseidon_hash(cs, pair_old), comm_r_old);
  const Num pair_new[2] = {comm_c, root_r_new};
  equal(cs, poseidon_hash(cs, pair_new), comm_r_new);

  apex_por(cs, apex_leafs, partition_bits, partition_path, comm_d_new);

  const std::vector<std::vector<Boolean>> generated =
      update_challenge_bits(cs, s, comm_r_new, partition);
  for (size_t ci = 0; ci < generated.size(); ++ci) {
    const UpdateChallengeWitness& cw = w.challenges[ci];
    std::vector<Boolean> c_bits = generated[ci];
    c_bits.insert(c_bits.end(), partition_bits.begin(), partition_bits.end());

    const Num c_high = update_challenge_high_bits(cs, s, c_bits, h_select_bits);
    const Num rho = update_gen_randomness(cs, phi, c_high);
    const Num leaf_r_old = Num::alloc(cs, cw.leaf_r_old);
    const Num leaf_d_new = Num::alloc(cs, cw.leaf_d_new);
    const Num leaf_r_new = update_label_r_new(cs, leaf_r_old, leaf_d_new, rho);

    std::vector<std::vector<Num>> path_r_old;
    for (const std::vector<Fr>& level : cw.path_r_old) path_r_old.push_back(alloc_all(cs, level));
    por_no_challenge_input(cs, TreeHasher::kPoseidon, c_bits, leaf_r_old, path_r_old, root_r_old);

    std::vector<std::vector<Num>> path_r_new;
    for (const std::vector<Fr>& level : cw.path_r_new) path_r_new.push_back(alloc_all(cs, level));
    por_no_challenge_input(cs, TreeHasher::kPoseidon, c_bits, leaf_r_new, path_r_new, root_r_new);

    const uint32_t to_apex = below_partition - s.apex_leaf_bit_len;
    const std::span<const Boolean> all_bits(c_bits);
    const Num apex_leaf = select(cs, apex_leafs, all_bits.subspan(to_apex, s.apex_leaf_bit_len));
    const std::vector<std::vector<Num>> path_to_apex =
        alloc_binary_path(cs, std::span<const Fr>(cw.path_d_new).first(to_apex));
    por_no_challenge_input(cs, TreeHasher::kSha256, all_bits.first(to_apex), leaf_d_new,
                           path_to_apex, apex_leaf);
  }
}

}  // namespace zkpipe::filecoin_circuit
