// post/common/shape.h: the shapes of the fallback-PoSt proof types (window_post, winning_post)
// and their presets, the challenge derivation and WinningPoSt's sector draw.
// Following the structure of Filecoin's fallback PoSt with this project's constructions (like
// porep; NOT byte-compatible with Filecoin: the tree R hash, the derivations and the params
// differ). A sector is a porep sector sealed by zkpipe-tool (zkpipe::sector), named by its sector
// id and comm_r; a shape fixes the circuit of one partition:
//   nodes       the sector's nodes (tree R: 8-ary Poseidon over them)
//   sectors     sector slots per partition (WindowPoSt: many; WinningPoSt: 1)
//   challenges  challenged leaves per sector
// Challenge j of sector id s: first 8 bytes (LE) of SHA-256("zkpipe post challenge" ||
// randomness || s as u64 LE || type as u32 LE || j as u32 LE) mod nodes (porep::challenge_bits;
// type = 3 window_post, 4 winning_post). It does not depend on the partition or slot, so a
// padded slot repeats its sector's proof exactly, as Filecoin's do.
// WinningPoSt's sector: entry (first 8 bytes LE of SHA-256("zkpipe winning_post sector" ||
// randomness || 0 as u32 || 0 as u32)) mod (set size) of the eligible set.
// Thread-safety: values; the preset tables are constant.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "zkpipe/sdk/status.h"

namespace zkpipe::post {

using Seed = std::array<uint8_t, 32>;

// The two proof types; the value is the vanilla-proof file's type (porep 1, snapdeals 2).
enum class Kind : uint32_t { kWindow = 3, kWinning = 4 };

// "window_post" or "winning_post".
const char* kind_name(Kind kind);

// Upper bounds a request is checked against (a request names its sectors: far fewer than a
// Filecoin deadline's thousands fit a proof that proves here in minutes).
inline constexpr uint32_t kMaxPartitions = 64;
inline constexpr uint32_t kMaxSectorsPerPartition = 4096;
inline constexpr uint32_t kMaxChallenges = 1024;
inline constexpr uint32_t kMaxWinningSet = 1u << 20;

struct Shape {
  std::string name;  // preset name, or "custom"
  Kind kind = Kind::kWindow;
  uint64_t nodes = 0;       // a power of 8 in [8, 2^36]
  uint32_t sectors = 0;     // slots per partition: [1, kMaxSectorsPerPartition]; winning: 1
  uint32_t challenges = 0;  // per sector: [1, kMaxChallenges]

  // "window_post-v1-n64-s4-c5": everything that changes the circuit.
  std::string circuit_id() const;
  // Public inputs of one partition, the constant one included: 1 + sectors * (1 + challenges).
  uint32_t num_public_inputs() const;
  // Levels of tree R (3 index bits each).
  uint32_t tree_levels() const;
  bool operator==(const Shape&) const = default;
};

// Checks every field; `what` prefixes the message ("v.bin: the shape at byte offset 16").
Status validate_shape(const Shape& s, const std::string& what);

// A preset: a shape and the sectors of its sample request (window: partitions * sectors - 1, so
// the last partition is padded; winning: the eligible set the sector is drawn from).
struct Preset {
  Shape shape;
  uint32_t sample_sectors = 0;
  // Partitions of the sample request.
  uint32_t partitions() const;
};

const std::vector<Preset>& presets(Kind kind);
Result<Preset> find_preset(Kind kind, const std::string& name);
// The first preset of `kind` whose sectors have `nodes` nodes (the vanilla command's default).
Result<Preset> preset_for_nodes(Kind kind, uint64_t nodes);
// Sets s.name to the preset whose shape s equals, or "custom".
void name_after_preset(Shape& s);

// The leaf challenged by challenge `index` of sector `sector_id` (see the top of this file).
uint64_t derive_challenge(Kind kind, const Seed& randomness, uint64_t sector_id, uint32_t index,
                          uint64_t nodes);
// WinningPoSt: the entry of an eligible set of `set_size` sectors that `randomness` draws.
uint32_t draw_sector(const Seed& randomness, uint32_t set_size);

// Partitions of a WindowPoSt request of `sectors` sectors: ceil(sectors / shape.sectors).
uint32_t window_partitions(const Shape& shape, uint64_t sectors);

}  // namespace zkpipe::post
