// window_post and winning_post without Groth16: shapes and presets, the challenge derivation and
// the sector draw, vanilla proofs made from sealed sectors, and every tamper class of the native
// check, each named (sector, challenge, what does not match).
#include <catch2/catch.hpp>

#include "fixtures.h"

namespace post_test {
namespace {

TEST_CASE("PoSt shape: presets are valid, custom shapes are checked", "[post]") {
  for (Kind kind : {Kind::kWindow, Kind::kWinning}) {
    for (const Preset& p : presets(kind)) {
      INFO(p.shape.circuit_id());
      REQUIRE(validate_shape(p.shape, "preset").ok());
      Shape s = p.shape;
      name_after_preset(s);
      REQUIRE(s.name == p.shape.name);
      REQUIRE(p.partitions() >= 1);
    }
  }
  CHECK(tiny(Kind::kWindow).circuit_id() == "window_post-v1-n8-s2-c2");
  CHECK(tiny(Kind::kWinning).circuit_id() == "winning_post-v1-n8-s1-c4");
  CHECK(tiny(Kind::kWindow).num_public_inputs() == 1 + 2 * 3);
  CHECK(find_preset(Kind::kWindow, "tiny")->partitions() == 2);
  Shape s = tiny(Kind::kWindow);
  s.nodes = 16;
  CHECK_THAT(validate_shape(s, "x").message(), Catch::Contains("x: nodes must be a power of 8"));
  s = tiny(Kind::kWinning);
  s.sectors = 2;
  CHECK_THAT(validate_shape(s, "x").message(), Catch::Contains("proves 1 sector, not 2"));
  s = tiny(Kind::kWindow);
  s.challenges = 0;
  CHECK_THAT(validate_shape(s, "x").message(), Catch::Contains("challenges per sector"));
  CHECK(preset_for_nodes(Kind::kWindow, 64)->shape.name == "2KiB");
  CHECK_THAT(preset_for_nodes(Kind::kWinning, 512).status().message(),
             Catch::Contains("no winning_post preset has sectors of 512 nodes"));
  CHECK_THAT(find_preset(Kind::kWinning, "nope").status().message(),
             Catch::Contains("unknown winning_post shape 'nope' (presets: tiny, 2KiB, 8MiB)"));
}

TEST_CASE("PoSt challenges: deterministic, below nodes, bound to every input", "[post]") {
  const uint64_t nodes = uint64_t{1} << 30;
  const Seed r = randomness();
  Seed r2 = r;
  r2[31] ^= 1;
  const uint64_t c = derive_challenge(Kind::kWindow, r, 7, 0, nodes);
  CHECK(c < nodes);
  CHECK(c == derive_challenge(Kind::kWindow, r, 7, 0, nodes));
  CHECK(c != derive_challenge(Kind::kWindow, r, 8, 0, nodes));
  CHECK(c != derive_challenge(Kind::kWindow, r, 7, 1, nodes));
  CHECK(c != derive_challenge(Kind::kWinning, r, 7, 0, nodes));
  CHECK(c != derive_challenge(Kind::kWindow, r2, 7, 0, nodes));
  for (uint32_t j = 0; j < 64; ++j) CHECK(derive_challenge(Kind::kWindow, r, 1, j, 8) < 8);
  CHECK(draw_sector(r, 1) == 0);
  for (uint32_t n : {2u, 5u, 1000u}) CHECK(draw_sector(r, n) < n);
}

TEST_CASE("PoSt vanilla: honest proofs pass; partitions and padding", "[post]") {
  const VanillaProofs& w = window_vanilla();
  REQUIRE(check_message(w) == "OK");
  REQUIRE(partitions(w) == 2);
  CHECK(slot_proof(w, 0, 1) == 1);
  CHECK(slot_proof(w, 1, 0) == 2);
  CHECK(slot_proof(w, 1, 1) == 2);  // the short last partition repeats its last sector
  const std::vector<Fr> x = public_inputs(w, 1);
  REQUIRE(x.size() == 6);
  CHECK(std::vector<Fr>(x.begin(), x.begin() + 3) == std::vector<Fr>(x.begin() + 3, x.end()));
  CHECK(x[0] == tiny_sectors()[2].comms.comm_r);

  const VanillaProofs& v = winning_vanilla();
  REQUIRE(check_message(v) == "OK");
  REQUIRE(partitions(v) == 1);
  REQUIRE(v.proofs.size() == 1);
  const uint32_t drawn = draw_sector(v.randomness, 5);
  CHECK(v.proofs[0].sector_id == 100 + drawn);
  CHECK(public_inputs(v, 0)[0] == tiny_sectors()[drawn].comms.comm_r);
}

TEST_CASE("PoSt vanilla: every tampered part is refused, naming sector and challenge", "[post]") {
  const VanillaProofs& good = window_vanilla();
  const uint64_t leaf = good.proofs[1].challenges[1].leaf_index;
  auto tampered = [&](auto&& change) {
    VanillaProofs v = good;
    change(v);
    return check_message(v);
  };
  CHECK_THAT(tampered([](VanillaProofs& v) { v.sectors[1].comm_r += Fr::one(); }),
             Catch::Equals("v.bin: sector 101: comm_r does not equal Poseidon(comm_c, "
                           "comm_r_last)"));
  CHECK_THAT(tampered([](VanillaProofs& v) { v.proofs[1].comm_c += Fr::one(); }),
             Catch::Contains("sector 101: comm_r does not equal Poseidon(comm_c, comm_r_last)"));
  CHECK_THAT(tampered([](VanillaProofs& v) { v.proofs[2].comm_r_last += Fr::one(); }),
             Catch::Contains("sector 102: comm_r does not equal Poseidon(comm_c, comm_r_last)"));
  CHECK_THAT(tampered([](VanillaProofs& v) { v.proofs[1].challenges[1].leaf += Fr::one(); }),
             Catch::Equals("v.bin: sector 101, challenge 1 (leaf " + std::to_string(leaf) +
                           "): the leaf and its tree R path do not lead to comm_r_last"));
  CHECK_THAT(tampered([](VanillaProofs& v) { v.proofs[0].challenges[0].path[3] += Fr::one(); }),
             Catch::Contains("sector 100, challenge 0 (leaf ") &&
                 Catch::Contains("do not lead to comm_r_last"));
  CHECK_THAT(tampered([](VanillaProofs& v) {
               auto& c = v.proofs[2].challenges[0];
               c.leaf_index = (c.leaf_index + 1) % 8;
             }),
             Catch::Contains("sector 102, challenge 0: the leaf index") &&
                 Catch::Contains("is not its derivation"));
  CHECK_THAT(tampered([](VanillaProofs& v) { v.proofs[0].challenges[0].path.pop_back(); }),
             Catch::Contains("sector 100, challenge 0: the tree R path has 6 elements, not 7"));
  CHECK_THAT(tampered([](VanillaProofs& v) { v.proofs[0].challenges.pop_back(); }),
             Catch::Contains("sector 100: 1 challenges; the shape has 2"));
  CHECK_THAT(tampered([](VanillaProofs& v) { v.sectors[2].id = 100; }),
             Catch::Equals("v.bin: sector 100 is listed twice (entries 0 and 2)"));
  CHECK_THAT(tampered([](VanillaProofs& v) { v.proofs.pop_back(); }),
             Catch::Equals("v.bin: sector 102 has no proof (3 sectors listed, 2 proven)"));
  CHECK_THAT(tampered([](VanillaProofs& v) { v.proofs.push_back(v.proofs[0]); }),
             Catch::Contains("4 sector proofs; a window_post request of 3 sectors has 3"));
  CHECK_THAT(tampered([](VanillaProofs& v) { std::swap(v.proofs[0], v.proofs[1]); }),
             Catch::Equals("v.bin: proof 0 is of sector 101, but entry 0 lists sector 100 "
                           "(proofs follow the listed order)"));
  // A sector's id changed in both places: its challenges are no longer the derived ones.
  CHECK_THAT(tampered([](VanillaProofs& v) { v.sectors[0].id = v.proofs[0].sector_id = 9; }),
             Catch::Contains("sector 9, challenge 0: the leaf index"));
  CHECK_THAT(tampered([](VanillaProofs& v) { v.randomness[0] ^= 1; }),
             Catch::Contains("is not its derivation"));
  CHECK_THAT(tampered([](VanillaProofs& v) { v.sectors.clear(); }),
             Catch::Contains("0 sectors; a window_post request of this shape holds 1 to 128"));
}

TEST_CASE("PoSt vanilla: a WinningPoSt sector that is not the drawn one is refused", "[post]") {
  const VanillaProofs& good = winning_vanilla();
  const uint32_t drawn = draw_sector(good.randomness, 5);
  const uint32_t other = (drawn + 1) % 5;
  // An honest proof of another sector of the set.
  VanillaProofs bad = good;
  bad.proofs[0] = {
      100 + other, tiny_sectors()[other].comms.comm_c, tiny_sectors()[other].comms.comm_r_last, {}};
  for (uint32_t j = 0; j < bad.shape.challenges; ++j) {
    ChallengeOpening c;
    c.leaf_index = derive_challenge(Kind::kWinning, good.randomness, 100 + other, j, 8);
    c.leaf = tiny_sectors()[other].tree_r.leaf(c.leaf_index);
    c.path = tiny_sectors()[other].tree_r.path(c.leaf_index);
    bad.proofs[0].challenges.push_back(c);
  }
  CHECK_THAT(check_message(bad),
             Catch::Equals("v.bin: sector " + std::to_string(100 + other) +
                           " is not the drawn sector: the randomness draws entry " +
                           std::to_string(drawn) + " of 5, sector " + std::to_string(100 + drawn)));
  // The same proof is good when the randomness draws that sector: the set decides.
  VanillaProofs other_set = bad;
  other_set.sectors = {good.sectors[other]};
  CHECK(check_message(other_set) == "OK");
  bad = good;
  bad.proofs.clear();
  CHECK_THAT(check_message(bad), Catch::Equals("v.bin: sector " + std::to_string(100 + drawn) +
                                               " has no proof (5 sectors listed, 0 proven)"));
  bad = good;
  bad.proofs[0].challenges[2].leaf += Fr::one();
  CHECK_THAT(check_message(bad), Catch::Contains("challenge 2 (leaf"));
  bad = good;
  bad.sectors[drawn].comm_r += Fr::one();
  CHECK_THAT(check_message(bad),
             Catch::Contains("sector " + std::to_string(100 + drawn) + ": comm_r does not equal"));
}

TEST_CASE("PoSt vanilla: making proofs refuses wrong sizes, repeated ids, too many sectors",
          "[post]") {
  porep::Shape two_kib = porep::find_shape("2KiB").value();
  const porep::SealedSector big = porep::seal(two_kib, porep::seed_from_string("2KiB"), 1);
  std::vector<SectorInput> in = inputs(2);
  in.push_back({7, &big, "big.sector"});
  CHECK_THAT(make_vanilla_proofs(tiny(Kind::kWindow), randomness(), in).status().message(),
             Catch::Equals("big.sector (sector 7): the sector has 64 nodes; shape 'tiny' proves "
                           "sectors of 8"));
  in = inputs(3);
  in[2].id = in[0].id;
  CHECK_THAT(make_vanilla_proofs(tiny(Kind::kWindow), randomness(), in).status().message(),
             Catch::Contains("sector 100 is listed twice (entries 0 and 2)"));
  in.clear();
  for (uint64_t i = 0; i <= uint64_t{kMaxPartitions} * 2; ++i) {
    in.push_back({i, &tiny_sectors()[0], "s"});
  }
  CHECK_THAT(make_vanilla_proofs(tiny(Kind::kWindow), randomness(), in).status().message(),
             Catch::Contains("129 sectors; a window_post request of this shape holds 1 to 128"));
  in.pop_back();
  CHECK(make_vanilla_proofs(tiny(Kind::kWindow), randomness(), in).ok());
}

}  // namespace
}  // namespace post_test
