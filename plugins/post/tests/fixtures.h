// post/tests/fixtures.h: tiny sealed sectors and their vanilla proofs, made once per test run,
// shared by the unit tests of window_post and winning_post.
// Thread-safety: function-local statics (Catch2 runs tests on one thread).
#pragma once

#include <string>
#include <vector>

#include "shape.h"
#include "vanilla.h"
#include "zkpipe/sector/seal.h"

namespace post_test {

using namespace zkpipe;
using namespace zkpipe::post;
using crypto::Fr;

inline Shape tiny(Kind kind) {
  return find_preset(kind, "tiny").value().shape;
}

// Five sealed tiny sectors (porep shape tiny: 8 nodes).
inline const std::vector<porep::SealedSector>& tiny_sectors() {
  static const std::vector<porep::SealedSector> s = [] {
    std::vector<porep::SealedSector> out;
    for (int i = 0; i < 5; ++i) {
      out.push_back(porep::seal(porep::find_shape("tiny").value(),
                                porep::seed_from_string("post test sector " + std::to_string(i)),
                                1));
    }
    return out;
  }();
  return s;
}

inline Seed randomness() {
  return porep::seed_from_string("post test randomness");
}

// Sectors 0..count-1 as ids 100, 101, ...
inline std::vector<SectorInput> inputs(size_t count) {
  std::vector<SectorInput> in;
  for (size_t i = 0; i < count; ++i) {
    in.push_back({100 + i, &tiny_sectors()[i], "s" + std::to_string(i) + ".sector"});
  }
  return in;
}

// WindowPoSt over 3 sectors (2 per partition: the second partition padded); WinningPoSt over an
// eligible set of 5.
inline const VanillaProofs& window_vanilla() {
  static const VanillaProofs v =
      make_vanilla_proofs(tiny(Kind::kWindow), randomness(), inputs(3)).value();
  return v;
}
inline const VanillaProofs& winning_vanilla() {
  static const VanillaProofs v =
      make_vanilla_proofs(tiny(Kind::kWinning), randomness(), inputs(5)).value();
  return v;
}

inline std::string check_message(const VanillaProofs& v) {
  Status s = check_vanilla(v, "v.bin");
  return s.ok() ? "OK" : s.message();
}

}  // namespace post_test
