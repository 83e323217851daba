// Filecoin's SnapDeals circuit, the Poseidon variant (zkpipe/filecoin_circuit/update.h):
// storage-proofs-update src/poseidon/circuit.rs in its allocation and constraint order.
#include <stdexcept>
#include <string>

#include "zkpipe/filecoin_circuit/poseidon.h"
#include "zkpipe/filecoin_circuit/update.h"

namespace zkpipe::filecoin_circuit {
namespace {

std::vector<Num> alloc_level(ConstraintSystem& cs, const std::vector<Fr>& values) {
  std::vector<Num> out;
  out.reserve(values.size());
  for (const Fr& v : values) out.push_back(Num::alloc(cs, v));
  return out;
}

std::vector<std::vector<Num>> alloc_path(ConstraintSystem& cs,
                                         const std::vector<std::vector<Fr>>& path) {
  std::vector<std::vector<Num>> out;
  out.reserve(path.size());
  for (const std::vector<Fr>& level : path) out.push_back(alloc_level(cs, level));
  return out;
}

void check_poseidon_shape(const UpdateShape& s, const UpdatePoseidonWitness& w) {
  const auto fail = [](const std::string& what) {
    throw std::invalid_argument("SnapDeals (Poseidon) witness: " + what);
  };
  if (w.challenges.size() != s.challenge_count) fail("wrong challenge count");
  const uint32_t base = base_path_length(s.sector_nodes, s.tree_r);
  const uint32_t levels = base + (s.tree_r.sub != 0) + (s.tree_r.top != 0);
  for (size_t i = 0; i < w.challenges.size(); ++i) {
    const UpdatePoseidonChallenge& c = w.challenges[i];
    for (const auto* path : {&c.path_r_old, &c.path_d_new, &c.path_r_new}) {
      if (path->size() != levels) fail("path length (challenge " + std::to_string(i) + ")");
      for (uint32_t l = 0; l < levels; ++l) {
        if ((*path)[l].size() + 1 != level_arity(l, base, s.tree_r)) {
          fail("path arity (challenge " + std::to_string(i) + ")");
        }
      }
    }
  }
}

}  // namespace

UpdatePoseidonWitness blank_update_poseidon(const UpdateShape& s) {
  UpdatePoseidonWitness w;
  const MerkleOpening blank = blank_opening(s.sector_nodes, s.tree_r);
  UpdatePoseidonChallenge c;
  for (const PathElement& e : blank.path) c.path_r_old.push_back(e.siblings);
  c.path_d_new = c.path_r_old;
  c.path_r_new = c.path_r_old;
  w.challenges.assign(s.challenge_count, c);
  return w;
}

void synthesize_update_poseidon(ConstraintSystem& cs, const UpdateShape& s,
                                const UpdatePoseidonWitness& w) {
  check_poseidon_shape(s, w);
  // h_select, public, and its binary decomposition over hs.len() bits
  const Num h_select = Num::alloc(cs, Fr::from_u64(w.h_select));
  inputize(cs, h_select);
  std::vector<Boolean> h_select_bits;
  for (size_t i = 0; i < s.hs.size(); ++i) {
    h_select_bits.push_back(alloc_bit(cs, (w.h_select >> i) & 1));
  }
  cs.enforce_with(
      [&](LinearCombination& l) {
        Fr pow2 = Fr::one();
        for (const Boolean& b : h_select_bits) {
          l.add(pow2, b.variable());
          pow2 = pow2.dbl();
        }
      },
      [](LinearCombination& l) { l += Variable::one(); },
      [&](LinearCombination& l) { l += h_select.var; });

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
  const Num pair_old[2] = {comm_c, root_r_old};
  equal(cs, poseidon_hash(cs, pair_old), comm_r_old);
  const Num pair_new[2] = {comm_c, root_r_new};
  equal(cs, poseidon_hash(cs, pair_new), comm_r_new);

  // "gen_challenge_bits partition zero": allocated, never constrained
  const Num partition = Num::alloc(cs, Fr::zero());
  const std::vector<std::vector<Boolean>> generated =
      update_challenge_bits(cs, s, comm_r_new, partition);
  for (size_t ci = 0; ci < generated.size(); ++ci) {
    const UpdatePoseidonChallenge& cw = w.challenges[ci];
    const std::vector<Boolean>& c_bits = generated[ci];
    const Num c_high = update_challenge_high_bits(cs, s, c_bits, h_select_bits);
    const Num rho = update_gen_randomness(cs, phi, c_high);
    const Num leaf_r_old = Num::alloc(cs, cw.leaf_r_old);
    const Num leaf_d_new = Num::alloc(cs, cw.leaf_d_new);
    const Num leaf_r_new = update_label_r_new(cs, leaf_r_old, leaf_d_new, rho);
    por_no_challenge_input(cs, TreeHasher::kPoseidon, c_bits, leaf_r_old,
                           alloc_path(cs, cw.path_r_old), root_r_old);
    por_no_challenge_input(cs, TreeHasher::kPoseidon, c_bits, leaf_r_new,
                           alloc_path(cs, cw.path_r_new), root_r_new);
    por_no_challenge_input(cs, TreeHasher::kPoseidon, c_bits, leaf_d_new,
                           alloc_path(cs, cw.path_d_new), comm_d_new);
  }
}

}  // namespace zkpipe::filecoin_circuit
