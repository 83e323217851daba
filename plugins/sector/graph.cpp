// The parent graph (zkpipe/sector/graph.h).
#include "zkpipe/sector/graph.h"

#include <bit>
#include <string>

#include "zkpipe/gadgets/sha256.h"

namespace zkpipe::porep {
namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

Graph::Graph(const Shape& shape)
    : nodes_(shape.nodes), base_(shape.base_degree), expansion_(shape.expansion_degree) {
  std::string seed = "zkpipe porep graph v1" + shape.circuit_id();
  auto digest = gadgets::sha256(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(seed.data()), seed.size()));
  key_ = 0;
  for (int b = 7; b >= 0; --b) key_ = (key_ << 8) | digest[b];
}

uint64_t Graph::prf(uint64_t t, uint64_t i, uint64_t j) const {
  return splitmix64(key_ ^ (t << 62) ^ (i << 8) ^ j);
}

void Graph::parents(uint64_t node, std::span<uint64_t> out) const {
  for (uint32_t j = 0; j < base_; ++j) {
    if (node == 0) {
      out[j] = 0;
    } else if (j == 0) {
      out[j] = node - 1;
    } else {
      uint64_t x = prf(1, node, j);
      uint64_t buckets = static_cast<uint64_t>(std::bit_width(node));  // floor(log2 i) + 1
      uint64_t b = 1 + x % buckets;
      uint64_t hi = std::min<uint64_t>(node, uint64_t{1} << b);
      uint64_t lo = std::max<uint64_t>(1, uint64_t{1} << (b - 1));
      if (lo > hi) lo = hi;
      uint64_t d = lo + (x >> 32) % (hi - lo + 1);
      out[j] = node - d;
    }
  }
  for (uint32_t k = 0; k < expansion_; ++k) out[base_ + k] = prf(2, node, k) % nodes_;
}

}  // namespace zkpipe::porep
