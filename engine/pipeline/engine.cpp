// engine.cpp: Engine (zkpipe/pipeline/engine.h): start-up (backends, memory plan, budget, params
// cache, workers), wait, cancel, drain, shutdown. Admission (check, plan, submit) is in
// admission.cpp, the workers in synthesis.cpp, compute_worker.cpp, finalize.cpp and job_end.cpp,
// reports in report.cpp.
// Thread-safety: see engine_impl.h.
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <malloc.h>

#include <algorithm>
#include <optional>
#include <string>

#include "engine_impl.h"
#include "filecoin_params.h"
#include "zkpipe/crypto/cpu_kernels.h"
#include "zkpipe/groth16/sectioned_file.h"
#include "zkpipe/proof_type.h"
#include "zkpipe/sdk/units.h"
#include "zkpipe/system.h"

namespace zkpipe::pipeline {
double ms_between(int64_t from_ns, int64_t to_ns) {
  return static_cast<double>(to_ns - from_ns) / 1e6;
}

Engine::Engine(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Engine::~Engine() {
  impl_->stop();
}

Result<std::unique_ptr<Engine>> Engine::create(const Config& config, EngineOptions options) {
#if defined(__GLIBC__)
  // Large blocks (the prover's scratch, vectors of the plugins) are mapped and unmapped by
  // themselves instead of being carved from per-thread heaps that keep what was freed: glibc's
  // default threshold grows with each freed block up to 32 MiB, after which freed scratch stays
  // resident and the process grows past what the budget counts.
  mallopt(M_MMAP_THRESHOLD, 256 * 1024);
#endif
  // A bad ZKPIPE_CPU_KERNELS fails the start, not the first MSM.
  if (std::optional<std::string> bad = crypto::cpu_kernels_error()) return invalid_argument(*bad);
  auto impl = std::make_unique<Impl>();
  impl->config = config;
  ZKP_ASSIGN_OR_RETURN(std::vector<std::string> dirs,
                       plugin_search_dirs({{config.path + ": plugin_dirs", config.plugin_dirs}}));
  impl->registry = std::make_unique<PluginRegistry>(std::move(dirs));
  ZKP_ASSIGN_OR_RETURN(impl->pool, open_memory_backend(config, *impl->registry));
  if (options.compute) {
    impl->compute = std::move(options.compute);
  } else {
    Result<std::unique_ptr<ComputeBackend>> compute =
        open_compute_backend(config.compute, *impl->registry, impl->pool->buffer_flags());
    if (!compute.ok()) return compute.status().with_context(config.path);
    impl->compute = std::move(*compute);
  }
  const SystemInfo info = read_system_info();
  impl->shape = PipelineShape::of(config, impl->compute->device_count());
  MemoryPlan plan;
  plan.budget_bytes =
      options.budget_bytes.value_or(config.pipeline.budget_bytes.value_or(auto_budget_bytes(info)));
  plan.overhead_bytes = config.pipeline.overhead_bytes;
  plan.pinned_bytes =
      impl->pool->page_locked() ? std::min(impl->pool->cap_bytes(), plan.budget_bytes) : 0;
  if (options.check_plan) {
    ZKP_RETURN_IF_ERROR(check_memory_plan(plan, info).with_context(config.path));
  }
  if (config.pipeline.reserve_bytes >= plan.budget_bytes) {
    return invalid_argument(fmt::format(
        "{}: pipeline.reserve ({}) must be below the memory budget ({}): nothing would be left "
        "for work other than CRITICAL",
        config.path, format_bytes(config.pipeline.reserve_bytes), format_bytes(plan.budget_bytes)));
  }
  impl->budget = std::make_unique<MemoryBudget>(plan.budget_bytes, config.pipeline.reserve_bytes);
  Impl* raw = impl.get();
  impl->options.allocate = std::move(options.allocate);
  impl->params_cache = std::make_unique<ParamsCache>(
      config.params, *impl->budget, [raw](uint64_t bytes) { return raw->allocate(bytes); },
      impl->shape);
  impl->budget->set_reclaimer(
      [raw](uint64_t needed) { return raw->params_cache->reclaim(needed); });
  impl->memory_plan = plan;
  impl->startup_rss = current_rss_bytes();
  {
    MutexLock lock(impl->plan_mu);
    impl->plan_text = impl->startup_prediction(plan, info, impl->startup_rss);
    spdlog::info("{}: {}", config.path, impl->plan_text);
  }
  // The host's MSM and NTT path (the G2 MSM and assembly of every proof, and all of the cpu
  // backend's): said once, since a CPU without AVX-512 IFMA runs the slower portable path.
  spdlog::info("cpu kernels: {}", crypto::cpu_ifma_active() ? "AVX-512 IFMA"
                                  : crypto::cpu_has_ifma()
                                      ? "scalar (ZKPIPE_CPU_KERNELS=scalar; the CPU has IFMA)"
                                      : "scalar (this CPU has no AVX-512 IFMA)");
  impl->options.check_plan = options.check_plan;
  impl->options.plan_page_locked = options.plan_page_locked;
  impl->options.retain = options.retain;
  impl->options.trace_window = options.trace_window;
  impl->options.on_partition_proof = std::move(options.on_partition_proof);
  impl->options.on_job_end = std::move(options.on_job_end);
  impl->trace.set_window_ns(
      std::chrono::duration_cast<std::chrono::nanoseconds>(options.trace_window).count());
  if (options.proof_types) {
    ZKP_RETURN_IF_ERROR(impl->load_proof_types(*options.proof_types).with_context(config.path));
  }
  impl->start_workers(options.start_paused);
  impl->start_preload();
  return std::unique_ptr<Engine>(new Engine(std::move(impl)));
}

void Engine::Impl::start_workers(bool start_paused) {
  const PipelineConfig& p = config.pipeline;
  paused = start_paused;
  // Known before any thread starts: the synthesis workers size their look-ahead by it.
  compute_workers = compute->device_count() * config.compute.workers_per_device;
  live_compute = compute_workers;
  for (size_t w = 0; w < p.synthesis_workers; ++w) {
    threads.emplace_back([this, w] { synthesis_loop(w); });
  }
  for (size_t d = 0; d < compute->device_count(); ++d) {
    for (size_t w = 0; w < config.compute.workers_per_device; ++w) {
      threads.emplace_back([this, d, w] { compute_loop(d, w); });
    }
  }
  for (size_t w = 0; w < p.finalizers; ++w) {
    threads.emplace_back([this, w] { finalizer_loop(w); });
  }
  if (options.on_job_end) threads.emplace_back([this] { reporter_loop(); });
}

void Engine::Impl::start_preload() {
  const ParamsConfig& p = config.params;
  std::vector<std::string> ids = p.preload_all ? params_cache->circuits_on_disk() : p.preload;
  if (ids.empty()) return;
  preload_total = ids.size();
  spdlog::info("params.preload: loading {} circuit(s): {}", ids.size(), fmt::join(ids, ", "));
  {
    MutexLock lock(preload_mu);
    preload_pending = std::move(ids);
  }
  preloader = std::thread([this] { preload_loop(); });
}

// One circuit after another, in the config's order, without a job (no setup: a missing file is
// a failure, as params.missing: fail would make it for a job).
void Engine::Impl::preload_loop() {
  for (;;) {
    std::string id;
    {
      MutexLock lock(preload_mu);
      if (preload_pending.empty()) return;
      id = preload_pending.front();
    }
    const int64_t t0 = now_ns();
    const Status s =
        preload_stop.load() ? aborted("the engine is stopping") : params_cache->preload(id);
    MutexLock lock(preload_mu);
    preload_pending.erase(preload_pending.begin());
    if (s.ok()) {
      spdlog::info("params.preload: {} hot in {:.1f} s", id, seconds_since(t0));
    } else {
      spdlog::error("params.preload: {}: {} (not ready until it is fixed and zkpipe restarted)", id,
                    s.to_string());
      preload_failed[id] = s.to_string();
    }
  }
}

Status Engine::Impl::params_readiness() const {
  if (config.params.setup_when_missing) return ok_status();
  MutexLock lock(types_mu);
  for (const auto& [name, ids] : type_circuits) {
    if (ids.empty()) continue;  // a plugin before ABI 1.8 or without presets: cannot tell
    if (std::any_of(ids.begin(), ids.end(),
                    [&](const std::string& id) { return params_cache->on_disk(id); })) {
      continue;
    }
    return unavailable(fmt::format(
        "params: proof type '{}' has params for none of its {} presets (e.g. {} for {}) and "
        "params.missing is fail, so each of its jobs would fail: put its params there "
        "(Filecoin's .params under params.filecoin_dir: docs/filecoin.md), or make development "
        "params with `zkpipe-tool params new --proof {} --preset P`",
        name, ids.size(), params_cache->params_path(ids.front()), ids.front(), name));
  }
  return ok_status();
}

Status Engine::Impl::preload_readiness() const {
  MutexLock lock(preload_mu);
  if (!preload_failed.empty()) {
    const auto& [id, why] = *preload_failed.begin();
    return failed_precondition(
        fmt::format("params.preload: {} of {} circuit(s) failed to load; {}: {}",
                    preload_failed.size(), preload_total, id, why));
  }
  if (!preload_pending.empty()) {
    return unavailable(fmt::format("params.preload: loading {} ({} of {} circuit(s) left)",
                                   preload_pending.front(), preload_pending.size(), preload_total));
  }
  return ok_status();
}

void Engine::Impl::stop() {
  Deferred later;
  {
    MutexLock lock(mu);
    accepting = false;
    stopping = true;
    for (auto& [id, job] : jobs) {
      if (job->state == JobState::kQueued || job->state == JobState::kRunning) {
        job->cancelled = true;
        end_job(*job, JobState::kCancelled, aborted("the engine shut down"), later);
      }
    }
  }
  budget->close();
  // A params setup or check of every point can take minutes: it stops at its next step rather
  // than hold the exit (issue 33 #3: a daemon lived 4 minutes past "listeners closed").
  preload_stop.store(true);
  if (const std::vector<std::string> loading = params_cache->stop_work(); !loading.empty()) {
    spdlog::info("stopping: the params work in progress for {} ends at its next step",
                 fmt::join(loading, ", "));
  }
  if (preloader.joinable()) preloader.join();
  synth_cv.notify_all();
  compute_cv.notify_all();
  final_cv.notify_all();
  report_cv.notify_all();
  for (std::thread& t : threads) t.join();
  threads.clear();
  {
    UniqueLock lock(mu);  // the params threads (params_work.cpp) end too
    params_cv.wait(lock.native(), [&]() ZKP_REQUIRES(mu) { return params_loads == 0; });
  }
  later.flush();
  MutexLock lock(mu);
  ready.clear();
  started.clear();
}

// The budget, and the predicted peak with the largest circuit whose params are in params.dir
// when the pipeline's queues are full (its configured limits; no requests counted).
std::string Engine::Impl::startup_prediction(const MemoryPlan& plan, const SystemInfo& info,
                                             uint64_t baseline) const {
  const std::string cap = describe_memory_plan(plan, info);
  std::optional<MemoryPrediction> largest;
  size_t circuits = 0;
  for (const std::string& id : params_cache->circuits_on_disk()) {
    Result<CircuitMemory> m = params_cache->circuit_memory(id);
    if (!m.ok()) {
      spdlog::warn("{}: no memory prediction for {}: {}", config.path, id, m.status().message());
      continue;
    }
    ++circuits;
    MemoryPrediction p = predict_memory({*m, UINT64_MAX, 1, 0}, shape, budget->total(), baseline,
                                        pool->page_locked(), info);
    if (!largest || p.peak_host > largest->peak_host) largest = std::move(p);
  }
  if (!largest) {
    return "memory: no params in " + config.params.dir +
           " yet to predict from (`zkpipe plan` predicts a workload); " + cap;
  }
  return fmt::format("memory: {} at the pipeline's limits with {} ({} partitions in flight{}); {}",
                     describe_prediction(*largest), largest->circuit_id, largest->abc_in_flight,
                     circuits > 1 ? fmt::format(", the largest of {} circuits", circuits) : "",
                     cap);
}

Result<JobResult> Engine::wait(uint64_t id, std::optional<std::chrono::milliseconds> timeout) {
  Impl& m = *impl_;
  UniqueLock lock(m.mu);
  auto it = m.jobs.find(id);
  if (it == m.jobs.end()) return not_found("no job " + std::to_string(id));
  const std::shared_ptr<Job> job = it->second;
  auto ended = [&] { return job->state != JobState::kQueued && job->state != JobState::kRunning; };
  if (timeout) {
    if (!m.ended_cv.wait_for(lock.native(), *timeout, ended)) {
      return deadline_exceeded("job " + std::to_string(id) + " still running after " +
                               std::to_string(timeout->count()) + " ms");
    }
  } else {
    m.ended_cv.wait(lock.native(), ended);
  }
  return job->result;
}

Status Engine::cancel(uint64_t id, bool* was_running) {
  return impl_->stop_job(id, was_running, std::nullopt);
}

Status Engine::abandon(uint64_t id, const Status& reason) {
  return impl_->stop_job(id, nullptr, reason);
}

Status Engine::Impl::stop_job(uint64_t id, bool* was_running, std::optional<Status> failure) {
  Impl& m = *this;
  Deferred later;
  {
    MutexLock lock(m.mu);
    auto it = m.jobs.find(id);
    if (it == m.jobs.end()) return not_found("no job " + std::to_string(id));
    Job& job = *it->second;
    if (job.state != JobState::kQueued && job.state != JobState::kRunning) {
      return failed_precondition("job " + std::to_string(id) + " already " +
                                 std::string(job_state_name(job.state)));
    }
    if (was_running != nullptr) *was_running = job.state == JobState::kRunning;
    job.cancelled = true;
    if (failure) {
      m.end_job(job, JobState::kFailed, *failure, later);
    } else {
      m.end_job(job, JobState::kCancelled, aborted("job " + std::to_string(id) + " cancelled"),
                later);
    }
  }
  later.flush();       // the job's queued work is freed here, outside the lock
  m.budget->notify();  // a partition waiting for memory sees the flag
  m.synth_cv.notify_all();
  return ok_status();
}

void Engine::drain() {
  Impl& m = *impl_;
  UniqueLock lock(m.mu);
  m.accepting = false;
  m.ended_cv.wait(lock.native(), [&]() ZKP_REQUIRES(m.mu) {
    return std::all_of(m.jobs.begin(), m.jobs.end(), [](const auto& kv) {
      return kv.second->state != JobState::kQueued && kv.second->state != JobState::kRunning;
    });
  });
}

void Engine::stop_accepting() {
  MutexLock lock(impl_->mu);
  impl_->accepting = false;
}

void Engine::resume() {
  {
    MutexLock lock(impl_->mu);
    impl_->paused = false;
  }
  impl_->synth_cv.notify_all();
}

void Engine::cancel_all() {
  std::vector<uint64_t> ids;
  {
    MutexLock lock(impl_->mu);
    for (const auto& [id, job] : impl_->jobs) {
      if (!ended(*job)) ids.push_back(id);
    }
  }
  for (uint64_t id : ids) (void)cancel(id);  // one may end meanwhile: then nothing to cancel
}

Status Engine::preload_params(const std::string& id, ParamsChange* change) {
  return impl_->params_cache->preload(id, change);
}
Result<Engine::ParamsMade> Engine::make_params(const JobRequest& request) {
  const std::string what = request.input_name.empty() ? "request" : request.input_name;
  ZKP_ASSIGN_OR_RETURN(const ProofTypeJob parsed, impl_->parse(request, what));
  ParamsMade out;
  out.circuit_id = parsed.info().circuit_id;
  const auto f = filecoin_params(impl_->config.params, out.circuit_id);
  out.file = f ? f->params : impl_->params_cache->params_path(out.circuit_id);
  const uint64_t setups = impl_->params_cache->stats().setups;
  ReserveOptions wait;
  wait.what = what;
  ZKP_ASSIGN_OR_RETURN(const ParamsHandle hot,
                       impl_->params_cache->acquire(
                           out.circuit_id, [&parsed] { return parsed.record(); }, wait));
  out.made = impl_->params_cache->stats().setups > setups;
  return out;
}

Status Engine::evict_params(const std::string& id, ParamsChange* change) {
  return impl_->params_cache->evict(id, change);
}
nlohmann::json Engine::status_json() const {
  return impl_->status_json();
}
std::string Engine::metrics_text() const {
  return impl_->metrics_text();
}
const TraceRecorder& Engine::trace() const {
  return impl_->trace;
}
std::string Engine::Impl::current_plan_text() const {
  const uint64_t loads = params_cache->stats().loads;
  MutexLock lock(plan_mu);
  if (loads != plan_params_loads) {
    plan_params_loads = loads;
    plan_text = startup_prediction(memory_plan, read_system_info(), startup_rss);
  }
  return plan_text;
}

std::string Engine::memory_plan() const {
  return impl_->current_plan_text();
}
std::vector<std::string> Engine::device_tracks() const {
  std::vector<std::string> out;
  for (size_t d = 0; d < impl_->compute->device_count(); ++d) {
    out.push_back("device-" + impl_->compute->device_name(d));
  }
  return out;
}

}  // namespace zkpipe::pipeline
