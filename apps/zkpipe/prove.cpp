// `zkpipe prove --config CONFIG --proof TYPE (--input REQUEST | --preset P [--seed S])
// [--out PROOF]`: one request (a file, or the sample request of a preset, made by the proof
// type's plugin from the config's plugin_dirs) through
// the pipeline of a config: parse and check, params (loaded, or made when the config allows),
// synthesis, prove_start, prove_finish, batch verification; then the timing table and summary,
// and the proof (partitions x 192 bytes, in the request's order) written only when it verified,
// with PROOF.json beside it naming each proof's partition by its index in the sector
// (tools/proof_layout.h); --snarkjs files are named by that index too.
// Thread-safety: main thread (plus the signal watcher).
#include <chrono>
#include <filesystem>

#include <fmt/core.h>
#include <fmt/ranges.h>

#include "cli.h"
#include "proof_layout.h"
#include "run_summary.h"
#include "zkpipe/groth16/params_file.h"
#include "zkpipe/groth16/snarkjs.h"
#include "zkpipe/sdk/file_io.h"
#include "zkpipe/sdk/output_file.h"

namespace zkpipe::cli {
namespace {

struct ProveOptions {
  std::string config, proof, input, preset, out, request_id, params_dir, trace, status, metrics;
  std::string snarkjs, priority;  // empty: the proof type's default
  uint64_t seed = 0;
  CLI::Option* seed_option = nullptr;
};

// proof_K.json and public_K.json per partition (K: its index in the sector) and the verification
// key, as snarkjs reads them (an independent verifier: `snarkjs groth16 verify`).
Status write_snarkjs(const std::string& dir, const Config& config, const pipeline::JobResult& r) {
  const std::string params =
      (std::filesystem::path(config.params.dir) / (r.circuit_id + ".params")).string();
  ZKP_ASSIGN_OR_RETURN(groth16::ProvingKey pk,
                       groth16::load_params(params, groth16::ParamsLoadOptions::trusted()));
  ZKP_RETURN_IF_ERROR(check_output_dir(dir, "--snarkjs"));
  ZKP_RETURN_IF_ERROR(
      write_file(dir + "/verification_key.json", groth16::export_snarkjs_vk(pk.vk)));
  for (size_t p = 0; p < r.partitions.size(); ++p) {
    ZKP_ASSIGN_OR_RETURN(
        groth16::Proof proof,
        groth16::decode_proof(r.proof.data() + p * groth16::kProofBytes, groth16::kProofBytes));
    const uint32_t k = r.partition_indices[p];
    ZKP_RETURN_IF_ERROR(
        write_file(fmt::format("{}/proof_{}.json", dir, k), groth16::export_snarkjs_proof(proof)));
    ZKP_RETURN_IF_ERROR(write_file(fmt::format("{}/public_{}.json", dir, k),
                                   groth16::export_snarkjs_public(r.public_inputs[p])));
  }
  return ok_status();
}

int run_prove(const ProveOptions& o) {
  const auto priority = pipeline::parse_priority(o.priority);
  if (!o.priority.empty() && !priority) {
    return fail("prove", invalid_argument("--priority: '" + o.priority +
                                          "' is not one of critical, high, normal, low"));
  }
  if (o.input.empty() == o.preset.empty()) {
    return fail("prove",
                invalid_argument("give the request as --input FILE or --preset P (one of them)"));
  }
  if (o.preset.empty() && o.seed_option->count() > 0) {
    return fail("prove", invalid_argument("--seed needs --preset"));
  }
  Result<Config> config = load_config_for_run(o.config, o.params_dir);
  if (!config.ok()) return fail("prove", config.status());
  std::vector<uint8_t> input;
  std::string input_name = o.input;
  if (!o.input.empty()) {
    Result<std::string> bytes = read_file(o.input);
    if (!bytes.ok()) return fail("prove", bytes.status().with_context("--input"));
    input.assign(bytes->begin(), bytes->end());
  }
  // Every output is checked before any work: a proof is never made only to be lost.
  for (const auto& [option, path] : {std::pair{"--out", &o.out},
                                     {"--trace", &o.trace},
                                     {"--status", &o.status},
                                     {"--metrics", &o.metrics}}) {
    if (path->empty()) continue;
    if (Status s = check_output_path(*path, option); !s.ok()) return fail("prove", s);
  }
  if (!o.out.empty()) {  // its layout sidecar
    const std::string layout = o.out + std::string(tool::kProofLayoutSuffix);
    if (Status s = check_output_path(layout, "--out"); !s.ok()) return fail("prove", s);
  }
  if (!o.snarkjs.empty()) {
    if (Status s = check_output_dir(o.snarkjs, "--snarkjs"); !s.ok()) return fail("prove", s);
  }
  if (!o.preset.empty()) {  // made after the output checks: it may seal a sector
    Result<std::vector<uint8_t>> bytes =
        sample_request({o.proof, o.preset, o.seed}, config_plugin_dirs(*config));
    if (!bytes.ok()) return fail("prove", bytes.status());
    input = std::move(*bytes);
    input_name = fmt::format("{} preset {} (seed {})", o.proof, o.preset, o.seed);
  }
  SignalWatcher signals;
  Result<std::unique_ptr<pipeline::Engine>> engine = pipeline::Engine::create(*config);
  if (!engine.ok()) return fail("prove", engine.status());
  fmt::print("{}: {}\n", o.config, (*engine)->memory_plan());
  signals.attach(engine->get());
  pipeline::JobRequest request;
  request.proof_type = o.proof;
  request.input = std::move(input);
  request.input_name = input_name;
  request.priority = priority;
  request.request_id = o.request_id;
  const auto t0 = std::chrono::steady_clock::now();
  Result<uint64_t> id = (*engine)->submit(std::move(request));
  if (!id.ok()) {
    signals.attach(nullptr);
    return fail("prove", id.status());
  }
  Result<pipeline::JobResult> result = (*engine)->wait(*id);
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  signals.attach(nullptr);
  if (!result.ok()) return fail("prove", result.status());
  fmt::print("{}", timing_table(*result));
  fmt::print("{}", summary_text(summarize_run(**engine, o.config, {*result}, wall_s)));
  if (!o.trace.empty()) {
    const std::string json =
        pipeline::chrome_trace_json((*engine)->trace().spans(), "zkpipe prove " + input_name);
    if (Status s = write_file(o.trace, json); !s.ok()) return fail("prove", s);
    fmt::print("trace: {} (open in https://ui.perfetto.dev)\n", o.trace);
  }
  if (!o.status.empty()) {
    if (Status s = write_file(o.status, (*engine)->status_json().dump(2) + "\n"); !s.ok()) {
      return fail("prove", s);
    }
  }
  if (!o.metrics.empty()) {
    if (Status s = write_file(o.metrics, (*engine)->metrics_text()); !s.ok())
      return fail("prove", s);
  }
  if (!result->status.ok()) return fail("prove", result->status);
  if (!o.out.empty()) {
    if (Status s = write_file(o.out, std::span<const uint8_t>(result->proof)); !s.ok()) {
      return fail("prove", s);
    }
    const std::string layout = o.out + std::string(tool::kProofLayoutSuffix);
    if (Status s =
            write_file(layout, tool::proof_layout_json(result->proof_type, result->circuit_id,
                                                       result->partition_indices));
        !s.ok()) {
      return fail("prove", s);
    }
    fmt::print("proof: {} ({} partition(s) x 192 bytes, verified; sector partitions {}: {})\n",
               o.out, result->partitions.size(), fmt::join(result->partition_indices, ","), layout);
  }
  if (!o.snarkjs.empty()) {
    if (Status s = write_snarkjs(o.snarkjs, *config, *result); !s.ok()) return fail("prove", s);
    fmt::print(
        "snarkjs: {}/verification_key.json, proof_K.json, public_K.json for K = {} (the sector "
        "index)\n",
        o.snarkjs, fmt::join(result->partition_indices, ", "));
  }
  return 0;
}

}  // namespace

void add_prove(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<ProveOptions>();
  CLI::App* cmd = app.add_subcommand(
      "prove", "Prove one request through the pipeline of a config; print where the time went");
  cmd->add_option("--config", o->config, "pipeline config (configs/*.yaml)")->required();
  cmd->add_option("--proof", o->proof, "proof type plugin: porep, snapdeals, ...")->required();
  cmd->add_option(
      "--input", o->input,
      "the request, e.g. vanilla proofs (zkpipe-tool proof-type porep vanilla); or --preset");
  cmd->add_option("--preset", o->preset,
                  "prove the sample request of this preset, made by the proof type's plugin");
  o->seed_option = cmd->add_option("--seed", o->seed, "--preset: the sample's seed (default 0)");
  cmd->add_option("--out", o->out, "write the proof here (only when every partition verified)");
  cmd->add_option("--priority", o->priority,
                  "critical, high, normal or low (default: the proof type's, else normal)");
  cmd->add_option("--request-id", o->request_id, "the caller's id for this request");
  cmd->add_option("--params-dir", o->params_dir, "override params.dir of the config");
  cmd->add_option("--trace", o->trace, "write the run's Chrome trace JSON (Perfetto) here");
  cmd->add_option("--status", o->status, "write the engine's status snapshot (JSON) here");
  cmd->add_option("--metrics", o->metrics, "write Prometheus text metrics here");
  cmd->add_option("--snarkjs", o->snarkjs,
                  "also write the proofs, public inputs and verification key as snarkjs JSON here");
  cmd->callback([o, exit_code] { *exit_code = run_prove(*o); });
}

}  // namespace zkpipe::cli
