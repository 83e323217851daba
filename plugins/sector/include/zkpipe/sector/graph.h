// zkpipe/sector/graph.h: the parent graph of a StackedDRG-style sector, fixed by its shape.
// Node i (i >= 1) of layer l has `base_degree` DRG parents in layer l and, for l >= 2,
// `expansion_degree` expander parents in layer l - 1:
//   DRG (DRSample-style bucket sampling): parent 0 is i - 1; parent j >= 1 is i - d with
//     b = 1 + x mod (floor(log2 i) + 1), d uniform in [max(1, 2^(b-1)), min(i, 2^b)],
//     x = prf(1, i, j).
//   expander (random bipartite): parent k = prf(2, i, k) mod nodes.
// prf(t, i, j) = splitmix64 over (key ^ t·2^62 ^ i·2^8 ^ j), key = the first 8 bytes (LE) of
// SHA-256("zkpipe porep graph v1" || circuit id). Node 0's DRG parents are all 0 and read as a
// zero label (Filecoin's convention); node 0 is never challenged.
// Thread-safety: immutable; parents() may be called from any thread.
#pragma once

#include <cstdint>
#include <span>

#include "zkpipe/sector/shape.h"

namespace zkpipe::porep {

class Graph {
 public:
  explicit Graph(const Shape& shape);

  // Writes shape.parents() indices: the DRG parents, then the expander parents.
  void parents(uint64_t node, std::span<uint64_t> out) const;
  uint32_t base_degree() const { return base_; }
  uint32_t expansion_degree() const { return expansion_; }
  uint64_t nodes() const { return nodes_; }

 private:
  uint64_t prf(uint64_t t, uint64_t i, uint64_t j) const;
  uint64_t nodes_;
  uint32_t base_, expansion_;
  uint64_t key_;
};

}  // namespace zkpipe::porep
