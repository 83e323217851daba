// events.cpp: what a long-lived engine needs besides proving: job events for watchers
// (JobWatch), forgetting finished jobs past the retain policy, request-id lookup and readiness
// (zkpipe/pipeline/engine.h). The proof types are loaded in proof_types.cpp.
// Thread-safety: see engine_impl.h; everything here takes mu (or types_mu) itself or says so.
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "engine_impl.h"
#include "zkpipe/groth16/snarkjs.h"

namespace zkpipe::pipeline {

std::string_view event_kind_name(EventKind kind) {
  switch (kind) {
    case EventKind::kQueued:
      return "queued";
    case EventKind::kSynthesized:
      return "synthesized";
    case EventKind::kProving:
      return "proving";
    case EventKind::kProved:
      return "proved";
    case EventKind::kVerified:
      return "verified";
    case EventKind::kJobEnded:
      return "job_ended";
  }
  return "unknown";
}

void Engine::Impl::emit(Job& job, EventKind kind, uint32_t position, std::string device) {
  JobEvent e;
  e.job = job.id;
  e.kind = kind;
  e.position = position;
  e.partition =
      kind == EventKind::kJobEnded || position >= job.indices.size() ? 0 : job.indices[position];
  e.partitions = job.info.partitions;
  e.elapsed_ms = ms_between(job.submitted_ns, trace.now_ns());
  e.device = std::move(device);
  e.state = job.state;
  if (kind == EventKind::kJobEnded) e.status = job.status;
  job.events.push_back(std::move(e));
  event_cv.notify_all();
}

std::optional<JobEvent> JobWatch::next(std::chrono::milliseconds timeout) {
  auto& m = *static_cast<Engine::Impl*>(impl_);
  const Job& job = *static_cast<const Job*>(job_.get());
  if (ended_) return std::nullopt;
  UniqueLock lock(m.mu);
  if (!m.event_cv.wait_for(lock.native(), timeout, [&]() ZKP_REQUIRES(m.mu) {
        return m.stopping || job.events.size() > next_;
      })) {
    return std::nullopt;
  }
  if (job.events.size() <= next_) return std::nullopt;  // stopping
  JobEvent e = job.events[next_++];
  ended_ = e.kind == EventKind::kJobEnded;
  return e;
}

Result<JobWatch> Engine::watch(uint64_t id) {
  MutexLock lock(impl_->mu);
  auto it = impl_->jobs.find(id);
  if (it == impl_->jobs.end()) {
    return not_found("no job " + std::to_string(id) +
                     " (finished jobs are forgotten after the "
                     "retain policy: server.retain_results)");
  }
  return JobWatch(impl_.get(), std::static_pointer_cast<void>(it->second));
}

void Engine::Impl::forget_expired() {
  const RetainPolicy& r = options.retain;
  const int64_t now = trace.now_ns();
  const int64_t max_age_ns =
      r.age ? std::chrono::duration_cast<std::chrono::nanoseconds>(*r.age).count() : INT64_MAX;
  while (!ended_order.empty() &&
         (ended_order.size() > r.count || now - ended_order.front().first > max_age_ns)) {
    const auto [ended_ns, id] = ended_order.front();
    ended_order.pop_front();
    auto it = jobs.find(id);
    // A job of the same id submitted again later (a job store's re-claim) is not this one.
    if (it == jobs.end() || it->second->ended_ns != ended_ns) continue;
    const std::string& rid = it->second->request_id;
    if (!rid.empty()) {
      if (auto r_it = by_request_id.find(rid); r_it != by_request_id.end() && r_it->second == id) {
        by_request_id.erase(r_it);
      }
    }
    jobs.erase(it);  // a waiter or watcher holding the job keeps its record until it lets go
  }
}

void Engine::forget_expired() {
  MutexLock lock(impl_->mu);
  impl_->forget_expired();
}

Result<uint64_t> Engine::find_request(const std::string& request_id) const {
  MutexLock lock(impl_->mu);
  auto it = impl_->by_request_id.find(request_id);
  if (it == impl_->by_request_id.end()) {
    return not_found("no job has request id '" + echo_value(request_id) +
                     "' (or it finished and was forgotten: server.retain_results)");
  }
  return it->second;
}

uint32_t Engine::Impl::queue_position(const Job& job) const {
  uint32_t ahead = 0;
  for (const auto& [id, other] : jobs) {
    if (other.get() == &job || other->state != JobState::kQueued) continue;
    if (other->key(0) < job.key(0)) ++ahead;
  }
  return ahead;
}

uint32_t Engine::jobs_waiting(Priority at_most) const {
  MutexLock lock(impl_->mu);
  uint32_t n = 0;
  for (const auto& [id, job] : impl_->jobs) {
    if (job->state == JobState::kQueued && job->priority <= at_most) ++n;
  }
  return n;
}

Status Engine::ready() const {
  {
    MutexLock lock(impl_->mu);
    if (!impl_->accepting) return unavailable("draining: no new jobs are accepted");
    if (!impl_->no_compute.ok()) return impl_->no_compute;
    if (impl_->live_compute == 0) return unavailable("no compute worker is running");
  }
  ZKP_RETURN_IF_ERROR(impl_->params_readiness());
  return impl_->preload_readiness();
}

size_t Engine::unfinished_jobs() const {
  MutexLock lock(impl_->mu);
  size_t n = 0;
  for (const auto& [id, job] : impl_->jobs) n += ended(*job) ? 0 : 1;
  return n;
}

Result<std::string> Engine::snarkjs_verifying_key(const std::string& circuit_id) {
  ZKP_ASSIGN_OR_RETURN(const groth16::VerifyingKey vk,
                       impl_->params_cache->verifying_key(circuit_id));
  return groth16::export_snarkjs_vk(vk);
}

}  // namespace zkpipe::pipeline
