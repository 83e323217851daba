// Sector shapes and presets (zkpipe/sector/shape.h).
#include "zkpipe/sector/shape.h"

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

Status validate_sector_nodes(uint64_t nodes, const std::string& what) {
  if (nodes < 8 || !std::has_single_bit(nodes) || std::countr_zero(nodes) % 3 != 0) {
    return invalid_argument(what + ": nodes must be a power of 8 (8, 64, 512, ...), not " +
                            std::to_string(nodes));
  }
  if (nodes > (uint64_t{1} << 36)) {
    return invalid_argument(what + ": nodes above 2^36 (2 TiB) are not supported");
  }
  return ok_status();
}

Status validate_partitioning(uint32_t challenges, uint32_t partitions, const std::string& what) {
  if (challenges < 1 || challenges > 1024) {
    return invalid_argument(what + ": challenges must be in [1, 1024], not " +
                            std::to_string(challenges));
  }
  if (partitions < 1 || partitions > 64) {
    return invalid_argument(what + ": partitions must be in [1, 64], not " +
                            std::to_string(partitions));
  }
  return ok_status();
}

Status validate_shape(const Shape& s, const std::string& what) {
  auto bad = [&](const std::string& m) { return invalid_argument(what + ": " + m); };
  ZKP_RETURN_IF_ERROR(validate_sector_nodes(s.nodes, what));
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
  ZKP_RETURN_IF_ERROR(validate_partitioning(s.challenges, s.partitions, what));
  return check_preset_partitions(s, shape_presets(), what);
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

void name_after_preset(Shape& s) {
  name_after(s, shape_presets());
}

Result<Shape> find_shape(const std::string& name) {
  return find_in(shape_presets(), name);
}

}  // namespace zkpipe::porep
