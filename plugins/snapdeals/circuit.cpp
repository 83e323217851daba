// The snapdeals circuit (zkpipe/snapdeals/circuit.h).
#include "zkpipe/snapdeals/circuit.h"

#include "zkpipe/gadgets/bits.h"
#include "zkpipe/gadgets/merkle.h"
#include "zkpipe/gadgets/poseidon.h"

namespace zkpipe::snapdeals {
namespace {

using gadgets::Boolean;
using gadgets::ConstraintSystem;
using gadgets::LinearCombination;
using gadgets::Namespace;
using gadgets::Num;

std::vector<Num> alloc_all(ConstraintSystem& cs, const std::vector<Fr>& values) {
  std::vector<Num> out;
  out.reserve(values.size());
  for (const Fr& v : values) out.push_back(Num::alloc(cs, v));
  return out;
}

Num poseidon2(ConstraintSystem& cs, const Num& a, const Num& b) {
  Num pair[2] = {a, b};
  return gadgets::poseidon_hash(cs, pair);
}

}  // namespace

void synthesize_partition(ConstraintSystem& cs, const VanillaProofs& v, size_t position) {
  const Shape& shape = v.shape;
  const PartitionProof& part = v.partitions[position];
  Num comm_r_old = Num::input(cs, v.comms.comm_r_old);
  Num comm_d_new = Num::input(cs, v.comms.comm_d_new);
  Num comm_r_new = Num::input(cs, v.comms.comm_r_new);
  std::vector<Num> challenges;
  for (const ChallengeProof& p : part.challenges) {
    challenges.push_back(Num::input(cs, Fr::from_u64(p.challenge)));
  }
  Num comm_c = Num::alloc(cs, v.comms.comm_c);
  Num comm_r_last_old = Num::alloc(cs, v.comms.comm_r_last_old);
  Num comm_r_last_new = Num::alloc(cs, v.comms.comm_r_last_new);
  Num phi;
  {
    Namespace ns(cs, "commitments");
    gadgets::enforce_equal(cs, poseidon2(cs, comm_c, comm_r_last_old).lc(), comm_r_old.lc());
    gadgets::enforce_equal(cs, poseidon2(cs, comm_c, comm_r_last_new).lc(), comm_r_new.lc());
    phi = poseidon2(cs, comm_d_new, comm_r_old);
  }
  for (size_t j = 0; j < part.challenges.size(); ++j) {
    const ChallengeProof& p = part.challenges[j];
    Namespace challenge_ns(cs, "challenge " + std::to_string(j));
    std::vector<Boolean> bits = gadgets::to_bits_le(cs, challenges[j], shape.depth());
    Num data = Num::alloc(cs, p.data);
    {
      Namespace ns(cs, "data inclusion");
      Num root = gadgets::sha_root_gadget(cs, data, bits, alloc_all(cs, p.data_path));
      gadgets::enforce_equal(cs, root.lc(), comm_d_new.lc());
    }
    Num old_replica = Num::alloc(cs, p.old_replica);
    {
      Namespace ns(cs, "sector key inclusion");
      Num root = gadgets::poseidon_root_gadget(cs, old_replica, bits, alloc_all(cs, p.old_path));
      gadgets::enforce_equal(cs, root.lc(), comm_r_last_old.lc());
    }
    Num new_replica = Num::alloc(cs, p.new_replica);
    {
      Namespace ns(cs, "new replica inclusion");
      Num root = gadgets::poseidon_root_gadget(cs, new_replica, bits, alloc_all(cs, p.new_path));
      gadgets::enforce_equal(cs, root.lc(), comm_r_last_new.lc());
    }
    {
      Namespace ns(cs, "encoding");
      std::span<const Boolean> high(bits.data() + (shape.depth() - shape.h), shape.h);
      Num rho = poseidon2(cs, phi, gadgets::pack_bits_le(cs, high));
      cs.enforce_with([&](LinearCombination& l) { l += data.var; },
                      [&](LinearCombination& l) { l += rho.var; },
                      [&](LinearCombination& l) {
                        l += new_replica.var;
                        l -= old_replica.var;
                      });
    }
  }
}

VanillaProofs blank_proofs(const Shape& shape) {
  VanillaProofs v;
  v.shape = shape;
  const size_t path = gadgets::poseidon_path_length(shape.nodes);
  PartitionProof part;
  for (uint32_t j = 0; j < shape.challenges; ++j) {
    ChallengeProof p{};
    p.data_path.assign(shape.depth(), Fr::zero());
    p.old_path.assign(path, Fr::zero());
    p.new_path.assign(path, Fr::zero());
    part.challenges.push_back(std::move(p));
  }
  v.partitions.push_back(std::move(part));
  return v;
}

porep::CircuitSize count_circuit(const Shape& shape) {
  ConstraintSystem cs = ConstraintSystem::counter();
  synthesize_partition(cs, blank_proofs(shape), 0);
  return {cs.num_inputs(), cs.num_aux(), cs.num_constraints()};
}

}  // namespace zkpipe::snapdeals
