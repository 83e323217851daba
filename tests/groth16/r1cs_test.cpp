// tests/groth16/r1cs_test.cpp: the constraint system's recording (merged terms, renumbered aux
// wires, namespaces), R1CS shape validation and statistics, and evaluate_abc against a direct
// computation, including the public binding rows and the zero padding.
#include <catch2/catch.hpp>

#include <vector>

#include "zkpipe/groth16/constraint_system.h"
#include "zkpipe/groth16/example_circuits.h"
#include "zkpipe/groth16/r1cs.h"

using namespace zkpipe;
using namespace zkpipe::groth16;
using crypto::Fr;

TEST_CASE("R1cs: recording merges duplicate terms and numbers aux wires after the inputs",
          "[groth16]") {
  auto cs = ConstraintSystem::recorder();
  const Variable x = cs.alloc(Fr::from_u64(3));
  const Variable y = cs.alloc_input(Fr::from_u64(9));  // an input allocated after an aux
  LinearCombination a = x;
  a += x;
  a -= x;  // 1 x in all
  LinearCombination zero;
  zero.add(Fr::from_u64(2), y).add(-Fr::from_u64(2), y);  // cancels: no term at all
  {
    Namespace ns(cs, "outer");
    Namespace inner(cs, "inner");
    cs.enforce(a, x, y);
  }
  cs.enforce(zero + Variable::one(), Variable::one(), Variable::one());
  REQUIRE(cs.finish().ok());
  const R1cs r = cs.take_r1cs();
  REQUIRE(r.validate("test").ok());
  CHECK(r.num_inputs == 2);
  CHECK(r.num_aux == 1);
  CHECK(r.num_constraints() == 2);
  CHECK(r.a.column == std::vector<uint32_t>{2, 0});  // x is wire 2 (after one and y)
  CHECK(r.a.value[0] == Fr::one());
  CHECK(r.c.column == std::vector<uint32_t>{1, 0});
  CHECK(r.describe_constraint(0) == "constraint 0 (in 'outer/inner')");
  CHECK(r.describe_constraint(1) == "constraint 1");
  CHECK(r.domain_size() == 4);  // 2 constraints + 2 public wires
  const MatrixStats s = matrix_stats(r.a, r.num_wires());
  CHECK(s.terms == 2);
  CHECK(s.max_row_terms == 1);
  CHECK(s.unused_columns == 1);  // y never appears in A
}

TEST_CASE("R1cs: the shape counter counts terms as written, at least what recording keeps",
          "[groth16]") {
  auto shape = ConstraintSystem::shape_counter();
  auto rec = ConstraintSystem::recorder();
  for (ConstraintSystem* cs : {&shape, &rec}) {
    const Variable x = cs->alloc(Fr::from_u64(3));
    const Variable y = cs->alloc_input(Fr::from_u64(9));
    LinearCombination a = x;
    a += x;  // written twice: one term recorded
    cs->enforce(a, x, y);
    cs->enforce_with([&](LinearCombination& l) { l += y; },
                     [](LinearCombination& l) { l += Variable::one(); },
                     [&](LinearCombination& l) {
                       l += x;
                       l += y;
                     });
    REQUIRE(cs->finish().ok());
  }
  CHECK(shape.num_constraints() == 2);
  CHECK(shape.num_inputs() == rec.num_inputs());
  CHECK(shape.num_aux() == rec.num_aux());
  CHECK(shape.num_terms(0) == 3);  // x + x, y
  CHECK(shape.num_terms(1) == 2);
  CHECK(shape.num_terms(2) == 3);
  CHECK_FALSE(shape.witness_only());  // gadgets build their linear combinations for it
  const R1cs r = rec.take_r1cs();
  CHECK(r.a.column.size() == 2);  // x + x merged
  CHECK(r.a.column.size() <= shape.num_terms(0));
  CHECK(r.c.column.size() == shape.num_terms(2));
}

TEST_CASE("R1cs: validate names the matrix and the bad term", "[groth16]") {
  auto cs = ConstraintSystem::recorder();
  REQUIRE(synthesize_example({"cubic", 0, 1}, cs).ok());
  R1cs r = cs.take_r1cs();
  REQUIRE(r.validate("cubic").ok());
  R1cs bad = r;
  bad.b.column[0] = 99;
  const Status s = bad.validate("cubic.r1cs");
  CHECK_THAT(s.message(), Catch::Contains("cubic.r1cs: matrix B: term 0 names wire 99 of 5"));
  bad = r;
  bad.c.row_begin.pop_back();
  CHECK_FALSE(bad.validate("x").ok());
  bad = r;
  bad.constraint_namespace[1] = 7;
  CHECK_FALSE(bad.validate("x").ok());
}

TEST_CASE("R1cs: evaluate_abc is A w, B w, C w, then the binding rows, then zeros", "[groth16]") {
  auto cs = ConstraintSystem::recorder();
  REQUIRE(synthesize_example({"synthetic", 100, 3}, cs).ok());
  const R1cs r = cs.take_r1cs();
  auto witness = cs.take_witness();
  // Named, not a structured binding: clang 14 (the sanitizer build) cannot capture those.
  const auto& inputs = witness.first;
  auto& aux = witness.second;
  const size_t n = r.domain_size();
  std::vector<Fr> a(n), b(n), c(n);
  REQUIRE(evaluate_abc(r, {inputs, aux}, a.data(), b.data(), c.data(), n, 2).ok());
  auto wire = [&](uint32_t j) { return j < inputs.size() ? inputs[j] : aux[j - inputs.size()]; };
  for (size_t i = 0; i < r.num_constraints(); ++i) {
    Fr sum = Fr::zero();
    for (uint64_t t = r.a.row_begin[i]; t < r.a.row_begin[i + 1]; ++t) {
      sum += r.a.value[t] * wire(r.a.column[t]);
    }
    REQUIRE(a[i] == sum);
    REQUIRE(a[i] * b[i] == c[i]);
  }
  const size_t m = r.num_constraints();
  for (size_t i = 0; i < inputs.size(); ++i) CHECK(a[m + i] == inputs[i]);
  for (size_t i = m + inputs.size(); i < n; ++i) CHECK((a[i].is_zero() && b[i].is_zero()));
  // Too small a buffer and a wrong witness size are errors.
  CHECK_FALSE(evaluate_abc(r, {inputs, aux}, a.data(), b.data(), c.data(), m).ok());
  aux.pop_back();
  CHECK_FALSE(evaluate_abc(r, {inputs, aux}, a.data(), b.data(), c.data(), n).ok());
}
