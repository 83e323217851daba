// zkpipe/pipeline/engine.h: the proving pipeline. submit() parses a request with its proof-type
// plugin into N partitions; synthesis workers write witness and a/b/c into buffers of the memory
// backend; compute workers (N per device) run prove_start and loop at once; finalizers run
// prove_finish, verify (a finished job's partitions in one batch) and assemble the proof in
// partition order. Queues are ordered by (priority, deadline, job sequence, partition): within a
// priority the earliest deadline first, then the oldest. A partition of a higher priority than
// every ready one waits behind only the partitions in flight: its synthesis starts ahead of
// queued work (past the ready depth), a compute worker takes it next, and `pipeline.reserve`
// keeps budget for CRITICAL work. Everything large is reserved in one memory budget; every step
// is a span of the run's trace.
// Thread-safety: every public member is thread-safe.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "zkpipe/config.h"
#include "zkpipe/job_state.h"
#include "zkpipe/memory.h"
#include "zkpipe/pipeline/compute.h"
#include "zkpipe/pipeline/memory_model.h"
#include "zkpipe/pipeline/priority.h"
#include "zkpipe/pipeline/trace.h"
#include "zkpipe/sdk/status.h"

namespace zkpipe::pipeline {

struct JobRequest {
  std::string proof_type;  // plugin name: porep, snapdeals, ...
  std::vector<uint8_t> input;
  std::string input_name;  // named in messages (a file name); defaults to the request id
  // Unset: the proof type's default (config scheduling.defaults, then its plugin's), else normal.
  std::optional<Priority> priority;
  // Unset: the proof type's default likewise, else none. A job whose deadline passes before its
  // last partition starts fails with DEADLINE_EXCEEDED.
  std::optional<std::chrono::steady_clock::time_point> deadline;
  // The caller's; a repeat with the same input attaches to the job (unless `id` is set: then the
  // caller's job store has deduplicated it, and the id is only shown in status and results).
  std::string request_id;
  // Partitions an earlier attempt already proved (a job store's checkpoints): position in the
  // request -> its 192-byte proof. They are not proved again; the job's batch verification
  // checks them with the rest, and one that does not verify (or decode) is proved again.
  std::map<uint32_t, std::vector<uint8_t>> proved;
  uint64_t tag = 0;  // the caller's number for the job (a daemon's claim), given back in callbacks
  // The job's id (a job store's, so logs, traces and the API name it alike); 0: the engine
  // numbers it. An id of an ended job replaces that job's record; of a running one: UNAVAILABLE.
  uint64_t id = 0;
  // Attempts at the job before this one (a job store's claims by workers since gone): counted in
  // the tries that timings and status show, not in this engine's retry limit.
  uint32_t earlier_attempts = 0;
};

// Milliseconds per step of one partition (the last attempt's).
struct PartitionTiming {
  double queue_wait = 0, srs_wait = 0, reserve_wait = 0, synthesis = 0, ready_wait = 0, h2d = 0,
         ntt = 0, msm = 0, prove_start = 0, prove_finish = 0, verify = 0, lock_wait = 0;
  uint32_t attempts = 0;  // tries, across workers (JobRequest::earlier_attempts + this engine's)
  std::string device;
  uint64_t h2d_bytes = 0;
  std::string h2d_path;  // pageable, pinned or mapped; empty on the CPU
};

struct JobResult {
  uint64_t job = 0;
  uint64_t tag = 0;  // JobRequest::tag
  std::string request_id, proof_type, circuit_id;
  JobState state = JobState::kQueued;
  Status status;  // OK when done
  // The request's partitions in its order (which may be any subset of the sector's): proof,
  // public_inputs and partitions hold one entry per partition in this order, and
  // partition_indices[k] is the index in the sector of the k-th (what logs and traces name).
  std::vector<uint32_t> partition_indices;
  std::vector<uint8_t> proof;  // partitions x 192 bytes, request order; only when verified
  std::vector<std::vector<groth16::Fr>> public_inputs;  // per partition
  std::vector<PartitionTiming> partitions;
  double wall_ms = 0, verify_ms = 0, finalize_ms = 0, trim_ms = 0;
};

// What submit_job says of an accepted request.
struct Submitted {
  uint64_t job = 0;
  bool attached = false;  // its request id named a job already known: this is that job
  // Jobs that will start before it: accepted, not started yet, and ahead of it in the queue order
  // (running ones have started: they are not counted).
  uint32_t queue_position = 0;
  uint32_t partitions = 0;
  std::string circuit_id;
  // The request's priority and deadline with the proof type's defaults applied.
  Priority priority = Priority::kNormal;
  std::optional<std::chrono::steady_clock::time_point> deadline;
};

// A partition's (or the job's) progress, as Engine::watch reports it.
enum class EventKind { kQueued, kSynthesized, kProving, kProved, kVerified, kJobEnded };
std::string_view event_kind_name(EventKind kind);

struct JobEvent {
  uint64_t job = 0;
  EventKind kind = EventKind::kQueued;
  uint32_t partition = 0;  // index in the sector (0 for kJobEnded)
  uint32_t position = 0;   // position in the request
  uint32_t partitions = 0;
  double elapsed_ms = 0;  // since submit
  std::string device;     // kProving
  JobState state = JobState::kQueued;
  Status status;  // kJobEnded: how the job ended
};

// How long finished jobs stay known to wait(), watch() and a repeated request id. Past either
// limit the oldest are forgotten (NOT_FOUND), so a long-lived engine does not grow per job.
struct RetainPolicy {
  size_t count = SIZE_MAX;
  std::optional<std::chrono::milliseconds> age;  // nullopt: no age limit
};

// Seams for tests (fault injection) and tools; empty members mean the config's own.
struct EngineOptions {
  std::unique_ptr<ComputeBackend> compute;
  // Wraps the memory backend's allocate (e.g. to fail the N-th allocation).
  std::function<Result<Buffer>(MemoryPool& pool, uint64_t bytes)> allocate;
  std::optional<uint64_t> budget_bytes;  // overrides pipeline.budget
  bool check_plan = true;                // refuse to start when the plan exceeds this machine
  bool start_paused = false;             // workers take no work until resume()
  // plan() and plan_preset() count the memory backend's buffers as page-locked (or not) whatever
  // the pool opened says: `zkpipe plan` of a pinned config on a machine whose CUDA driver is
  // missing opens a pageable pool in its place.
  std::optional<bool> plan_page_locked;
  // Proof-type plugins loaded (and initialized) by create(): nullopt loads each on first use;
  // an empty list loads every proof-type plugin in the plugin dirs. One that fails to load or
  // is unavailable fails create().
  std::optional<std::vector<std::string>> proof_types;
  RetainPolicy retain;
  // Spans older than this are dropped from the trace (0: keep all; a daemon keeps a window).
  std::chrono::milliseconds trace_window{0};
  // Called with each partition's proof as prove_finish makes it (before the job's batch
  // verification), on a finalizer thread and outside the engine's locks: a daemon checkpoints it
  // in its job store. `position` is the partition's position in the request.
  std::function<void(uint64_t job, uint64_t tag, uint32_t position, std::span<const uint8_t> proof)>
      on_partition_proof;
  // Called once per job when it ends (done, failed or cancelled), in the order jobs end, on the
  // engine's reporter thread and outside its locks; also for jobs the engine's shutdown cancels.
  std::function<void(const JobResult& result)> on_job_end;
};

class Engine;

// The events of one job in order: the past ones first, then live ones as they happen, ending
// with kJobEnded. Keeps the job's record alive while it lives; must not outlive its engine.
// Thread-safety: one thread per JobWatch.
class JobWatch {
 public:
  // The next event, or nullopt when none came within `timeout` (or the engine stops). After
  // kJobEnded, always nullopt.
  std::optional<JobEvent> next(std::chrono::milliseconds timeout);

 private:
  friend class Engine;
  JobWatch(void* impl, std::shared_ptr<void> job) : impl_(impl), job_(std::move(job)) {}
  void* impl_;                 // Engine::Impl
  std::shared_ptr<void> job_;  // the Job
  size_t next_ = 0;
  bool ended_ = false;
};

class Engine {
 public:
  // Loads the memory backend and opens the compute backend, checks the memory plan, starts the
  // workers. Proof-type plugins are loaded when a job first names them.
  static Result<std::unique_ptr<Engine>> create(const Config& config, EngineOptions options = {});
  ~Engine();  // cancels what is left and joins the workers

  // Parses and checks the request (errors come back here, before any proving work) and queues
  // its partitions. Returns the job id (the existing one for a repeated request id).
  Result<uint64_t> submit(JobRequest request);
  // The same, saying whether it attached to a known job, and its place in the queue.
  // ALREADY_EXISTS when its request id names a job with another input or proof type.
  Result<Submitted> submit_job(JobRequest request);
  // Parses and checks a request as submit would (the proof type, the plugin's parse, whether one
  // partition fits the whole budget), without queueing it: partitions and circuit_id.
  Result<Submitted> check(const JobRequest& request);
  // The job a request id names (while it is retained); NOT_FOUND otherwise.
  Result<uint64_t> find_request(const std::string& request_id) const;
  // The job's events (see JobWatch); NOT_FOUND for an unknown job.
  Result<JobWatch> watch(uint64_t job);
  // Forgets finished jobs past the retain policy (submit does it too; call it from a timer).
  void forget_expired();
  // OK when it takes work: accepting, its proof types loaded, a compute device left.
  Status ready() const;
  // Jobs accepted and not started yet, of priority `at_most` or a more urgent one.
  uint32_t jobs_waiting(Priority at_most) const;
  // The proof-type plugins loaded so far.
  std::vector<std::string> proof_types() const;
  // Jobs accepted and not ended.
  size_t unfinished_jobs() const;
  // A circuit's verifying key as snarkjs JSON (for clients that verify independently).
  Result<std::string> snarkjs_verifying_key(const std::string& circuit_id);
  // Blocks until the job ends or `timeout` passes (DEADLINE_EXCEEDED); NOT_FOUND for an unknown
  // job. The result's status says how it ended.
  Result<JobResult> wait(uint64_t job, std::optional<std::chrono::milliseconds> timeout = {});
  // Cancels at the next partition boundary (a running prove_start stops at its next safe point:
  // groth16::ProverInput::stop); waiters hear ABORTED at once. `was_running` (when
  // given) says whether a partition had started.
  Status cancel(uint64_t job, bool* was_running = nullptr);
  // Stops the job as cancel does, but ends it failed with `reason` (a daemon whose lease on it
  // was lost: status, panel and metrics count it among the failures, saying why).
  Status abandon(uint64_t job, const Status& reason);
  // Stops accepting jobs and blocks until every accepted job has ended.
  void drain();
  // Stops accepting jobs (submit says UNAVAILABLE); does not wait. For a signal handler thread.
  void stop_accepting();
  // Cancels every job that has not ended.
  void cancel_all();
  // Lets the workers start when the engine was created paused (to queue work first).
  void resume();

  // Makes a circuit's params hot / drops them; `change` (when given) says the bytes of the hot
  // copy and whether it was hot before.
  Status preload_params(const std::string& circuit_id, ParamsChange* change = nullptr);
  Status evict_params(const std::string& circuit_id, ParamsChange* change = nullptr);
  // The params of the circuit `request` proves with: made by the seeded development setup when
  // missing and params.missing is `setup` (NOT a ceremony), then loaded hot (so checked), as a
  // job's first partition would (`zkpipe-tool params new --proof T --preset P`).
  struct ParamsMade {
    std::string circuit_id, file;  // file: params.dir's, or Filecoin's in params.filecoin_dir
    bool made = false;             // by this call's setup
  };
  Result<ParamsMade> make_params(const JobRequest& request);

  nlohmann::json status_json() const;  // jobs, partitions, workers, budget, backends
  std::string metrics_text() const;    // Prometheus text exposition format
  const TraceRecorder& trace() const;
  std::string memory_plan() const;  // what create() printed
  // The predicted memory of `jobs` requests like `sample` submitted at once (parsed, not run;
  // from the circuit's params when they exist, else an upper bound from its R1CS).
  Result<MemoryPrediction> plan(const JobRequest& sample, uint64_t jobs);
  // The same for a preset of a proof type that describes its circuits without a request (ABI
  // 1.7 preset_circuit): nothing is sampled or synthesized beyond the plugin's count, so sizes
  // no sample can be made of here (32GiB sectors) plan too. Without params or a cached R1CS the
  // R1CS is sized from the terms as written (an upper bound). FAILED_PRECONDITION when the type
  // cannot describe the preset (plan from a sample request then).
  Result<MemoryPrediction> plan_preset(const std::string& proof_type, const std::string& preset,
                                       uint64_t jobs);
  std::vector<std::string> device_tracks() const;

  struct Impl;

 private:
  explicit Engine(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace zkpipe::pipeline
