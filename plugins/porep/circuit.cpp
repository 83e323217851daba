// The porep circuit (zkpipe/porep/circuit.h).
#include "zkpipe/porep/circuit.h"

#include <bit>

#include "zkpipe/gadgets/bits.h"
#include "zkpipe/gadgets/merkle.h"
#include "zkpipe/gadgets/poseidon.h"
#include "zkpipe/gadgets/sha256.h"

namespace zkpipe::porep {
namespace {

using gadgets::Boolean;
using gadgets::ConstraintSystem;
using gadgets::Namespace;
using gadgets::Num;

struct AllocatedColumn {
  std::vector<Num> labels;
};

std::vector<Num> alloc_all(ConstraintSystem& cs, const std::vector<Fr>& values) {
  std::vector<Num> out;
  out.reserve(values.size());
  for (const Fr& v : values) out.push_back(Num::alloc(cs, v));
  return out;
}

// The column's labels, and its opening in tree C at `index_bits`.
AllocatedColumn column_gadget(ConstraintSystem& cs, const ColumnOpening& c,
                              std::span<const Boolean> index_bits, const Num& comm_c) {
  AllocatedColumn out{alloc_all(cs, c.labels)};
  Num leaf = gadgets::poseidon_hash(cs, out.labels);
  Num root = gadgets::poseidon_root_gadget(cs, leaf, index_bits, alloc_all(cs, c.path));
  gadgets::enforce_equal(cs, root.lc(), comm_c.lc());
  return out;
}

// Constant bits of `v` as `bytes` (<= 8) big-endian bytes, each byte most significant bit first.
void append_be(std::vector<Boolean>& out, uint64_t v, int bytes) {
  for (int i = 8 * bytes - 1; i >= 0; --i) out.push_back(Boolean::constant((v >> i) & 1));
}

// The SHA-256 message of label(layer, node): replica id, layer, node (from its index bits),
// zero padding, then the parents' labels.
Num label_gadget(ConstraintSystem& cs, const std::vector<Boolean>& replica_id_bytes, uint32_t layer,
                 std::span<const Boolean> node_bits, std::span<const Num> parent_labels) {
  std::vector<Boolean> m = replica_id_bytes;
  append_be(m, layer, 4);
  for (int i = 63; i >= 0; --i) {
    m.push_back(static_cast<size_t>(i) < node_bits.size() ? node_bits[i]
                                                          : Boolean::constant(false));
  }
  m.insert(m.end(), 8 * 20, Boolean::constant(false));  // 20 zero bytes
  for (const Num& p : parent_labels) {
    std::vector<Boolean> bytes = gadgets::bits_le_to_sha_bytes(gadgets::to_bits_le(cs, p, 254));
    m.insert(m.end(), bytes.begin(), bytes.end());
  }
  return gadgets::sha_digest_to_num(cs, gadgets::sha256(cs, m));
}

}  // namespace

void synthesize_partition(ConstraintSystem& cs, const VanillaProofs& v, size_t position) {
  const Shape& shape = v.shape;
  const PartitionProof& part = v.partitions[position];
  const uint32_t depth = static_cast<uint32_t>(std::countr_zero(shape.nodes));

  // Public inputs first, in public_inputs() order.
  Num replica_id = Num::input(cs, v.replica_id);
  Num comm_d = Num::input(cs, v.comms.comm_d);
  Num comm_r = Num::input(cs, v.comms.comm_r);
  std::vector<Num> challenge_nums, parent_nums;
  for (const ChallengeProof& p : part.challenges) {
    challenge_nums.push_back(Num::input(cs, Fr::from_u64(p.challenge)));
    for (const ColumnOpening& c : p.parents)
      parent_nums.push_back(Num::input(cs, Fr::from_u64(c.node)));
  }

  Num comm_c = Num::alloc(cs, v.comms.comm_c);
  Num comm_r_last = Num::alloc(cs, v.comms.comm_r_last);
  {
    Namespace ns(cs, "comm_r");
    Num pair[2] = {comm_c, comm_r_last};
    gadgets::enforce_equal(cs, gadgets::poseidon_hash(cs, pair).lc(), comm_r.lc());
  }
  std::vector<Boolean> replica_id_bytes;
  {
    Namespace ns(cs, "replica id bits");
    replica_id_bytes = gadgets::bits_le_to_sha_bytes(gadgets::to_bits_le_strict(cs, replica_id));
  }

  for (size_t j = 0; j < part.challenges.size(); ++j) {
    const ChallengeProof& p = part.challenges[j];
    Namespace challenge_ns(cs, "challenge " + std::to_string(j));
    std::vector<Boolean> node_bits = gadgets::to_bits_le(cs, challenge_nums[j], depth);

    Num data = Num::alloc(cs, p.data);
    {
      Namespace ns(cs, "data inclusion");
      Num root = gadgets::sha_root_gadget(cs, data, node_bits, alloc_all(cs, p.data_path));
      gadgets::enforce_equal(cs, root.lc(), comm_d.lc());
    }
    AllocatedColumn column;
    {
      Namespace ns(cs, "column");
      column = column_gadget(cs, p.column, node_bits, comm_c);
    }
    std::vector<AllocatedColumn> parents;
    for (size_t k = 0; k < p.parents.size(); ++k) {
      Namespace ns(cs, "parent " + std::to_string(k));
      std::vector<Boolean> bits =
          gadgets::to_bits_le(cs, parent_nums[j * shape.parents() + k], depth);
      parents.push_back(column_gadget(cs, p.parents[k], bits, comm_c));
    }
    for (uint32_t layer = 1; layer <= shape.layers; ++layer) {
      Namespace ns(cs, "label layer " + std::to_string(layer));
      std::vector<Num> inputs;
      const uint32_t count = layer == 1 ? shape.base_degree : shape.parents();
      for (uint32_t k = 0; k < count; ++k) {
        inputs.push_back(k < shape.base_degree ? parents[k].labels[layer - 1]
                                               : parents[k].labels[layer - 2]);
      }
      Num label = label_gadget(cs, replica_id_bytes, layer, node_bits, inputs);
      gadgets::enforce_equal(cs, label.lc(), column.labels[layer - 1].lc());
    }
    Num replica = Num::alloc(cs, p.replica);
    {
      Namespace ns(cs, "encoding");
      const Num& key = column.labels[shape.layers - 1];
      cs.enforce_with(
          [&](gadgets::LinearCombination& l) {
            l += key.var;
            l += data.var;
          },
          [](gadgets::LinearCombination& l) { l += gadgets::Variable::one(); },
          [&](gadgets::LinearCombination& l) { l += replica.var; });
    }
    {
      Namespace ns(cs, "replica inclusion");
      Num root =
          gadgets::poseidon_root_gadget(cs, replica, node_bits, alloc_all(cs, p.replica_path));
      gadgets::enforce_equal(cs, root.lc(), comm_r_last.lc());
    }
  }
}

VanillaProofs blank_proofs(const Shape& shape) {
  VanillaProofs v;
  v.shape = shape;
  v.replica_id = v.comms.comm_d = v.comms.comm_c = v.comms.comm_r_last = v.comms.comm_r =
      Fr::zero();
  const uint32_t depth = static_cast<uint32_t>(std::countr_zero(shape.nodes));
  auto column = [&] {
    ColumnOpening c;
    c.labels.assign(shape.layers, Fr::zero());
    c.path.assign(gadgets::poseidon_path_length(shape.nodes), Fr::zero());
    return c;
  };
  PartitionProof part;
  for (uint32_t j = 0; j < shape.challenges; ++j) {
    ChallengeProof p;
    p.challenge = 1;
    p.data = p.replica = Fr::zero();
    p.data_path.assign(depth, Fr::zero());
    p.replica_path.assign(gadgets::poseidon_path_length(shape.nodes), Fr::zero());
    p.column = column();
    p.parents.assign(shape.parents(), column());
    part.challenges.push_back(std::move(p));
  }
  v.partitions.push_back(std::move(part));
  return v;
}

CircuitSize count_circuit(const Shape& shape) {
  ConstraintSystem cs = ConstraintSystem::counter();
  synthesize_partition(cs, blank_proofs(shape), 0);
  return {cs.num_inputs(), cs.num_aux(), cs.num_constraints()};
}

}  // namespace zkpipe::porep
