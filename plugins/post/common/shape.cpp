// Shapes, presets, the challenge derivation and the sector draw (shape.h).
#include "shape.h"

#include <bit>
#include <string_view>

#include "zkpipe/sector/seal.h"

namespace zkpipe::post {

const char* kind_name(Kind kind) {
  return kind == Kind::kWindow ? "window_post" : "winning_post";
}

std::string Shape::circuit_id() const {
  return std::string(kind_name(kind)) + "-v1-n" + std::to_string(nodes) + "-s" +
         std::to_string(sectors) + "-c" + std::to_string(challenges);
}

uint32_t Shape::num_public_inputs() const {
  return 1 + sectors * (1 + challenges);
}

uint32_t Shape::tree_levels() const {
  return static_cast<uint32_t>(std::countr_zero(nodes) / 3);
}

Status validate_shape(const Shape& s, const std::string& what) {
  auto bad = [&](const std::string& m) { return invalid_argument(what + ": " + m); };
  if (s.nodes < 8 || !std::has_single_bit(s.nodes) || std::countr_zero(s.nodes) % 3 != 0) {
    return bad("nodes must be a power of 8 (8, 64, 512, ...), not " + std::to_string(s.nodes));
  }
  if (s.nodes > (uint64_t{1} << 36)) return bad("nodes above 2^36 (2 TiB) are not supported");
  if (s.kind == Kind::kWinning && s.sectors != 1) {
    return bad("a winning_post partition proves 1 sector, not " + std::to_string(s.sectors));
  }
  if (s.sectors < 1 || s.sectors > kMaxSectorsPerPartition) {
    return bad("sectors per partition must be in [1, " + std::to_string(kMaxSectorsPerPartition) +
               "], not " + std::to_string(s.sectors));
  }
  if (s.challenges < 1 || s.challenges > kMaxChallenges) {
    return bad("challenges per sector must be in [1, " + std::to_string(kMaxChallenges) +
               "], not " + std::to_string(s.challenges));
  }
  return ok_status();
}

uint32_t Preset::partitions() const {
  return shape.kind == Kind::kWinning ? 1 : window_partitions(shape, sample_sectors);
}

const std::vector<Preset>& presets(Kind kind) {
  // nodes, sectors per partition, challenges per sector; sample sectors. WindowPoSt: Filecoin's
  // 10 challenges per sector from 8MiB on, sectors per partition scaled to what proves here:
  // 8MiB-64 (1.6M constraints, 2^21) proves a partition in about 50 s on the 2-core test host;
  // 128 sectors would double the domain (2^22). WinningPoSt: Filecoin's 66 challenges of one
  // sector at 8MiB. Sectors above 8MiB would make sample requests slow to seal (and the circuit
  // grows only by one tree level per 8x).
  static const std::vector<Preset> window = {
      {{"tiny", Kind::kWindow, 8, 2, 2}, 3},
      {{"2KiB", Kind::kWindow, 64, 4, 5}, 11},  // 3 partitions: the deadline benchmark's
      {{"8MiB", Kind::kWindow, uint64_t{1} << 18, 8, 10}, 15},
      {{"8MiB-64", Kind::kWindow, uint64_t{1} << 18, 64, 10}, 127},
  };
  static const std::vector<Preset> winning = {
      {{"tiny", Kind::kWinning, 8, 1, 4}, 4},
      {{"2KiB", Kind::kWinning, 64, 1, 16}, 4},
      {{"8MiB", Kind::kWinning, uint64_t{1} << 18, 1, 66}, 4},
  };
  return kind == Kind::kWindow ? window : winning;
}

Result<Preset> find_preset(Kind kind, const std::string& name) {
  std::string names;
  for (const Preset& p : presets(kind)) {
    if (p.shape.name == name) return p;
    names += (names.empty() ? "" : ", ") + p.shape.name;
  }
  return not_found("unknown " + std::string(kind_name(kind)) + " shape '" + name +
                   "' (presets: " + names + ")");
}

Result<Preset> preset_for_nodes(Kind kind, uint64_t nodes) {
  for (const Preset& p : presets(kind)) {
    if (p.shape.nodes == nodes) return p;
  }
  return not_found("no " + std::string(kind_name(kind)) + " preset has sectors of " +
                   std::to_string(nodes) + " nodes (name a shape with --shape)");
}

void name_after_preset(Shape& s) {
  s.name = "custom";
  for (const Preset& p : presets(s.kind)) {
    Shape named = s;
    named.name = p.shape.name;
    if (named == p.shape) s.name = p.shape.name;
  }
}

uint64_t derive_challenge(Kind kind, const Seed& randomness, uint64_t sector_id, uint32_t index,
                          uint64_t nodes) {
  std::vector<uint8_t> key(randomness.begin(), randomness.end());
  for (int b = 0; b < 8; ++b) key.push_back(static_cast<uint8_t>(sector_id >> (8 * b)));
  return porep::challenge_bits("zkpipe post challenge", key, static_cast<uint32_t>(kind), index) %
         nodes;
}

uint32_t draw_sector(const Seed& randomness, uint32_t set_size) {
  return static_cast<uint32_t>(
      porep::challenge_bits("zkpipe winning_post sector", randomness, 0, 0) % set_size);
}

uint32_t window_partitions(const Shape& shape, uint64_t sectors) {
  return static_cast<uint32_t>((sectors + shape.sectors - 1) / shape.sectors);
}

}  // namespace zkpipe::post
