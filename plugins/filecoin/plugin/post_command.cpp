// The Filecoin PoSt proof types' command line (post_type.h), run by
// `zkpipe-tool proof-type filecoin_window_post|filecoin_winning_post ...`:
//   info    --preset P [--json]   the circuit's constraint, variable and public-input counts
//   check   --input F [--input F ...] [--public LOTUS.json] [--synthesize]
//           checks the vanilla proofs natively against their public description; with
//           --synthesize also synthesizes every partition (sector block by sector block: the
//           blocks share no variable) and says whether every constraint holds. --input is a
//           request (JSON), or with --public each file is one sector's vanilla proof (the bytes
//           generate_single_vanilla_proof returns, curio's .vproof) and --public the
//           WindowPoStVerifyInfo / WinningPoStVerifyInfo JSON Lotus writes.
//   sample  --preset P [--seed N] --out F   a request over sectors sealed here (up to 8MiB)
// Exit codes: 0 yes, 1 a constraint fails (or an internal failure), 2 bad usage or input.
// Thread-safety: main thread only.
#include <fmt/core.h>
#include <openssl/evp.h>

#include <nlohmann/json.hpp>

#include "post_type.h"
#include "zkpipe/filecoin/cid.h"
#include "zkpipe/filecoin/circuit_params.h"
#include "zkpipe/filecoin_circuit/post_request.h"
#include "zkpipe/groth16/r1cs.h"
#include "zkpipe/sdk/cli_command.h"
#include "zkpipe/sdk/file_io.h"
#include "zkpipe/sdk/sha256.h"

namespace zkpipe::filecoin_circuit {
namespace {

using nlohmann::json;

// go-state-types' RegisteredPoStProof numbers (abi/sector.go).
constexpr const char* kPostProofs[] = {
    "StackedDrgWinning2KiBV1",    "StackedDrgWinning8MiBV1",   "StackedDrgWinning512MiBV1",
    "StackedDrgWinning32GiBV1",   "StackedDrgWinning64GiBV1",  "StackedDrgWindow2KiBV1",
    "StackedDrgWindow8MiBV1",     "StackedDrgWindow512MiBV1",  "StackedDrgWindow32GiBV1",
    "StackedDrgWindow64GiBV1",    "StackedDrgWindow2KiBV1_1",  "StackedDrgWindow8MiBV1_1",
    "StackedDrgWindow512MiBV1_1", "StackedDrgWindow32GiBV1_1", "StackedDrgWindow64GiBV1_1"};

int fail(const std::string& type, const char* cmd, const Status& s) {
  fmt::print(stderr, "{} {}: {}\n", type, cmd, s.to_string());
  return s.code() == Code::kInvalidArgument || s.code() == Code::kNotFound ? 2 : 1;
}

Result<std::string> read_text(const std::string& path) {
  return zkpipe::read_file(path);
}

// Standard base64 with padding (Go's encoding of []byte); empty on a malformed text.
std::vector<uint8_t> base64(const std::string& s) {
  if (s.empty() || s.size() % 4 != 0) return {};
  std::vector<uint8_t> out(s.size() / 4 * 3);
  const int n = EVP_DecodeBlock(out.data(), reinterpret_cast<const unsigned char*>(s.data()),
                                static_cast<int>(s.size()));
  if (n < 0) return {};
  size_t pad = 0;
  while (pad < 2 && s[s.size() - 1 - pad] == '=') ++pad;
  out.resize(static_cast<size_t>(n) - pad);
  return out;
}

// A request from Lotus's verify info and binary vanilla proofs.
Result<std::string> request_from_lotus(const std::string& public_path,
                                       const std::vector<std::string>& proof_paths) {
  ZKP_ASSIGN_OR_RETURN(std::string text, read_text(public_path));
  const json pub = json::parse(text, nullptr, false);
  const std::string what = public_path;
  if (pub.is_discarded() || !pub.is_object()) return invalid_argument(what + ": not a JSON object");
  json req;
  try {
    const uint64_t kind = pub.at("Proofs").at(0).at("PoStProof").get<uint64_t>();
    if (kind >= std::size(kPostProofs)) {
      return invalid_argument(what + ": Proofs[0].PoStProof " + std::to_string(kind) +
                              " is not a registered PoSt proof");
    }
    req["registered_proof"] = kPostProofs[kind];
    req["sectors"] = json::array();
    for (size_t i = 0; i < pub.at("ChallengedSectors").size(); ++i) {
      const json& s = pub["ChallengedSectors"][i];
      const std::string field = what + ": ChallengedSectors[" + std::to_string(i) + "].SealedCID";
      ZKP_ASSIGN_OR_RETURN(
          filecoin::Domain comm_r,
          filecoin::comm_r_from_cid(s.at("SealedCID").at("/").get<std::string>(), field));
      req["sectors"].push_back({{"sector_id", s.at("SectorNumber").get<uint64_t>()},
                                {"comm_r", zkpipe::to_hex(comm_r)}});
    }
    const std::string r64 = pub.at("Randomness").get<std::string>();
    const std::vector<uint8_t> r = base64(r64);
    if (r.size() != 32) return invalid_argument(what + ": Randomness is not 32 bytes of base64");
    req["randomness"] = zkpipe::to_hex(r);
    // Prover: the actor id; its ID address payload (a uvarint) left-aligned in 32 bytes.
    uint64_t actor = pub.at("Prover").get<uint64_t>();
    std::vector<uint8_t> prover(32, 0);
    for (size_t i = 0; i < 32; ++i) {
      prover[i] = static_cast<uint8_t>((actor & 0x7f) | (actor > 0x7f ? 0x80 : 0));
      actor >>= 7;
      if (!(prover[i] & 0x80)) break;
    }
    req["prover_id"] = zkpipe::to_hex(prover);
  } catch (const json::exception& e) {
    return invalid_argument(what + ": " + e.what());
  }
  req["vanilla_proofs"] = json::array();
  for (const std::string& p : proof_paths) {
    ZKP_ASSIGN_OR_RETURN(std::string b, zkpipe::read_file(p));
    req["vanilla_proofs"].push_back(zkpipe::to_hex(zkpipe::as_bytes(b)));
  }
  return req.dump();
}

int run_info(const std::string& type, bool winning, const std::string& preset, bool as_json) {
  Result<filecoin::PostConfig> c = filecoin::registered_post(preset);
  if (!c.ok()) return fail(type, "info", c.status());
  if (c->winning != winning) {
    return fail(type, "info",
                invalid_argument("--preset " + preset + " is not a preset of " + type));
  }
  const plugins::CircuitCounts n = post_counts(*c);
  const json out = {{"preset", preset},
                    {"circuit_id", post_circuit_id(*c)},
                    {"filecoin_params", filecoin::circuit_param_name(post_circuit_id(*c))},
                    {"sector_size", c->sector_size},
                    {"sectors_per_partition", winning ? 1 : c->sector_count},
                    {"challenges_per_sector", c->challenges},
                    {"constraints", n.constraints},
                    {"variables", uint64_t{n.inputs} + n.aux},
                    {"public_inputs", n.inputs - 1}};
  if (as_json) {
    fmt::print("{}\n", out.dump(2));
  } else {
    fmt::print(
        "{}: {} constraints, {} variables, {} public inputs a partition ({}; Filecoin's params: "
        "{})\n",
        preset, n.constraints, uint64_t{n.inputs} + n.aux, n.inputs - 1, post_circuit_id(*c),
        filecoin::circuit_param_name(post_circuit_id(*c)));
  }
  return 0;
}

int run_check(const std::string& type, bool winning, const std::vector<std::string>& inputs,
              const std::string& public_path, bool synthesize) {
  Result<std::string> text =
      public_path.empty() ? read_text(inputs.at(0)) : request_from_lotus(public_path, inputs);
  if (!text.ok()) return fail(type, "check", text.status());
  if (public_path.empty() && inputs.size() != 1) {
    return fail(type, "check", invalid_argument("one --input request (or --public with proofs)"));
  }
  const std::string what =
      public_path.empty() ? inputs[0] : inputs[0] + " (with " + public_path + ")";
  Result<PostRequest> r = parse_post_request(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text->data()), text->size()),
      winning, what);
  if (!r.ok()) return fail(type, "check", r.status());
  const uint32_t partitions = post_partitions(r->description);
  fmt::print("{}: the vanilla proofs of {} sectors check natively ({} partitions)\n", what,
             r->proofs.size(), partitions);
  if (!synthesize) return 0;
  const std::vector<std::vector<Fr>> derived = *filecoin::post_public_inputs(r->description);
  for (uint32_t k = 0; k < partitions; ++k) {
    const std::vector<PostSectorWitness>& w = r->witnesses[k];
    const std::vector<size_t> slots = partition_slots(r->description, k);
    uint64_t constraints = 0;
    size_t offset = 0;
    uint64_t block_constraints = 0;
    size_t block = 0;
    for (size_t s = 0; s < w.size(); ++s) {
      // A repeated block (a short partition's padding) is the same constraints over the same
      // values as the one before it: counted, not synthesized again.
      if (!winning && s > 0 && slots[s] == slots[s - 1]) {
        constraints += block_constraints;
        offset += block;
        continue;
      }
      groth16::ConstraintSystem cs = groth16::ConstraintSystem::recorder();
      synthesize_fallback_post(cs, std::span<const PostSectorWitness>(&w[s], 1));
      block_constraints = cs.num_constraints();
      block = cs.num_inputs() - 1;
      constraints += block_constraints;
      groth16::R1cs r1cs = cs.take_r1cs();
      auto [in, aux] = cs.take_witness();
      const Status sat = groth16::check_satisfied(r1cs, {in, aux});
      if (!sat.ok()) {
        fmt::print("partition {} sector block {}: NOT satisfied: {}\n", k, s, sat.to_string());
        return 1;
      }
      if (!std::equal(in.begin() + 1, in.end(), derived[k].begin() + offset)) {
        fmt::print("partition {} sector block {}: its public inputs are not the derived ones\n", k,
                   s);
        return 1;
      }
      offset += block;
    }
    fmt::print("partition {}: all {} constraints hold; the {} public inputs are the derived ones\n",
               k, constraints, offset);
  }
  return 0;
}

int run_sample(const std::string& type, bool winning, const std::string& preset, uint64_t seed,
               const std::string& out) {
  const zkp_preset p{preset.c_str(), "", 1, 0};
  Result<std::vector<uint8_t>> bytes = sample_post(winning, p, seed);
  if (!bytes.ok()) return fail(type, "sample", bytes.status());
  const Status s = zkpipe::write_file(out, *bytes);
  if (!s.ok()) return fail(type, "sample", s);
  fmt::print("{}: a {} request ({} bytes)\n", out, preset, bytes->size());
  return 0;
}

}  // namespace

int run_post_command(bool winning, std::span<const std::string> args) {
  const std::string type = args.empty() ? "filecoin_post" : args[0];
  CLI::App app(type + ": Filecoin " + (winning ? "Winning" : "Window") +
               " PoSt (Filecoin's circuit, bellperson's order)");
  app.require_subcommand(1);
  int code = 0;
  std::string preset, public_path, out;
  std::vector<std::string> inputs;
  bool as_json = false, synthesize = false;
  uint64_t seed = 1;
  CLI::App* info = app.add_subcommand("info", "constraint, variable and public-input counts");
  info->add_option("--preset", preset, "a registered proof, e.g. StackedDrgWindow32GiBV1_2")
      ->required();
  info->add_flag("--json", as_json, "JSON on stdout");
  info->callback([&] {
    code = sdk::guarded("info", [&] { return run_info(type, winning, preset, as_json); });
  });
  CLI::App* check = app.add_subcommand("check", "check vanilla proofs natively (and the circuit)");
  check
      ->add_option("--input", inputs,
                   "a request, or with --public one sector's vanilla proof a file")
      ->required();
  check->add_option("--public", public_path,
                    "Lotus's WindowPoStVerifyInfo / WinningPoStVerifyInfo JSON");
  check->add_flag("--synthesize", synthesize, "also synthesize and check every constraint");
  check->callback([&] {
    code = sdk::guarded("check",
                        [&] { return run_check(type, winning, inputs, public_path, synthesize); });
  });
  CLI::App* sample = app.add_subcommand("sample", "a request over sectors sealed here (<= 8MiB)");
  sample->add_option("--preset", preset, "a registered proof")->required();
  sample->add_option("--seed", seed, "seed of the data, tickets and randomness");
  sample->add_option("--out", out, "the request file")->required();
  sample->callback([&] {
    code = sdk::guarded("sample", [&] { return run_sample(type, winning, preset, seed, out); });
  });
  std::vector<std::string> argv(args.begin(), args.end());
  return sdk::run_cli(app, argv, code);
}

}  // namespace zkpipe::filecoin_circuit
