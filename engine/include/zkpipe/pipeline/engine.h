// zkpipe/pipeline/engine.h: the proving pipeline. submit() parses a request with its proof-type
// plugin into N partitions; synthesis workers write witness and a/b/c into buffers of the memory
// backend; compute workers (N per device) run prove_start and loop at once; finalizers run
// prove_finish, verify (a finished job's partitions in one batch) and assemble the proof in
// partition order. Queues are ordered by (priority, job sequence, partition). Everything large
// is reserved in one memory budget; every step is a span of the run's trace.
// Thread-safety: every public member is thread-safe.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "zkpipe/config.h"
#include "zkpipe/memory.h"
#include "zkpipe/pipeline/compute.h"
#include "zkpipe/pipeline/memory_model.h"
#include "zkpipe/pipeline/priority.h"
#include "zkpipe/pipeline/trace.h"
#include "zkpipe/status.h"

namespace zkpipe::pipeline {

struct JobRequest {
  std::string proof_type;  // plugin name: porep, snapdeals, ...
  std::vector<uint8_t> input;
  std::string input_name;  // named in messages (a file name); defaults to the request id
  Priority priority = Priority::kNormal;
  std::optional<std::chrono::steady_clock::time_point> deadline;
  std::string request_id;  // the caller's; a repeat with the same input attaches to the job
};

enum class JobState { kQueued, kRunning, kDone, kFailed, kCancelled };
std::string_view job_state_name(JobState state);

// Milliseconds per step of one partition (the last attempt's).
struct PartitionTiming {
  double queue_wait = 0, srs_wait = 0, reserve_wait = 0, synthesis = 0, ready_wait = 0, h2d = 0,
         ntt = 0, msm = 0, prove_start = 0, prove_finish = 0, verify = 0, lock_wait = 0;
  uint32_t attempts = 0;
  std::string device;
  uint64_t h2d_bytes = 0;
  std::string h2d_path;  // pageable, pinned or mapped; empty on the CPU
};

struct JobResult {
  uint64_t job = 0;
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

// Seams for tests (fault injection) and tools; empty members mean the config's own.
struct EngineOptions {
  std::unique_ptr<ComputeBackend> compute;
  // Wraps the memory backend's allocate (e.g. to fail the N-th allocation).
  std::function<Result<Buffer>(MemoryPool& pool, uint64_t bytes)> allocate;
  std::optional<uint64_t> budget_bytes;  // overrides pipeline.budget
  bool check_plan = true;                // refuse to start when the plan exceeds this machine
  bool start_paused = false;             // workers take no work until resume()
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
  // Blocks until the job ends or `timeout` passes (DEADLINE_EXCEEDED); NOT_FOUND for an unknown
  // job. The result's status says how it ended.
  Result<JobResult> wait(uint64_t job, std::optional<std::chrono::milliseconds> timeout = {});
  // Cancels at the next partition boundary; waiters hear ABORTED at once.
  Status cancel(uint64_t job);
  // Stops accepting jobs and blocks until every accepted job has ended.
  void drain();
  // Stops accepting jobs (submit says UNAVAILABLE); does not wait. For a signal handler thread.
  void stop_accepting();
  // Cancels every job that has not ended.
  void cancel_all();
  // Lets the workers start when the engine was created paused (to queue work first).
  void resume();

  Status preload_params(const std::string& circuit_id);
  Status evict_params(const std::string& circuit_id);

  nlohmann::json status_json() const;  // jobs, partitions, workers, budget, backends
  std::string metrics_text() const;    // Prometheus text exposition format
  const TraceRecorder& trace() const;
  std::string memory_plan() const;  // what create() printed
  // The predicted memory of `jobs` requests like `sample` submitted at once (parsed, not run;
  // from the circuit's params when they exist, else an upper bound from its R1CS).
  Result<MemoryPrediction> plan(const JobRequest& sample, uint64_t jobs);
  std::vector<std::string> device_tracks() const;

  struct Impl;

 private:
  explicit Engine(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace zkpipe::pipeline
