// Poseidon: the reference's published permutation vectors, the round numbers per width, the
// fast form against the textbook rounds, native against in-circuit hashes, the recorded R1CS
// (satisfied, tamper caught, exact size) and witness-only mode against record mode.
#include <catch2/catch.hpp>

#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "zkpipe/gadgets/poseidon.h"

namespace zkpipe::gadgets {
namespace {

using groth16::check_satisfied;

constexpr uint32_t kArities[] = {2, 4, 8, 11};

std::vector<Fr> random_elements(std::mt19937_64& rng, size_t n) {
  std::vector<Fr> v;
  for (size_t i = 0; i < n; ++i) v.push_back(Fr::random(rng));
  return v;
}

void check_vector(uint32_t width, const std::vector<std::string>& expected) {
  const PoseidonParams& p = poseidon_reference_params(width);
  std::vector<Fr> fast, plain;
  for (uint32_t i = 0; i < width; ++i) fast.push_back(Fr::from_u64(i));
  plain = fast;
  poseidon_permute(p, fast);
  poseidon_permute_plain(p, plain);
  for (uint32_t i = 0; i < width; ++i) {
    CHECK(fast[i].to_hex() == expected[i]);
    CHECK(plain[i].to_hex() == expected[i]);
  }
}

TEST_CASE("Poseidon: the reference instances reproduce the published test vectors", "[poseidon]") {
  // hadeshash test vectors poseidonperm_x5_255_3 and poseidonperm_x5_255_5 (BLS12-381 Fr):
  // permutation of [0, 1, ..., t-1].
  CHECK(poseidon_reference_params(3).partial_rounds == 57);
  CHECK(poseidon_reference_params(5).partial_rounds == 60);
  check_vector(3, {"28ce19420fc246a05553ad1e8c98f5c9d67166be2c18e9e4cb4b4e317dd2a78a",
                   "51f3e312c95343a896cfd8945ea82ba956c1118ce9b9859b6ea56637b4b1ddc4",
                   "3b2b69139b235626a0bfb56c9527ae66a7bf486ad8c11c14d1da0c69bbe0f79a"});
  check_vector(5, {"2a918b9c9f9bd7bb509331c81e297b5707f6fc7393dcee1b13901a0b22202e18",
                   "65ebf8671739eeb11fb217f2d5c5bf4a0c3f210e3f3cd3b08b5db75675d797f7",
                   "2cc176fc26bc70737a696a9dfd1b636ce360ee76926d182390cdb7459cf585ce",
                   "4dc4e29d283afd2a491fe6aef122b9a968e74eff05341f3cc23fda1781dcb566",
                   "03ff622da276830b9451b88b85e6184fd6ae15c8ab3ee25a5667be8592cce3b1"});
}

TEST_CASE("Poseidon: round numbers and table sizes per width", "[poseidon]") {
  // Fewest S-boxes satisfying the paper's inequalities (x^5, 255-bit p, 128 bits) with the
  // margin R_F + 2, ceil(1.075 R_P); generate_constants.py --print-rounds recomputes them.
  struct Expected {
    uint32_t arity, width, full, partial;
  };
  for (const Expected& e : {Expected{2, 3, 8, 56}, Expected{4, 5, 8, 56}, Expected{8, 9, 8, 57},
                            Expected{11, 12, 8, 57}}) {
    const PoseidonParams& p = poseidon_params(e.arity);
    CHECK(p.width == e.width);
    CHECK(p.full_rounds == e.full);
    CHECK(p.partial_rounds == e.partial);
    CHECK(p.round_constants.size() == size_t{e.full + e.partial} * e.width);
    CHECK(p.mds.size() == size_t{e.width} * e.width);
    CHECK_FALSE(p.fast.empty());
  }
}

TEST_CASE("Poseidon: the fast form equals the textbook rounds", "[poseidon]") {
  std::mt19937_64 rng(7);
  for (uint32_t arity : kArities) {
    const PoseidonParams& p = poseidon_params(arity);
    for (int k = 0; k < 4; ++k) {
      std::vector<Fr> a = random_elements(rng, p.width), b = a;
      poseidon_permute(p, a);
      poseidon_permute_plain(p, b);
      CHECK(a == b);
    }
  }
}

TEST_CASE("Poseidon: the hash is lane 1 of the permuted tagged state", "[poseidon]") {
  std::mt19937_64 rng(8);
  for (uint32_t arity : kArities) {
    const std::vector<Fr> in = random_elements(rng, arity);
    std::vector<Fr> state{Fr::from_u64((uint64_t{1} << arity) - 1)};
    state.insert(state.end(), in.begin(), in.end());
    poseidon_permute_plain(poseidon_params(arity), state);
    CHECK(poseidon_hash(in) == state[1]);
  }
}

struct Recorded {
  groth16::R1cs r1cs;
  std::vector<Fr> inputs, aux;
  Fr out;
};

// One hash: input 0 public, the rest aux.
Num hash_circuit(ConstraintSystem& cs, const std::vector<Fr>& in) {
  std::vector<Num> nums;
  for (size_t i = 0; i < in.size(); ++i)
    nums.push_back(i == 0 ? Num::input(cs, in[i]) : Num::alloc(cs, in[i]));
  return poseidon_hash(cs, nums);
}

Recorded record(const std::vector<Fr>& in) {
  auto cs = ConstraintSystem::recorder();
  const Num out = hash_circuit(cs, in);
  REQUIRE(cs.finish().ok());
  CHECK(cs.value(out.var) == out.value);
  Recorded r{cs.take_r1cs(), {}, {}, out.value};
  std::tie(r.inputs, r.aux) = cs.take_witness();
  return r;
}

TEST_CASE("Poseidon: in-circuit equals native, the R1CS is satisfied and tampering is caught",
          "[poseidon]") {
  std::mt19937_64 rng(9);
  // 3 constraints per S-box (R_F t + R_P of them) and one binding the output.
  const std::pair<uint32_t, uint32_t> expected_constraints[] = {
      {2, 241}, {4, 289}, {8, 388}, {11, 460}};
  for (const auto& [arity, constraints] : expected_constraints) {
    for (int k = 0; k < 3; ++k) {
      const std::vector<Fr> in = random_elements(rng, arity);
      const Recorded r = record(in);
      CHECK(r.out == poseidon_hash(in));
      CHECK(r.r1cs.num_constraints() == constraints);
      CHECK(r.r1cs.num_inputs == 2);
      CHECK(r.r1cs.num_aux == arity - 1 + constraints);
      REQUIRE(check_satisfied(r.r1cs, {r.inputs, r.aux}).ok());
      std::vector<Fr> aux = r.aux;
      aux[arity - 1 + 3 * (k + 1) - 1] += Fr::one();  // an S-box output of the first round
      CHECK_FALSE(check_satisfied(r.r1cs, {r.inputs, aux}).ok());
      aux = r.aux;
      aux.back() += Fr::one();  // the output
      CHECK_FALSE(check_satisfied(r.r1cs, {r.inputs, aux}).ok());
    }
  }
}

TEST_CASE("Poseidon: witness-only mode writes the record mode's assignment", "[poseidon]") {
  std::mt19937_64 rng(10);
  for (uint32_t arity : kArities) {
    const std::vector<Fr> in = random_elements(rng, arity);
    const Recorded r = record(in);
    std::vector<Fr> inputs(r.r1cs.num_inputs), aux(r.r1cs.num_aux);
    auto cs = ConstraintSystem::witness({inputs, aux});
    const Num out = hash_circuit(cs, in);
    REQUIRE(cs.finish().ok());
    CHECK(out.value == r.out);
    CHECK(cs.num_constraints() == r.r1cs.num_constraints());
    CHECK(cs.num_aux() == r.r1cs.num_aux);
    CHECK(inputs == r.inputs);
    CHECK(aux == r.aux);
  }
}

TEST_CASE("Poseidon: an unsupported arity is a clear error", "[poseidon]") {
  for (uint32_t arity : {0u, 1u, 3u, 12u}) {
    const Result<const PoseidonParams*> p = find_poseidon_params(arity);
    REQUIRE_FALSE(p.ok());
    CHECK(p.status().code() == Code::kInvalidArgument);
    CHECK_THAT(p.status().message(),
               Catch::Contains("arity " + std::to_string(arity)) && Catch::Contains("2, 4, 8, 11"));
    CHECK_THROWS_AS(poseidon_params(arity), std::invalid_argument);
    const std::vector<Fr> in(arity, Fr::one());
    CHECK_THROWS_AS(poseidon_hash(in), std::invalid_argument);
    auto cs = ConstraintSystem::recorder();
    const std::vector<Num> nums(arity, Num{Variable::one(), Fr::one()});
    CHECK_THROWS_WITH(poseidon_hash(cs, nums), Catch::Contains("not supported"));
  }
  CHECK_THROWS_AS(poseidon_reference_params(4), std::invalid_argument);
  std::vector<Fr> wrong(4);
  CHECK_THROWS_AS(poseidon_permute(poseidon_params(2), wrong), std::invalid_argument);
}

}  // namespace
}  // namespace zkpipe::gadgets
