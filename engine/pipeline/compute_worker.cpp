// engine/pipeline/compute_worker.cpp: the compute workers, one or more per device: each takes
// the best ready partition (or waits for an urgent one being synthesized), runs prove_start on
// its device and hands the pending proof to the finalizers; a device whose health fails is
// retired, and with none left every job fails and submit refuses.
// Thread-safety: the tracker lock is held only to move work between queues.
#include <malloc.h>
#include <spdlog/spdlog.h>

#include <fmt/core.h>

#include "engine_impl.h"
#include "zkpipe/groth16/verifier.h"
#include "zkpipe/retry_policy.h"
#include "zkpipe/sdk/units.h"

namespace zkpipe::pipeline {

// Under mu: the worker's device no longer takes work (quarantined). The worker stops; when it
// was the last one, every unfinished job fails with the reason and submit refuses new ones
// (their warnings and freed work are left in `later`, for the caller to flush without mu).
void Engine::Impl::retire_compute_worker(const std::string& track, const Status& health,
                                         Deferred& later) {
  worker_state[track] = "stopped: " + health.message();
  later.warnings.push_back(fmt::format("{} stops: {}", track, health.message()));
  if (--live_compute == 0) {
    no_compute = unavailable("no compute device is left: " + health.message());
    for (auto& [id, job] : jobs) end_job(*job, JobState::kFailed, no_compute, later);
  }
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
  UniqueLock lock(mu);
  for (;;) {
    worker_state[track] = "idle";
    compute_cv.wait(lock.native(), [&]() ZKP_REQUIRES(mu) { return stopping || !ready.empty(); });
    if (stopping) return;
    if (compute_held < urgent_synthesizing()) {
      ++compute_held;
      worker_state[track] = "waiting for a higher-priority partition's synthesis";
      compute_cv.wait(lock.native(),
                      [&]() ZKP_REQUIRES(mu) { return stopping || urgent_synthesizing() == 0; });
      --compute_held;
      continue;
    }
    if (Status health = compute->device_status(device); !health.ok()) {
      Deferred later;
      retire_compute_worker(track, health, later);
      lock.unlock();
      later.flush();
      return;
    }
    auto node = ready.extract(ready.begin());
    const QueueKey key = node.key();
    std::unique_ptr<PartitionWork> work = std::move(node.mapped());
    Job& job = *work->job;
    const LogScope scope(job.id, job.request_id, key.partition, "prove_start");
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
    const size_t behind = ready.size();
    lock.unlock();
    spdlog::debug("{}: prove_start on {} ({} ready partition(s) behind it)",
                  part_name(job, key.partition), dev, behind);
    const int64_t t0 = trace.now_ns();
    PartitionTiming& t = work->timing;
    t.ready_wait = ms_between(work->queued_ns, t0);
    t.device = dev;
    StartStats stats;
    const size_t n = job.domain_size;
    auto* a = static_cast<groth16::Fr*>(work->abc.host());
    groth16::ProverInput prover{witness_view(*work), a, a + n, a + 2 * n, n};
    prover.stop = &job.stop;  // the job's end (a cancel) stops it at the next safe point
    Result<groth16::PendingProof> pending = guarded(
        fmt::format("{}: prove_start scratch (domain {}: about {} for the NTTs)",
                    part_name(job, key.partition), n, format_bytes(3 * n * kFrBytes)),
        [&] {
          return compute->prove_start(
              device, {work->params->pk, prover, work->abc.flags(), work->abc.device()}, stats);
        });
    const int64_t t1 = trace.now_ns();
    if (!pending.ok() && job.stop.load(std::memory_order_relaxed) != 0) {
      spdlog::debug("{}: {} after {} ms", part_name(job, key.partition), pending.status().message(),
                    ms_between(t0, t1));
    }
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
    lock_timed(lock, &t.lock_wait);
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
