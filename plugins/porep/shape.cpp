// Sector shapes and presets (zkpipe/porep/shape.h).
#include "zkpipe/porep/shape.h"

#include <bit>

namespace zkpipe::porep {

std::string Shape::circuit_id() const {
  return "porep-v1-n" + std::to_string(nodes) + "-l" + std::to_string(layers) + "-b" +
         std::to_string(base_degree) + "-e" + std::to_string(expansion_degree) + "-c" +
         std::to_string(challenges);
}

uint32_t Shape::num_public_inputs() const {
  // one, replica id, comm_d, comm_r, then per challenge its index and its parents' indices.
  return 4 + challenges * (1 + parents());
}

Status validate_shape(const Shape& s, const std::string& what) {
  auto bad = [&](const std::string& m) { return invalid_argument(what + ": " + m); };
  if (s.nodes < 8 || !std::has_single_bit(s.nodes) || std::countr_zero(s.nodes) % 3 != 0) {
    return bad("nodes must be a power of 8 (8, 64, 512, ...), not " + std::to_string(s.nodes));
  }
  if (s.nodes > (uint64_t{1} << 36)) return bad("nodes above 2^36 (2 TiB) are not supported");
  if (s.layers != 2 && s.layers != 4 && s.layers != 8 && s.layers != 11) {
    return bad("layers must be 2, 4, 8 or 11 (a column is hashed by Poseidon of that arity), not " +
               std::to_string(s.layers));
  }
  if (s.base_degree < 1 || s.base_degree > 32) {
    return bad("base_degree must be in [1, 32], not " + std::to_string(s.base_degree));
  }
  if (s.expansion_degree > 32) {
    return bad("expansion_degree must be in [0, 32], not " + std::to_string(s.expansion_degree));
  }
  if (s.challenges < 1 || s.challenges > 1024) {
    return bad("challenges must be in [1, 1024], not " + std::to_string(s.challenges));
  }
  if (s.partitions < 1 || s.partitions > 64) {
    return bad("partitions must be in [1, 64], not " + std::to_string(s.partitions));
  }
  return ok_status();
}

const std::vector<Shape>& shape_presets() {
  // nodes, layers, base, expansion, challenges per partition, partitions. The small ones keep
  // tests and CI quick; 8MiB and 512MiB follow Filecoin's test sectors (6 DRG + 8 expander
  // parents) at this project's own challenge counts.
  static const std::vector<Shape> presets = {
      {"tiny", 8, 2, 2, 2, 1, 2},
      {"2KiB", 64, 2, 6, 8, 1, 2},
      {"8MiB", uint64_t{1} << 18, 2, 6, 8, 2, 2},
      {"512MiB", uint64_t{1} << 24, 2, 6, 8, 2, 2},
  };
  return presets;
}

Result<Shape> find_shape(const std::string& name) {
  std::string names;
  for (const Shape& s : shape_presets()) {
    if (s.name == name) return s;
    names += (names.empty() ? "" : ", ") + s.name;
  }
  return not_found("unknown sector shape '" + name + "' (presets: " + names + ")");
}

}  // namespace zkpipe::porep
