// finalize.cpp: the finalizers: prove_finish per partition (phase two of the working set is
// released after it), then, when a job's partitions are all proved, the job's public inputs, one
// batch verification (single verifications only to find a bad partition), the proof in
// partition order, and an optional malloc_trim. A proof that does not verify is never returned:
// its partition is retried or the job fails.
// Thread-safety: as workers.cpp; verification and trimming run without the tracker lock.
#include <malloc.h>
#include <spdlog/spdlog.h>

#include <fmt/core.h>

#include "engine_impl.h"
#include "zkpipe/groth16/verifier.h"
#include "zkpipe/proof_type.h"

namespace zkpipe::pipeline {
void Engine::Impl::finalizer_loop(size_t worker) {
  const std::string track = fmt::format("finalizer-{}", worker);
  UniqueLock lock(mu);
  for (;;) {
    worker_state[track] = "idle";
    final_cv.wait(lock.native(), [&]() ZKP_REQUIRES(mu) {
      return stopping || !started.empty() || !proved_at_submit.empty();
    });
    if (stopping) return;
    if (!proved_at_submit.empty()) {  // a job whose every partition an earlier attempt proved
      const std::shared_ptr<Job> job = std::move(proved_at_submit.front());
      proved_at_submit.pop_front();
      const LogScope scope(job->id, job->request_id, -1, "verify");
      worker_state[track] = fmt::format("verify job {}", job->id);
      lock.unlock();
      const Status s = guarded(fmt::format("job {}: verification and assembly", job->id), [&] {
        finalize_job(job, track);
        return ok_status();
      });
      Deferred failed;
      lock.lock();
      if (!s.ok() && !ended(*job)) end_job(*job, JobState::kFailed, s, failed);
      lock.unlock();
      failed.flush();
      lock.lock();
      continue;
    }
    auto node = started.extract(started.begin());
    const QueueKey key = node.key();
    std::unique_ptr<PartitionWork> work = std::move(node.mapped());
    const std::shared_ptr<Job> job = work->job;
    const LogScope scope(job->id, job->request_id, key.partition, "prove_finish");
    if (ended(*job)) {
      lock.unlock();
      work.reset();
      lock.lock();
      continue;
    }
    worker_state[track] =
        fmt::format("prove_finish job {} partition {}", job->id, job->label(key.partition));
    lock.unlock();
    const int64_t t0 = trace.now_ns();
    Result<groth16::Proof> proof = guarded("prove_finish", [&] {
      return compute->prove_finish(std::move(work->pending), groth16::ProverRandomness::secure());
    });
    const int64_t t1 = trace.now_ns();
    trace.add({track, "prove_finish", t0, t1, job->id, job->label(key.partition), true});
    work->witness.reset();  // phase two: the rest of the working set goes now
    work->rest_reservation.release();
    work->timing.prove_finish = ms_between(t0, t1);
    log_fin_timing(*work);
    if (proof.ok() && options.on_partition_proof) {
      std::array<uint8_t, groth16::kProofBytes> bytes;
      groth16::encode_proof(*proof, bytes.data());
      options.on_partition_proof(job->id, job->tag, key.partition, bytes);
    }
    Deferred later;
    bool complete = false;
    CircuitTimes measured;  // the circuit's times when this partition completes its job
    lock_timed(lock, &work->timing.lock_wait);
    if (!proof.ok()) {
      fail_partition(*job, key.partition, proof.status().with_context("prove_finish"),
                     proof.status().code() == Code::kInternal, later);
    } else if (!ended(*job)) {
      job->proofs[key.partition] = *proof;
      job->timings[key.partition] = work->timing;
      job->parts[key.partition] = PartState::kProved;
      emit(*job, EventKind::kProved, key.partition);
      CircuitTimes& times = circuit_times[job->info.circuit_id];
      times.add(work->timing);
      ++job->proved;
      ++counters.partitions_proved[job->type_name];
      if (!job->params) job->params = work->params;
      complete = job->proved == job->info.partitions;
      if (complete) measured = times;
    }
    // Each proved partition updates the estimates of the jobs that have a deadline.
    for (auto& [id, other] : jobs) check_deadline(*other, later);
    later.work.push_back(std::move(work));
    lock.unlock();
    later.flush();
    if (complete) {
      keep_measured_times(job->info.circuit_id, measured);
      // Verification and assembly allocate: out of memory there fails the job, not the thread.
      const Status s = guarded(fmt::format("job {}: verification and assembly", job->id), [&] {
        finalize_job(job, track);
        return ok_status();
      });
      if (!s.ok()) {
        Deferred failed;
        lock.lock();
        if (!ended(*job)) end_job(*job, JobState::kFailed, s, failed);
        lock.unlock();
        failed.flush();
      }
    }
    lock.lock();
  }
}

void Engine::Impl::finalize_job(const std::shared_ptr<Job>& job, const std::string& track) {
  std::vector<groth16::Proof> proofs;
  std::shared_ptr<PluginJob> plugin;
  ParamsHandle params;
  {
    MutexLock lock(mu);
    if (ended(*job)) return;
    for (const auto& p : job->proofs) proofs.push_back(*p);
    plugin = job->plugin;
    params = job->params;
  }
  if (!params) {  // every partition came proved: no synthesis acquired the params
    const PluginJob* pj = plugin.get();
    ReserveOptions wait;
    wait.priority = job->priority;
    wait.deadline = job->deadline;
    wait.cancelled = &job->cancelled;
    Result<ParamsHandle> acquired = params_cache->acquire(
        job->info.circuit_id, [pj] { return pj->job.record(); }, wait);
    if (!acquired.ok()) {
      Deferred later;
      UniqueLock lock(mu);
      end_job(*job, JobState::kFailed,
              acquired.status().with_context(fmt::format("job {}: its params", job->id)), later);
      lock.unlock();
      later.flush();
      return;
    }
    params = std::move(*acquired);
  }
  const uint32_t parts = job->info.partitions;
  const int64_t t0 = trace.now_ns();
  std::vector<std::vector<groth16::Fr>> inputs(parts);
  Status status;
  for (uint32_t p = 0; p < parts && status.ok(); ++p) {
    Result<std::vector<groth16::Fr>> x = plugin->job.public_inputs(
        p, fmt::format("proof type {}: partition {}", job->type_name, job->label(p)));
    if (x.ok()) {
      inputs[p] = std::move(*x);
    } else {
      status = x.status();
    }
  }
  std::vector<uint32_t> bad;
  if (status.ok()) {
    Result<bool> batch = guarded(fmt::format("job {}: batch verification", job->id), [&] {
      return groth16::verify_batch(*params->pvk, proofs, inputs, config.compute.threads);
    });
    if (!batch.ok()) {
      status = batch.status();
    } else if (!*batch) {
      for (uint32_t p = 0; p < parts; ++p) {  // find the partitions at fault
        Result<bool> one = groth16::verify(*params->pvk, proofs[p], inputs[p]);
        if (!one.ok() || !*one) bad.push_back(p);
      }
      if (bad.empty()) status = internal_error("the batch of partition proofs does not verify");
      // Params trusted on their stamp's word may have rotted since: check them once, and when
      // they are corrupt, fail the job naming the part instead of retrying in vain.
      if (params->trusted_by_stamp.exchange(false)) {
        if (Status corrupt = params_cache->recheck(params->circuit_id); !corrupt.ok())
          status = corrupt;
      }
    }
  }
  params.reset();  // before the job ends: a waiter may evict the params at once
  const int64_t t1 = trace.now_ns();
  trace.add({track, "verify", t0, t1, job->id, -1, true});
  Deferred later;
  UniqueLock lock(mu);
  if (ended(*job)) return;
  if (!status.ok()) {
    end_job(*job, JobState::kFailed, status.with_context(fmt::format("job {}", job->id)), later);
  } else if (!bad.empty()) {
    counters.verification_failures[job->type_name] += bad.size();
    for (uint32_t p : bad) {
      fail_partition(*job, p,
                     internal_error("the proof does not verify; it was discarded, not returned"),
                     true, later);
    }
  } else {
    JobResult& r = job->result;
    r.proof.resize(parts * groth16::kProofBytes);
    for (uint32_t p = 0; p < parts; ++p) {
      groth16::encode_proof(proofs[p], r.proof.data() + p * groth16::kProofBytes);
    }
    r.public_inputs = std::move(inputs);
    r.verify_ms = ms_between(t0, t1);
    r.finalize_ms = ms_between(t0, trace.now_ns());
    for (uint32_t p = 0; p < parts; ++p) emit(*job, EventKind::kVerified, p);
    end_job(*job, JobState::kDone, ok_status(), later);
  }
  const JobResult result = job->result;
  const bool done = job->state == JobState::kDone;
  lock.unlock();
  later.flush();
  plugin.reset();
  double trim_ms = 0;
  if (done && config.pipeline.trim) {
    const int64_t s0 = trace.now_ns();
    malloc_trim(0);
    const int64_t s1 = trace.now_ns();
    trace.add({track, "trim", s0, s1, job->id, -1, true});
    trim_ms = ms_between(s0, s1);
  }
  if (done) log_job_timing(result, trim_ms);
}

}  // namespace zkpipe::pipeline
