// `zkpipe-tool params new`: records an example circuit, runs the seeded development setup (NOT a
// ceremony: anyone with the seed can forge proofs; the command says so and the file records it)
// with a progress bar on a terminal, and writes the params file and the R1CS cache beside it
// (FILE.csr). With --proof T --preset P --config C: the params of that proof type's circuit,
// made where the config's engine looks for them (params.dir, or params.filecoin_dir under
// Filecoin's registered name, labeled development) and loaded once as a job would.
// Thread-safety: main thread only (the setup spreads its work over threads).
#include <unistd.h>

#include <bit>
#include <cstdio>
#include <memory>
#include <string>

#include <fmt/core.h>

#include "commands.h"
#include "zkpipe/config.h"
#include "zkpipe/groth16/example_circuits.h"
#include "zkpipe/groth16/params_file.h"
#include "zkpipe/groth16/setup.h"
#include "zkpipe/pipeline/engine.h"
#include "zkpipe/plugin.h"
#include "zkpipe/proof_type.h"
#include "zkpipe/sdk/clock.h"
#include "zkpipe/sdk/output_file.h"

namespace zkpipe::tool {
namespace {

struct NewOptions {
  std::string circuit = "synthetic";
  uint64_t size = 1024;
  uint64_t seed = 1;
  unsigned threads = 0;
  std::string out;
  std::string proof, preset, config, params_dir;  // --proof mode
};

// "\rsetup [##########----------]  50%  131072 / 262144 points  3.1 s" on a terminal.
void draw_bar(uint64_t done, uint64_t total, double elapsed) {
  constexpr int kWidth = 30;
  const int filled = total == 0 ? kWidth : static_cast<int>(kWidth * done / total);
  std::string bar(static_cast<size_t>(filled), '#');
  bar.append(static_cast<size_t>(kWidth - filled), '-');
  fmt::print(stderr, "\rsetup [{}] {:3}%  {} / {} points  {:.1f} s", bar,
             total == 0 ? 100 : 100 * done / total, done, total, elapsed);
  std::fflush(stderr);
}

int run_new(const NewOptions& o) {
  using namespace zkpipe::groth16;
  fmt::print("params new: {}\n", kNotACeremony);
  auto fail = [](const char* step, const Status& s) {
    fmt::print(stderr, "params new: {}: {}\n", step, s.to_string());
    return s.code() == Code::kInvalidArgument ? 2 : 1;
  };
  const int64_t start = now_ns();
  auto cs = ConstraintSystem::recorder();
  if (auto s = synthesize_example({o.circuit, o.size, o.seed}, cs); !s.ok()) {
    return fail("circuit", s);
  }
  const R1cs r1cs = cs.take_r1cs();
  fmt::print("params new: circuit {} ({} constraints, {} public inputs, {} aux), domain 2^{}\n",
             o.circuit, r1cs.num_constraints(), r1cs.num_inputs - 1, r1cs.num_aux,
             std::countr_zero(r1cs.domain_size()));
  for (const std::string& out : {o.out, o.out + ".csr"}) {
    if (auto s = check_output_path(out, "--out"); !s.ok()) return fail("write", s);
  }
  SetupOptions so;
  so.threads = o.threads;
  const bool tty = isatty(STDERR_FILENO) == 1;
  const int64_t setup_start = now_ns();
  if (tty) {
    so.progress = [&](uint64_t done, uint64_t total) {
      draw_bar(done, total, seconds_since(setup_start));
    };
  }
  auto pk = setup(r1cs, ToxicWaste::from_seed(o.seed), so);
  if (tty) fmt::print(stderr, "\n");
  if (!pk.ok()) return fail("setup", pk.status());
  const double setup_s = seconds_since(setup_start);
  if (auto s = write_params(o.out, *pk); !s.ok()) return fail("write", s);
  const std::string csr = o.out + ".csr";
  if (auto s = write_r1cs_cache(csr, r1cs); !s.ok()) return fail("write", s);
  fmt::print("params new: wrote {} and {} (setup {:.2f} s, total {:.2f} s)\n", o.out, csr, setup_s,
             seconds_since(start));
  return 0;
}

int params_fail(const char* step, const Status& s) {
  std::fflush(stdout);  // what was printed before comes first
  fmt::print(stderr, "params new: {}: {}\n", step, s.to_string());
  const Code c = s.code();
  return c == Code::kInvalidArgument || c == Code::kNotFound ? 2 : 1;
}

// --proof T --preset P --config C: the sample request of the preset, parsed by the config's
// engine, whose params cache makes (params.missing forced to setup) and loads the circuit's
// params.
int run_new_for_proof(const NewOptions& o) {
  Result<Config> config = load_config(o.config);
  if (!config.ok()) return params_fail("--config", config.status());
  if (!o.params_dir.empty()) config->params.dir = o.params_dir;
  config->params.setup_when_missing = true;
  fmt::print("params new: {} (params that exist are checked and kept)\n", groth16::kNotACeremony);
  Result<std::vector<std::string>> dirs =
      plugin_search_dirs({{config->path + ": plugin_dirs", config->plugin_dirs}});
  if (!dirs.ok()) return params_fail("plugins", dirs.status());
  PluginRegistry registry(std::move(*dirs));
  Result<ProofTypePlugin> type = ProofTypePlugin::load(registry, o.proof);
  if (!type.ok()) return params_fail("--proof", type.status());
  Result<std::vector<uint8_t>> sample = type->sample_request(o.preset, o.seed);
  if (!sample.ok()) return params_fail("--preset", sample.status());
  Result<std::unique_ptr<pipeline::Engine>> engine = pipeline::Engine::create(*config);
  if (!engine.ok()) return params_fail("engine", engine.status());
  pipeline::JobRequest request;
  request.proof_type = o.proof;
  request.input = std::move(*sample);
  request.input_name = fmt::format("the sample of {} preset {}", o.proof, o.preset);
  const int64_t start = now_ns();
  Result<pipeline::Engine::ParamsMade> made = (*engine)->make_params(request);
  if (!made.ok()) return params_fail("params", made.status());
  fmt::print("params new: {} {} for circuit {} ({} preset {}) in {:.2f} s\n",
             made->made ? "made" : "checked", made->file, made->circuit_id, o.proof, o.preset,
             seconds_since(start));
  return 0;
}

}  // namespace

void add_params_new(CLI::App& params, int* exit_code) {
  auto o = std::make_shared<NewOptions>();
  CLI::App* cmd = params.add_subcommand(
      "new",
      "Seeded development setup (NOT a ceremony) of an example circuit (--circuit, --out FILE: "
      "FILE + FILE.csr) or of a proof type's preset (--proof, --preset, --config: where that "
      "config's engine reads them)");
  auto* circuit = cmd->add_option("--circuit", o->circuit, "cubic, mimc or synthetic")
                      ->check(CLI::IsMember({"cubic", "mimc", "synthetic"}));
  auto* size = cmd->add_option("--size", o->size, "mimc rounds or synthetic constraints");
  cmd->add_option("--seed", o->seed,
                  "seed of the toxic waste and of the circuit's values (--circuit), of the "
                  "sample request (--proof; the setup takes params.setup_seed)");
  cmd->add_option("--threads", o->threads, "setup threads (0 = all; --circuit)");
  auto* out = cmd->add_option("--out", o->out, "params file to write (--circuit)");
  auto* proof = cmd->add_option("--proof", o->proof, "proof type, e.g. filecoin_winning_post");
  auto* preset = cmd->add_option("--preset", o->preset, "its preset, e.g. 2KiB")->needs(proof);
  auto* config = cmd->add_option("--config", o->config,
                                 "pipeline config whose params.dir / params.filecoin_dir and "
                                 "plugins are used (e.g. /etc/zkpipe/zkpipe.yaml)")
                     ->needs(proof);
  cmd->add_option("--params-dir", o->params_dir, "override params.dir of the config")->needs(proof);
  proof->needs(preset)->needs(config)->excludes(circuit)->excludes(size)->excludes(out);
  cmd->callback([o, exit_code, cmd] {
    if (!o->proof.empty()) {
      *exit_code = run_new_for_proof(*o);
    } else if (o->out.empty()) {
      fmt::print(stderr, "params new: --out is required with --circuit (or give --proof)\n{}",
                 cmd->help());
      *exit_code = 2;
    } else {
      *exit_code = run_new(*o);
    }
  });
}

}  // namespace zkpipe::tool
