// commd.cpp: comm_d over padded data and of zero pieces (zkpipe/filecoin/commd.h).
#include "zkpipe/filecoin/commd.h"

#include <bit>
#include <string>
#include <vector>

namespace zkpipe::filecoin {

Result<Domain> comm_d_padded(std::span<const uint8_t> padded) {
  const size_t leaves = padded.size() / 32;
  if (padded.size() % 32 != 0 || leaves == 0 || !std::has_single_bit(leaves)) {
    return invalid_argument("comm_d: " + std::to_string(padded.size()) +
                            " padded bytes are not a power of two of 32-byte leaves");
  }
  std::vector<Domain> level(leaves);
  for (size_t i = 0; i < leaves; ++i) std::copy_n(padded.data() + 32 * i, 32, level[i].begin());
  while (level.size() > 1) {
    for (size_t i = 0; i < level.size() / 2; ++i)
      level[i] = sha256_trunc254_pair(level[2 * i], level[2 * i + 1]);
    level.resize(level.size() / 2);
  }
  return level[0];
}

Result<Domain> comm_d_of_data(std::span<const uint8_t> data) {
  if (data.empty() || data.size() % 127 != 0) {
    return invalid_argument("comm_d: " + std::to_string(data.size()) +
                            " data bytes are not a whole number of 127-byte fr32 groups");
  }
  return comm_d_padded(fr32_pad(data));
}

Result<Domain> zero_piece_comm(uint64_t padded_size) {
  if (padded_size < 32 || !std::has_single_bit(padded_size)) {
    return invalid_argument("zero piece: padded size " + std::to_string(padded_size) +
                            " is not a power of two of at least 32 bytes");
  }
  Domain node{};
  for (uint64_t size = 32; size < padded_size; size *= 2) node = sha256_trunc254_pair(node, node);
  return node;
}

}  // namespace zkpipe::filecoin
