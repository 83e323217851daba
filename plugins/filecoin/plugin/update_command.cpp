// The filecoin_snapdeals proof type's command line (update_type.h), run by
// `zkpipe-tool proof-type filecoin_snapdeals ...`:
//   info    --preset P [--json]   the circuit's constraint, variable and public-input counts
//   check   --input F [--synthesize]
//           checks the request's vanilla partition proofs natively; with --synthesize also
//           records every partition's circuit and says whether every constraint holds and its
//           public inputs are the derived ones (a whole partition in memory: 1.7M constraints at
//           2KiB, 81M at 32GiB)
//   sample  --preset P [--seed N] --out F   a request over a sector updated here (up to 8MiB)
// A preset is a registered update proof (StackedDrg32GiBV1), or that with -Poseidon for the
// Poseidon variant of the circuit (StackedDrg32GiBV1-Poseidon).
// Exit codes: 0 yes, 1 a constraint fails (or an internal failure), 2 bad usage or input.
// Thread-safety: main thread only.
#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "update_type.h"
#include "zkpipe/filecoin/circuit_params.h"
#include "zkpipe/filecoin/post_inputs.h"
#include "zkpipe/filecoin_circuit/vanilla_update.h"
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
  Result<UpdatePreset> p = update_preset(preset);
  if (!p.ok()) return fail(type, "info", p.status());
  Result<plugins::CircuitCounts> n = update_counts(p->sector_size, p->poseidon);
  if (!n.ok()) return fail(type, "info", n.status());
  const UpdateShape shape =
      p->poseidon ? update_poseidon_shape(p->sector_size / 32) : update_shape(p->sector_size / 32);
  const std::string circuit = update_circuit_id(p->sector_size, p->poseidon);
  const json out = {{"preset", preset},
                    {"circuit_id", circuit},
                    {"variant", p->poseidon ? "poseidon" : "sha256"},
                    {"filecoin_params", filecoin::circuit_param_name(circuit)},
                    {"sector_size", p->sector_size},
                    {"partitions", shape.partition_count},
                    {"challenges_per_partition", shape.challenge_count},
                    {"constraints", n->constraints},
                    {"variables", uint64_t{n->inputs} + n->aux},
                    {"public_inputs", n->inputs - 1}};
  if (as_json) {
    fmt::print("{}\n", out.dump(2));
  } else {
    fmt::print(
        "{}: {} constraints, {} variables, {} public inputs a partition ({}; Filecoin's params: "
        "{})\n",
        preset, n->constraints, uint64_t{n->inputs} + n->aux, n->inputs - 1, circuit,
        filecoin::circuit_param_name(circuit));
  }
  return 0;
}

int run_check(const std::string& type, const std::string& input, bool synthesize) {
  Result<std::string> text = zkpipe::read_file(input);
  if (!text.ok()) return fail(type, "check", text.status());
  Result<UpdateRequest> r = parse_update_request(zkpipe::as_bytes(*text), input);
  if (!r.ok()) return fail(type, "check", r.status());
  const bool poseidon = r->description.poseidon;
  const size_t partitions = r->proofs.size();
  fmt::print("{}: the vanilla proofs of {} partition{} check natively{}\n", input, partitions,
             partitions == 1 ? "" : "s", poseidon ? " (the Poseidon variant)" : "");
  if (!synthesize) return 0;
  const uint64_t nodes = r->description.sector_size / 32;
  const UpdateShape shape = poseidon ? update_poseidon_shape(nodes) : update_shape(nodes);
  for (size_t k = 0; k < partitions; ++k) {
    groth16::ConstraintSystem cs = groth16::ConstraintSystem::recorder();
    if (poseidon) {
      synthesize_update_poseidon(cs, shape, r->poseidon_witnesses[k]);
    } else {
      synthesize_update(cs, shape, r->witnesses[k]);
    }
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
  Result<std::vector<uint8_t>> bytes = sample_update(p, seed);
  if (!bytes.ok()) return fail(type, "sample", bytes.status());
  const Status s = zkpipe::write_file(out, *bytes);
  if (!s.ok()) return fail(type, "sample", s);
  fmt::print("{}: a {} request ({} bytes)\n", out, preset, bytes->size());
  return 0;
}

}  // namespace

int run_update_command(std::span<const std::string> args) {
  const std::string type = args.empty() ? "filecoin_snapdeals" : args[0];
  CLI::App app(type + ": Filecoin SnapDeals (Filecoin's circuit, bellperson's order)");
  app.require_subcommand(1);
  int code = 0;
  std::string preset, input, out;
  bool as_json = false, synthesize = false;
  uint64_t seed = 1;
  CLI::App* info = app.add_subcommand("info", "constraint, variable and public-input counts");
  info->add_option("--preset", preset,
                   "a registered update proof, e.g. StackedDrg32GiBV1 (-Poseidon: that variant)")
      ->required();
  info->add_flag("--json", as_json, "JSON on stdout");
  info->callback(
      [&] { code = sdk::guarded("info", [&] { return run_info(type, preset, as_json); }); });
  CLI::App* check =
      app.add_subcommand("check", "check vanilla update proofs natively (and the circuit)");
  check->add_option("--input", input, "a request (JSON)")->required();
  check->add_flag("--synthesize", synthesize, "also synthesize and check every constraint");
  check->callback(
      [&] { code = sdk::guarded("check", [&] { return run_check(type, input, synthesize); }); });
  CLI::App* sample = app.add_subcommand("sample", "a request over a sector updated here (<= 8MiB)");
  sample->add_option("--preset", preset, "a registered proof")->required();
  sample->add_option("--seed", seed, "seed of the data");
  sample->add_option("--out", out, "the request file")->required();
  sample->callback(
      [&] { code = sdk::guarded("sample", [&] { return run_sample(type, preset, seed, out); }); });
  std::vector<std::string> argv(args.begin(), args.end());
  return sdk::run_cli(app, argv, code);
}

}  // namespace zkpipe::filecoin_circuit
