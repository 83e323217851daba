// broker.cpp: JobBroker (broker.h): submit, claims, checkpoints and the fenced commit.
// broker_threads.cpp has the claimer, heartbeat and committer loops.
// Thread-safety: see broker.h.
#include "broker.h"

#include <fmt/core.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>

#include "service.h"
#include "zkpipe/log_context.h"

namespace zkpipe::server {

namespace {

std::string host_name() {
  char buf[256] = "";
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown-host";
  return buf;
}

int64_t unix_ms_now() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

JobBroker::JobBroker(store::JobStore& store, const StoreConfig& config, std::string worker,
                     bool shared, size_t claim_limit)
    : store_(store),
      config_(config),
      worker_(worker.empty() ? fmt::format("{}-{}", host_name(), ::getpid()) : std::move(worker)),
      host_(host_name()),
      shared_(shared),
      claim_limit_(std::max<size_t>(claim_limit, 1)) {}

JobBroker::~JobBroker() {
  stop(std::chrono::milliseconds(2000));
}

void JobBroker::hook(pipeline::EngineOptions& options) {
  options.on_partition_proof = [this](uint64_t, uint64_t tag, uint32_t position,
                                      std::span<const uint8_t> proof) {
    Claim c;
    {
      std::lock_guard lock(mu_);
      auto it = claims_.find(tag);
      if (it == claims_.end() || it->second.lost) return;
      c = it->second;
    }
    if (Status s = store_.checkpoint(c.id, c.fence, position, proof); !s.ok()) {
      spdlog::warn("job {}: checkpoint of position {} not kept: {}", c.id, position, s.to_string());
    }
  };
  options.on_job_end = [this](const pipeline::JobResult& r) {
    std::lock_guard lock(mu_);
    ended_.push_back(r);
    wake_.notify_all();
  };
}

void JobBroker::start(pipeline::Engine& engine) {
  engine_ = &engine;
  started_unix_ms_ = unix_ms_now();
  // Known to the cluster at once (zkpipe status --cluster), not only after the first period.
  if (Result<store::HeartbeatReply> hello = store_.heartbeat(self_info(), {}); !hello.ok()) {
    spdlog::warn("store: {}: first heartbeat: {}", store_.describe(), hello.status().to_string());
  }
  {
    std::lock_guard lock(mu_);
    wake_claimer_ = true;  // claim what is queued at once, not a poll period later
  }
  claimer_ = std::thread([this] { claimer_loop(); });
  heartbeat_ = std::thread([this] { heartbeat_loop(); });
  committer_ = std::thread([this] { committer_loop(); });
  spdlog::info(
      "store: {} as worker {}{}", store_.describe(), worker_,
      shared_ ? fmt::format(" (shared queue; up to {} job(s) claimed here)", claim_limit_) : "");
}

void JobBroker::stop_claiming() {
  std::lock_guard lock(mu_);
  claiming_ = false;
}

void JobBroker::detach_engine() {
  {
    std::lock_guard lock(mu_);
    claiming_ = false;
    detached_ = true;
  }
  wake_.notify_all();
  for (std::thread* t : {&claimer_, &heartbeat_}) {
    if (t->joinable()) t->join();
  }
}

void JobBroker::stop(std::chrono::milliseconds timeout) {
  detach_engine();
  {
    std::unique_lock lock(mu_);
    if (stopping_) return;
    // The committer writes what ended; jobs still claimed stay in the store (their lease runs
    // out, or with SQLite the next start queues them again).
    commit_cv_.wait_for(lock, timeout, [&] { return ended_.empty(); });
    stopping_ = true;
  }
  wake_.notify_all();
  commit_cv_.notify_all();
  if (committer_.joinable()) committer_.join();
}

Result<JobBroker::Accepted> JobBroker::submit(pipeline::JobRequest request) {
  ZKP_ASSIGN_OR_RETURN(const pipeline::Submitted checked, engine_->check(request));
  store::NewJob job;
  job.request_id = request.request_id;
  job.proof_type = request.proof_type;
  job.circuit_id = checked.circuit_id;
  job.input = std::move(request.input);
  // The request's priority and deadline with its proof type's defaults applied, stored so
  // that every worker's claims order by them.
  job.priority = static_cast<uint8_t>(checked.priority);  // one numbering: 1 critical .. 4 low
  if (checked.deadline) {
    job.deadline_ms = std::max<int64_t>(1, std::chrono::duration_cast<std::chrono::milliseconds>(
                                               *checked.deadline - std::chrono::steady_clock::now())
                                               .count());
  }
  job.partitions = checked.partitions;
  ZKP_ASSIGN_OR_RETURN(const store::Submitted stored, store_.submit(job));
  Accepted out;
  out.id = stored.id;
  out.attached = stored.attached;
  out.partitions = checked.partitions;
  out.circuit_id = checked.circuit_id;
  if (stored.attached) return out;
  // Claimed here at once when the pipeline has room (the best queued job first: with equal
  // priority and no deadline, an older one), else it waits in the store's queue.
  const std::map<uint64_t, uint32_t> started = claim_some();
  if (auto it = started.find(stored.id); it != started.end()) {
    out.queue_position = it->second;
    return out;
  }
  if (Result<store::QueueCounts> counts = store_.counts(); counts.ok()) {
    // Jobs that will start before it: those waiting in the store at its priority or a more
    // urgent one (itself not counted), and those claimed here not started yet. Running jobs
    // have started already.
    uint32_t ahead = 0;
    for (const auto& [priority, n] : counts->queued) {
      if (priority <= job.priority) ahead += n;
    }
    const auto at_most = pipeline::priority_from_int(job.priority);
    out.queue_position = (ahead > 0 ? ahead - 1 : 0) +
                         engine_->jobs_waiting(at_most.value_or(pipeline::Priority::kLow));
  }
  {
    std::lock_guard lock(mu_);
    wake_claimer_ = true;
  }
  wake_.notify_all();
  return out;
}

// Submits a claimed job to the engine. An engine that cannot take it now (memory, draining)
// gives it back to the store; one that rejects it fails it.
Status JobBroker::run_claimed(store::Claimed c, uint32_t* queue_position) {
  const LogScope scope(c.id, c.request_id, -1, "submit");
  spdlog::debug("job {}: claimed by {} ({}, priority {}, attempt {}, fence {}, {} byte(s))", c.id,
                worker_, c.proof_type, c.priority, c.attempt, c.fence, c.input.size());
  pipeline::JobRequest r;
  r.proof_type = c.proof_type;
  r.input = std::move(c.input);
  r.request_id = c.request_id;  // shown in /status and the panel (the store deduplicated it)
  r.input_name = c.request_id.empty() ? fmt::format("job {}", c.id)
                                      : fmt::format("job {} (request {})", c.id, c.request_id);
  r.priority = pipeline::priority_from_int(c.priority).value_or(pipeline::Priority::kNormal);
  if (c.deadline_left_ms) {
    r.deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(*c.deadline_left_ms);
  }
  r.proved = std::move(c.checkpoints);
  uint64_t tag = 0;
  {
    std::lock_guard lock(mu_);
    tag = next_tag_++;
    claims_[tag] = Claim{c.id, c.fence};
    by_id_[c.id] = tag;
  }
  r.tag = tag;
  r.id = c.id;  // the engine's job id is the store's: logs, traces, status and the API agree
  r.earlier_attempts = c.attempt > 0 ? c.attempt - 1 : 0;  // tries count across workers
  if (c.attempt > 1 || !r.proved.empty()) {
    spdlog::info("job {}: attempt {} on {}, {} of {} partition(s) already proved", c.id, c.attempt,
                 worker_, r.proved.size(), c.partitions);
  }
  Result<pipeline::Submitted> s = engine_->submit_job(std::move(r));
  if (s.ok()) {
    bool cancelled = false;
    {
      std::lock_guard lock(mu_);
      if (auto it = claims_.find(tag); it != claims_.end()) {
        it->second.engine_job = s->job;
        cancelled = it->second.client_cancel;  // a cancel that came while the engine parsed it
      }
      if (queue_position != nullptr) *queue_position = s->queue_position;
    }
    if (cancelled) {
      spdlog::info("job {}: cancelled by a client while it was being submitted; stopping it", c.id);
      (void)engine_->cancel(s->job);
    }
    return ok_status();
  }
  {
    std::lock_guard lock(mu_);
    claims_.erase(tag);
    if (auto it = by_id_.find(c.id); it != by_id_.end() && it->second == tag) by_id_.erase(it);
  }
  const Code code = s.status().code();
  if (code == Code::kResourceExhausted || code == Code::kUnavailable) {
    if (Result<bool> back = store_.release(c.id, c.fence); !back.ok()) {
      spdlog::warn("job {}: giving it back: {}", c.id, back.status().to_string());
    }
  } else if (Result<bool> failed =
                 store_.fail(c.id, c.fence, code,
                             fmt::format("worker {}: {}", worker_, s.status().message()), false);
             !failed.ok()) {
    spdlog::warn("job {}: recording its failure: {}", c.id, failed.status().to_string());
  }
  return s.status();
}

Result<uint64_t> JobBroker::find_request(const std::string& request_id) {
  ZKP_ASSIGN_OR_RETURN(const std::optional<store::JobRecord> r,
                       store_.find_request(request_id, false));
  if (!r)
    return not_found("request id '" + echo_value(request_id) + "' names no job in " +
                     store_.describe());
  return r->id;
}

Result<store::JobRecord> JobBroker::record(uint64_t id, bool with_result) {
  ZKP_ASSIGN_OR_RETURN(std::optional<store::JobRecord> r, store_.get(id, with_result));
  if (!r) {
    return not_found(
        fmt::format("job {} is not known (never accepted, or forgotten after "
                    "store.retain)",
                    id));
  }
  return std::move(*r);
}

void JobBroker::wait_commit(std::chrono::milliseconds slice) {
  std::unique_lock lock(mu_);
  const uint64_t seen = commits_;
  commit_cv_.wait_for(lock, slice, [&] { return commits_ != seen || stopping_; });
}

std::optional<uint64_t> JobBroker::local_job(uint64_t id) const {
  std::lock_guard lock(mu_);
  auto it = by_id_.find(id);
  if (it == by_id_.end()) return std::nullopt;
  auto c = claims_.find(it->second);
  if (c == claims_.end() || c->second.engine_job == 0) return std::nullopt;
  return c->second.engine_job;  // == id
}

bool JobBroker::holds(uint64_t id) const {
  std::lock_guard lock(mu_);
  return by_id_.count(id) > 0 || committing_.count(id) > 0;
}

Status JobBroker::cancel(uint64_t id, bool* was_running) {
  ZKP_ASSIGN_OR_RETURN(const store::CancelReply reply, store_.cancel(id));
  *was_running = reply.was_running;
  if (reply.ended) {
    std::lock_guard lock(mu_);
    ++commits_;
    commit_cv_.notify_all();
    return ok_status();
  }
  std::optional<uint64_t> engine_job;
  {
    std::lock_guard lock(mu_);
    if (auto it = by_id_.find(id); it != by_id_.end()) {
      if (auto c = claims_.find(it->second); c != claims_.end()) {
        c->second.client_cancel = true;
        if (c->second.engine_job != 0) engine_job = c->second.engine_job;
      }
    }
  }
  if (engine_job) {  // here: stop it now (another worker notices at its next heartbeat)
    bool started = false;
    Status s = engine_->cancel(*engine_job, &started);
    if (!s.ok() && s.code() == Code::kFailedPrecondition) {
      return failed_precondition(fmt::format("job {} already ended", id));
    }
    *was_running = started;
  }
  return ok_status();
}

Result<uint64_t> JobBroker::unfinished() {
  ZKP_ASSIGN_OR_RETURN(const store::QueueCounts c, store_.counts());
  uint64_t n = c.running;
  for (const auto& [priority, q] : c.queued) n += q;
  return n;
}

Result<store::QueueCounts> JobBroker::counts() {
  return store_.counts();
}

size_t JobBroker::claims_size() const {
  std::lock_guard lock(mu_);
  return claims_.size();
}

size_t JobBroker::in_flight() const {
  std::lock_guard lock(mu_);
  return claims_.size() + ended_.size();
}

nlohmann::json JobBroker::status_json(bool workers) {
  nlohmann::json j;
  j["store"] = store_.describe();
  j["worker"] = worker_;
  j["shared"] = shared_;
  {
    std::lock_guard lock(mu_);
    j["claimed_here"] = claims_.size();
  }
  if (Result<store::QueueCounts> c = store_.counts(); c.ok()) {
    nlohmann::json q = nlohmann::json::object();
    for (const auto& [priority, n] : c->queued) q[std::to_string(priority)] = n;
    j["queued"] = q;
    j["running"] = c->running;
    j["done"] = c->done;
    j["failed"] = c->failed;
    j["cancelled"] = c->cancelled;
  } else {
    j["error"] = c.status().to_string();
  }
  if (workers) {
    nlohmann::json list = nlohmann::json::array();
    // Every worker the store still remembers (store.retain): one without a heartbeat for a
    // lease is shown as lost (its jobs go back to the queue), not dropped from the view.
    if (Result<std::vector<store::WorkerInfo>> w = store_.workers(config_.retain_ms); w.ok()) {
      const int64_t now = unix_ms_now();
      for (const store::WorkerInfo& x : *w) {
        const int64_t ago_ms = now - x.last_seen_unix_ms;
        list.push_back({{"name", x.name},
                        {"host", x.host},
                        {"devices", x.devices},
                        {"hot_circuits", x.hot_circuits},
                        {"running", x.running},
                        {"state", ago_ms > config_.lease_ms ? "lost" : "live"},
                        {"last_seen_seconds_ago", static_cast<double>(ago_ms) / 1000.0}});
      }
    } else {
      j["workers_error"] = w.status().to_string();
    }
    j["workers"] = list;
  }
  return j;
}

}  // namespace zkpipe::server
