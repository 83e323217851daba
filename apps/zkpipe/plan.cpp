// `zkpipe plan --config C --proof T --preset P [--jobs N] [--json]`: the memory a workload will
// take before it runs: the predicted peak host memory (pageable and page-locked), device memory,
// what dominates it, the budget that lets its partitions be in flight and what a smaller one
// costs, and the limits of this machine it would pass. The engine is created (plugins, backends,
// params directory) but proves nothing; the request is made and parsed as `zkpipe bench` does.
// Thread-safety: main thread.
#include <fmt/core.h>

#include <nlohmann/json.hpp>

#include "cli.h"
#include "zkpipe/sdk/units.h"

namespace zkpipe::cli {
namespace {

struct PlanOptions {
  std::string config, proof = "porep", preset = "tiny", params_dir, cache_dir = "bench-out";
  uint64_t seed = 0;
  uint64_t jobs = 1;
  bool json = false;
};

nlohmann::json to_json(const pipeline::MemoryPrediction& p, const PlanOptions& o) {
  nlohmann::json j;
  j["config"] = o.config;
  j["proof"] = o.proof;
  j["preset"] = o.preset;
  j["jobs"] = o.jobs;
  j["circuit"] = p.circuit_id;
  j["partitions_per_job"] = p.partitions_per_job;
  j["peak_host_bytes"] = p.peak_host;
  j["peak_pinned_bytes"] = p.peak_pinned;
  j["peak_device_bytes"] = p.peak_device;
  j["baseline_bytes"] = p.baseline;
  j["budget_bytes"] = p.budget;
  j["budget_reserved_peak_bytes"] = p.reserved_peak;
  j["budget_for_all_bytes"] = p.budget_for_all;
  j["budget_for_one_bytes"] = p.budget_for_one;
  j["partitions_with_abc"] = p.abc_in_flight;
  j["partitions_in_flight"] = p.rest_in_flight;
  nlohmann::json b = nlohmann::json::object();
  for (const auto& [what, bytes] : p.breakdown) b[what] = bytes;
  j["breakdown"] = b;
  nlohmann::json steps = nlohmann::json::array();
  for (const pipeline::BudgetStep& step : p.steps) {
    steps.push_back({{"partitions_in_flight", step.in_flight},
                     {"budget_bytes", step.budget},
                     {"peak_host_bytes", step.peak_host},
                     {"cost", step.cost}});
  }
  j["smaller_budgets"] = steps;
  j["exact"] = p.exact;
  j["warnings"] = p.warnings;
  return j;
}

int run_plan(const PlanOptions& o) {
  if (o.jobs == 0) return fail("plan", invalid_argument("--jobs must be at least 1"));
  Result<Config> config = load_config_for_run(o.config, o.params_dir);
  if (!config.ok()) return fail("plan", config.status());
  Result<std::vector<uint8_t>> input =
      bench_request({o.proof, o.preset, o.seed}, config_plugin_dirs(*config), o.cache_dir);
  if (!input.ok()) return fail("plan", input.status());
  pipeline::EngineOptions eo;
  eo.check_plan = false;  // report what would not fit instead of refusing to start
  eo.start_paused = true;
  Result<std::unique_ptr<pipeline::Engine>> engine =
      pipeline::Engine::create(*config, std::move(eo));
  if (!engine.ok()) return fail("plan", engine.status());
  pipeline::JobRequest sample;
  sample.proof_type = o.proof;
  sample.input = std::move(*input);
  sample.input_name = fmt::format("{} {} request", o.proof, o.preset);
  Result<pipeline::MemoryPrediction> p = (*engine)->plan(sample, o.jobs);
  if (!p.ok()) return fail("plan", p.status());
  const std::string circuit = p->circuit_id;
  if (o.json) {
    fmt::print("{}\n", to_json(*p, o).dump(2));
    return 0;
  }
  fmt::print("== {} {} x {} job(s) under {} ({}, {} partitions per job)\n", o.proof, o.preset,
             o.jobs, o.config, circuit, p->partitions_per_job);
  fmt::print("predicted peak: {} host ({} of it page-locked), {} device\n",
             format_bytes(p->peak_host), format_bytes(p->peak_pinned),
             format_bytes(p->peak_device));
  fmt::print("made of (at the peak):\n");
  for (const auto& [what, bytes] : p->breakdown) {
    if (bytes > 0) fmt::print("  {:<28} {:>12}\n", what, format_bytes(bytes));
  }
  fmt::print("partitions in flight: {} holding a/b/c, {} in all\n", p->abc_in_flight,
             p->rest_in_flight);
  fmt::print("budget (pipeline.budget): {}; reserved at most {}\n", format_bytes(p->budget),
             format_bytes(p->reserved_peak));
  fmt::print("  for all {} partitions in flight: {}\n", p->abc_in_flight,
             format_bytes(p->budget_for_all));
  fmt::print("  smaller budgets, fewer partitions in flight:\n");
  for (const pipeline::BudgetStep& step : p->steps) {
    fmt::print("    {} in flight: budget {:>12}, peak {:>12}{}\n", step.in_flight,
               format_bytes(step.budget), format_bytes(step.peak_host), step.cost);
  }
  for (const std::string& w : p->warnings) fmt::print("warning: {}\n", w);
  return 0;
}

}  // namespace

void add_plan(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<PlanOptions>();
  CLI::App* cmd = app.add_subcommand(
      "plan", "Predict the memory of a workload (peak host, page-locked and device memory)");
  cmd->add_option("--config", o->config, "the pipeline config")->required();
  cmd->add_option("--proof", o->proof, "proof type plugin with presets (default porep)");
  cmd->add_option("--preset", o->preset, "a preset of the proof type (default tiny)");
  cmd->add_option("--seed", o->seed, "the sample request's seed (default 0)");
  cmd->add_option("--jobs", o->jobs, "jobs submitted at once (default 1)")
      ->check(CLI::Range(int64_t{1}, kMaxCliJobs));
  cmd->add_flag("--json", o->json, "print JSON (peak_host_bytes, peak_pinned_bytes, ...)");
  cmd->add_option("--params-dir", o->params_dir, "override the config's params.dir");
  cmd->add_option("--cache-dir", o->cache_dir,
                  "where the sample request is made and kept (default bench-out)");
  cmd->callback([o, exit_code] { *exit_code = run_plan(*o); });
}

}  // namespace zkpipe::cli
