// Vanilla proofs: the binary layout (vanilla.h).
#include "vanilla.h"
#include "zkpipe/gadgets/merkle.h"
#include "zkpipe/sdk/byte_io.h"

namespace zkpipe::post {
namespace {

using plugins::Reader;
using plugins::Writer;

constexpr uint64_t kSectorEntryBytes = 8 + 32;

Status read_proof(Reader& r, const Shape& shape, SectorProof& p, const std::string& where) {
  ZKP_ASSIGN_OR_RETURN(p.sector_id, r.u64(where + " sector id"));
  const std::string at = where + " (sector " + std::to_string(p.sector_id) + ")";
  ZKP_ASSIGN_OR_RETURN(p.comm_c, r.fr(at + " comm_c"));
  ZKP_ASSIGN_OR_RETURN(p.comm_r_last, r.fr(at + " comm_r_last"));
  p.challenges.resize(shape.challenges);
  for (uint32_t j = 0; j < shape.challenges; ++j) {
    ChallengeOpening& c = p.challenges[j];
    const std::string cat = at + " challenge " + std::to_string(j);
    ZKP_ASSIGN_OR_RETURN(c.leaf_index, r.u64(cat + " leaf index"));
    if (c.leaf_index >= shape.nodes) {
      return r.error(cat + ": leaf index " + std::to_string(c.leaf_index) +
                     " is outside the sector (" + std::to_string(shape.nodes) + " nodes)");
    }
    ZKP_ASSIGN_OR_RETURN(c.leaf, r.fr(cat + " leaf"));
    ZKP_RETURN_IF_ERROR(
        r.frs(c.path, gadgets::poseidon_path_length(shape.nodes), cat + " tree R path"));
  }
  return ok_status();
}

}  // namespace

std::vector<uint8_t> encode_vanilla(const VanillaProofs& v) {
  Writer w;
  plugins::write_vanilla_header(w, static_cast<uint32_t>(v.shape.kind));
  w.u64(v.shape.nodes);
  w.u32(v.shape.sectors);
  w.u32(v.shape.challenges);
  w.bytes(v.randomness);
  w.u32(static_cast<uint32_t>(v.sectors.size()));
  for (const SectorRef& s : v.sectors) {
    w.u64(s.id);
    w.fr(s.comm_r);
  }
  w.u32(static_cast<uint32_t>(v.proofs.size()));
  for (const SectorProof& p : v.proofs) {
    w.u64(p.sector_id);
    w.fr(p.comm_c);
    w.fr(p.comm_r_last);
    for (const ChallengeOpening& c : p.challenges) {
      w.u64(c.leaf_index);
      w.fr(c.leaf);
      w.frs(c.path);
    }
  }
  return std::move(w.out);
}

Result<VanillaProofs> decode_vanilla(Kind kind, std::span<const uint8_t> bytes,
                                     const std::string& what) {
  Reader r(bytes, what);
  ZKP_RETURN_IF_ERROR(
      plugins::read_vanilla_header(r, bytes, static_cast<uint32_t>(kind), kind_name(kind)));
  VanillaProofs v;
  v.shape.kind = kind;
  ZKP_ASSIGN_OR_RETURN(v.shape.nodes, r.u64("the shape's nodes"));
  ZKP_ASSIGN_OR_RETURN(v.shape.sectors, r.u32("the shape's sectors per partition"));
  ZKP_ASSIGN_OR_RETURN(v.shape.challenges, r.u32("the shape's challenges per sector"));
  name_after_preset(v.shape);
  ZKP_RETURN_IF_ERROR(validate_shape(v.shape, what + ": the shape at byte offset 16"));
  ZKP_RETURN_IF_ERROR(r.bytes32(v.randomness, "the randomness"));
  ZKP_ASSIGN_OR_RETURN(uint32_t count, r.u32("the sector count"));
  const uint64_t most =
      kind == Kind::kWindow ? uint64_t{kMaxPartitions} * v.shape.sectors : uint64_t{kMaxWinningSet};
  if (count < 1 || count > most) {
    return r.error("sector count " + std::to_string(count) + " is not in [1, " +
                   std::to_string(most) + "]");
  }
  ZKP_RETURN_IF_ERROR(r.need(kSectorEntryBytes * count, "the sector list"));
  v.sectors.resize(count);
  for (uint32_t i = 0; i < count; ++i) {
    const std::string entry = "sector entry " + std::to_string(i);
    ZKP_ASSIGN_OR_RETURN(v.sectors[i].id, r.u64(entry + " id"));
    ZKP_ASSIGN_OR_RETURN(v.sectors[i].comm_r,
                         r.fr(entry + " (sector " + std::to_string(v.sectors[i].id) + ") comm_r"));
  }
  ZKP_ASSIGN_OR_RETURN(uint32_t proofs, r.u32("the proof count"));
  const uint32_t want = kind == Kind::kWindow ? count : 1;
  if (proofs != want) {
    return r.error("proof count " + std::to_string(proofs) + "; a " + kind_name(kind) +
                   " request of " + std::to_string(count) + " sectors proves " +
                   std::to_string(want));
  }
  // Each proof's size is fixed by the shape: refuse a wrong file size before reading on.
  const uint64_t path = gadgets::poseidon_path_length(v.shape.nodes);
  const uint64_t proof_bytes = 8 + 64 + uint64_t{v.shape.challenges} * (8 + 32 + 32 * path);
  const uint64_t expected = r.pos() + proofs * proof_bytes;
  if (bytes.size() != expected) {
    return r.error("the file is " + std::to_string(bytes.size()) + " bytes; " +
                   std::to_string(proofs) + " sector proof(s) of this shape need exactly " +
                   std::to_string(expected) + (bytes.size() < expected ? " (truncated)" : ""));
  }
  v.proofs.resize(proofs);
  for (uint32_t i = 0; i < proofs; ++i) {
    ZKP_RETURN_IF_ERROR(read_proof(r, v.shape, v.proofs[i], "proof " + std::to_string(i)));
  }
  return v;
}

}  // namespace zkpipe::post
