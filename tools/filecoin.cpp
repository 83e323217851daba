// `zkpipe-tool filecoin`: Filecoin's own proofs, checked as a Filecoin node checks them.
//   inputs --json DESC                  the public inputs DESC names, one JSON array of decimal
//                                       strings per partition, on stdout
//   verify --vk FILE --proof FILE --json DESC [--snarkjs DIR]
//                                       exit 0 valid (prints OK), 1 invalid, 2 bad input; the key
//                                       is a bellperson .vk or polka-storage's compressed layout;
//                                       --snarkjs writes the key, each partition's proof and
//                                       inputs as snarkjs JSON (for an independent verifier)
//   key convert IN OUT [--compressed]   a verifying key from either layout to a bellperson .vk
//                                       (or to the compressed layout)
//   params check [DIR] [--json]         every file of parameters.json against DIR ($FIL_PROOFS_
//                                       PARAMETER_CACHE, default /var/tmp/filecoin-proof-
//                                       parameters): exit 0 when every file there matches its
//                                       digest, 1 on a mismatch, 2 when DIR cannot be read
// DESC is described in zkpipe/filecoin/description.h and docs/filecoin.md.
// Thread-safety: main thread only.
#include <filesystem>
#include <memory>
#include <string>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "zkpipe/filecoin/param_dir.h"
#include "zkpipe/filecoin/proof_format.h"
#include "zkpipe/filecoin/verify.h"
#include "zkpipe/groth16/snarkjs.h"
#include "zkpipe/sdk/file_io.h"
#include "zkpipe/sdk/output_file.h"

namespace zkpipe::tool {
namespace {

using crypto::Fr;

struct FilecoinOptions {
  std::string desc, vk, proof, dir, out, snarkjs;
  bool json = false, compressed = false;
};

int bad_input(const char* command, const Status& s) {
  fmt::print(stderr, "filecoin {}: {}\n", command, s.to_string());
  return s.code() == Code::kInvalidArgument || s.code() == Code::kNotFound ? 2 : 1;
}

int run_inputs(const FilecoinOptions& o) {
  Result<std::string> desc = read_file(o.desc);
  if (!desc.ok()) return bad_input("inputs", desc.status());
  Result<std::vector<std::vector<Fr>>> inputs = filecoin::public_inputs(*desc, o.desc);
  if (!inputs.ok()) return bad_input("inputs", inputs.status());
  nlohmann::json out = nlohmann::json::array();
  for (const std::vector<Fr>& partition : *inputs) {
    nlohmann::json values = nlohmann::json::array();
    for (const Fr& x : partition) values.push_back(groth16::fr_to_decimal(x));
    out.push_back(std::move(values));
  }
  fmt::print("{}\n", out.dump());
  return 0;
}

int run_verify(const FilecoinOptions& o) {
  Result<std::string> desc = read_file(o.desc);
  if (!desc.ok()) return bad_input("verify", desc.status());
  Result<std::string> vk_bytes = read_file(o.vk);
  if (!vk_bytes.ok()) return bad_input("verify", vk_bytes.status());
  Result<groth16::VerifyingKey> vk = filecoin::decode_any_verifying_key(as_bytes(*vk_bytes));
  if (!vk.ok()) return bad_input("verify", vk.status().with_context(o.vk));
  Result<std::string> proof = read_file(o.proof);
  if (!proof.ok()) return bad_input("verify", proof.status());
  Result<std::vector<std::vector<Fr>>> inputs = filecoin::public_inputs(*desc, o.desc);
  if (!inputs.ok()) return bad_input("verify", inputs.status());
  if (!o.snarkjs.empty()) {
    Result<std::vector<groth16::Proof>> proofs =
        filecoin::decode_proofs(as_bytes(*proof), inputs->size());
    if (!proofs.ok()) return bad_input("verify", proofs.status().with_context(o.proof));
    if (Status s = check_output_dir(o.snarkjs, "--snarkjs"); !s.ok()) return bad_input("verify", s);
    const std::filesystem::path dir(o.snarkjs);
    Status s =
        write_file((dir / "verification_key.json").string(), groth16::export_snarkjs_vk(*vk));
    for (size_t k = 0; s.ok() && k < proofs->size(); ++k) {
      s = write_file((dir / fmt::format("proof_{}.json", k)).string(),
                     groth16::export_snarkjs_proof((*proofs)[k]));
      if (s.ok())
        s = write_file((dir / fmt::format("public_{}.json", k)).string(),
                       groth16::export_snarkjs_public((*inputs)[k]));
    }
    if (!s.ok()) return bad_input("verify", s);
  }
  Result<bool> valid = filecoin::verify_partitions(*vk, as_bytes(*proof), *inputs);
  if (!valid.ok()) return bad_input("verify", valid.status().with_context(o.proof));
  if (!*valid) {
    fmt::print("INVALID: the proof does not verify for {} under {}\n", o.desc, o.vk);
    return 1;
  }
  fmt::print("OK: {} partition(s) verify\n", inputs->size());
  return 0;
}

int run_key_convert(const FilecoinOptions& o) {
  Result<std::string> bytes = read_file(o.vk);
  if (!bytes.ok()) return bad_input("key convert", bytes.status());
  Result<groth16::VerifyingKey> vk = filecoin::decode_any_verifying_key(as_bytes(*bytes));
  if (!vk.ok()) return bad_input("key convert", vk.status().with_context(o.vk));
  const std::vector<uint8_t> out = o.compressed ? filecoin::encode_compressed_verifying_key(*vk)
                                                : groth16::encode_verifying_key(*vk);
  if (Status s = write_file(o.out, out); !s.ok()) return bad_input("key convert", s);
  fmt::print("{}: {} key of {} public inputs, {} bytes\n", o.out,
             o.compressed ? "compressed" : "bellperson .vk", vk->ic.size() - 1, out.size());
  return 0;
}

int run_params_check(const FilecoinOptions& o) {
  const std::string dir = o.dir.empty() ? filecoin::parameter_dir() : o.dir;
  Result<std::vector<filecoin::ParamCheck>> checks =
      filecoin::check_parameter_dir(dir, filecoin::filecoin_parameters(),
                                    [](const std::string& name, uint64_t done, uint64_t total) {
                                      if (done == total)
                                        fmt::print(stderr, "digest {}: {} bytes\n", name, total);
                                    });
  if (!checks.ok()) return bad_input("params check", checks.status());
  size_t ok = 0, mismatch = 0, missing = 0, unknown = 0;
  nlohmann::json files = nlohmann::json::array();
  for (const filecoin::ParamCheck& c : *checks) {
    switch (c.state) {
      case filecoin::ParamState::kOk:
        ++ok;
        break;
      case filecoin::ParamState::kMismatch:
        ++mismatch;
        break;
      case filecoin::ParamState::kMissing:
        ++missing;
        break;
      case filecoin::ParamState::kUnknown:
        ++unknown;
        break;
    }
    if (o.json) {
      files.push_back({{"name", c.name},
                       {"state", filecoin::param_state_name(c.state)},
                       {"expected", c.expected},
                       {"actual", c.actual},
                       {"bytes", c.bytes}});
    } else if (c.state != filecoin::ParamState::kMissing) {
      fmt::print("{:<8} {}{}\n", filecoin::param_state_name(c.state), c.name,
                 c.state == filecoin::ParamState::kMismatch
                     ? fmt::format(" (digest {}, parameters.json says {})", c.actual, c.expected)
                     : "");
    }
  }
  if (o.json) {
    fmt::print("{}\n", nlohmann::json{{"dir", dir},
                                      {"ok", ok},
                                      {"mismatch", mismatch},
                                      {"missing", missing},
                                      {"unknown", unknown},
                                      {"files", files}}
                           .dump());
  } else {
    fmt::print("{}: {} ok, {} mismatch, {} of parameters.json's {} not present, {} unknown\n", dir,
               ok, mismatch, missing, checks->size() - unknown, unknown);
  }
  return mismatch == 0 ? 0 : 1;
}

}  // namespace

void add_filecoin(CLI::App& app, int* exit_code) {
  CLI::App* sub = app.add_subcommand(
      "filecoin", "Filecoin's proofs: their public inputs, verification and parameter files");
  sub->require_subcommand(1);
  auto o = std::make_shared<FilecoinOptions>();

  CLI::App* in = sub->add_subcommand(
      "inputs",
      "Print the public inputs a proof description names: a JSON array of decimal "
      "strings per partition");
  in->add_option("--json", o->desc, "the proof description (DESC), a JSON file")->required();
  in->callback(
      [o, exit_code] { *exit_code = guarded("filecoin inputs", [&] { return run_inputs(*o); }); });

  CLI::App* v = sub->add_subcommand(
      "verify",
      "Verify a Filecoin proof for its description; exit 0 valid (prints OK), 1 "
      "invalid, 2 bad input");
  v->add_option("--vk", o->vk, "verifying key: a bellperson .vk or the compressed layout")
      ->required();
  v->add_option("--proof", o->proof, "proof bytes: 192 a partition, in partition order")
      ->required();
  v->add_option("--json", o->desc, "the proof description (DESC), a JSON file")->required();
  v->add_option("--snarkjs", o->snarkjs,
                "also write verification_key.json, proof_K.json, public_K.json here (created)");
  v->callback(
      [o, exit_code] { *exit_code = guarded("filecoin verify", [&] { return run_verify(*o); }); });

  CLI::App* key = sub->add_subcommand("key", "Filecoin verifying keys");
  key->require_subcommand(1);
  CLI::App* convert = key->add_subcommand(
      "convert", "Rewrite a verifying key (bellperson .vk or compressed) as a bellperson .vk");
  convert->add_option("in", o->vk, "the key")->required();
  convert->add_option("out", o->out, "the file to write")->required();
  convert->add_flag("--compressed", o->compressed, "write the compressed layout instead");
  convert->callback([o, exit_code] {
    *exit_code = guarded("filecoin key convert", [&] { return run_key_convert(*o); });
  });

  CLI::App* params = sub->add_subcommand("params", "Filecoin's parameter directory");
  params->require_subcommand(1);
  CLI::App* check = params->add_subcommand(
      "check",
      "Check every file of parameters.json present in DIR against its digest (BLAKE2b); "
      "exit 0 all match, 1 a mismatch, 2 DIR unreadable");
  check->add_option("dir", o->dir,
                    "the directory (default $FIL_PROOFS_PARAMETER_CACHE or "
                    "/var/tmp/filecoin-proof-parameters)");
  check->add_flag("--json", o->json, "one JSON object on stdout");
  check->callback([o, exit_code] {
    *exit_code = guarded("filecoin params check", [&] { return run_params_check(*o); });
  });
}

}  // namespace zkpipe::tool
