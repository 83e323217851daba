// broker_threads.cpp: JobBroker's three threads (broker.h). The claimer takes queued jobs into
// the engine and runs the reaper and the retention; the heartbeat renews leases and stops local
// work the store no longer gives this worker; the committer writes each ended job with its fence.
// Thread-safety: see broker.h; no store or engine call under mu_.
#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "broker.h"
#include "service.h"
#include "zkpipe/log_context.h"
#include "zkpipe/retry_policy.h"
#include "zkpipe/sdk/clock.h"

namespace zkpipe::server {

namespace {

using std::chrono::milliseconds;
using Clock = std::chrono::steady_clock;

// Logs a store error at most once per period per kind, so an outage is visible but not a flood.
class Throttled {
 public:
  void warn(const std::string& what, const Status& s) {
    const auto now = Clock::now();
    if (now - last_ < std::chrono::seconds(10)) return;
    last_ = now;
    spdlog::warn("store: {}: {}", what, s.to_string());
  }

 private:
  Clock::time_point last_{};
};

}  // namespace

store::WorkerInfo JobBroker::self_info() {
  store::WorkerInfo w;
  w.name = worker_;
  w.host = host_;
  std::string devices;
  for (const std::string& d : engine_->device_tracks()) devices += (devices.empty() ? "" : ",") + d;
  w.devices = devices;
  const nlohmann::json status = engine_->status_json();
  if (status.contains("params") && status["params"].contains("hot_circuits")) {
    w.hot_circuits = status["params"]["hot_circuits"].get<std::vector<std::string>>();
  }
  std::lock_guard lock(mu_);
  w.running = static_cast<uint32_t>(claims_.size());
  w.started_unix_ms = started_unix_ms_;
  return w;
}

std::map<uint64_t, uint32_t> JobBroker::claim_some() {
  std::map<uint64_t, uint32_t> started;  // store id -> queue position in the engine
  // One claim at a time: two at once could both see room for the same slot.
  std::lock_guard claiming(claim_mu_);
  size_t room = 0;
  {
    std::lock_guard lock(mu_);
    if (!claiming_) return started;
    room = claims_.size() < claim_limit_ ? claim_limit_ - claims_.size() : 0;
  }
  static Throttled errors;
  bool critical_only = false;
  if (room == 0) {
    // The pipeline is full, but a CRITICAL job (deadline work) never waits behind jobs claimed
    // ahead: it is claimed now and overtakes them in the engine's queues. The claim order puts
    // it first, so one claim takes it.
    Result<store::QueueCounts> counts = store_.counts();
    if (!counts.ok()) {
      errors.warn("counts", counts.status());
      return started;
    }
    if (counts->queued.count(1) == 0 || counts->queued.at(1) == 0) return started;
    room = 1;
    critical_only = true;
  }
  store::ClaimFilter filter;
  filter.proof_types = engine_->proof_types();
  filter.max_jobs = room;
  if (shared_) filter.hot_circuits = self_info().hot_circuits;
  Result<std::vector<store::Claimed>> claimed = store_.claim(worker_, filter);
  if (!claimed.ok()) {
    errors.warn("claim", claimed.status());
    return started;
  }
  for (store::Claimed& c : *claimed) {
    const uint64_t id = c.id;
    if (critical_only && c.priority != 1) {
      // Raced: the critical job went to another worker; give this one back at once.
      if (Result<bool> back = store_.release(c.id, c.fence); !back.ok()) {
        errors.warn("release", back.status());
      }
      continue;
    }
    uint32_t position = 0;
    const LogScope scope(id, c.request_id, -1, "submit");
    if (Status s = run_claimed(std::move(c), &position); !s.ok()) {
      spdlog::info("job {}: not started here: {}", id, s.to_string());
      continue;
    }
    started[id] = position;
  }
  return started;
}

void JobBroker::claimer_loop() {
  static Throttled errors;
  auto next_reap = Clock::now();
  auto next_expire = Clock::now();
  std::unique_lock lock(mu_);
  while (!detached_) {
    wake_.wait_for(lock, milliseconds(config_.poll_ms), [&] { return detached_ || wake_claimer_; });
    if (detached_) return;
    wake_claimer_ = false;
    lock.unlock();
    if (Clock::now() >= next_reap) {
      next_reap = Clock::now() + milliseconds(config_.reap_ms);
      Result<size_t> reaped = store_.reap();
      if (!reaped.ok()) {
        errors.warn("reap", reaped.status());
      } else if (*reaped > 0) {
        spdlog::warn(
            "store: {} job(s) of stopped workers queued again (or failed, out of "
            "attempts)",
            *reaped);
      }
    }
    if (Clock::now() >= next_expire) {
      // Often enough that a short store.retain is kept to within half of itself.
      next_expire =
          Clock::now() + milliseconds(std::clamp<int64_t>(config_.retain_ms / 2, 1000, 60'000));
      Result<size_t> gone = store_.expire();
      if (!gone.ok()) errors.warn("expire", gone.status());
    }
    claim_some();
    lock.lock();
  }
}

void JobBroker::heartbeat_loop() {
  static Throttled errors;
  std::unique_lock lock(mu_);
  while (!detached_) {
    wake_.wait_for(lock, milliseconds(config_.heartbeat_ms), [&] { return detached_; });
    if (detached_) return;
    std::vector<std::pair<uint64_t, uint64_t>> held;
    for (const auto& [tag, c] : claims_) {
      if (!c.lost) held.emplace_back(c.id, c.fence);
    }
    lock.unlock();
    Result<store::HeartbeatReply> reply = store_.heartbeat(self_info(), held);
    if (!reply.ok()) {
      errors.warn("heartbeat", reply.status());
      lock.lock();
      continue;
    }
    std::vector<std::pair<uint64_t, uint64_t>> stop;     // (store id, engine job)
    std::vector<std::pair<uint64_t, uint64_t>> abandon;  // the same, of lost leases
    lock.lock();
    for (auto& [tag, c] : claims_) {
      const bool lost =
          std::find(reply->lost.begin(), reply->lost.end(), c.id) != reply->lost.end();
      const bool cancelled =
          std::find(reply->cancel_requested.begin(), reply->cancel_requested.end(), c.id) !=
          reply->cancel_requested.end();
      if (lost && !c.lost) {
        c.lost = true;
        spdlog::warn(
            "job {}: this worker's lease was lost (another worker holds it now); "
            "stopping the local work, its result will not be stored",
            c.id);
        if (c.engine_job != 0) abandon.emplace_back(c.id, c.engine_job);
      } else if (cancelled && !c.client_cancel) {
        c.client_cancel = true;
        spdlog::info("job {}: cancelled by a client (seen in the store)", c.id);
        if (c.engine_job != 0) stop.emplace_back(c.id, c.engine_job);
      }
    }
    lock.unlock();
    for (const auto& [id, engine_job] : stop) (void)engine_->cancel(engine_job);
    for (const auto& [id, engine_job] : abandon) {
      (void)engine_->abandon(
          engine_job, aborted(fmt::format("the lease of worker {} on job {} expired (no heartbeat "
                                          "within store.lease): another worker proves it",
                                          worker_, id)));
    }
    lock.lock();
  }
}

void JobBroker::committer_loop() {
  std::unique_lock lock(mu_);
  for (;;) {
    wake_.wait(lock, [&] { return stopping_ || !ended_.empty(); });
    if (ended_.empty()) return;  // stopping
    const pipeline::JobResult r = std::move(ended_.front());
    ended_.pop_front();
    Claim c;
    bool known = false;
    if (auto it = claims_.find(r.tag); it != claims_.end()) {
      c = it->second;
      known = true;
      claims_.erase(it);
      if (auto b = by_id_.find(c.id); b != by_id_.end() && b->second == r.tag) by_id_.erase(b);
      committing_.insert(c.id);
    }
    lock.unlock();
    if (known) commit(r, c);
    lock.lock();
    if (known) committing_.erase(c.id);
    ++commits_;
    wake_claimer_ = true;  // a slot in the pipeline is free
    commit_cv_.notify_all();
    wake_.notify_all();
  }
}

// One ended job into the store, with its claim's fence; retried while the store is unreachable,
// for at most one lease (after that another worker owns the job anyway).
void JobBroker::commit(const pipeline::JobResult& r, const Claim& c) {
  if (c.lost) return;  // another worker's attempt owns the job: nothing of ours is written
  const LogScope scope(c.id, r.request_id, -1, "store");
  std::string bytes;
  if (r.state == pipeline::JobState::kDone) {
    v1::ProofResult msg;
    result_to_proto(r, &msg);
    msg.set_job_id(c.id);
    msg.SerializeToString(&bytes);
  }
  const auto until = saturating_after(Clock::now(), milliseconds(config_.lease_ms));
  for (int attempt = 0;; ++attempt) {
    Result<bool> written = false;
    const char* what = "";
    if (r.state == pipeline::JobState::kDone) {
      what = "result";
      written = store_.complete(
          c.id, c.fence, std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
    } else if (r.state == pipeline::JobState::kFailed) {
      what = "failure";
      written = store_.fail(c.id, c.fence, r.status.code(),
                            fmt::format("worker {}: {}", worker_, r.status.message()),
                            retryable(RetryPolicy::kRetryFromStore, r.status.code()));
    } else if (c.client_cancel) {
      what = "cancellation";
      written = store_.cancelled(c.id, c.fence);
    } else {
      what = "release";  // the daemon stops: the job goes back to the queue, not lost
      written = store_.release(c.id, c.fence);
    }
    if (written.ok()) {
      if (*written) spdlog::debug("job {}: its {} stored (fence {})", c.id, what, c.fence);
      if (!*written) {
        spdlog::warn(
            "job {}: its {} was not stored: another worker's attempt owns the job now "
            "(fence {} is stale)",
            c.id, what, c.fence);
      }
      return;
    }
    if (Clock::now() >= until) {
      spdlog::error(
          "job {}: its {} could not be stored for a whole lease ({}); another worker "
          "will prove it again",
          c.id, what, written.status().to_string());
      return;
    }
    if (attempt == 0) {
      spdlog::warn("job {}: storing its {}: {}; retrying", c.id, what,
                   written.status().to_string());
    }
    std::this_thread::sleep_for(milliseconds(std::min<int64_t>(1000, 50 << std::min(attempt, 5))));
  }
}

}  // namespace zkpipe::server
