// `zkpipe bench --config A.yaml [--config B.yaml ...] --proof TYPE --preset P --jobs N`: the same
// workload (N jobs of one request, all submitted at once: a backlog) under each config, one
// after the other in this process; prints them side by side and writes per config the Chrome
// trace, an SVG timeline and the summary (JSON) into --out-dir. With --addr instead of --config:
// load against a running `zkpipe serve` (bench_remote.cpp). With --urgent TYPE:PRESET: the
// deadline scenario, an urgent job under that backlog (bench_urgent.cpp).
// Thread-safety: main thread (plus the signal watcher).
#include <chrono>
#include <filesystem>

#include <fmt/core.h>

#include "bench_urgent.h"
#include "cli.h"
#include "run_summary.h"
#include "zkpipe/sdk/file_io.h"
#include "zkpipe/sdk/output_file.h"

namespace zkpipe::cli {
namespace {

struct BenchOptions {
  std::vector<std::string> configs;
  std::string proof = "porep", preset = "tiny", out_dir = "bench-out", params_dir, cache_dir;
  uint64_t seed = 0;
  uint32_t jobs = 4, rounds = 1;
  std::vector<std::string> urgent;  // TYPE:PRESET
  RemoteBenchOptions remote;        // --addr and the options only it takes
  std::vector<CLI::Option*> remote_only;
  CLI::Option* preset_option = nullptr;
};

Result<RunSummary> run_config(const BenchOptions& o, const std::string& path,
                              const std::vector<uint8_t>& input, SignalWatcher& signals) {
  ZKP_ASSIGN_OR_RETURN(Config config, load_config_for_run(path, o.params_dir));
  reset_peak_rss();
  ZKP_ASSIGN_OR_RETURN(std::unique_ptr<pipeline::Engine> engine, pipeline::Engine::create(config));
  signals.attach(engine.get());
  fmt::print("== {}: {}\n", path, engine->memory_plan());
  pipeline::JobRequest sample;
  sample.proof_type = o.proof;
  sample.input = input;
  sample.input_name = fmt::format("bench {} {} request (seed {})", o.proof, o.preset, o.seed);
  Result<pipeline::MemoryPrediction> predicted = engine->plan(sample, o.jobs);
  if (predicted.ok()) fmt::print("   {}\n", pipeline::describe_prediction(*predicted));
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<uint64_t> ids;
  Status status;
  for (uint32_t j = 0; j < o.jobs && status.ok(); ++j) {
    pipeline::JobRequest r;
    r.proof_type = o.proof;
    r.input = input;
    r.input_name = fmt::format("bench job {}", j);
    Result<uint64_t> id = engine->submit(std::move(r));
    if (id.ok()) ids.push_back(*id);
    status = id.status();
  }
  std::vector<pipeline::JobResult> results;
  for (uint64_t id : ids) {
    Result<pipeline::JobResult> r = engine->wait(id);
    if (r.ok()) results.push_back(std::move(*r));
  }
  const double wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  signals.attach(nullptr);
  if (!status.ok()) return status;
  for (const auto& r : results) {
    if (!r.status.ok()) return r.status.with_context(path);
  }
  RunSummary summary = summarize_run(*engine, path, results, wall_s);
  if (predicted.ok()) summary.predicted_peak_bytes = predicted->peak_host;
  fmt::print("{}", summary_text(summary));
  const std::string stem = std::filesystem::path(path).stem().string();
  const std::vector<pipeline::Span> spans = engine->trace().spans();
  const std::string title =
      fmt::format("zkpipe bench {} {} x{} {}", o.proof, o.preset, o.jobs, path);
  ZKP_RETURN_IF_ERROR(write_file(o.out_dir + "/" + stem + ".trace.json",
                                 pipeline::chrome_trace_json(spans, title, summary.to_json())));
  ZKP_RETURN_IF_ERROR(
      write_file(o.out_dir + "/" + stem + ".svg", pipeline::timeline_svg(spans, title)));
  ZKP_RETURN_IF_ERROR(write_file(o.out_dir + "/" + stem + ".metrics.txt", engine->metrics_text()));
  return summary;
}

int run_remote(const BenchOptions& o) {
  if (!o.configs.empty())
    return fail("bench", invalid_argument("--config and --addr exclude each other"));
  if (!o.params_dir.empty()) {
    return fail("bench", invalid_argument("--params-dir is the local engine's: not with --addr"));
  }
  if (!o.remote.input.empty() && o.preset_option->count() > 0) {
    return fail("bench", invalid_argument("--preset and --input exclude each other"));
  }
  RemoteBenchOptions r = o.remote;
  r.proof = o.proof;
  r.preset = o.preset;
  r.seed = o.seed;
  r.jobs = o.jobs;
  r.cache_dir = o.cache_dir.empty() ? o.out_dir : o.cache_dir;
  return run_bench_remote(r);
}

// --urgent: one config, the backlog and each urgent request in one engine.
int run_urgent(const BenchOptions& o, const std::vector<uint8_t>& backlog, const Config& config,
               const std::string& cache) {
  if (o.configs.size() != 1)
    return fail("bench", invalid_argument("--urgent takes exactly one --config"));
  if (o.rounds == 0) return fail("bench", invalid_argument("--rounds must be at least 1"));
  std::vector<UrgentInput> urgent;
  for (const std::string& spec : o.urgent) {
    const size_t colon = spec.find(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == spec.size()) {
      return fail("bench",
                  invalid_argument("--urgent '" + echo_value(spec) + "': give TYPE:PRESET"));
    }
    UrgentInput u{spec.substr(0, colon), spec.substr(colon + 1), {}};
    Result<std::vector<uint8_t>> input =
        bench_request({u.type, u.preset, o.seed}, config_plugin_dirs(config), cache);
    if (!input.ok()) return fail("bench", input.status().with_context("--urgent " + spec));
    u.input = std::move(*input);
    urgent.push_back(std::move(u));
  }
  SignalWatcher signals;
  Result<std::unique_ptr<pipeline::Engine>> engine = pipeline::Engine::create(config);
  if (!engine.ok()) return fail("bench", engine.status());
  signals.attach(engine->get());
  fmt::print("== {}: {}\n", o.configs.front(), (*engine)->memory_plan());
  const Status s =
      run_urgent_bench(**engine, {o.proof, o.preset, o.jobs, o.rounds}, backlog, urgent, o.out_dir);
  signals.attach(nullptr);
  if (!s.ok()) return fail("bench", s);
  fmt::print("wrote {}/urgent.json\n", o.out_dir);
  return 0;
}

int run_bench(const BenchOptions& o) {
  if (!o.remote.addr.empty()) return run_remote(o);
  if (o.configs.empty()) {
    return fail("bench",
                invalid_argument("--config is required (or --addr, for a running zkpipe serve)"));
  }
  for (const CLI::Option* opt : o.remote_only) {
    if (opt->count() > 0) return fail("bench", invalid_argument(opt->get_name() + " needs --addr"));
  }
  if (o.jobs == 0) return fail("bench", invalid_argument("--jobs must be at least 1"));
  std::error_code ec;
  if (Status s = check_output_dir(o.out_dir, "--out-dir"); !s.ok()) return fail("bench", s);
  const std::string cache = o.cache_dir.empty() ? o.out_dir : o.cache_dir;
  // The request is made by the proof type's plugin, found in the first config's plugin_dirs.
  Result<Config> first = load_config_for_run(o.configs.front(), o.params_dir);
  if (!first.ok()) return fail("bench", first.status());
  Result<std::vector<uint8_t>> input =
      bench_request({o.proof, o.preset, o.seed}, config_plugin_dirs(*first), cache);
  if (!input.ok()) return fail("bench", input.status());
  if (!o.urgent.empty()) return run_urgent(o, *input, *first, cache);
  SignalWatcher signals;
  std::vector<RunSummary> runs;
  for (const std::string& path : o.configs) {
    if (signals.signals() > 0) break;
    Result<RunSummary> run = run_config(o, path, *input, signals);
    if (!run.ok()) return fail("bench", run.status());
    runs.push_back(std::move(*run));
  }
  fmt::print("\n== {} {} x {} job(s), all submitted at once\n{}", o.proof, o.preset, o.jobs,
             side_by_side(runs));
  nlohmann::json all = nlohmann::json::array();
  for (const auto& r : runs) all.push_back(r.to_json());
  if (Status s = write_file(o.out_dir + "/bench.json", all.dump(2) + "\n"); !s.ok()) {
    return fail("bench", s);
  }
  fmt::print(
      "wrote {}/<config>.trace.json (Perfetto), <config>.svg, <config>.metrics.txt, "
      "bench.json\n",
      o.out_dir);
  return 0;
}

}  // namespace

void add_bench(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<BenchOptions>();
  CLI::App* cmd = app.add_subcommand(
      "bench", "Run one workload under several configs and print them side by side");
  cmd->add_option("--config", o->configs, "a pipeline config; repeat to compare");
  cmd->add_option("--proof", o->proof,
                  "proof type plugin (default porep); with --preset it must have presets");
  o->preset_option = cmd->add_option(
      "--preset", o->preset,
      "a preset of the proof type (default tiny); its plugin makes the request (cached)");
  cmd->add_option("--seed", o->seed, "the sample request's seed (default 0)");
  cmd->add_option("--jobs", o->jobs, "jobs submitted at once (default 4; --addr: in all)")
      ->check(CLI::Range(int64_t{1}, kMaxCliJobs));
  cmd->add_option("--urgent", o->urgent,
                  "the deadline scenario: TYPE:PRESET proved idle and under the backlog (repeat)");
  cmd->add_option("--rounds", o->rounds, "--urgent: rounds; medians are reported (default 1)");
  cmd->add_option("--out-dir", o->out_dir, "traces, SVG timelines, summaries (default bench-out)");
  cmd->add_option("--params-dir", o->params_dir, "override params.dir of every config");
  cmd->add_option("--cache-dir", o->cache_dir,
                  "where sample requests are kept, <proof>-<preset>-<seed>.request (default: "
                  "out-dir)");
  RemoteBenchOptions& r = o->remote;
  cmd->add_option("--addr", r.addr,
                  "load a running zkpipe serve instead (unix:///path.sock or host:port)");
  o->remote_only = {
      cmd->add_option("--token-file", r.token_file, "--addr: the bearer token's file"),
      cmd->add_option("--input", r.input, "--addr: the request's bytes from this file"),
      cmd->add_option("--plugin-dir", r.plugin_dirs,
                      "--addr: where the proof type's plugin is, to make --preset's request "
                      "(repeat; default: beside zkpipe)"),
      cmd->add_option("--concurrency", r.concurrency, "--addr: client threads (default 1)"),
      cmd->add_option("--priority", r.priority, "--addr: critical, high, normal, low"),
      cmd->add_option("--request-prefix", r.request_prefix,
                      "--addr: request ids PREFIX-<n> (default: none)"),
      cmd->add_option("--timeout", r.timeout, "--addr: each await's limit (default 10m)"),
      cmd->add_option("--json", r.json, "--addr: write the numbers here as JSON"),
      cmd->add_flag("--prove-rpc", r.prove_rpc,
                    "--addr: one Prove call per job (submit latency not measured)")};
  cmd->callback([o, exit_code] { *exit_code = run_bench(*o); });
}

}  // namespace zkpipe::cli
