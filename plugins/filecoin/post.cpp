// Filecoin's fallback PoSt circuit (zkpipe/filecoin_circuit/post.h).
#include "zkpipe/filecoin_circuit/post.h"

#include "zkpipe/filecoin_circuit/poseidon.h"

namespace zkpipe::filecoin_circuit {

void synthesize_fallback_post(ConstraintSystem& cs, std::span<const PostSectorWitness> sectors) {
  for (size_t i = 0; i < sectors.size(); ++i) {
    const PostSectorWitness& s = sectors[i];
    groth16::Namespace ns(cs, "sector_" + std::to_string(i));
    const Num comm_r_last = Num::alloc(cs, s.comm_r_last);
    const Num comm_c = Num::alloc(cs, s.comm_c);
    const Num comm_r = Num::alloc(cs, s.comm_r);
    inputize(cs, comm_r);
    const Num pair[2] = {comm_c, comm_r_last};
    equal(cs, comm_r, poseidon_hash(cs, pair));
    for (const MerkleOpening& o : s.openings) por_private(cs, o, comm_r_last);
  }
}

std::vector<PostSectorWitness> blank_post(uint32_t sectors, uint32_t challenges, uint64_t leaves,
                                          TreeArities arities) {
  PostSectorWitness s;
  s.comm_r = s.comm_c = s.comm_r_last = Fr::zero();
  s.openings.assign(challenges, blank_opening(leaves, arities));
  return std::vector<PostSectorWitness>(sectors, s);
}

CircuitCounts count_fallback_post(uint32_t sectors, uint32_t challenges, uint64_t leaves,
                                  TreeArities arities) {
  // One sector at a time: the partition is sectors x the same blank sector.
  const std::vector<PostSectorWitness> one = blank_post(1, challenges, leaves, arities);
  ConstraintSystem cs = ConstraintSystem::counter();
  for (uint32_t i = 0; i < sectors; ++i) synthesize_fallback_post(cs, one);
  return {cs.num_constraints(), cs.num_inputs(), cs.num_aux()};
}

}  // namespace zkpipe::filecoin_circuit
