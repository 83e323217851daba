// Boolean and UInt32 gadgets: every op against native values, constant folding, recorded R1CS
// satisfied, tampered results caught, witness-only mode equal to record mode.
#include <catch2/catch.hpp>

#include <bit>
#include <cstdint>
#include <random>
#include <vector>

#include "zkpipe/gadgets/boolean.h"
#include "zkpipe/gadgets/uint32.h"

namespace zkpipe::gadgets {
namespace {

using groth16::check_satisfied;
using groth16::R1cs;

struct Recorded {
  R1cs r1cs;
  std::vector<Fr> inputs, aux;
};

// Runs `circuit` in record mode (requires the R1CS satisfied), then in witness-only mode with
// buffers sized from the record run (requires the same assignment and constraint count).
template <typename F>
Recorded record_and_compare(F&& circuit) {
  auto rec = ConstraintSystem::recorder();
  circuit(rec);
  REQUIRE(rec.finish().ok());
  const uint64_t constraints = rec.num_constraints();
  Recorded out;
  out.r1cs = rec.take_r1cs();
  std::tie(out.inputs, out.aux) = rec.take_witness();
  REQUIRE(out.r1cs.num_constraints() == constraints);
  REQUIRE(check_satisfied(out.r1cs, {out.inputs, out.aux}).ok());

  std::vector<Fr> inputs(out.inputs.size()), aux(out.aux.size());
  auto wit = ConstraintSystem::witness({inputs, aux});
  circuit(wit);
  REQUIRE(wit.finish().ok());
  REQUIRE(wit.num_constraints() == constraints);
  REQUIRE(wit.num_aux() == aux.size());
  REQUIRE(inputs == out.inputs);
  REQUIRE(aux == out.aux);
  return out;
}

// Kind code: 0 constant, 1 allocated, 2 negation of an allocated bit; the value is v.
Boolean make(ConstraintSystem& cs, int kind, bool v) {
  if (kind == 0) return Boolean::constant(v);
  if (kind == 1) return Boolean::alloc(cs, v);
  return !Boolean::alloc(cs, !v);
}

void flip_aux(Recorded& r, const Boolean& b) {
  REQUIRE(b.variable().kind == Variable::Kind::kAux);
  Fr& v = r.aux[b.variable().index];
  v = Fr::one() - v;
}

enum class Op { kXor, kAnd, kOr, kXor3, kCh, kMaj };

bool native(Op op, bool a, bool b, bool c) {
  switch (op) {
    case Op::kXor:
      return a != b;
    case Op::kAnd:
      return a && b;
    case Op::kOr:
      return a || b;
    case Op::kXor3:
      return (a != b) != c;
    case Op::kCh:
      return a ? b : c;
    case Op::kMaj:
      return int{a} + int{b} + int{c} >= 2;
  }
  return false;
}

Boolean apply(ConstraintSystem& cs, Op op, const Boolean& a, const Boolean& b, const Boolean& c) {
  switch (op) {
    case Op::kXor:
      return Boolean::xor_(cs, a, b);
    case Op::kAnd:
      return Boolean::and_(cs, a, b);
    case Op::kOr:
      return Boolean::or_(cs, a, b);
    case Op::kXor3:
      return Boolean::xor3(cs, a, b, c);
    case Op::kCh:
      return Boolean::ch(cs, a, b, c);
    case Op::kMaj:
      return Boolean::maj(cs, a, b, c);
  }
  return Boolean();
}

}  // namespace

TEST_CASE("Boolean: every op matches its truth table for constants, bits and negations",
          "[gadgets]") {
  const Op ops[] = {Op::kXor, Op::kAnd, Op::kOr, Op::kXor3, Op::kCh, Op::kMaj};
  // The most constraints each op may add when all of its inputs are variables.
  const uint64_t max_cost[] = {1, 1, 1, 2, 1, 2};
  for (size_t o = 0; o < 6; ++o) {
    const bool ternary = ops[o] == Op::kXor3 || ops[o] == Op::kCh || ops[o] == Op::kMaj;
    for (int code = 0; code < (ternary ? 216 : 36); ++code) {
      const int ka = code % 3, kb = code / 3 % 3, kc = ternary ? code / 9 % 3 : 0;
      const int values = code / (ternary ? 27 : 9);
      const bool va = values & 1, vb = (values >> 1) & 1, vc = ternary && ((values >> 2) & 1);
      INFO("op " << o << " kinds " << ka << kb << kc << " values " << va << vb << vc);
      Boolean result;
      uint64_t cost = 0;
      Recorded r = record_and_compare([&](ConstraintSystem& cs) {
        const Boolean a = make(cs, ka, va), b = make(cs, kb, vb), c = make(cs, kc, vc);
        const uint64_t before = cs.num_constraints();
        result = apply(cs, ops[o], a, b, c);
        cost = cs.num_constraints() - before;
        REQUIRE(result.value() == native(ops[o], va, vb, vc));
        REQUIRE(cs.value(result.lc()) == (result.value() ? Fr::one() : Fr::zero()));
      });
      CHECK(cost <= max_cost[o]);
      const bool all_constant = ka == 0 && kb == 0 && kc == 0;
      if (all_constant) CHECK((cost == 0 && result.is_constant()));
      // A result of its own (not an input passed through) is bound: flipping it breaks the R1CS.
      if (ka != 0 && kb != 0 && (!ternary || kc != 0)) {
        flip_aux(r, result);
        CHECK_FALSE(check_satisfied(r.r1cs, {r.inputs, r.aux}).ok());
      }
    }
  }
}

TEST_CASE("Boolean: alloc rejects a value other than 0 or 1", "[gadgets]") {
  auto cs = ConstraintSystem::recorder();
  const Boolean b = Boolean::alloc(cs, true);
  CHECK(cs.num_constraints() == 1);
  R1cs r1cs = cs.take_r1cs();
  auto [inputs, aux] = cs.take_witness();
  REQUIRE(check_satisfied(r1cs, {inputs, aux}).ok());
  aux[b.variable().index] = Fr::from_u64(2);
  CHECK_FALSE(check_satisfied(r1cs, {inputs, aux}).ok());
}

TEST_CASE("Boolean: enforce_equal binds bits and folds constants", "[gadgets]") {
  for (int ka = 0; ka < 3; ++ka) {
    for (int kb = 0; kb < 3; ++kb) {
      for (int v = 0; v < 4; ++v) {
        auto cs = ConstraintSystem::recorder();
        enforce_equal(cs, make(cs, ka, v & 1), make(cs, kb, v >> 1));
        R1cs r1cs = cs.take_r1cs();
        auto [inputs, aux] = cs.take_witness();
        INFO("kinds " << ka << kb << " values " << v);
        CHECK(check_satisfied(r1cs, {inputs, aux}).ok() == ((v & 1) == (v >> 1)));
      }
    }
  }
}

TEST_CASE("UInt32: xor, xor3, ch, maj, rotr and shr match native values", "[gadgets]") {
  std::mt19937 rng(7);
  for (int iter = 0; iter < 40; ++iter) {
    const uint32_t x = rng(), y = rng(), z = rng();
    const unsigned n = rng() % 32;
    const bool constant_y = iter % 4 == 1;  // mixes constant and variable words
    record_and_compare([&](ConstraintSystem& cs) {
      const UInt32 a = UInt32::alloc(cs, x);
      const UInt32 b = constant_y ? UInt32::constant(y) : UInt32::alloc(cs, y);
      const UInt32 c = UInt32::alloc(cs, z);
      const auto check = [&](const UInt32& w, uint32_t expected) {
        REQUIRE(w.value() == expected);
        for (unsigned i = 0; i < 32; ++i) REQUIRE(w.bits_le()[i].value() == ((expected >> i) & 1));
      };
      check(a.rotr(n), std::rotr(x, static_cast<int>(n)));
      check(a.shr(n), x >> n);
      check(UInt32::xor_(cs, a, b), x ^ y);
      check(UInt32::xor3(cs, a.rotr(n), b, c.shr(n)),
            std::rotr(x, static_cast<int>(n)) ^ y ^ (z >> n));
      check(UInt32::ch(cs, a, b, c), (x & y) ^ (~x & z));
      check(UInt32::maj(cs, a, b, c), (x & y) ^ (x & z) ^ (y & z));
      check(UInt32::from_bits_be(a.to_bits_be()), x);
      check(UInt32::from_bits_le(a.bits_le()), x);
    });
  }
}

TEST_CASE("UInt32: addmany sums mod 2^32 with one constraint per result bit plus one",
          "[gadgets]") {
  std::mt19937 rng(11);
  for (int iter = 0; iter < 60; ++iter) {
    const size_t count = 1 + rng() % 8;
    std::vector<uint32_t> words(count);
    std::vector<bool> constant(count);
    for (size_t i = 0; i < count; ++i) {
      words[i] = iter < 4 ? 0xffffffffu : static_cast<uint32_t>(rng());
      constant[i] = rng() % 3 == 0;
    }
    uint64_t cost = 0, allocated = 0;
    UInt32 sum;
    Recorded r = record_and_compare([&](ConstraintSystem& cs) {
      std::vector<UInt32> ops;
      for (size_t i = 0; i < count; ++i) {
        ops.push_back(constant[i] ? UInt32::constant(words[i]) : UInt32::alloc(cs, words[i]));
      }
      const uint64_t before = cs.num_constraints(), aux_before = cs.num_aux();
      sum = UInt32::addmany(cs, ops);
      cost = cs.num_constraints() - before;
      allocated = cs.num_aux() - aux_before;
      uint32_t expected = 0;
      for (uint32_t w : words) expected += w;
      REQUIRE(sum.value() == expected);
      for (unsigned i = 0; i < 32; ++i) REQUIRE(sum.bits_le()[i].value() == ((expected >> i) & 1));
    });
    size_t variables = 0;
    uint64_t max = 0;
    for (size_t i = 0; i < count; ++i) {
      variables += constant[i] ? 0 : 1;
      max += constant[i] ? words[i] : 0xffffffffu;
    }
    if (variables == 0) {
      CHECK(cost == 0);
      CHECK(sum.is_constant());
      continue;
    }
    CHECK(allocated == static_cast<uint64_t>(std::bit_width(max)));
    CHECK(cost == allocated + 1);
    flip_aux(r, sum.bits_le()[rng() % 32]);
    CHECK_FALSE(check_satisfied(r.r1cs, {r.inputs, r.aux}).ok());
  }
}

}  // namespace zkpipe::gadgets
