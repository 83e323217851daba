// broker.h: private to engine/server. JobBroker keeps the daemon's jobs in its job store
// (zkpipe/store/job_store.h, the record) and runs them in its engine (the executor): SubmitProof
// stores a job durably before it answers; a claimer takes queued jobs (up to the pipeline's
// workers plus store.claim_ahead, so a crash costs an attempt only to jobs under way, and other
// workers of a shared store get the rest) and submits them to the engine with the partitions an
// earlier attempt proved; each partition proof is checkpointed as it is made; a finished job is
// committed with one fenced write; a heartbeat renews the leases and aborts local work whose lease
// was lost or whose client cancelled; a reaper re-queues the jobs of workers that stopped.
// Thread-safety: every public member is thread-safe; mu_ is never held across a store or engine
// call.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "zkpipe/config.h"
#include "zkpipe/pipeline/engine.h"
#include "zkpipe/store/job_store.h"

namespace zkpipe::server {

class JobBroker {
 public:
  // `shared`: other daemons may use the store (PostgreSQL): prefer jobs whose params are hot
  // here. `claim_limit`: at most that many jobs claimed here at once.
  JobBroker(store::JobStore& store, const StoreConfig& config, std::string worker, bool shared,
            size_t claim_limit);
  ~JobBroker();  // stop()

  // The engine's hooks; call before Engine::create.
  void hook(pipeline::EngineOptions& options);
  // Claims what the store holds (jobs a crash left are queued again by the store) and starts
  // the claimer, heartbeat and committer threads over `engine`.
  void start(pipeline::Engine& engine);
  // Drain: claims nothing more; jobs already claimed go on.
  void stop_claiming();
  // Stops the claimer and the heartbeat, the threads that call the engine; the committer goes
  // on taking the ends the engine reports (its shutdown cancels jobs: they are given back).
  // Call before the engine is destroyed.
  void detach_engine();
  // detach_engine(), then waits until every ended job is committed (at most `timeout`) and
  // stops the committer.
  void stop(std::chrono::milliseconds timeout = std::chrono::milliseconds(10000));

  struct Accepted {
    uint64_t id = 0;
    bool attached = false;
    uint32_t queue_position = 0;
    uint32_t partitions = 0;
    std::string circuit_id;
  };
  // Checks the request with the engine (parse errors come back here), stores it durably, and
  // claims it into the engine at once when the pipeline has room. ALREADY_EXISTS: its request id
  // names another request.
  Result<Accepted> submit(pipeline::JobRequest request);
  Result<uint64_t> find_request(const std::string& request_id);
  // The stored job (NOT_FOUND when the store does not know it).
  Result<store::JobRecord> record(uint64_t id, bool with_result);
  // Blocks until a job's end was committed here or `slice` passed (awaiters poll the store).
  void wait_commit(std::chrono::milliseconds slice);
  // The engine job running store job `id` here, if any (the engine uses the store's ids).
  std::optional<uint64_t> local_job(uint64_t id) const;
  // Whether this worker still holds store job `id`: claimed, or its end being written.
  bool holds(uint64_t id) const;
  // A client's cancel. NOT_FOUND / FAILED_PRECONDITION (already ended) as the store says.
  Status cancel(uint64_t id, bool* was_running);
  // Jobs queued or running in the store (the whole cluster's with PostgreSQL).
  Result<uint64_t> unfinished();
  // The store's job counts (the whole cluster's with PostgreSQL).
  Result<store::QueueCounts> counts();
  // Pending commits, claimed jobs: what drain waits for.
  size_t in_flight() const;
  // The store section of the status: backend, worker, counts, claimed here; with `workers` the
  // cluster's workers too.
  nlohmann::json status_json(bool workers);
  const std::string& worker() const { return worker_; }
  const store::JobStore& store() const { return store_; }

 private:
  struct Claim {
    uint64_t id = 0, fence = 0, engine_job = 0;
    bool client_cancel = false, lost = false;
  };

  Status run_claimed(store::Claimed c, uint32_t* queue_position);  // submits it to the engine
  // Claims what fits into the engine now; the started jobs' queue positions by store id.
  std::map<uint64_t, uint32_t> claim_some();
  void claimer_loop();
  void heartbeat_loop();
  void committer_loop();
  void commit(const pipeline::JobResult& r, const Claim& c);
  store::WorkerInfo self_info();
  size_t claims_size() const;

  store::JobStore& store_;
  const StoreConfig config_;
  const std::string worker_, host_;
  const bool shared_;
  const size_t claim_limit_;
  pipeline::Engine* engine_ = nullptr;
  int64_t started_unix_ms_ = 0;

  std::mutex claim_mu_;  // one claim_some at a time
  mutable std::mutex mu_;
  std::condition_variable wake_, commit_cv_;
  std::map<uint64_t, Claim> claims_;       // mu_: by tag (JobRequest::tag)
  std::map<uint64_t, uint64_t> by_id_;     // mu_: store id -> tag
  std::deque<pipeline::JobResult> ended_;  // mu_: for the committer
  std::set<uint64_t> committing_;          // mu_: store ids whose end the committer writes
  uint64_t next_tag_ = 1;                  // mu_
  uint64_t commits_ = 0;                   // mu_
  bool claiming_ = true, detached_ = false, stopping_ = false, wake_claimer_ = false;  // mu_
  std::thread claimer_, heartbeat_, committer_;
};

}  // namespace zkpipe::server
