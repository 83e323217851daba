// engine/pipeline/params_work.cpp: params work off the synthesis workers (issue 33 #2). A
// partition whose circuit's params are not hot is parked by its synthesis worker, which goes on
// with the next partition (a CRITICAL job's among them), while a thread of that circuit's own
// makes, checks or loads the params; then the circuit's parked partitions go back to the
// synthesis queue, or fail as that work failed. The wait is the partition's srs_wait ("params"
// in the metrics), drawn as a "params" span on the track params-<circuit>.
// Thread-safety: park_for_params runs under Impl::mu; params_loop takes it only to move work.
#include <spdlog/spdlog.h>

#include <fmt/core.h>

#include "engine_impl.h"
#include "zkpipe/retry_policy.h"

namespace zkpipe::pipeline {

bool Engine::Impl::park_for_params(const std::shared_ptr<Job>& job, const QueueKey& key) {
  const std::string& circuit = job->info.circuit_id;
  if (params_cache->hot(circuit)) return false;
  const uint32_t p = key.partition;
  auto [it, first] = params_waiting.try_emplace(circuit);
  it->second.insert(key);
  job->parts[p] = PartState::kParams;
  job->parked_ns[p] = trace.now_ns();
  if (first) {
    ++params_loads;
    worker_state["params-" + circuit] = fmt::format("params for job {}", job->id);
    std::thread(&Impl::params_loop, this, circuit, job, job->plugin, job->label(p)).detach();
  }
  return true;
}

void Engine::Impl::params_loop(std::string circuit, std::shared_ptr<Job> job,
                               std::shared_ptr<PluginJob> plugin, int32_t label) {
  // The lines of the params work name the job that first needed them.
  const LogScope scope(job->id, job->request_id, -1, "params");
  spdlog::debug("params of {}: work starts for {}", circuit, job_name(*job));
  ReserveOptions wait;  // the first parked job's priority and deadline order the budget wait
  wait.priority = job->priority;
  wait.deadline = job->deadline;
  wait.what = "params of " + circuit;
  const PluginJob* pj = plugin.get();
  const int64_t t0 = trace.now_ns();
  Status status;
  {
    // The handle is dropped at once: the cache keeps the params hot, and no use is held.
    const Result<ParamsHandle> hot = guarded("params of " + circuit, [&] {
      return params_cache->acquire(
          circuit, [pj] { return pj->job.record(); }, wait);
    });
    status = hot.status();
  }
  const int64_t t1 = trace.now_ns();
  trace.add({"params-" + circuit, "params", t0, t1, job->id, label, true});
  Deferred later;
  std::vector<Span> waits;  // each parked partition's wait, drawn as its own "params_wait" span
  {
    MutexLock lock(mu);
    auto node = params_waiting.extract(circuit);
    for (const QueueKey& key : node.mapped()) {
      const auto it = jobs.find(key.job);
      if (it == jobs.end() || ended(*it->second)) continue;
      Job& j = *it->second;
      const uint32_t p = key.partition;
      j.params_wait_ms[p] += ms_between(j.parked_ns[p], t1);
      if (t1 - j.parked_ns[p] >= kMinWaitSpanNs) {
        waits.push_back(
            {"params-wait-" + circuit, "params_wait", j.parked_ns[p], t1, j.id, j.label(p), false});
      }
      if (status.ok()) {
        j.parts[p] = PartState::kQueued;
        j.queued_ns[p] = t1;
        synth_queue.insert(key);
      } else {
        ++j.timings[p].attempts;  // the params work was this attempt
        fail_partition(j, p, status.with_context("params of " + circuit),
                       retryable(RetryPolicy::kRetryInEngine, status.code()), later);
      }
    }
    worker_state.erase("params-" + circuit);
    synth_cv.notify_all();
  }
  for (Span& w : waits) trace.add(std::move(w));
  later.flush();
  // Dropped before the count says this thread is done: the engine may go once it is 0, and a
  // plugin's job must be freed while its plugin is loaded.
  plugin.reset();
  job.reset();
  MutexLock lock(mu);
  --params_loads;
  params_cv.notify_all();
}

}  // namespace zkpipe::pipeline
