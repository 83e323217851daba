// `zkpipe-tool prove-once`: one job through a proof-type plugin, without the pipeline: load the
// plugin, parse (the plugin checks the vanilla proofs), find or make the params for the job's
// circuit id (record -> seeded development setup -> PARAMS_DIR/<id>.params + .csr, or load and
// validate them), then per partition: witness-only synthesis into buffers, a/b/c, prove_start,
// prove_finish, verify; batch-verify all partitions; only then write the proofs.
// Thread-safety: main thread only.
#include <filesystem>
#include <memory>

#include <fmt/core.h>
#include <fmt/ranges.h>

#include "commands.h"
#include "proof_layout.h"
#include "zkpipe/groth16/params_file.h"
#include "zkpipe/groth16/prover.h"
#include "zkpipe/groth16/setup.h"
#include "zkpipe/groth16/snarkjs.h"
#include "zkpipe/groth16/verifier.h"
#include "zkpipe/plugin.h"
#include "zkpipe/proof_type.h"
#include "zkpipe/sdk/abi/proof_type.h"
#include "zkpipe/sdk/clock.h"
#include "zkpipe/sdk/file_io.h"
#include "zkpipe/sdk/output_file.h"

namespace zkpipe::tool {
namespace {

using namespace zkpipe::groth16;
namespace fs = std::filesystem;

struct OnceOptions {
  std::string type, request, params_dir = "params", out;
  std::vector<std::string> plugin_dirs;
  uint64_t setup_seed = 1;
  unsigned threads = 0;
};

int once_fail(const char* step, const Status& s) {
  fmt::print(stderr, "prove-once: {}: {}\n", step, s.to_string());
  return s.code() == Code::kInvalidArgument || s.code() == Code::kNotFound ? 2 : 1;
}

// Owns a parsed job or a recorded R1CS of the plugin.
struct JobHandle {
  const zkp_proof_type* t;
  zkp_job* job = nullptr;
  ~JobHandle() {
    if (job != nullptr) t->destroy_job(job);
  }
};

// The params for `id`: loaded (validated) when PARAMS_DIR/<id>.params exists, else made.
Result<std::pair<ProvingKey, R1cs>> params_for(const OnceOptions& o, const zkp_proof_type* t,
                                               const zkp_job* job, const std::string& id) {
  const std::string path = (fs::path(o.params_dir) / (id + ".params")).string();
  if (fs::exists(path)) {
    ParamsLoadOptions lo;
    lo.threads = o.threads;
    ZKP_ASSIGN_OR_RETURN(ProvingKey pk, load_params(path, lo));
    ZKP_ASSIGN_OR_RETURN(R1cs r1cs, load_r1cs_cache(path + ".csr"));
    fmt::print("params      loaded {} (validated)\n", path);
    return std::make_pair(std::move(pk), std::move(r1cs));
  }
  int64_t t0 = now_ns();
  ZKP_ASSIGN_OR_RETURN(R1cs r1cs, record_r1cs(t, job, "plugin"));
  const double record_ms = ms_since(t0);
  t0 = now_ns();
  SetupOptions so;
  so.threads = o.threads;
  ZKP_ASSIGN_OR_RETURN(ProvingKey pk, setup(r1cs, ToxicWaste::from_seed(o.setup_seed), so));
  fs::create_directories(o.params_dir);
  ZKP_RETURN_IF_ERROR(write_params(path, pk));
  ZKP_RETURN_IF_ERROR(write_r1cs_cache(path + ".csr", r1cs));
  fmt::print("params      made {} (record {:.0f} ms, setup {:.0f} ms; {})\n", path, record_ms,
             ms_since(t0), kNotACeremony);
  return std::make_pair(std::move(pk), std::move(r1cs));
}

int run_once(const OnceOptions& o) {
  if (!o.out.empty()) {
    if (auto s = check_output_dir(o.out, "--out"); !s.ok()) return once_fail("write", s);
  }
  auto dirs = plugin_search_dirs({{"--plugin-dir", o.plugin_dirs}});
  if (!dirs.ok()) return once_fail("plugin", dirs.status());
  PluginRegistry registry(*dirs);
  auto loaded = registry.load(o.type, ZKP_KIND_PROOF_TYPE);
  if (!loaded.ok()) return once_fail("plugin", loaded.status());
  if (!(*loaded)->available()) return once_fail("plugin", (*loaded)->init_status);
  const auto* t = (*loaded)->table<zkp_proof_type>();

  auto request = read_file(o.request);
  if (!request.ok()) return once_fail("request", request.status());
  const std::span<const uint8_t> bytes = as_bytes(*request);
  int64_t t0 = now_ns();
  char msg[ZKP_ERROR_CAPACITY] = "";
  JobHandle job{t};
  if (auto s = plugin_status(
          t->parse(bytes.data(), bytes.size(), o.request.c_str(), &job.job, {msg, sizeof msg}), msg,
          "parse");
      !s.ok()) {
    return once_fail("parse", s);
  }
  zkp_job_info info{};
  info.struct_size = sizeof info;
  if (auto s = plugin_status(t->info(job.job, &info, {msg, sizeof msg}), msg, "info"); !s.ok()) {
    return once_fail("info", s);
  }
  auto indices = partition_indices(t, job.job, info.partitions, o.request);
  if (!indices.ok()) return once_fail("parse", indices.status());
  fmt::print(
      "parse       {:9.1f} ms: {} partition(s) of {} ({} constraints, {} public inputs), sector "
      "index {}\n",
      ms_since(t0), info.partitions, info.circuit_id, info.num_constraints, info.num_inputs - 1,
      fmt::join(*indices, ","));
  auto params = params_for(o, t, job.job, info.circuit_id);
  if (!params.ok()) return once_fail("params", params.status());
  const auto& [pk, r1cs] = *params;
  if (r1cs.num_inputs != info.num_inputs || r1cs.num_aux != info.num_aux ||
      r1cs.num_constraints() != info.num_constraints) {
    return once_fail("params",
                     invalid_argument("the cached R1CS does not match the job's circuit " +
                                      std::string(info.circuit_id)));
  }
  const PreparedVerifyingKey pvk(pk.vk);
  const size_t n = pk.domain_size;
  std::vector<Proof> proofs;
  std::vector<std::vector<Fr>> publics;
  for (uint32_t p = 0; p < info.partitions; ++p) {
    t0 = now_ns();
    std::vector<Fr> inputs(info.num_inputs), aux(info.num_aux), a(n), b(n), c(n);
    if (auto s = plugin_status(
            t->synthesize(job.job, p, reinterpret_cast<zkp_fr*>(inputs.data()), inputs.size(),
                          reinterpret_cast<zkp_fr*>(aux.data()), aux.size(), {msg, sizeof msg}),
            msg, "synthesize");
        !s.ok()) {
      return once_fail("synthesize", s);
    }
    const WitnessView w{inputs, aux};
    if (auto s = evaluate_abc(r1cs, w, a.data(), b.data(), c.data(), n, o.threads); !s.ok()) {
      return once_fail("a/b/c", s);
    }
    const double synth_ms = ms_since(t0);
    t0 = now_ns();
    ProverOptions po;
    po.threads = o.threads;
    auto pending = prove_start(pk, {w, a.data(), b.data(), c.data(), n}, po);
    if (!pending.ok()) return once_fail("prove_start", pending.status());
    const double start_ms = ms_since(t0);
    t0 = now_ns();
    auto proof = prove_finish(std::move(pending).value(), ProverRandomness::secure(), po);
    if (!proof.ok()) return once_fail("prove_finish", proof.status());
    const double finish_ms = ms_since(t0);
    std::vector<Fr> x(info.num_inputs - 1);
    if (auto s = plugin_status(t->public_inputs(job.job, p, reinterpret_cast<zkp_fr*>(x.data()),
                                                x.size(), {msg, sizeof msg}),
                               msg, "public_inputs");
        !s.ok()) {
      return once_fail("public inputs", s);
    }
    t0 = now_ns();
    auto ok = verify(pvk, *proof, x);
    if (!ok.ok()) return once_fail("verify", ok.status());
    if (!*ok) {
      return once_fail("verify",
                       internal_error(fmt::format(
                           "partition {}: the proof does not verify; nothing written (params "
                           "kept from an older build of this circuit? remove {}/{}.params)",
                           (*indices)[p], o.params_dir, info.circuit_id)));
    }
    fmt::print(
        "partition {} synthesis {:.1f} ms, prove_start {:.1f} ms, prove_finish {:.1f} ms, "
        "verify {:.1f} ms: OK\n",
        (*indices)[p], synth_ms, start_ms, finish_ms, ms_since(t0));
    proofs.push_back(*proof);
    publics.push_back(std::move(x));
  }
  t0 = now_ns();
  auto batch = verify_batch(pvk, proofs, publics, o.threads);
  if (!batch.ok() || !*batch) {
    return once_fail("verify", internal_error("the batch of partition proofs does not verify"));
  }
  fmt::print("batch verify {:.1f} ms: OK ({} proofs)\n", ms_since(t0), proofs.size());
  if (!o.out.empty()) {
    std::string all(kProofBytes * proofs.size(), '\0');
    std::vector<std::pair<std::string, std::string>> files;
    for (size_t p = 0; p < proofs.size(); ++p) {
      encode_proof(proofs[p], reinterpret_cast<uint8_t*>(all.data()) + kProofBytes * p);
      // Named by the partition's index in the sector, not its position in the request.
      files.emplace_back(fmt::format("proof_{}.json", (*indices)[p]),
                         export_snarkjs_proof(proofs[p]));
      files.emplace_back(fmt::format("public_{}.json", (*indices)[p]),
                         export_snarkjs_public(publics[p]));
    }
    files.emplace_back("proofs.bin", std::move(all));
    files.emplace_back(std::string("proofs.bin") + std::string(kProofLayoutSuffix),
                       proof_layout_json(o.type, info.circuit_id, *indices));
    files.emplace_back("verification_key.json", export_snarkjs_vk(pk.vk));
    for (const auto& [name, content] : files) {
      if (auto s = write_file(o.out + "/" + name, content); !s.ok()) return once_fail("write", s);
    }
    fmt::print(
        "wrote       {}/proofs.bin ({} x 192 bytes, in the request's order: sector partitions {}; "
        "proofs.bin.json says so), proof_K.json, public_K.json (K: the sector index), "
        "verification_key.json\n",
        o.out, proofs.size(), fmt::join(*indices, ","));
  }
  return 0;
}

}  // namespace

void add_prove_once(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<OnceOptions>();
  CLI::App* cmd = app.add_subcommand(
      "prove-once",
      "Prove one request through a proof-type plugin without the pipeline: parse, params (made "
      "once per circuit), synthesize, prove, verify; exit 0 when every partition verifies");
  cmd->add_option("--type", o->type, "proof-type plugin (porep, snapdeals)")->required();
  cmd->add_option("--request", o->request, "request file (vanilla proofs)")->required();
  cmd->add_option("--params-dir", o->params_dir,
                  "where <circuit id>.params (+ .csr) are kept (default: ./params)");
  cmd->add_option("--setup-seed", o->setup_seed,
                  "seed of the development setup when params are made (NOT a ceremony)");
  cmd->add_option("--plugin-dir", o->plugin_dirs, "plugin directory (default: beside the tool)");
  cmd->add_option("--threads", o->threads, "worker threads (0: all)");
  cmd->add_option("--out", o->out, "write proofs.bin and snarkjs JSON files here");
  cmd->callback(
      [o, exit_code] { *exit_code = guarded("prove-once", [&] { return run_once(*o); }); });
}

}  // namespace zkpipe::tool
