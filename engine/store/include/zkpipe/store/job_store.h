// zkpipe/store/job_store.h: the record of what a proving daemon accepted and what is done. The
// engine stays the in-memory executor; a JobStore is what survives a crash, and what several
// daemons share. Two implementations behind this one interface: SQLite (one daemon per file, the
// default) and PostgreSQL (many daemons, one queue; SQL that YugabyteDB's YSQL also runs).
// Every time a store keeps or compares (leases, back-off, retention) is the database's clock.
// Thread-safety: every member is thread-safe (an implementation serializes its connection).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "zkpipe/config.h"
#include "zkpipe/job_state.h"
#include "zkpipe/sdk/status.h"

namespace zkpipe::store {

// Stored as these lower-case words ('queued', 'running', ...).

// What SubmitProof stores before it answers.
struct NewJob {
  std::string request_id;  // the caller's; empty: none (unique when given)
  std::string proof_type;
  std::string circuit_id;  // from parsing at submit ("params already hot here" in claims)
  std::vector<uint8_t> input;
  uint8_t priority = 3;     // 1 critical .. 4 low
  int64_t deadline_ms = 0;  // from the store's now() at submit; 0: none
  uint32_t partitions = 0;
};

struct Submitted {
  uint64_t id = 0;
  bool attached = false;  // its request id named a stored job with the same input and type
};

// A job a worker claimed: it owns it until its lease (renewed by heartbeat) runs out.
struct Claimed {
  uint64_t id = 0;
  uint64_t fence = 0;    // bumped by every claim; every write of the owner names it
  uint32_t attempt = 0;  // 1 for the first claim
  std::string request_id, proof_type, circuit_id;
  std::vector<uint8_t> input;  // checked against its SHA-256 by the store
  uint8_t priority = 3;
  std::optional<int64_t> deadline_left_ms;  // from the store's now(); may be negative
  uint32_t partitions = 0;
  std::map<uint32_t, std::vector<uint8_t>> checkpoints;  // position -> that partition's proof
};

struct JobRecord {
  uint64_t id = 0;
  std::string request_id, proof_type, circuit_id;
  JobState state = JobState::kQueued;
  uint8_t priority = 3;
  uint32_t partitions = 0, checkpointed = 0, attempts = 0;
  std::string owner;  // the worker holding it (running) or the last one
  bool cancel_requested = false;
  int32_t error_code = 0;  // zkpipe::Code of how it failed (or the last retryable failure)
  std::string error;
  std::vector<uint8_t> result;  // what complete() stored (opaque); only when asked for
  int64_t submitted_unix_ms = 0, ended_unix_ms = 0;  // 0: not ended
  uint32_t completions = 0;  // successful complete() calls: 1 for a done job, never more
};

// A daemon of the cluster, as it last said of itself.
struct WorkerInfo {
  std::string name;  // unique per daemon process (store.worker)
  std::string host;
  std::string devices;                    // "cpu0" / "cuda0 (NVIDIA H200)", free text
  std::vector<std::string> hot_circuits;  // params hot in its engine
  uint32_t running = 0;                   // jobs it holds
  int64_t started_unix_ms = 0, last_seen_unix_ms = 0;
};

// What a claim may take.
struct ClaimFilter {
  std::vector<std::string> proof_types;   // only these (empty: none is claimed)
  std::vector<std::string> hot_circuits;  // preferred within a priority and deadline
  size_t max_jobs = 1;
  std::optional<uint64_t> only_id;  // claim this job only (SQLite: at submit)
};

struct HeartbeatReply {
  std::vector<uint64_t> lost;              // held ids whose fence or lease is no longer ours
  std::vector<uint64_t> cancel_requested;  // held ids a client cancelled
};

struct CancelReply {
  bool was_running = false;  // claimed by a worker: cancel_requested is set, the owner stops it
  bool ended = false;        // it was queued and is now cancelled
};

struct QueueCounts {
  std::map<uint8_t, uint32_t> queued;  // by priority
  uint32_t running = 0, done = 0, failed = 0, cancelled = 0;
};

class JobStore {
 public:
  virtual ~JobStore() = default;
  // "sqlite /var/lib/zkpipe/jobs.db", "postgres host=db1 dbname=zkpipe" (never a password).
  virtual std::string describe() const = 0;

  // Durable when it returns (committed and synced). A request id already stored with the same
  // input (SHA-256) and proof type attaches; with another input or type: ALREADY_EXISTS
  // "request id ... is taken by job N ...".
  virtual Result<Submitted> submit(const NewJob& job) = 0;
  // Claims up to filter.max_jobs queued jobs for `worker`, in order: priority, earliest deadline
  // (none last), params hot here, age. Each claim bumps the fence, counts an attempt, sets the
  // lease. Skips jobs in back-off (not_before), and for one lease period jobs whose last owner
  // was this worker. A job whose stored input fails its SHA-256 check is failed (not returned).
  virtual Result<std::vector<Claimed>> claim(const std::string& worker,
                                             const ClaimFilter& filter) = 0;
  // Renews the leases of the (id, fence) pairs the worker holds and its last_seen.
  virtual Result<HeartbeatReply> heartbeat(
      const WorkerInfo& worker, const std::vector<std::pair<uint64_t, uint64_t>>& held) = 0;
  // Keeps a finished partition's proof (insert; an existing one stays). FAILED_PRECONDITION when
  // the fence is no longer the job's current one (nothing written).
  virtual Status checkpoint(uint64_t id, uint64_t fence, uint32_t position,
                            std::span<const uint8_t> proof) = 0;
  // The verified result, in one fenced update: false when the fence lost (nothing written).
  virtual Result<bool> complete(uint64_t id, uint64_t fence, std::span<const uint8_t> result) = 0;
  // A failed attempt. Retryable with attempts left: queued again after a back-off, this worker
  // avoided, its checkpoints dropped; else failed. The error is kept either way. False: fence lost.
  virtual Result<bool> fail(uint64_t id, uint64_t fence, Code code, const std::string& message,
                            bool retryable) = 0;
  // The owner ends a job a client cancelled (state cancelled). False: fence lost.
  virtual Result<bool> cancelled(uint64_t id, uint64_t fence) = 0;
  // The owner gives a job back without it counting as an attempt (its daemon stops): queued.
  virtual Result<bool> release(uint64_t id, uint64_t fence) = 0;
  // A client's cancel: a queued job ends now; a running one gets cancel_requested.
  // NOT_FOUND (unknown id), FAILED_PRECONDITION (already ended).
  virtual Result<CancelReply> cancel(uint64_t id) = 0;

  virtual Result<std::optional<JobRecord>> get(uint64_t id, bool with_result) = 0;
  virtual Result<std::optional<JobRecord>> find_request(const std::string& request_id,
                                                        bool with_result) = 0;
  // Newest first; `state` nullopt: all.
  virtual Result<std::vector<JobRecord>> list(std::optional<JobState> state, size_t limit) = 0;
  virtual Result<QueueCounts> counts() = 0;
  // Any worker, idempotent: running jobs whose lease ran out are queued again (owner avoided,
  // back-off) or, out of attempts, failed with the last error kept. Returns how many.
  virtual Result<size_t> reap() = 0;
  // Forgets finished jobs (and their checkpoints and unreferenced inputs) ended more than
  // store.retain ago. Returns how many.
  virtual Result<size_t> expire() = 0;
  // Workers seen within `within_ms`, most recently seen first.
  virtual Result<std::vector<WorkerInfo>> workers(int64_t within_ms) = 0;
};

// Opens the configured store: creates or migrates its schema (a newer schema than this build
// knows is FAILED_PRECONDITION naming both versions). SQLite takes the file's exclusive lock
// (a second daemon on it: FAILED_PRECONDITION naming the file and the holder's pid).
Result<std::unique_ptr<JobStore>> open_store(const StoreConfig& config);

// What `zkpipe-tool validate` says of a config's store, found as `serve` would open it but
// without writing, creating or locking anything: SQLite: the file (or, not there yet, that its
// directory lets serve create it), its schema version, and whether a daemon holds it now;
// PostgreSQL: a connection within 5 s (unless the conninfo sets connect_timeout) and the schema
// version. An error says what serve would fail on (FAILED_PRECONDITION for a newer schema).
Result<std::string> probe_store(const StoreConfig& config);

// The schema version this build writes (zk_meta 'schema_version').
inline constexpr int kSchemaVersion = 1;

}  // namespace zkpipe::store
