// groth16/example_circuits.cpp: cubic, mimc and synthetic (see example_circuits.h).
#include "zkpipe/groth16/example_circuits.h"

#include <string>

namespace zkpipe::groth16 {
namespace {

constexpr uint64_t kMaxSize = uint64_t{1} << 26;

// splitmix64: a seeded stream of 64-bit words for the circuits' values and constants.
struct SplitMix {
  uint64_t state;
  uint64_t operator()() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
};

LinearCombination constant(const Fr& c) {
  LinearCombination lc;
  lc.add(c, Variable::one());
  return lc;
}

void cubic(uint64_t seed, ConstraintSystem& cs) {
  const Fr xv = Fr::from_u64(seed + 2);
  const Fr yv = xv * xv * xv + xv + Fr::from_u64(5);
  const Variable y = cs.alloc_input(yv);
  const Variable x = cs.alloc(xv);
  const Variable x2 = cs.alloc(xv * xv);
  const Variable x3 = cs.alloc(xv * xv * xv);
  Namespace ns(cs, "cubic");
  cs.enforce(x, x, x2);
  cs.enforce(x2, x, x3);
  LinearCombination sum = constant(Fr::from_u64(5));
  sum += x3;
  sum += x;
  cs.enforce(sum, Variable::one(), y);
}

void mimc(uint64_t rounds, uint64_t seed, std::optional<uint64_t> witness_seed,
          ConstraintSystem& cs) {
  SplitMix rng{seed};
  SplitMix witness_rng{witness_seed.value_or(0)};
  SplitMix& values = witness_seed ? witness_rng : rng;
  const Fr x0v = Fr::random(values), kv = Fr::random(values);
  const Variable k = cs.alloc_input(kv);
  Variable x = cs.alloc_input(x0v);
  Fr xv = x0v;
  for (uint64_t i = 0; i < rounds; ++i) {
    Namespace ns(cs, "round " + std::to_string(i));
    const Fr ci = Fr::random(rng);
    const Fr tv = xv + kv + ci;
    const Variable t2 = cs.alloc(tv * tv);
    const Variable next = cs.alloc(tv * tv * tv);
    auto t = [&](LinearCombination& lc) { lc.add(ci, Variable::one()) += x, lc += k; };
    cs.enforce_with(t, t, [&](LinearCombination& lc) { lc += t2; });
    cs.enforce_with([&](LinearCombination& lc) { lc += t2; }, t,
                    [&](LinearCombination& lc) { lc += next; });
    x = next;
    xv = tv * tv * tv;
  }
  const Variable out = cs.alloc_input(xv);
  cs.enforce_with([&](LinearCombination& lc) { lc += x; },
                  [](LinearCombination& lc) { lc += Variable::one(); },
                  [&](LinearCombination& lc) { lc += out; });
}

void synthetic(uint64_t size, uint64_t seed, ConstraintSystem& cs) {
  SplitMix rng{seed};
  const Fr p1v = Fr::random(rng), p2v = Fr::random(rng);
  const Variable p1 = cs.alloc_input(p1v);
  const Variable p2 = cs.alloc_input(p2v);
  Fr prev_v = Fr::random(rng), cur_v = Fr::random(rng);
  Variable prev = cs.alloc(prev_v), cur = cs.alloc(cur_v);
  for (uint64_t i = 0; i < size; ++i) {
    // (cur + p1) * (prev + p2 + r_i) = next
    const Fr ri = Fr::from_u64(rng());
    const Fr next_v = (cur_v + p1v) * (prev_v + p2v + ri);
    const Variable next = cs.alloc(next_v);
    cs.enforce_with([&](LinearCombination& lc) { lc += cur, lc += p1; },
                    [&](LinearCombination& lc) { lc.add(ri, Variable::one()) += prev, lc += p2; },
                    [&](LinearCombination& lc) { lc += next; });
    prev = cur, prev_v = cur_v;
    cur = next, cur_v = next_v;
  }
}

}  // namespace

std::vector<std::string_view> example_circuit_names() {
  return {"cubic", "mimc", "synthetic"};
}

Status synthesize_example(const ExampleCircuit& circuit, ConstraintSystem& cs,
                          std::optional<uint64_t> witness_seed) {
  if (circuit.name != "cubic" && (circuit.size == 0 || circuit.size > kMaxSize)) {
    return invalid_argument("circuit '" + circuit.name + "': size " + std::to_string(circuit.size) +
                            " is out of range 1..2^26");
  }
  if (circuit.name == "cubic") {
    cubic(circuit.seed, cs);
  } else if (circuit.name == "mimc") {
    mimc(circuit.size, circuit.seed, witness_seed, cs);
  } else if (circuit.name == "synthetic") {
    synthetic(circuit.size, circuit.seed, cs);
  } else {
    return invalid_argument("unknown circuit '" + circuit.name +
                            "' (known: cubic, mimc, synthetic)");
  }
  return cs.finish();
}

}  // namespace zkpipe::groth16
