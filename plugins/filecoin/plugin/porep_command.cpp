// The filecoin_porep proof type's command line (porep_type.h), run by
// `zkpipe-tool proof-type filecoin_porep ...`:
//   info    --preset P [--json]   the circuit's constraint, variable and public-input counts
//   check   --input F [--synthesize]
//           checks the C1 output's vanilla proofs natively (and, with prover_id and sector_id
//           beside it, its replica_id); with --synthesize also records every partition's
//           circuit and says whether every constraint holds and its public inputs are the
//           derived ones (a whole partition in memory: 2.4M constraints at 2KiB, 130M at 32GiB)
//   sample  --preset P [--seed N] --out F   a request over a sector sealed here (up to 8MiB)
// Exit codes: 0 yes, 1 a constraint fails (or an internal failure), 2 bad usage or input.
// Thread-safety: main thread only.
#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "porep_type.h"
#include "zkpipe/filecoin/circuit_params.h"
#include "zkpipe/filecoin_circuit/porep_request.h"
#include "zkpipe/groth16/r1cs.h"
#include "zkpipe/sdk/cli_command.h"
#include "zkpipe/sdk/file_io.h"

namespace zkpipe::filecoin_circuit {
namespace {

using nlohmann::json;

int fail(const std::string& type, const char* cmd, const Status& s) {
  fmt::print(stderr, "{} {}: {}\n", type, cmd, s.to_string());
  return s.code() == Code::kInvalidArgument || s.code() == Code::kNotFound ? 2 : 1;
}

int run_info(const std::string& type, const std::string& preset, bool as_json) {
  Result<filecoin::PorepConfig> c = filecoin::registered_porep(preset);
  if (!c.ok()) return fail(type, "info", c.status());
  Result<PorepCircuitShape> shape = porep_circuit_shape(*c);
  if (!shape.ok()) return fail(type, "info", shape.status());
  Result<plugins::CircuitCounts> n = porep_counts(*c);
  if (!n.ok()) return fail(type, "info", n.status());
  const json out = {{"preset", preset},
                    {"circuit_id", porep_circuit_id(*c)},
                    {"filecoin_params", filecoin::circuit_param_name(porep_circuit_id(*c))},
                    {"sector_size", c->sector_size},
                    {"partitions", shape->partitions},
                    {"challenges_per_partition", shape->challenges},
                    {"layers", shape->layers},
                    {"constraints", n->constraints},
                    {"variables", uint64_t{n->inputs} + n->aux},
                    {"public_inputs", n->inputs - 1}};
  if (as_json) {
    fmt::print("{}\n", out.dump(2));
  } else {
    fmt::print(
        "{}: {} constraints, {} variables, {} public inputs a partition ({}; Filecoin's params: "
        "{})\n",
        preset, n->constraints, uint64_t{n->inputs} + n->aux, n->inputs - 1, porep_circuit_id(*c),
        filecoin::circuit_param_name(porep_circuit_id(*c)));
  }
  return 0;
}

int run_check(const std::string& type, const std::string& input, bool synthesize) {
  Result<std::string> text = zkpipe::read_file(input);
  if (!text.ok()) return fail(type, "check", text.status());
  Result<PorepRequest> r = parse_porep_request(zkpipe::as_bytes(*text), input);
  if (!r.ok()) return fail(type, "check", r.status());
  fmt::print("{}: the vanilla proofs of {} partitions check natively{}\n", input,
             r->witnesses.size(),
             r->has_prover ? " (replica_id is the one prover_id and sector_id derive)" : "");
  if (!synthesize) return 0;
  for (size_t k = 0; k < r->witnesses.size(); ++k) {
    groth16::ConstraintSystem cs = groth16::ConstraintSystem::recorder();
    synthesize_porep(cs, r->witnesses[k]);
    const uint64_t constraints = cs.num_constraints();
    groth16::R1cs r1cs = cs.take_r1cs();
    auto [in, aux] = cs.take_witness();
    const Status sat = groth16::check_satisfied(r1cs, {in, aux});
    if (!sat.ok()) {
      fmt::print("partition {}: NOT satisfied: {}\n", k, sat.to_string());
      return 1;
    }
    if (std::vector<Fr>(in.begin() + 1, in.end()) != r->inputs[k]) {
      fmt::print("partition {}: its public inputs are not the derived ones\n", k);
      return 1;
    }
    fmt::print("partition {}: all {} constraints hold; the {} public inputs are the derived ones\n",
               k, constraints, r->inputs[k].size());
  }
  return 0;
}

int run_sample(const std::string& type, const std::string& preset, uint64_t seed,
               const std::string& out) {
  const zkp_preset p{preset.c_str(), "", 1, 0};
  Result<std::vector<uint8_t>> bytes = sample_porep(p, seed);
  if (!bytes.ok()) return fail(type, "sample", bytes.status());
  const Status s = zkpipe::write_file(out, *bytes);
  if (!s.ok()) return fail(type, "sample", s);
  fmt::print("{}: a {} request ({} bytes)\n", out, preset, bytes->size());
  return 0;
}

}  // namespace

int run_porep_command(std::span<const std::string> args) {
  const std::string type = args.empty() ? "filecoin_porep" : args[0];
  CLI::App app(type + ": Filecoin PoRep (Filecoin's circuit, bellperson's order)");
  app.require_subcommand(1);
  int code = 0;
  std::string preset, input, out;
  bool as_json = false, synthesize = false;
  uint64_t seed = 1;
  CLI::App* info = app.add_subcommand("info", "constraint, variable and public-input counts");
  info->add_option("--preset", preset, "a registered proof, e.g. StackedDrg32GiBV1_1")->required();
  info->add_flag("--json", as_json, "JSON on stdout");
  info->callback(
      [&] { code = sdk::guarded("info", [&] { return run_info(type, preset, as_json); }); });
  CLI::App* check = app.add_subcommand("check", "check a C1 output natively (and the circuit)");
  check->add_option("--input", input, "a request: the C1 output, bare or with prover/sector")
      ->required();
  check->add_flag("--synthesize", synthesize, "also synthesize and check every constraint");
  check->callback(
      [&] { code = sdk::guarded("check", [&] { return run_check(type, input, synthesize); }); });
  CLI::App* sample = app.add_subcommand("sample", "a request over a sector sealed here (<= 8MiB)");
  sample->add_option("--preset", preset, "a registered proof")->required();
  sample->add_option("--seed", seed, "seed of the data, prover, ticket and seed");
  sample->add_option("--out", out, "the request file")->required();
  sample->callback(
      [&] { code = sdk::guarded("sample", [&] { return run_sample(type, preset, seed, out); }); });
  std::vector<std::string> argv(args.begin(), args.end());
  return sdk::run_cli(app, argv, code);
}

}  // namespace zkpipe::filecoin_circuit
