// The fallback-PoSt circuit (circuit.h).
#include "circuit.h"

#include "zkpipe/gadgets/bits.h"
#include "zkpipe/gadgets/merkle.h"
#include "zkpipe/gadgets/poseidon.h"

namespace zkpipe::post {
namespace {

using gadgets::Boolean;
using gadgets::ConstraintSystem;
using gadgets::Namespace;
using gadgets::Num;

std::vector<Num> alloc_all(ConstraintSystem& cs, const std::vector<Fr>& values) {
  std::vector<Num> out;
  out.reserve(values.size());
  for (const Fr& v : values) out.push_back(Num::alloc(cs, v));
  return out;
}

}  // namespace

void synthesize_partition(ConstraintSystem& cs, const VanillaProofs& v, uint32_t partition) {
  const Shape& shape = v.shape;
  const size_t index_bits = 3 * size_t{shape.tree_levels()};

  // Public inputs first, in public_inputs() order.
  std::vector<Num> comm_r;
  std::vector<std::vector<Num>> leaf_index(shape.sectors);
  for (uint32_t slot = 0; slot < shape.sectors; ++slot) {
    const size_t proof = slot_proof(v, partition, slot);
    comm_r.push_back(Num::input(cs, proof_comm_r(v, proof)));
    for (const ChallengeOpening& c : v.proofs[proof].challenges) {
      leaf_index[slot].push_back(Num::input(cs, Fr::from_u64(c.leaf_index)));
    }
  }

  for (uint32_t slot = 0; slot < shape.sectors; ++slot) {
    const SectorProof& p = v.proofs[slot_proof(v, partition, slot)];
    Namespace slot_ns(cs, "sector slot " + std::to_string(slot));
    const Num comm_c = Num::alloc(cs, p.comm_c);
    const Num comm_r_last = Num::alloc(cs, p.comm_r_last);
    {
      Namespace ns(cs, "comm_r");
      const Num pair[2] = {comm_c, comm_r_last};
      gadgets::enforce_equal(cs, gadgets::poseidon_hash(cs, pair).lc(), comm_r[slot].lc());
    }
    for (size_t j = 0; j < p.challenges.size(); ++j) {
      const ChallengeOpening& c = p.challenges[j];
      Namespace ns(cs, "challenge " + std::to_string(j));
      const std::vector<Boolean> bits = gadgets::to_bits_le(cs, leaf_index[slot][j], index_bits);
      const Num leaf = Num::alloc(cs, c.leaf);
      const Num root = gadgets::poseidon_root_gadget(cs, leaf, bits, alloc_all(cs, c.path));
      gadgets::enforce_equal(cs, root.lc(), comm_r_last.lc());
    }
  }
}

VanillaProofs blank_proofs(const Shape& shape) {
  VanillaProofs v;
  v.shape = shape;
  v.sectors.push_back({0, Fr::zero()});
  SectorProof p;
  p.comm_c = p.comm_r_last = Fr::zero();
  for (uint32_t j = 0; j < shape.challenges; ++j) {
    p.challenges.push_back(
        {0, Fr::zero(), std::vector<Fr>(gadgets::poseidon_path_length(shape.nodes), Fr::zero())});
  }
  v.proofs.push_back(std::move(p));
  return v;
}

CircuitSize count_circuit(const Shape& shape) {
  ConstraintSystem cs = ConstraintSystem::counter();
  synthesize_partition(cs, blank_proofs(shape), 0);
  return {cs.num_inputs(), cs.num_aux(), cs.num_constraints()};
}

}  // namespace zkpipe::post
