// engine/pipeline/synthesis.cpp: the synthesis workers: a partition's params acquired, its
// working set reserved, its witness synthesized by the plugin and its a/b/c evaluated; the loop
// that takes partitions in queue order up to the ready depth (past it for urgent work).
// Thread-safety: the tracker lock is held only to move work between queues.
#include <malloc.h>
#include <spdlog/spdlog.h>

#include <fmt/core.h>

#include "engine_impl.h"
#include "zkpipe/groth16/verifier.h"
#include "zkpipe/retry_policy.h"
#include "zkpipe/sdk/units.h"

namespace zkpipe::pipeline {

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
  ZKP_ASSIGN_OR_RETURN(w->params, params_cache->acquire(
                                      info.circuit_id, [pj] { return pj->job.record(); }, wait));
  int64_t t1 = trace.now_ns();
  w->timing.srs_wait = ms_between(t0, t1);
  if (t1 - t0 >= kMinWaitSpanNs)
    trace.add({track, "srs_wait", t0, t1, job->id, job->label(p), false});
  const groth16::ProvingKey& pk = w->params->pk;
  if (pk.num_inputs != info.num_inputs || pk.num_aux != info.num_aux ||
      pk.domain_size != job->domain_size ||
      w->params->r1cs.num_constraints() != info.num_constraints) {
    return invalid_argument(fmt::format(
        "{}: the params of {} ({} inputs, {} aux, domain {}) do not match the job's circuit ({} "
        "inputs, {} aux, {} constraints); remove {} and its .csr to make them again",
        what, info.circuit_id, pk.num_inputs, pk.num_aux, pk.domain_size, info.num_inputs,
        info.num_aux, info.num_constraints, params_cache->params_path(info.circuit_id)));
  }
  // Phase one holds a/b/c (released after prove_start), phase two the witness and what the
  // pending proof keeps (released after prove_finish); the scratch is in the params' reservation.
  const CircuitMemory& m = w->params->memory;
  const uint64_t working = m.abc + m.rest();
  if (w->params->resident_bytes + working > budget->total()) {
    return failed_precondition(fmt::format(
        "{}: its params with the prover's scratch ({}) and working set ({}) do not fit in the "
        "memory budget of {} (pipeline.budget; `zkpipe plan` says what a workload needs)",
        what, format_bytes(w->params->resident_bytes), format_bytes(working),
        format_bytes(budget->total())));
  }
  wait.what = what + " working set";
  ZKP_ASSIGN_OR_RETURN(Reservation all, budget->reserve(working, wait));
  {  // its memory is held: it is ready in a moment
    MutexLock lock(mu);
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
  ZKP_RETURN_IF_ERROR(evaluate_abc(w->params->r1cs, witness_view(*w), a, a + n, a + 2 * n, n,
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
  auto may_start = [&]() ZKP_REQUIRES(mu) {
    if (paused || synth_queue.empty()) return false;
    const size_t taken = ready.size() + synth_active;
    const bool overtakes =
        ready.empty() || synth_queue.begin()->priority < ready.begin()->first.priority;
    return taken < ready_limit || (overtakes && taken < ready_limit + compute_workers);
  };
  UniqueLock lock(mu);
  for (;;) {
    worker_state[track] = "idle";
    synth_cv.wait(lock.native(), [&]() ZKP_REQUIRES(mu) { return stopping || may_start(); });
    if (stopping) return;
    const QueueKey key = *synth_queue.begin();
    synth_queue.erase(synth_queue.begin());
    const std::shared_ptr<Job> job = jobs.at(key.job);
    const uint32_t p = key.partition;
    const LogScope scope(job->id, job->request_id, p, "synthesize");
    spdlog::debug("{}: synthesis starts on {}", part_name(*job, p), track);
    Deferred later;
    if (job->deadline && std::chrono::steady_clock::now() > *job->deadline) {
      end_job(*job, JobState::kFailed,
              deadline_exceeded(part_name(*job, p) + ": the job's deadline passed"), later);
      lock.unlock();
      later.flush();
      lock.lock();
      continue;
    }
    if (park_for_params(job, key)) continue;
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
    lock_timed(lock, &lock_wait);
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
      w.timing.srs_wait += job->params_wait_ms[p];  // its wait for the params thread
      job->params_wait_ms[p] = 0;
      w.timing.lock_wait = lock_wait;
      w.timing.attempts = job->earlier_attempts + job->timings[p].attempts;
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

}  // namespace zkpipe::pipeline
