// zkpipe/sector/shape.h: the shape of a StackedDRG-style sector: nodes (32-byte field elements),
// layers, parent degrees, challenges per partition and partitions, and the named presets.
// A shape fixes the circuit: two requests with equal shapes share one circuit id and one set of
// params. Thread-safety: values; the preset table is constant.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "zkpipe/sdk/status.h"

namespace zkpipe::porep {

inline constexpr uint64_t kNodeBytes = 32;

struct Shape {
  std::string name;               // preset name, or "custom"
  uint64_t nodes = 0;             // a power of 8 (tree C and R are 8-ary), >= 8
  uint32_t layers = 0;            // 2, 4, 8 or 11 (the Poseidon arities hashing a column)
  uint32_t base_degree = 0;       // DRG parents, in the same layer, >= 1
  uint32_t expansion_degree = 0;  // expander parents, in the previous layer (layers >= 2)
  uint32_t challenges = 0;        // per partition, >= 1
  uint32_t partitions = 0;        // >= 1

  uint64_t sector_bytes() const { return nodes * kNodeBytes; }
  uint32_t parents() const { return base_degree + expansion_degree; }
  // "porep-v1-n64-l2-b6-e8-c2": everything that changes the circuit (partitions do not).
  std::string circuit_id() const;
  // Public inputs of one partition, the constant one included.
  uint32_t num_public_inputs() const;
  bool operator==(const Shape&) const = default;
};

// Checks every field, and that a preset's circuit has the preset's partitions
// (check_preset_partitions); `what` prefixes the message (e.g. "shape 'tiny'" or a file name).
Status validate_shape(const Shape& s, const std::string& what);

// The checks both proof types share: nodes a power of 8 in [8, 2^36]; challenges in [1, 1024]
// and partitions in [1, 64].
Status validate_sector_nodes(uint64_t nodes, const std::string& what);
Status validate_partitioning(uint32_t challenges, uint32_t partitions, const std::string& what);

// The named presets: tiny, 2KiB, 8MiB, 512MiB.
const std::vector<Shape>& shape_presets();
// Sets s.name to the preset whose fields s equals, or "custom" (after reading a shape).
void name_after_preset(Shape& s);

// The two preset lookups for any shape type with a `name` and operator== (porep, snapdeals).
template <typename S>
void name_after(S& s, const std::vector<S>& presets) {
  s.name = "custom";
  for (const S& p : presets) {
    S named = s;
    named.name = p.name;
    if (named == p) s.name = p.name;
  }
}
template <typename S>
Result<S> find_in(const std::vector<S>& presets, const std::string& name) {
  std::string names;
  for (const S& s : presets) {
    if (s.name == name) return s;
    names += (names.empty() ? "" : ", ") + s.name;
  }
  return not_found("unknown sector shape '" + name + "' (presets: " + names + ")");
}
// Partitions do not change the circuit, and nothing a request holds derives from their count, so
// a request could claim any count: a shape whose circuit is a preset's is that preset and must
// have its partition count (a custom count needs a custom circuit). `what` prefixes the message:
// "partitions is 3, but porep-v1-n8-l2-b2-e2-c1 is the circuit of preset 'tiny', which has 2".
template <typename S>
Status check_preset_partitions(const S& s, const std::vector<S>& presets, const std::string& what) {
  for (const S& p : presets) {
    if (p.circuit_id() == s.circuit_id() && p.partitions != s.partitions) {
      return invalid_argument(what + ": partitions is " + std::to_string(s.partitions) + ", but " +
                              s.circuit_id() + " is the circuit of preset '" + p.name +
                              "', which has " + std::to_string(p.partitions));
    }
  }
  return ok_status();
}
// A preset by name, or NOT_FOUND listing the names.
Result<Shape> find_shape(const std::string& name);

}  // namespace zkpipe::porep
