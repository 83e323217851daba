// workers.cpp: the pipeline's worker loops (synthesis, compute, finalizer), a partition's
// synthesis, a job's verification and assembly, and the failure paths (retry or fail the job).
// Thread-safety: each loop takes the tracker lock (Impl::mu) only to move work between queues
// and record states; every heavy step runs with it released (see engine_impl.h).
#include <malloc.h>
#include <spdlog/spdlog.h>

#include <fmt/core.h>

#include "engine_impl.h"
#include "zkpipe/groth16/verifier.h"
#include "zkpipe/proof_type.h"
#include "zkpipe/retry_policy.h"
#include "zkpipe/sdk/units.h"

namespace zkpipe::pipeline {
namespace {

constexpr size_t kFrBytes = sizeof(groth16::Fr);
// Waits shorter than this are not drawn as spans (they would only clutter the trace).
constexpr int64_t kMinWaitSpanNs = 1'000'000;

std::string part_name(const Job& job, uint32_t p) {
  return fmt::format("job {} ({}) partition {}", job.id, job.input_name, job.label(p));
}

groth16::WitnessView witness_view(const PartitionWork& w) {
  const auto* fr = static_cast<const groth16::Fr*>(w.witness.host());
  const JobInfo& info = w.job->info;
  return {{fr, info.num_inputs}, {fr + info.num_inputs, info.num_aux}};
}

}  // namespace

bool ended(const Job& job) {
  return job.state != JobState::kQueued && job.state != JobState::kRunning;
}

void Engine::Impl::reporter_loop() {
  std::unique_lock lock(mu);
  for (;;) {
    report_cv.wait(lock, [&] { return stopping || !ended_reports.empty(); });
    if (ended_reports.empty()) return;  // stopping, and every report delivered
    const JobResult r = std::move(ended_reports.front());
    ended_reports.pop_front();
    lock.unlock();
    const Status s = guarded("on_job_end", [&] {
      options.on_job_end(r);
      return ok_status();
    });
    if (!s.ok()) spdlog::error("job {}: reporting its end: {}", r.job, s.to_string());
    lock.lock();
  }
}

void Deferred::flush() {
  for (const std::string& w : warnings) spdlog::warn("{}", w);
  for (const std::string& n : notes) spdlog::info("{}", n);
  warnings.clear();
  notes.clear();
  work.clear();
  plugins.clear();
}

std::unique_lock<std::mutex> Engine::Impl::lock_timed(double* wait_ms) {
  const int64_t t0 = now_ns();
  std::unique_lock lock(mu);
  if (wait_ms != nullptr) *wait_ms += ms_between(t0, now_ns());
  return lock;
}

Result<Buffer> Engine::Impl::allocate(uint64_t bytes) {
  Result<Buffer> buffer = options.allocate ? options.allocate(*pool, bytes) : pool->allocate(bytes);
  // The budget reserved the size class; a backend that rounds further is under-counted.
  if (buffer.ok() && buffer->bytes() > size_class(bytes, shape.granularity)) {
    static std::atomic<bool> said{false};
    if (!said.exchange(true)) {
      spdlog::warn(
          "memory backend {} gave {} for a request of {}, more than the size class {} the "
          "memory budget reserves (zkpipe/sdk/abi/size_class.h): the budget under-counts it",
          pool->backend_name(), format_bytes(buffer->bytes()), format_bytes(bytes),
          format_bytes(size_class(bytes, shape.granularity)));
    }
  }
  return buffer;
}

void Engine::Impl::end_job(Job& job, JobState state, Status status, Deferred& later) {
  if (ended(job)) return;
  job.state = state;
  job.status = std::move(status);
  job.ended_ns = trace.now_ns();
  for (uint32_t p = 0; p < job.info.partitions; ++p) {
    const QueueKey key = job.key(p);
    synth_queue.erase(key);
    for (auto* queue : {&ready, &started}) {
      if (auto node = queue->extract(key)) {
        node.mapped()->srs.reset();  // see job.srs below
        later.work.push_back(std::move(node.mapped()));
      }
    }
    if (job.parts[p] != PartState::kProved) job.parts[p] = PartState::kDropped;
  }
  JobResult& r = job.result;
  r.job = job.id;
  r.tag = job.tag;
  r.request_id = job.request_id;
  r.proof_type = job.type_name;
  r.circuit_id = job.info.circuit_id;
  r.state = state;
  r.status = job.status;
  r.partitions = job.timings;
  r.wall_ms = ms_between(job.submitted_ns, job.ended_ns);
  if (state != JobState::kDone) r.proof.clear();
  ended_order.emplace_back(job.ended_ns, job.id);
  emit(job, EventKind::kJobEnded, 0);
  if (options.on_job_end) {
    ended_reports.push_back(r);
    report_cv.notify_one();
  }
  auto& counter = state == JobState::kDone     ? counters.jobs_done
                  : state == JobState::kFailed ? counters.jobs_failed
                                               : counters.jobs_cancelled;
  ++counter[job.type_name];
  if (state == JobState::kFailed) {
    later.warnings.push_back(fmt::format("job {} failed: {}", job.id, job.status.to_string()));
  }
  later.plugins.push_back(std::move(job.plugin));
  // Dropped here, not later: a waiter that sees the job ended must find its params unused (so
  // evict works at once). The cache keeps its own reference while a job holds one, so this only
  // lowers a count; nothing is freed under mu.
  job.srs.reset();
  ended_cv.notify_all();
}

void Engine::Impl::fail_partition(Job& job, uint32_t p, const Status& status, bool can_retry,
                                  Deferred& later) {
  if (ended(job)) return;
  const uint32_t attempts = job.timings[p].attempts;
  if (can_retry && attempts <= config.pipeline.retries) {
    later.warnings.push_back(fmt::format("{}: {}; retrying (attempt {} of {})", part_name(job, p),
                                         status.to_string(), attempts + 1,
                                         config.pipeline.retries + 1));
    if (job.parts[p] == PartState::kProved) --job.proved;
    job.parts[p] = PartState::kQueued;
    job.proofs[p].reset();
    job.queued_ns[p] = trace.now_ns();
    synth_queue.insert(job.key(p));
    emit(job, EventKind::kQueued, p);
    ++counters.retries[job.type_name];
    synth_cv.notify_one();
    return;
  }
  const std::string tries = attempts > 1 ? fmt::format(" (after {} attempts)", attempts) : "";
  const std::string where = part_name(job, p);
  const bool named = status.message().rfind(where, 0) == 0;  // synthesis names it already
  end_job(job, JobState::kFailed,
          named && tries.empty() ? status : status.with_context(where + tries), later);
}

Result<std::unique_ptr<PartitionWork>> Engine::Impl::synthesize(const std::shared_ptr<Job>& job,
                                                                std::shared_ptr<PluginJob> plugin,
                                                                uint32_t p,
                                                                const std::string& track) {
  auto w = std::make_unique<PartitionWork>();
  w->job = job;
  w->plugin = std::move(plugin);
  w->partition = p;
  const JobInfo& info = job->info;
  const std::string what = part_name(*job, p);
  ReserveOptions wait;
  wait.priority = job->priority;
  wait.deadline = job->deadline;
  wait.cancelled = &job->cancelled;
  int64_t t0 = trace.now_ns();
  const PluginJob* pj = w->plugin.get();
  ZKP_ASSIGN_OR_RETURN(w->srs, srs->acquire(
                                   info.circuit_id, [pj] { return pj->job.record(); }, wait));
  int64_t t1 = trace.now_ns();
  w->timing.srs_wait = ms_between(t0, t1);
  if (t1 - t0 >= kMinWaitSpanNs)
    trace.add({track, "srs_wait", t0, t1, job->id, job->label(p), false});
  const groth16::ProvingKey& pk = w->srs->pk;
  if (pk.num_inputs != info.num_inputs || pk.num_aux != info.num_aux ||
      pk.domain_size != job->domain_size ||
      w->srs->r1cs.num_constraints() != info.num_constraints) {
    return invalid_argument(fmt::format(
        "{}: the params of {} ({} inputs, {} aux, domain {}) do not match the job's circuit ({} "
        "inputs, {} aux, {} constraints); remove {} and its .csr to make them again",
        what, info.circuit_id, pk.num_inputs, pk.num_aux, pk.domain_size, info.num_inputs,
        info.num_aux, info.num_constraints, srs->params_path(info.circuit_id)));
  }
  // Phase one holds a/b/c (released after prove_start), phase two the witness and what the
  // pending proof keeps (released after prove_finish); the scratch is in the params' reservation.
  const CircuitMemory& m = w->srs->memory;
  const uint64_t working = m.abc + m.rest();
  if (w->srs->resident_bytes + working > budget->total()) {
    return failed_precondition(fmt::format(
        "{}: its params with the prover's scratch ({}) and working set ({}) do not fit in the "
        "memory budget of {} (pipeline.budget; `zkpipe plan` says what a workload needs)",
        what, format_bytes(w->srs->resident_bytes), format_bytes(working),
        format_bytes(budget->total())));
  }
  wait.what = what + " working set";
  ZKP_ASSIGN_OR_RETURN(Reservation all, budget->reserve(working, wait));
  {  // its memory is held: it is ready in a moment
    std::lock_guard lock(mu);
    synthesizing.insert(job->key(p));
  }
  w->abc_reservation = all.split(m.abc);
  w->rest_reservation = std::move(all);
  t0 = trace.now_ns();
  w->timing.reserve_wait = ms_between(t1, t0);
  if (t0 - t1 >= kMinWaitSpanNs)
    trace.add({track, "reserve_wait", t1, t0, job->id, job->label(p), false});
  const uint64_t wires = uint64_t{info.num_inputs} + info.num_aux;
  Result<Buffer> abc = allocate(3 * job->domain_size * kFrBytes);
  if (!abc.ok()) return abc.status().with_context(what + ": a/b/c buffer");
  Result<Buffer> witness = allocate(wires * kFrBytes);
  if (!witness.ok()) return witness.status().with_context(what + ": witness buffer");
  w->abc = std::move(*abc);
  w->witness = std::move(*witness);
  auto* fr = static_cast<groth16::Fr*>(w->witness.host());
  ZKP_RETURN_IF_ERROR(w->plugin->job.synthesize(p, {fr, info.num_inputs},
                                                {fr + info.num_inputs, info.num_aux}, what));
  const size_t n = job->domain_size;
  auto* a = static_cast<groth16::Fr*>(w->abc.host());
  ZKP_RETURN_IF_ERROR(evaluate_abc(w->srs->r1cs, witness_view(*w), a, a + n, a + 2 * n, n,
                                   config.pipeline.synthesis_threads)
                          .with_context(what + ": a/b/c"));
  t1 = trace.now_ns();
  w->timing.synthesis = ms_between(t0, t1);
  trace.add({track, "synthesis", t0, t1, job->id, job->label(p), true});
  return w;
}

void Engine::Impl::synthesis_loop(size_t worker) {
  const std::string track = fmt::format("synthesis-{}", worker);
  const size_t ready_limit = size_t{config.pipeline.ready_depth} * compute_workers;
  // A partition of a higher priority than every ready one (a deadline proof behind sealing work)
  // is synthesized past the ready depth (one more per compute worker): it never waits for a
  // ready slot that lower-priority work holds.
  auto may_start = [&] {
    if (paused || synth_queue.empty()) return false;
    const size_t taken = ready.size() + synth_active;
    const bool overtakes =
        ready.empty() || synth_queue.begin()->priority < ready.begin()->first.priority;
    return taken < ready_limit || (overtakes && taken < ready_limit + compute_workers);
  };
  std::unique_lock lock(mu);
  for (;;) {
    worker_state[track] = "idle";
    synth_cv.wait(lock, [&] { return stopping || may_start(); });
    if (stopping) return;
    const QueueKey key = *synth_queue.begin();
    synth_queue.erase(synth_queue.begin());
    const std::shared_ptr<Job> job = jobs.at(key.job);
    const uint32_t p = key.partition;
    Deferred later;
    if (job->deadline && std::chrono::steady_clock::now() > *job->deadline) {
      end_job(*job, JobState::kFailed,
              deadline_exceeded(part_name(*job, p) + ": the job's deadline passed"), later);
      lock.unlock();
      later.flush();
      lock.lock();
      continue;
    }
    job->state = JobState::kRunning;
    job->parts[p] = PartState::kSynthesizing;
    ++job->timings[p].attempts;
    const int64_t queued = job->queued_ns[p];
    std::shared_ptr<PluginJob> plugin = job->plugin;
    ++synth_active;
    worker_state[track] = fmt::format("synthesizing job {} partition {}", job->id, job->label(p));
    lock.unlock();
    const int64_t start = trace.now_ns();
    if (start - queued >= kMinWaitSpanNs) {
      trace.add({track, "queue_wait", queued, start, job->id, job->label(p), false});
    }
    Result<std::unique_ptr<PartitionWork>> work =
        guarded("synthesis (params, buffers, witness, a/b/c)",
                [&] { return synthesize(job, std::move(plugin), p, track); });
    double lock_wait = 0;
    lock = lock_timed(&lock_wait);
    --synth_active;
    if (synthesizing.erase(key) > 0) compute_cv.notify_all();
    if (!work.ok()) {
      fail_partition(*job, p, work.status(),
                     retryable(RetryPolicy::kRetryInEngine, work.status().code()), later);
    } else if (ended(*job)) {
      later.work.push_back(std::move(*work));
    } else {
      PartitionWork& w = **work;
      w.timing.queue_wait = ms_between(queued, start);
      w.timing.lock_wait = lock_wait;
      w.timing.attempts = job->timings[p].attempts;
      w.queued_ns = trace.now_ns();
      job->parts[p] = PartState::kReady;
      emit(*job, EventKind::kSynthesized, p);
      ready.emplace(key, std::move(*work));
      compute_cv.notify_all();  // a worker may be holding off for it
    }
    synth_cv.notify_one();
    if (!later.empty()) {
      lock.unlock();
      later.flush();
      lock.lock();
    }
  }
}

// Under mu: the worker's device no longer takes work (quarantined). The worker stops; when it
// was the last one, every unfinished job fails with the reason and submit refuses new ones.
void Engine::Impl::retire_compute_worker(const std::string& track, const Status& health,
                                         std::unique_lock<std::mutex>& lock) {
  worker_state[track] = "stopped: " + health.message();
  Deferred later;
  later.warnings.push_back(fmt::format("{} stops: {}", track, health.message()));
  if (--live_compute == 0) {
    no_compute = unavailable("no compute device is left: " + health.message());
    for (auto& [id, job] : jobs) end_job(*job, JobState::kFailed, no_compute, later);
  }
  lock.unlock();
  later.flush();
}

size_t Engine::Impl::urgent_synthesizing() const {
  if (ready.empty()) return 0;  // nothing to overtake it
  const uint8_t best_ready = ready.begin()->first.priority;
  size_t n = 0;
  for (const QueueKey& k : synthesizing) {
    if (k.priority >= best_ready) break;  // ordered by priority first
    ++n;
  }
  return n;
}

void Engine::Impl::compute_loop(size_t device, size_t worker) {
  const std::string dev = compute->device_name(device);
  const std::string track = fmt::format("compute-{}-{}", dev, worker);
  const std::string device_track = "device-" + dev;
  // While a partition that holds its memory is being synthesized and has a higher priority than
  // every ready one, one compute worker per such partition waits for it instead of starting
  // lower-priority work (the wait is its synthesis time, never a memory wait).
  std::unique_lock lock(mu);
  for (;;) {
    worker_state[track] = "idle";
    compute_cv.wait(lock, [&] { return stopping || !ready.empty(); });
    if (stopping) return;
    if (compute_held < urgent_synthesizing()) {
      ++compute_held;
      worker_state[track] = "waiting for a higher-priority partition's synthesis";
      compute_cv.wait(lock, [&] { return stopping || urgent_synthesizing() == 0; });
      --compute_held;
      continue;
    }
    if (Status health = compute->device_status(device); !health.ok()) {
      retire_compute_worker(track, health, lock);
      return;
    }
    auto node = ready.extract(ready.begin());
    const QueueKey key = node.key();
    std::unique_ptr<PartitionWork> work = std::move(node.mapped());
    Job& job = *work->job;
    synth_cv.notify_one();  // a ready slot is free
    if (ended(job)) {
      lock.unlock();
      work.reset();
      lock.lock();
      continue;
    }
    job.parts[key.partition] = PartState::kProving;
    emit(job, EventKind::kProving, key.partition, dev);
    worker_state[track] =
        fmt::format("prove_start job {} partition {}", job.id, job.label(key.partition));
    lock.unlock();
    const int64_t t0 = trace.now_ns();
    PartitionTiming& t = work->timing;
    t.ready_wait = ms_between(work->queued_ns, t0);
    t.device = dev;
    StartStats stats;
    const size_t n = job.domain_size;
    auto* a = static_cast<groth16::Fr*>(work->abc.host());
    Result<groth16::PendingProof> pending =
        guarded(fmt::format("{}: prove_start scratch (domain {}: about {} for the NTTs)",
                            part_name(job, key.partition), n, format_bytes(3 * n * kFrBytes)),
                [&] {
                  return compute->prove_start(device,
                                              {work->srs->pk,
                                               {witness_view(*work), a, a + n, a + 2 * n, n},
                                               work->abc.flags(),
                                               work->abc.device()},
                                              stats);
                });
    const int64_t t1 = trace.now_ns();
    trace.add({track, "prove_start", t0, t1, job.id, job.label(key.partition), true});
    trace.add({device_track, "prove_start", t0, t1, job.id, job.label(key.partition), true});
    if (stats.h2d_bytes > 0) trace.add_bytes("h2d", stats.h2d_bytes);
    if (stats.h2d_ns > 0) {
      trace.add({device_track, "h2d " + stats.h2d_path, t0, t0 + static_cast<int64_t>(stats.h2d_ns),
                 job.id, job.label(key.partition), true});
    }
    work->abc.reset();  // phase one: a/b/c and their reservation go now
    work->abc_reservation.release();
    t.prove_start = ms_between(t0, t1);
    t.h2d = static_cast<double>(stats.h2d_ns) / 1e6;
    t.h2d_bytes = stats.h2d_bytes;
    t.h2d_path = stats.h2d_path;
    if (pending.ok()) {
      const groth16::ProverTimings& pt = pending->timings;
      t.ntt = static_cast<double>(pt.ntt_ns) / 1e6;
      t.msm = static_cast<double>(pt.h_msm_ns + pt.l_msm_ns + pt.a_msm_ns + pt.b_g1_msm_ns) / 1e6;
      log_gpu_timing(*work);
    }
    Deferred later;
    lock = lock_timed(&t.lock_wait);
    counters.device_busy_s[dev] += static_cast<double>(t1 - t0) / 1e9;
    counters.h2d_bytes[dev] += stats.h2d_bytes;
    if (!pending.ok()) {
      fail_partition(job, key.partition, pending.status().with_context("prove_start on " + dev),
                     retryable(RetryPolicy::kRetryInEngine, pending.status().code()), later);
      later.work.push_back(std::move(work));
    } else if (ended(job)) {
      later.work.push_back(std::move(work));
    } else {
      work->pending = std::move(*pending);
      work->queued_ns = t1;
      job.parts[key.partition] = PartState::kFinishing;
      started.emplace(key, std::move(work));
      final_cv.notify_one();
    }
    if (!later.empty()) {
      lock.unlock();
      later.flush();
      lock.lock();
    }
  }
}

}  // namespace zkpipe::pipeline
