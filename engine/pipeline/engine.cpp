// engine.cpp: Engine (zkpipe/pipeline/engine.h): start-up (backends, memory plan, budget, params
// cache, workers), submit (parse once by the plugin, duplicate request ids), wait, cancel,
// drain, shutdown. The worker loops are in workers.cpp, reports in report.cpp.
// Thread-safety: see engine_impl.h.
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <malloc.h>

#include <algorithm>

#include "engine_impl.h"
#include "zkpipe/groth16/sectioned_file.h"
#include "zkpipe/proof_type.h"
#include "zkpipe/sdk/units.h"
#include "zkpipe/system.h"

namespace zkpipe::pipeline {
namespace {

constexpr size_t kFrBytes = sizeof(groth16::Fr);

uint64_t next_pow2(uint64_t x) {
  uint64_t n = 1;
  while (n < x) n <<= 1;
  return n;
}

}  // namespace

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
  impl->srs = std::make_unique<SrsCache>(
      config.params, *impl->budget, [raw](uint64_t bytes) { return raw->allocate(bytes); },
      impl->shape);
  impl->budget->set_reclaimer([raw](uint64_t needed) { return raw->srs->reclaim(needed); });
  impl->plan_text = impl->startup_prediction(plan, info);
  spdlog::info("{}: {}", config.path, impl->plan_text);
  impl->options.check_plan = options.check_plan;
  impl->options.retain = options.retain;
  impl->options.trace_window = options.trace_window;
  impl->options.on_partition_proof = std::move(options.on_partition_proof);
  impl->options.on_job_end = std::move(options.on_job_end);
  impl->trace.set_window_ns(
      std::chrono::duration_cast<std::chrono::nanoseconds>(options.trace_window).count());
  if (options.proof_types) {
    ZKP_RETURN_IF_ERROR(impl->load_proof_types(*options.proof_types).with_context(config.path));
  }
  impl->paused = options.start_paused;
  impl->start_workers();
  return std::unique_ptr<Engine>(new Engine(std::move(impl)));
}

void Engine::Impl::start_workers() {
  const PipelineConfig& p = config.pipeline;
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

void Engine::Impl::stop() {
  Deferred later;
  {
    std::lock_guard lock(mu);
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
  synth_cv.notify_all();
  compute_cv.notify_all();
  final_cv.notify_all();
  report_cv.notify_all();
  for (std::thread& t : threads) t.join();
  threads.clear();
  later.flush();
  std::lock_guard lock(mu);
  ready.clear();
  started.clear();
}

Result<ProofTypePlugin> Engine::Impl::proof_type(const std::string& name) {
  std::lock_guard lock(types_mu);
  if (auto it = types.find(name); it != types.end()) return it->second;
  ZKP_ASSIGN_OR_RETURN(ProofTypePlugin type, ProofTypePlugin::load(*registry, name));
  types.emplace(name, type);
  return type;
}

Result<uint64_t> Engine::submit(JobRequest request) {
  ZKP_ASSIGN_OR_RETURN(const Submitted s, submit_job(std::move(request)));
  return s.job;
}

Result<Submitted> Engine::submit_job(JobRequest request, bool* request_id_taken) {
  const std::string what = request.input_name.empty() ? "request" : request.input_name;
  bool taken = false;
  Result<Submitted> out =
      guarded(what + ": submit", [&] { return impl_->submit(std::move(request), taken); });
  if (request_id_taken != nullptr) *request_id_taken = taken;
  return out;
}

// The budget, and the predicted peak with the largest circuit whose params are in params.dir
// when the pipeline's queues are full (its configured limits; no requests counted).
std::string Engine::Impl::startup_prediction(const MemoryPlan& plan, const SystemInfo& info) {
  const std::string cap = describe_memory_plan(plan, info);
  std::optional<MemoryPrediction> largest;
  size_t circuits = 0;
  for (const std::string& id : srs->circuits_on_disk()) {
    Result<CircuitMemory> m = srs->circuit_memory(id);
    if (!m.ok()) {
      spdlog::warn("{}: no memory prediction for {}: {}", config.path, id, m.status().message());
      continue;
    }
    ++circuits;
    MemoryPrediction p = predict_memory({*m, UINT64_MAX, 1, 0}, shape, budget->total(),
                                        current_rss_bytes(), pool->page_locked(), info);
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

Result<Submitted> Engine::check(const JobRequest& request) {
  const std::string what = request.input_name.empty() ? "request" : request.input_name;
  return guarded(what + ": check", [&] { return impl_->check(request); });
}

// The one parse path of check(), plan() and submit(): the request's proof type (loaded on first
// use) parses it; the job is destroyed by its plugin when the ProofTypeJob goes.
Result<ProofTypeJob> Engine::Impl::parse(const JobRequest& request, const std::string& what) {
  ZKP_ASSIGN_OR_RETURN(const ProofTypePlugin type, proof_type(request.proof_type));
  return ProofTypeJob::parse(type, request.input, what);
}

Result<Submitted> Engine::Impl::check(const JobRequest& request) {
  const std::string what = request.input_name.empty() ? "request" : request.input_name;
  ZKP_ASSIGN_OR_RETURN(const ProofTypeJob parsed, parse(request, what));
  const JobInfo& info = parsed.info();
  // The whole-budget check of submit: a job that can never fit is refused now.
  if (Result<CircuitMemory> c = srs->circuit_memory(info.circuit_id); c.ok()) {
    const uint64_t need =
        c->resident() + c->abc + c->rest() + request_reservation_bytes(request.input.size());
    if (need > budget->total()) {
      return resource_exhausted(fmt::format(
          "{}: one partition of {} needs {} (with its params, the prover's scratch and the parsed "
          "request), more than the whole memory budget of {} (pipeline.budget; `zkpipe plan` "
          "says what a workload needs)",
          what, info.circuit_id, format_bytes(need), format_bytes(budget->total())));
    }
  }
  Submitted out;
  out.partitions = info.partitions;
  out.circuit_id = info.circuit_id;
  resolve_schedule(request, parsed.type(), out.priority, out.deadline);
  return out;
}

Result<MemoryPrediction> Engine::plan(const JobRequest& sample, uint64_t jobs) {
  return guarded("plan", [&] { return impl_->plan(sample, jobs); });
}

Result<MemoryPrediction> Engine::Impl::plan(const JobRequest& sample, uint64_t jobs) {
  const std::string what = sample.input_name.empty() ? "request" : sample.input_name;
  ZKP_ASSIGN_OR_RETURN(const ProofTypeJob parsed, parse(sample, what));
  const JobInfo& info = parsed.info();
  Result<CircuitMemory> circuit = srs->circuit_memory(info.circuit_id);
  if (!circuit.ok() && circuit.status().code() == Code::kNotFound) {
    // No params yet: the R1CS as the plugin records it, and every wire assumed dense.
    ZKP_ASSIGN_OR_RETURN(groth16::R1cs r1cs, parsed.record());
    circuit = circuit_memory_bound(info.circuit_id, info.num_constraints, info.num_inputs,
                                   info.num_aux, r1cs_memory_bytes(r1cs), shape);
  }
  ZKP_RETURN_IF_ERROR(circuit.status());
  const Workload w{*circuit, jobs, info.partitions, request_reservation_bytes(sample.input.size())};
  return predict_memory(w, shape, budget->total(), current_rss_bytes(), pool->page_locked(),
                        read_system_info());
}

Result<Submitted> Engine::Impl::submit(JobRequest request, bool& taken) {
  Impl& m = *this;
  const std::string what = !request.input_name.empty()   ? request.input_name
                           : !request.request_id.empty() ? "request " + request.request_id
                                                         : "request";
  // The input's digest tells a repeated request from a clash of ids; only ids need it.
  const groth16::Sha256Digest hash =
      request.request_id.empty() ? groth16::Sha256Digest{} : groth16::sha256(request.input);
  {
    std::lock_guard lock(m.mu);
    if (!m.accepting) return unavailable("the engine is draining; " + what + " not accepted");
    if (!m.no_compute.ok()) return m.no_compute.with_context(what + " not accepted");
    m.forget_expired();
    if (Result<Submitted> known = m.attach(request.request_id, request.proof_type, hash, taken);
        !known.ok() || known->attached) {
      return known;
    }
  }
  const int64_t t0 = now_ns();
  ZKP_ASSIGN_OR_RETURN(ProofTypeJob parsed, m.parse(request, what));
  auto plugin = std::make_shared<PluginJob>(std::move(parsed));
  auto job = std::make_shared<Job>();
  job->info = plugin->job.info();
  ZKP_ASSIGN_OR_RETURN(job->indices, plugin->job.partition_indices());
  job->result.partition_indices = job->indices;
  job->type_name = request.proof_type;
  job->tag = request.tag;
  job->input_name = what;
  job->request_id = request.request_id;
  job->input_hash = hash;
  resolve_schedule(request, plugin->job.type(), job->priority, job->deadline);
  job->plugin = std::move(plugin);
  const JobInfo& info = job->info;
  job->domain_size = next_pow2(info.num_constraints + info.num_inputs);
  // Upper bounds before the params are known (SrsCache has the exact numbers): a/b/c; the
  // witness, the B scalars kept for prove_finish (at most one per wire), the pending proof.
  const uint64_t wires = uint64_t{info.num_inputs} + info.num_aux;
  job->abc_bytes = abc_bytes(job->domain_size, m.shape.granularity);
  job->rest_bytes = witness_bytes(wires, m.shape.granularity) + wires * kFrBytes + 4096;
  // What one partition needs besides the requests: its working set, and the circuit's params
  // and scratch (when its params exist: else the bounds above).
  uint64_t need = job->abc_bytes + job->rest_bytes, resident = 0;
  if (Result<CircuitMemory> c = m.srs->circuit_memory(info.circuit_id); c.ok()) {
    need = c->abc + c->rest();
    resident = c->resident();
  }
  const uint64_t request_bytes = request_reservation_bytes(request.input.size());
  const uint64_t reserve = m.config.pipeline.reserve_bytes;
  if (job->priority != Priority::kCritical && reserve > 0 &&
      resident + need + request_bytes + reserve > m.budget->total() &&
      resident + need + request_bytes <= m.budget->total()) {
    return resource_exhausted(fmt::format(
        "{}: one partition of {} needs {} (with its params, the prover's scratch and the parsed "
        "request); the memory budget of {} less the {} kept for CRITICAL work (pipeline.reserve) "
        "leaves {}: lower pipeline.reserve or raise pipeline.budget",
        what, info.circuit_id, format_bytes(resident + need + request_bytes),
        format_bytes(m.budget->total()), format_bytes(reserve),
        format_bytes(m.budget->total() - reserve)));
  }
  if (resident + need + request_bytes > m.budget->total()) {
    return resource_exhausted(fmt::format(
        "{}: one partition of {} needs {} (with its params, the prover's scratch and the parsed "
        "request), more than the whole memory budget of {} (pipeline.budget; `zkpipe plan` says "
        "what a workload needs)",
        what, info.circuit_id, format_bytes(resident + need + request_bytes),
        format_bytes(m.budget->total())));
  }
  {  // The parsed request stays reserved while the job lives. It never waits (a waiting request
     // could hold up the partitions of the jobs ahead), and all jobs' requests together leave
     // room for the largest partition seen (with its params and scratch): past that, the job is
     // refused now (back-pressure) rather than queued.
    uint64_t keep_free = resident + need;
    uint64_t seen = m.largest_need.load();
    while (keep_free > seen && !m.largest_need.compare_exchange_weak(seen, keep_free)) {
    }
    keep_free = std::max(keep_free, seen);
    Result<Reservation> held = m.budget->reserve_keeping(
        request_bytes, keep_free, what + ": its parsed request", job->priority);
    if (!held.ok()) {
      m.srs->reclaim(request_bytes + keep_free);  // unused params of other circuits may go
      held = m.budget->reserve_keeping(request_bytes, keep_free, what + ": its parsed request",
                                       job->priority);
    }
    if (!held.ok()) return held.status();
    job->plugin->request = std::move(*held);
  }
  spdlog::info("{}: parsed in {:.1f} ms: {} partition(s) of {} ({} constraints), sector index {}",
               what, ms_between(t0, now_ns()), info.partitions, info.circuit_id,
               info.num_constraints, fmt::join(job->indices, ","));
  const uint32_t parts = info.partitions;
  job->parts.assign(parts, PartState::kQueued);
  job->proofs.resize(parts);
  job->timings.resize(parts);
  for (const auto& [position, bytes] : request.proved) {  // an earlier attempt's checkpoints
    Result<groth16::Proof> proof =
        position < parts ? groth16::decode_proof(bytes.data(), bytes.size())
                         : Result<groth16::Proof>(invalid_argument("no such position"));
    if (!proof.ok()) {
      spdlog::warn("{}: the checkpointed proof of position {} is not used ({}); proving it again",
                   what, position, proof.status().to_string());
      continue;
    }
    job->proofs[position] = *proof;
    job->parts[position] = PartState::kProved;
    ++job->proved;
  }
  if (job->proved > 0) {
    spdlog::info("{}: {} of {} partition(s) already proved by an earlier attempt", what,
                 job->proved, parts);
  }
  std::unique_lock lock(m.mu);
  if (!m.accepting) return unavailable("the engine is draining; " + what + " not accepted");
  // A twin may have been accepted meanwhile: the same request attaches to it, another one with
  // the same id is refused (compared here, under the lock, like the first time).
  if (Result<Submitted> known = m.attach(request.request_id, request.proof_type, hash, taken);
      !known.ok() || known->attached) {
    return known;
  }
  if (request.id != 0) {  // the caller's id (a job store's)
    if (auto old = m.jobs.find(request.id); old != m.jobs.end()) {
      if (!ended(*old->second)) {
        return unavailable(
            fmt::format("{}: job {} is still running in this engine", what, request.id));
      }
      m.jobs.erase(old);  // an earlier attempt's record (its watchers keep their copy)
    }
    job->id = request.id;
    m.next_job = std::max(m.next_job, request.id + 1);
  } else {
    job->id = m.next_job++;
  }
  if (!request.request_id.empty()) m.by_request_id[request.request_id] = job->id;
  job->submitted_ns = m.trace.now_ns();
  job->queued_ns.assign(parts, job->submitted_ns);
  for (uint32_t p = 0; p < parts; ++p) {
    if (job->parts[p] == PartState::kQueued) m.synth_queue.insert(job->key(p));
  }
  m.jobs.emplace(job->id, job);
  for (uint32_t p = 0; p < parts; ++p) {
    m.emit(*job, job->parts[p] == PartState::kQueued ? EventKind::kQueued : EventKind::kProved, p);
  }
  if (job->proved == parts) {
    m.proved_at_submit.push_back(job);
    m.final_cv.notify_one();
  }
  m.synth_cv.notify_all();
  Submitted out;
  out.job = job->id;
  out.queue_position = m.queue_position(*job);
  out.partitions = parts;
  out.circuit_id = info.circuit_id;
  out.priority = job->priority;
  out.deadline = job->deadline;
  Deferred later;
  m.check_deadline(*job, later);
  lock.unlock();
  if (job->deadline) {
    spdlog::info(
        "{}: job {} is {}, its deadline in {:.1f} s", what, out.job, priority_name(out.priority),
        std::chrono::duration<double>(*out.deadline - std::chrono::steady_clock::now()).count());
  }
  later.flush();
  return out;
}

// Under mu: the job a repeated request id names (attached), an error when the id is taken by
// another request, or nothing known (attached = false).
Result<Submitted> Engine::Impl::attach(const std::string& request_id, const std::string& type,
                                       const std::array<uint8_t, 32>& hash, bool& taken) {
  Submitted out;
  if (request_id.empty()) return out;
  auto it = by_request_id.find(request_id);
  if (it == by_request_id.end()) return out;
  const Job& existing = *jobs.at(it->second);
  if (existing.input_hash != hash || existing.type_name != type) {
    taken = true;
    return invalid_argument("request id '" + echo_value(request_id) + "' is already job " +
                            std::to_string(existing.id) + " with a different proof type or input");
  }
  out.job = existing.id;  // the same request again: attach to it
  out.attached = true;
  out.queue_position = ended(existing) ? 0 : queue_position(existing);
  out.partitions = existing.info.partitions;
  out.circuit_id = existing.info.circuit_id;
  out.priority = existing.priority;
  out.deadline = existing.deadline;
  return out;
}

Result<JobResult> Engine::wait(uint64_t id, std::optional<std::chrono::milliseconds> timeout) {
  Impl& m = *impl_;
  std::unique_lock lock(m.mu);
  auto it = m.jobs.find(id);
  if (it == m.jobs.end()) return not_found("no job " + std::to_string(id));
  const std::shared_ptr<Job> job = it->second;
  auto ended = [&] { return job->state != JobState::kQueued && job->state != JobState::kRunning; };
  if (timeout) {
    if (!m.ended_cv.wait_for(lock, *timeout, ended)) {
      return deadline_exceeded("job " + std::to_string(id) + " still running after " +
                               std::to_string(timeout->count()) + " ms");
    }
  } else {
    m.ended_cv.wait(lock, ended);
  }
  return job->result;
}

Status Engine::cancel(uint64_t id, bool* was_running) {
  Impl& m = *impl_;
  Deferred later;
  {
    std::lock_guard lock(m.mu);
    auto it = m.jobs.find(id);
    if (it == m.jobs.end()) return not_found("no job " + std::to_string(id));
    Job& job = *it->second;
    if (job.state != JobState::kQueued && job.state != JobState::kRunning) {
      return failed_precondition("job " + std::to_string(id) + " already " +
                                 std::string(job_state_name(job.state)));
    }
    if (was_running != nullptr) *was_running = job.state == JobState::kRunning;
    job.cancelled = true;
    m.end_job(job, JobState::kCancelled, aborted("job " + std::to_string(id) + " cancelled"),
              later);
  }
  later.flush();       // the job's queued work is freed here, outside the lock
  m.budget->notify();  // a partition waiting for memory sees the flag
  m.synth_cv.notify_all();
  return ok_status();
}

void Engine::drain() {
  Impl& m = *impl_;
  std::unique_lock lock(m.mu);
  m.accepting = false;
  m.ended_cv.wait(lock, [&] {
    return std::all_of(m.jobs.begin(), m.jobs.end(), [](const auto& kv) {
      return kv.second->state != JobState::kQueued && kv.second->state != JobState::kRunning;
    });
  });
}

void Engine::stop_accepting() {
  std::lock_guard lock(impl_->mu);
  impl_->accepting = false;
}

void Engine::resume() {
  {
    std::lock_guard lock(impl_->mu);
    impl_->paused = false;
  }
  impl_->synth_cv.notify_all();
}

void Engine::cancel_all() {
  std::vector<uint64_t> ids;
  {
    std::lock_guard lock(impl_->mu);
    for (const auto& [id, job] : impl_->jobs) {
      if (!ended(*job)) ids.push_back(id);
    }
  }
  for (uint64_t id : ids) (void)cancel(id);  // one may end meanwhile: then nothing to cancel
}

Status Engine::preload_params(const std::string& id, ParamsChange* change) {
  return impl_->srs->preload(id, change);
}
Status Engine::evict_params(const std::string& id, ParamsChange* change) {
  return impl_->srs->evict(id, change);
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
std::string Engine::memory_plan() const {
  return impl_->plan_text;
}
std::vector<std::string> Engine::device_tracks() const {
  std::vector<std::string> out;
  for (size_t d = 0; d < impl_->compute->device_count(); ++d) {
    out.push_back("device-" + impl_->compute->device_name(d));
  }
  return out;
}

}  // namespace zkpipe::pipeline
