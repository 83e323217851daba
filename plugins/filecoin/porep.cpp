// Filecoin's PoRep circuit (zkpipe/filecoin_circuit/porep.h).
#include "zkpipe/filecoin_circuit/porep.h"

#include <stdexcept>
#include <string>

#include "zkpipe/filecoin_circuit/poseidon.h"
#include "zkpipe/filecoin_circuit/sha256.h"

namespace zkpipe::filecoin_circuit {
namespace {

constexpr size_t kDrgParents = 6, kExpParents = 8, kTotalParents = 37;

// reverse_bit_numbering: padded to whole bytes, each byte's bits reversed.
std::vector<Boolean> reverse_bit_numbering(std::vector<Boolean> bits) {
  while (bits.size() % 8 != 0) bits.push_back(Boolean::constant(false));
  std::vector<Boolean> out;
  out.reserve(bits.size());
  for (size_t i = 0; i < bits.size(); i += 8) {
    for (size_t k = 8; k-- > 0;) out.push_back(bits[i + k]);
  }
  return out;
}

struct AllocatedColumn {
  std::vector<Num> rows;
};

AllocatedColumn alloc_column(ConstraintSystem& cs, const std::vector<Fr>& rows) {
  AllocatedColumn c;
  c.rows.reserve(rows.size());
  for (const Fr& v : rows) c.rows.push_back(Num::alloc(cs, v));
  return c;
}

// hash_single_column: Poseidon of arity 2 or 11 (MerkleTree constants).
Num hash_column(ConstraintSystem& cs, const std::vector<Num>& rows) {
  if (rows.size() != 2 && rows.size() != 11) {
    throw std::invalid_argument("PoRep circuit: unsupported column size " +
                                std::to_string(rows.size()));
  }
  return poseidon_hash(cs, rows);
}

// create_label_circuit: the 37 parents' bits after the 512-bit header, the SHA-256 digest's
// bits byte-reversed, its first 254 packed.
Num create_label(ConstraintSystem& cs, const std::vector<Boolean>& replica_id,
                 const std::vector<const std::vector<Boolean>*>& parents, uint32_t layer,
                 const std::vector<Boolean>& node_bits_le) {
  std::vector<Boolean> msg;
  msg.reserve((2 + kTotalParents) * 256);
  msg.insert(msg.end(), replica_id.begin(), replica_id.end());
  while (msg.size() < 256) msg.push_back(Boolean::constant(false));
  for (int i = 31; i >= 0; --i) msg.push_back(Boolean::constant((layer >> i) & 1));
  for (size_t i = 64; i-- > 0;) msg.push_back(node_bits_le[i]);
  while (msg.size() < 512) msg.push_back(Boolean::constant(false));
  for (const std::vector<Boolean>* p : parents) {
    msg.insert(msg.end(), p->begin(), p->end());
    while (msg.size() % 256 != 0) msg.push_back(Boolean::constant(false));
  }
  const std::vector<Boolean> bits = reverse_bit_numbering(sha256_message(cs, msg));
  return pack_bits(cs, std::span<const Boolean>(bits).first(254));
}

void synthesize_challenge(ConstraintSystem& cs, const PorepChallengeWitness& p, const Num& comm_d,
                          const Num& comm_c, const Num& comm_r_last,
                          const std::vector<Boolean>& replica_id_bits) {
  const std::string at = "PoRep circuit (challenge " + std::to_string(p.challenge) + "): ";
  if (p.drg_parents.size() != kDrgParents || p.exp_parents.size() != kExpParents) {
    throw std::invalid_argument(at + "6 DRG and 8 expander parents needed");
  }
  const size_t layers = p.drg_parents[0].rows.size();

  const Num data_leaf = Num::alloc(cs, p.data_leaf);
  por_private(cs, p.comm_d_path, data_leaf, comm_d);

  const auto alloc_parents = [&](const std::vector<ColumnOpening>& openings) {
    std::vector<AllocatedColumn> cols;
    for (const ColumnOpening& o : openings) {
      if (o.rows.size() != layers) throw std::invalid_argument(at + "columns differ in length");
      AllocatedColumn col = alloc_column(cs, o.rows);
      const Num val = hash_column(cs, col.rows);
      por_private(cs, o.path, val, comm_c);
      cols.push_back(std::move(col));
    }
    return cols;
  };
  const std::vector<AllocatedColumn> drg = alloc_parents(p.drg_parents);
  const std::vector<AllocatedColumn> exp = alloc_parents(p.exp_parents);

  // UInt64::alloc, then pack_into_input
  std::vector<Boolean> node_bits;
  node_bits.reserve(64);
  for (unsigned i = 0; i < 64; ++i) node_bits.push_back(alloc_bit(cs, (p.challenge >> i) & 1));
  pack_into_inputs(cs, node_bits);

  std::vector<Num> column_labels;
  for (uint32_t layer = 1; layer <= layers; ++layer) {
    std::vector<std::vector<Boolean>> parents;
    parents.reserve(kDrgParents + kExpParents);
    for (const AllocatedColumn& col : drg) {
      parents.push_back(reverse_bit_numbering(num_to_bits_le(cs, col.rows[layer - 1])));
    }
    if (layer > 1) {
      for (const AllocatedColumn& col : exp) {
        parents.push_back(reverse_bit_numbering(num_to_bits_le(cs, col.rows[layer - 2])));
      }
    }
    std::vector<const std::vector<Boolean>*> expanded;
    expanded.reserve(kTotalParents);
    if (layer > 1) {
      for (int rep = 0; rep < 2; ++rep) {
        for (const auto& bits : parents) expanded.push_back(&bits);
      }
      for (size_t i = 0; i < 9; ++i) expanded.push_back(&parents[i]);
    } else {
      for (int rep = 0; rep < 6; ++rep) {
        for (const auto& bits : parents) expanded.push_back(&bits);
      }
      expanded.push_back(&parents[0]);
    }
    column_labels.push_back(create_label(cs, replica_id_bits, expanded, layer, node_bits));
  }

  // encode: key + value = the replica node, included in tree_r_last
  const Num& key = column_labels.back();
  const Num encoded = Num::alloc(cs, key.value + data_leaf.value);
  cs.enforce_with(
      [&](LinearCombination& l) {
        l += key.var;
        l += data_leaf.var;
      },
      [](LinearCombination& l) { l += Variable::one(); },
      [&](LinearCombination& l) { l += encoded.var; });
  por_private(cs, p.comm_r_last_path, encoded, comm_r_last);

  const Num column_hash = hash_column(cs, column_labels);
  por_private(cs, p.comm_c_path, column_hash, comm_c);
}

}  // namespace

PorepWitness blank_porep(uint64_t nodes, TreeArities a, uint32_t layers, uint32_t challenges) {
  PorepWitness w;
  PorepChallengeWitness c;
  c.challenge = 1;
  const TreeArities binary{2, 0, 0};
  c.comm_d_path = blank_opening(nodes, binary, TreeHasher::kSha256);
  c.comm_r_last_path = blank_opening(nodes, a);
  c.comm_c_path = c.comm_r_last_path;
  const ColumnOpening col{std::vector<Fr>(layers, Fr::zero()), c.comm_c_path};
  c.drg_parents.assign(kDrgParents, col);
  c.exp_parents.assign(kExpParents, col);
  w.challenges.assign(challenges, c);
  return w;
}

void synthesize_porep(ConstraintSystem& cs, const PorepWitness& w) {
  const Num replica_id = Num::alloc(cs, w.replica_id);
  inputize(cs, replica_id);
  const std::vector<Boolean> replica_id_bits =
      reverse_bit_numbering(num_to_bits_le(cs, replica_id));
  const Num comm_d = Num::alloc(cs, w.comm_d);
  inputize(cs, comm_d);
  const Num comm_r = Num::alloc(cs, w.comm_r);
  inputize(cs, comm_r);
  const Num comm_r_last = Num::alloc(cs, w.comm_r_last);
  const Num comm_c = Num::alloc(cs, w.comm_c);
  const Num pair[2] = {comm_c, comm_r_last};
  equal(cs, comm_r, poseidon_hash(cs, pair));
  for (const PorepChallengeWitness& p : w.challenges) {
    synthesize_challenge(cs, p, comm_d, comm_c, comm_r_last, replica_id_bits);
  }
}

}  // namespace zkpipe::filecoin_circuit
