// engine/pipeline/job_end.cpp: how a job ends: end_job (done, failed or cancelled: its queued
// work taken out, its result recorded and reported, its plugin job and params let go) and
// fail_partition (a failed step retried under RetryPolicy::kRetryInEngine, else the job ends).
// Thread-safety: both run under the tracker lock and leave destructors and logs to a Deferred.
#include <malloc.h>
#include <spdlog/spdlog.h>

#include <fmt/core.h>

#include "engine_impl.h"
#include "zkpipe/groth16/verifier.h"
#include "zkpipe/retry_policy.h"
#include "zkpipe/sdk/units.h"

namespace zkpipe::pipeline {

void Engine::Impl::end_job(Job& job, JobState state, Status status, Deferred& later) {
  if (ended(job)) return;
  job.stop.store(1, std::memory_order_relaxed);
  job.state = state;
  job.status = std::move(status);
  job.ended_ns = trace.now_ns();
  for (uint32_t p = 0; p < job.info.partitions; ++p) {
    const QueueKey key = job.key(p);
    synth_queue.erase(key);
    if (auto w = params_waiting.find(job.info.circuit_id); w != params_waiting.end()) {
      w->second.erase(key);  // its params thread goes on; the circuit's entry is that thread's
    }
    for (auto* queue : {&ready, &started}) {
      if (auto node = queue->extract(key)) {
        node.mapped()->params.reset();  // see job.params below
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
  std::vector<bool> proved(job.parts.size());
  for (size_t p = 0; p < job.parts.size(); ++p) proved[p] = job.parts[p] == PartState::kProved;
  JobEnd e;
  e.type = job.type_name;
  e.priority = job.priority;
  e.state = state;
  e.code = job.status.code();
  e.wall_s = r.wall_ms / 1e3;
  e.verify_s = r.verify_ms / 1e3;
  e.missed_deadline = deadline_missed(job);
  e.partitions = &job.timings;
  e.proved = &proved;
  job_metrics.job_ended(e);
  if (state == JobState::kFailed) {
    later.warnings.push_back(fmt::format("job {} failed: {}", job.id, job.status.to_string()));
  }
  later.plugins.push_back(std::move(job.plugin));
  // Dropped here, not later: a waiter that sees the job ended must find its params unused (so
  // evict works at once). The cache keeps its own reference while a job holds one, so this only
  // lowers a count; nothing is freed under mu.
  job.params.reset();
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

}  // namespace zkpipe::pipeline
