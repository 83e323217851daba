// zkpipe-bench-synthesis: what synthesizing one partition costs for each proof type and preset,
// as the engine runs it: witness-only synthesis into buffers, then a/b/c by the sparse products
// over the recorded R1CS, on one core; constraints per second per core; and, with --prove, the
// Groth16 prove time of the same partition (seeded development setup) for the synthesis/prove
// ratio. Values are a blank partition (zeros), the same work for the gadgets as any values;
// with --prove (and --scalars, which prints the witness's shares of 0, 1 and other values) a
// sector is sealed first and partition 0 of its vanilla proofs is synthesized.
// Thread-safety: main thread only.
#include <algorithm>
#include <bit>
#include <functional>
#include <string>
#include <vector>

#include <fmt/core.h>

#include <CLI/CLI.hpp>

#include "zkpipe/groth16/prover.h"
#include "zkpipe/groth16/setup.h"
#include "zkpipe/porep/circuit.h"
#include "zkpipe/sdk/clock.h"
#include "zkpipe/sdk/percentile.h"
#include "zkpipe/snapdeals/circuit.h"

namespace {

using namespace zkpipe;
using namespace zkpipe::groth16;

struct Case {
  std::string type, shape;
  std::function<void(ConstraintSystem&)> synthesize;
};

// The witness's scalars by kind: the GPU MSM's cost model (static_report.py, README "GPU")
// takes a storage proof's shares of 0 and 1 from here (every SHA-256 bit is a wire).
void print_scalar_shares(const Case& c, const std::vector<Fr>& inputs, const std::vector<Fr>& aux) {
  uint64_t zeros = 0, ones = 0, total = 0;
  for (const std::vector<Fr>* v : {&inputs, &aux}) {
    for (const Fr& x : *v) {
      zeros += x.is_zero();
      ones += x.is_one();
      ++total;
    }
  }
  fmt::print("{:<10} {:<7} witness scalars {:>9}: 0 {:5.1f}%  1 {:5.1f}%  other {:5.1f}%\n", c.type,
             c.shape, total, 100.0 * zeros / total, 100.0 * ones / total,
             100.0 * (total - zeros - ones) / total);
}

int run_case(const Case& c, int runs, bool prove, bool scalars, unsigned threads) {
  auto rec = ConstraintSystem::recorder();
  int64_t t = now_ns();
  c.synthesize(rec);
  const double record_s = seconds_since(t);
  R1cs r1cs = rec.take_r1cs();
  const uint64_t m = r1cs.num_constraints();
  const uint64_t n = r1cs.domain_size();
  std::vector<Fr> inputs(r1cs.num_inputs), aux(r1cs.num_aux), a(n), b(n), cc(n);
  std::vector<double> witness_s, abc_s;
  for (int r = 0; r < runs; ++r) {
    t = now_ns();
    auto cs = ConstraintSystem::witness({inputs, aux});
    c.synthesize(cs);
    if (auto st = cs.finish(); !st.ok()) return fmt::print(stderr, "{}\n", st.message()), 1;
    witness_s.push_back(seconds_since(t));
    t = now_ns();
    if (!evaluate_abc(r1cs, {inputs, aux}, a.data(), b.data(), cc.data(), n, 1).ok()) return 1;
    abc_s.push_back(seconds_since(t));
  }
  if (scalars) print_scalar_shares(c, inputs, aux);
  const double w = median(witness_s), s = median(abc_s);
  uint64_t terms = r1cs.a.terms() + r1cs.b.terms() + r1cs.c.terms();
  std::string prove_text = "-";
  if (prove) {
    SetupOptions so;
    so.threads = threads;
    auto pk = setup(r1cs, ToxicWaste::from_seed(1), so);
    if (!pk.ok()) return fmt::print(stderr, "setup: {}\n", pk.status().message()), 1;
    std::vector<double> prove_s;
    for (int r = 0; r < std::max(1, runs / 2); ++r) {
      t = now_ns();
      ProverOptions po;
      po.threads = threads;
      auto proof = groth16::prove(*pk, {{inputs, aux}, a.data(), b.data(), cc.data(), n},
                                  ProverRandomness::secure(), po);
      if (!proof.ok()) return fmt::print(stderr, "prove: {}\n", proof.status().message()), 1;
      prove_s.push_back(seconds_since(t));
    }
    const double p = median(prove_s);
    prove_text = fmt::format("{:.2f} s ({} thr), synthesis {:.1f}%", p, threads, 100 * (w + s) / p);
  }
  fmt::print(
      "{:<10} {:<7} constraints {:>9}  terms/row {:4.1f}  domain 2^{:<2}  record {:6.2f} s  "
      "witness {:7.1f} ms  a/b/c {:7.1f} ms  {:5.2f} M constraints/s/core  prove {}\n",
      c.type, c.shape, m, double(terms) / m, std::countr_zero(n), record_s, 1e3 * w, 1e3 * s,
      m / (w + s) / 1e6, prove_text);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"zkpipe-bench-synthesis: per-partition synthesis cost of the proof types"};
  std::vector<std::string> types = {"porep", "snapdeals"};
  std::vector<std::string> shapes = {"tiny", "2KiB", "8MiB", "512MiB"};
  int runs = 3;
  bool prove = false;
  unsigned threads = 0;
  app.add_option("--type", types, "porep, snapdeals")->delimiter(',');
  app.add_option("--shape", shapes, "presets")->delimiter(',');
  app.add_option("--runs", runs, "runs per case (median)");
  app.add_flag("--prove", prove, "also set up and prove each case (slow for large presets)");
  bool scalars = false;
  app.add_flag("--scalars", scalars,
               "seal a sector and print the witness's shares of 0, 1 and other scalars");
  app.add_option("--threads", threads, "prover threads (0: all); synthesis runs on one core");
  CLI11_PARSE(app, argc, argv);
  for (const std::string& type : types) {
    for (const std::string& name : shapes) {
      Case c{type, name, {}};
      if (type == "porep") {
        auto shape = porep::find_shape(name);
        if (!shape.ok()) return fmt::print(stderr, "{}\n", shape.status().message()), 2;
        auto v = std::make_shared<porep::VanillaProofs>(porep::blank_proofs(*shape));
        if (prove || scalars) {
          const uint32_t k = 0;
          auto sector = porep::seal(*shape, porep::seed_from_string("bench"));
          *v = porep::make_vanilla_proofs(sector, porep::seed_from_string("bench"),
                                          std::span<const uint32_t>(&k, 1));
        }
        c.synthesize = [v](ConstraintSystem& cs) { porep::synthesize_partition(cs, *v, 0); };
      } else if (type == "snapdeals") {
        auto shape = snapdeals::find_shape(name);
        if (!shape.ok()) return fmt::print(stderr, "{}\n", shape.status().message()), 2;
        auto v = std::make_shared<snapdeals::VanillaProofs>(snapdeals::blank_proofs(*shape));
        if (prove || scalars) {
          const uint32_t k = 0;
          auto key = porep::seal(porep::find_shape(name).value(), porep::seed_from_string("bench"),
                                 0, {}, porep::SectorData::kEmpty);
          auto u = snapdeals::update(key, *shape, porep::seed_from_string("bench"));
          if (!u.ok()) return fmt::print(stderr, "{}\n", u.status().message()), 1;
          *v = snapdeals::make_vanilla_proofs(*u, std::span<const uint32_t>(&k, 1));
        }
        c.synthesize = [v](ConstraintSystem& cs) { snapdeals::synthesize_partition(cs, *v, 0); };
      } else {
        fmt::print(stderr, "unknown --type {}\n", type);
        return 2;
      }
      if (run_case(c, runs, prove, scalars, threads) != 0) return 1;
    }
  }
  return 0;
}
