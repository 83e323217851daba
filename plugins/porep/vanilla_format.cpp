// Vanilla proofs: the binary layout and JSON (zkpipe/porep/vanilla.h).
#include <bit>
#include <cstring>

#include <nlohmann/json.hpp>

#include "zkpipe/gadgets/bits.h"
#include "zkpipe/porep/vanilla.h"
#include "zkpipe/sdk/byte_io.h"

namespace zkpipe::porep {
namespace {

using plugins::Reader;
using plugins::Writer;

size_t depth_d(const Shape& s) {
  return gadgets::sha_path_length(s.nodes);
}
size_t path_c(const Shape& s) {
  return gadgets::poseidon_path_length(s.nodes);
}

void write_column(Writer& w, const ColumnOpening& c) {
  w.u64(c.node);
  w.frs(c.labels);
  w.frs(c.path);
}

Status read_column(Reader& r, const Shape& shape, ColumnOpening& c, const std::string& where) {
  ZKP_ASSIGN_OR_RETURN(c.node, r.u64(where + " node"));
  if (c.node >= shape.nodes) {
    return r.error(where + ": node " + std::to_string(c.node) + " is outside the sector (" +
                   std::to_string(shape.nodes) + " nodes)");
  }
  ZKP_RETURN_IF_ERROR(r.frs(c.labels, shape.layers, where + " labels"));
  return r.frs(c.path, path_c(shape), where + " tree C path");
}

Status read_challenge(Reader& r, const Shape& shape, ChallengeProof& p, const std::string& where) {
  ZKP_ASSIGN_OR_RETURN(p.challenge, r.u64(where + " index"));
  if (p.challenge == 0 || p.challenge >= shape.nodes) {
    return r.error(where + ": challenge " + std::to_string(p.challenge) + " is outside [1, nodes)");
  }
  ZKP_ASSIGN_OR_RETURN(p.data, r.fr(where + " data"));
  ZKP_RETURN_IF_ERROR(r.frs(p.data_path, depth_d(shape), where + " tree D path"));
  ZKP_ASSIGN_OR_RETURN(p.replica, r.fr(where + " replica"));
  ZKP_RETURN_IF_ERROR(r.frs(p.replica_path, path_c(shape), where + " tree R path"));
  ZKP_RETURN_IF_ERROR(read_column(r, shape, p.column, where + " column"));
  p.parents.resize(shape.parents());
  for (uint32_t k = 0; k < shape.parents(); ++k) {
    ZKP_RETURN_IF_ERROR(
        read_column(r, shape, p.parents[k], where + " parent " + std::to_string(k)));
  }
  return ok_status();
}

}  // namespace

std::vector<uint8_t> encode_vanilla(const VanillaProofs& v) {
  Writer w;
  plugins::write_vanilla_header(w, kVanillaTypePorep);
  w.u64(v.shape.nodes);
  for (uint32_t x : {v.shape.layers, v.shape.base_degree, v.shape.expansion_degree,
                     v.shape.challenges, v.shape.partitions}) {
    w.u32(x);
  }
  w.bytes(v.challenge_seed);
  for (const Fr& x :
       {v.replica_id, v.comms.comm_d, v.comms.comm_c, v.comms.comm_r_last, v.comms.comm_r}) {
    w.fr(x);
  }
  w.u32(static_cast<uint32_t>(v.partitions.size()));
  for (const PartitionProof& part : v.partitions) {
    w.u32(part.partition);
    for (const ChallengeProof& p : part.challenges) {
      w.u64(p.challenge);
      w.fr(p.data);
      w.frs(p.data_path);
      w.fr(p.replica);
      w.frs(p.replica_path);
      write_column(w, p.column);
      for (const ColumnOpening& c : p.parents) write_column(w, c);
    }
  }
  return std::move(w.out);
}

Result<VanillaProofs> decode_vanilla(std::span<const uint8_t> bytes, const std::string& what) {
  Reader r(bytes, what);
  ZKP_RETURN_IF_ERROR(plugins::read_vanilla_header(r, bytes, kVanillaTypePorep, "porep"));
  VanillaProofs v;
  ZKP_ASSIGN_OR_RETURN(v.shape.nodes, r.u64("the shape's nodes"));
  ZKP_ASSIGN_OR_RETURN(v.shape.layers, r.u32("the shape's layers"));
  ZKP_ASSIGN_OR_RETURN(v.shape.base_degree, r.u32("the shape's base_degree"));
  ZKP_ASSIGN_OR_RETURN(v.shape.expansion_degree, r.u32("the shape's expansion_degree"));
  ZKP_ASSIGN_OR_RETURN(v.shape.challenges, r.u32("the shape's challenges"));
  ZKP_ASSIGN_OR_RETURN(v.shape.partitions, r.u32("the shape's partitions"));
  name_after_preset(v.shape);
  ZKP_RETURN_IF_ERROR(validate_shape(v.shape, what + ": the shape at byte offset 16"));
  ZKP_RETURN_IF_ERROR(r.bytes32(v.challenge_seed, "the challenge seed"));
  ZKP_ASSIGN_OR_RETURN(v.replica_id, r.fr("the replica id"));
  ZKP_ASSIGN_OR_RETURN(v.comms.comm_d, r.fr("comm_d"));
  ZKP_ASSIGN_OR_RETURN(v.comms.comm_c, r.fr("comm_c"));
  ZKP_ASSIGN_OR_RETURN(v.comms.comm_r_last, r.fr("comm_r_last"));
  ZKP_ASSIGN_OR_RETURN(v.comms.comm_r, r.fr("comm_r"));
  ZKP_ASSIGN_OR_RETURN(uint32_t count, r.u32("the partition count"));
  if (count == 0 || count > v.shape.partitions) {
    return r.error("partition count " + std::to_string(count) + " is not in [1, " +
                   std::to_string(v.shape.partitions) + "]");
  }
  // Each partition's size is fixed by the shape: refuse a wrong file size before reading on.
  const uint64_t column = 8 + 32ull * (v.shape.layers + path_c(v.shape));
  const uint64_t challenge =
      8 + 32ull * (2 + depth_d(v.shape) + path_c(v.shape)) + column * (1 + v.shape.parents());
  const uint64_t expected = r.pos() + count * (4 + challenge * v.shape.challenges);
  if (bytes.size() != expected) {
    return r.error("the file is " + std::to_string(bytes.size()) + " bytes; " +
                   std::to_string(count) + " partition(s) of this shape need exactly " +
                   std::to_string(expected) + (bytes.size() < expected ? " (truncated)" : ""));
  }
  v.partitions.resize(count);
  for (uint32_t k = 0; k < count; ++k) {
    PartitionProof& part = v.partitions[k];
    ZKP_ASSIGN_OR_RETURN(part.partition, r.u32("the partition index"));
    if (part.partition >= v.shape.partitions) {
      return r.error("partition index " + std::to_string(part.partition) +
                     " is not below the shape's " + std::to_string(v.shape.partitions));
    }
    part.challenges.resize(v.shape.challenges);
    for (uint32_t j = 0; j < v.shape.challenges; ++j) {
      ZKP_RETURN_IF_ERROR(read_challenge(
          r, v.shape, part.challenges[j],
          "partition " + std::to_string(part.partition) + " challenge " + std::to_string(j)));
    }
  }
  return v;
}

}  // namespace zkpipe::porep
