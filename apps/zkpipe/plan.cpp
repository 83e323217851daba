// `zkpipe plan --config C --proof T --preset P [--jobs N] [--json] [--sample]`: the memory a
// workload will take before it runs: the predicted peak host memory (pageable and page-locked),
// device memory, what dominates it, the budget that lets its partitions be in flight and what a
// smaller one costs, and the limits of this machine it would pass. The engine is created
// (plugins, backends, params directory) but proves nothing. A proof type that describes its
// presets' circuits (ABI 1.7: the Filecoin types) is planned from the preset alone, up to 32GiB
// and 64GiB sectors; others (or --sample) from a sample request made and parsed as `zkpipe
// bench` does.
// Thread-safety: main thread.
#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

#include <optional>

#include "cli.h"
#include "plan_device.h"
#include "zkpipe/pipeline/measured_times.h"
#include "zkpipe/plugin.h"
#include "zkpipe/sdk/abi/memory.h"
#include "zkpipe/sdk/units.h"

namespace zkpipe::cli {
namespace {

struct PlanOptions {
  std::string config, proof = "porep", preset = "tiny", params_dir, cache_dir = "bench-out";
  uint64_t seed = 0;
  uint64_t jobs = 1;
  bool json = false;
  bool sample = false;  // plan from a sample request even when the type describes its presets
  std::string device_memory, device;  // a GPU described, not opened
  uint32_t gpus = 0;                  // planned GPUs (0: the config's devices, or 1)
  bool described() const { return !device_memory.empty() || !device.empty(); }
};

// Whether the config's memory backend is page-locked, read from its descriptor when it cannot
// run here (pinned_pool without a CUDA driver): `zkpipe plan` then opens a pageable pool in its
// place and still counts its buffers as pinned. nullopt: the backend runs here.
std::optional<bool> planned_page_locked(Config& config) {
  Result<std::vector<std::string>> dirs =
      plugin_search_dirs({{config.path + ": plugin_dirs", config.plugin_dirs}});
  if (!dirs.ok()) return std::nullopt;
  PluginRegistry registry(std::move(*dirs));
  Result<const LoadedPlugin*> mem = registry.load(config.memory.backend, ZKP_KIND_MEMORY);
  if (!mem.ok() || (*mem)->available()) return std::nullopt;
  const zkp_memory_backend* t = (*mem)->table<zkp_memory_backend>();
  const bool pinned = t->header.struct_size > offsetof(zkp_memory_backend, buffer_flags) &&
                      (t->buffer_flags & ZKP_BUFFER_PINNED) != 0;
  spdlog::info(
      "plan: memory.backend {} cannot run here ({}); planned as {} buffers in a "
      "pageable pool",
      config.memory.backend, (*mem)->init_status.message(), pinned ? "page-locked" : "pageable");
  config.memory.backend = "pageable";
  config.memory.fallback.clear();
  return pinned;
}

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

// The prediction from the preset alone when the proof type describes its circuits (ABI 1.7),
// else (or with --sample) from a sample request of the preset.
Result<pipeline::MemoryPrediction> predict(pipeline::Engine& engine, const Config& config,
                                           const PlanOptions& o, bool& from_preset) {
  from_preset = false;
  if (!o.sample) {
    Result<pipeline::MemoryPrediction> p = engine.plan_preset(o.proof, o.preset, o.jobs);
    from_preset = p.ok();
    if (p.ok() || p.status().code() != Code::kFailedPrecondition) return p;
    spdlog::info("plan: {}; making a sample request", p.status().message());
  }
  ZKP_ASSIGN_OR_RETURN(
      std::vector<uint8_t> input,
      bench_request({o.proof, o.preset, o.seed}, config_plugin_dirs(config), o.cache_dir));
  pipeline::JobRequest sample;
  sample.proof_type = o.proof;
  sample.input = std::move(input);
  sample.input_name = fmt::format("{} {} request", o.proof, o.preset);
  return engine.plan(sample, o.jobs);
}

// The workload's time from the circuit's measured step times (params.dir/<circuit>.times, kept
// by every engine that proved it), or why there is none.
nlohmann::json planned_time(const pipeline::MemoryPrediction& p, const Config& config,
                            const PlanOptions& o) {
  const std::string path = pipeline::measured_times_path(config.params.dir, p.circuit_id);
  Result<pipeline::MeasuredTimes> m = pipeline::read_measured_times(path);
  if (!m.ok()) {
    return {{"known", false},
            {"why", m.status().code() == Code::kNotFound
                        ? fmt::format("no measured times of {} in {} (prove it once with zkpipe "
                                      "prove, bench or serve under this params.dir)",
                                      p.circuit_id, config.params.dir)
                        : m.status().message()}};
  }
  const pipeline::TimePrediction t = pipeline::predict_time(
      *m, o.jobs, p.partitions_per_job, p.synthesis_workers, p.compute_workers, p.finalizers);
  nlohmann::json j = {{"known", true},
                      {"measured_on", m->backend + (m->devices.empty() ? "" : ": " + m->devices)},
                      {"samples", m->samples},
                      {"synthesis_s", m->synthesis_ms / 1e3},
                      {"prove_start_s", m->prove_start_ms / 1e3},
                      {"prove_finish_s", m->prove_finish_ms / 1e3},
                      {"partition_s", t.partition_s},
                      {"partitions_per_s", t.rate},
                      {"bottleneck", t.bottleneck},
                      {"first_job_s", t.first_job_s},
                      {"workload_s", t.workload_s}};
  if (m->backend.rfind(config.compute.backend, 0) != 0 || o.described()) {
    j["note"] = fmt::format(
        "measured on {}; this plans compute.backend {}{}: the times are those of the machine "
        "that measured them",
        m->backend, config.compute.backend, o.described() ? " on a described GPU" : "");
  }
  return j;
}

void print_planned_time(const nlohmann::json& t) {
  if (!t.at("known").get<bool>()) {
    fmt::print("time: unknown: {}\n", t.at("why").get<std::string>());
    return;
  }
  fmt::print(
      "time (measured on {}, {} partitions): {:.2f} s a partition (synthesis {:.2f} s, "
      "prove_start {:.2f} s, prove_finish {:.2f} s); {:.3f} partitions/s at full pipeline "
      "({} bound)\n  the first job alone {:.1f} s, the workload {:.1f} s\n",
      t.at("measured_on").get<std::string>(), t.at("samples").get<uint64_t>(),
      t.at("partition_s").get<double>(), t.at("synthesis_s").get<double>(),
      t.at("prove_start_s").get<double>(), t.at("prove_finish_s").get<double>(),
      t.at("partitions_per_s").get<double>(), t.at("bottleneck").get<std::string>(),
      t.at("first_job_s").get<double>(), t.at("workload_s").get<double>());
  if (t.contains("note")) fmt::print("note: {}\n", t.at("note").get<std::string>());
}

int run_plan(const PlanOptions& o) {
  if (o.jobs == 0) return fail("plan", invalid_argument("--jobs must be at least 1"));
  if (!o.device_memory.empty() && !o.device.empty()) {
    return fail("plan", invalid_argument("give --device-memory or --device, not both"));
  }
  Result<Config> config = load_config_for_run(o.config, o.params_dir);
  if (!config.ok()) return fail("plan", config.status());
  pipeline::EngineOptions eo;
  eo.check_plan = false;  // report what would not fit instead of refusing to start
  eo.start_paused = true;
  uint64_t device_bytes = 0;
  const std::string described = o.device.empty() ? o.device_memory : o.device;
  if (o.described()) {
    if (config->compute.backend != "cuda") {
      return fail("plan",
                  invalid_argument(fmt::format(
                      "--device{} plans a GPU: {} proves with compute.backend {} (plan a "
                      "config whose compute.backend is cuda)",
                      o.device.empty() ? "-memory" : "", o.config, config->compute.backend)));
    }
    Result<uint64_t> bytes = described_device_memory(o.device_memory, o.device);
    if (!bytes.ok()) return fail("plan", bytes.status());
    device_bytes = *bytes;
    const size_t gpus = o.gpus > 0 ? o.gpus : std::max<size_t>(config->compute.devices.size(), 1);
    eo.compute = planning_compute(config->compute.backend, gpus, device_bytes);
    eo.plan_page_locked = planned_page_locked(*config);
  }
  Result<std::unique_ptr<pipeline::Engine>> engine =
      pipeline::Engine::create(*config, std::move(eo));
  if (!engine.ok() && engine.status().code() == Code::kUnavailable && !o.described()) {
    return fail("plan", Status(engine.status().code(),
                               engine.status().message() +
                                   " (to plan for a GPU this machine does not have: --device "
                                   "NAME or --device-memory SIZE)"));
  }
  if (!engine.ok()) return fail("plan", engine.status());
  bool from_preset = false;
  Result<pipeline::MemoryPrediction> p = predict(**engine, *config, o, from_preset);
  if (!p.ok()) return fail("plan", p.status());
  std::optional<cuda_backend::DevicePlan> device;
  std::string device_label = described;
  if (!o.described() && config->compute.backend == "cuda") {
    // This machine's GPU (the smallest of them, where several): its total memory.
    const nlohmann::json status = (*engine)->status_json();
    if (status.contains("device_memory")) {
      for (const auto& [name, m] : status.at("device_memory").items()) {
        const uint64_t total = m.value("total_bytes", uint64_t{0});
        if (total > 0 && (device_bytes == 0 || total < device_bytes)) {
          device_bytes = total;
          device_label = name + " (this machine)";
        }
      }
    }
  }
  if (device_bytes > 0) {
    device = plan_device_of(*p, *config, device_bytes);
    p->peak_device = device->peak;
    if (!device->fits) p->warnings.push_back("the device does not fit: " + device->problem);
  }
  const std::string circuit = p->circuit_id;
  const nlohmann::json time = planned_time(*p, *config, o);
  if (o.json) {
    nlohmann::json j = to_json(*p, o);
    j["planned_from"] = from_preset ? "preset" : "sample";
    if (device) j["device"] = device_plan_json(*device, device_label);
    j["time"] = time;
    fmt::print("{}\n", j.dump(2));
    return 0;
  }
  fmt::print("== {} {} x {} job(s) under {} ({}, {} partitions per job; planned from {})\n",
             o.proof, o.preset, o.jobs, o.config, circuit, p->partitions_per_job,
             from_preset ? "the preset" : "a sample request");
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
  if (device) print_device_plan(*device, device_label);
  print_planned_time(time);
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
  cmd->add_option("--device-memory", o->device_memory,
                  "plan for a GPU of this much memory (e.g. 141GiB), which this machine need not "
                  "have (a cuda config; its compute plugin is not opened)");
  cmd->add_option("--device", o->device,
                  "plan for a known GPU by name (H200, H100, A100-80GB, A100-40GB, L40S, "
                  "RTX-A6000, RTX-5090, RTX-4090, RTX-3090, L4)");
  cmd->add_option("--gpus", o->gpus, "planned GPUs of that kind (default: the config's devices)")
      ->check(CLI::Range(1, 64));
  cmd->add_flag("--sample", o->sample,
                "plan from a sample request of the preset (made and parsed), even when the "
                "proof type describes the preset's circuit without one");
  cmd->add_option("--params-dir", o->params_dir, "override the config's params.dir");
  cmd->add_option("--cache-dir", o->cache_dir,
                  "where the sample request is made and kept (default bench-out)");
  cmd->callback([o, exit_code] { *exit_code = run_plan(*o); });
}

}  // namespace zkpipe::cli
