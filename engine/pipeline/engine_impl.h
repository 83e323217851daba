// engine_impl.h: private to engine/pipeline. The state behind Engine (zkpipe/pipeline/engine.h):
// jobs, the three queues, workers, counters. `mu` (the tracker lock) guards every member marked
// so; it is held only to move work between queues and record states, never across synthesis,
// proving, verification, trimming, I/O or a budget wait (tests/pipeline check this by timing).
// Thread-safety: see each member; ZKP_GUARDED_BY(mu) and ZKP_REQUIRES(mu) are checked by
// scripts/check-thread-safety (clang -Wthread-safety). Job's members cannot name Impl's mu, so
// theirs is prose only.
#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <new>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <tuple>
#include <vector>

#include "job_metrics.h"
#include "zkpipe/log_context.h"
#include "zkpipe/pipeline/budget.h"
#include "zkpipe/pipeline/engine.h"
#include "zkpipe/pipeline/memory_model.h"
#include "zkpipe/pipeline/params_cache.h"
#include "zkpipe/plugin.h"
#include "zkpipe/proof_type_job.h"
#include "zkpipe/sdk/clock.h"
#include "zkpipe/sdk/sha256.h"
#include "zkpipe/thread_annotations.h"

namespace zkpipe::pipeline {

// Runs `fn` (returning Status or Result<T>) so that no worker thread dies of an exception: an
// allocation failure anywhere inside becomes RESOURCE_EXHAUSTED "<what>: out of memory (...)", any
// other exception INTERNAL naming it. `what` says what was being done and, where known, how much
// it needed.
template <typename F>
auto guarded(const std::string& what, F&& fn) -> decltype(fn()) {
  try {
    return fn();
  } catch (const std::bad_alloc& e) {
    return resource_exhausted(what + ": out of memory (" + e.what() + ")");
  } catch (const std::length_error& e) {
    return resource_exhausted(what + ": out of memory (" + e.what() + ")");
  } catch (const std::system_error& e) {  // e.g. no thread could be started (EAGAIN, ENOMEM)
    if (e.code() == std::errc::resource_unavailable_try_again ||
        e.code() == std::errc::not_enough_memory) {
      return resource_exhausted(what + ": out of resources (" + e.what() + ")");
    }
    return internal_error(what + ": unexpected exception: " + e.what());
  } catch (const std::exception& e) {
    return internal_error(what + ": unexpected exception: " + e.what());
  } catch (...) {
    return internal_error(what + ": unexpected exception");
  }
}

// A parsed request inside its plugin (destroyed by that plugin when the last user drops it).
struct PluginJob {
  explicit PluginJob(ProofTypeJob parsed) : job(std::move(parsed)) {}
  ProofTypeJob job;
  Reservation request;  // the parsed request's memory, reserved at its input's size
};

// kParams: queued, waiting for its circuit's params (made, checked or loaded off the workers).
enum class PartState {
  kQueued,
  kParams,
  kSynthesizing,
  kReady,
  kProving,
  kFinishing,
  kProved,
  kDropped
};
std::string_view part_state_name(PartState s);

// Queue order: priority, then deadline (the earliest first, none last), then job sequence (= id),
// then partition. Unique per partition.
struct QueueKey {
  uint8_t priority = 0;
  int64_t deadline_ns = INT64_MAX;  // steady clock; INT64_MAX: no deadline
  uint64_t job = 0;
  uint32_t partition = 0;
  auto operator<=>(const QueueKey&) const = default;
};

struct Job {
  uint64_t id = 0;
  uint64_t tag = 0;               // JobRequest::tag
  uint32_t earlier_attempts = 0;  // JobRequest::earlier_attempts
  std::string request_id, type_name, input_name;
  std::array<uint8_t, 32> input_hash{};
  JobInfo info;
  // Immutable after submit: the index in its sector of each partition (by position, the queue
  // key's `partition`); logs, traces and the result name a partition by it.
  std::vector<uint32_t> indices;
  int32_t label(uint32_t position) const { return static_cast<int32_t>(indices[position]); }
  uint64_t domain_size = 0;
  // Upper bounds of a partition's working set, two phases, before its params are known: a
  // request that cannot fit is refused at submit (ParamsCache has the exact sizes).
  uint64_t abc_bytes = 0, rest_bytes = 0;
  Priority priority = Priority::kNormal;
  std::optional<std::chrono::steady_clock::time_point> deadline;
  // Its partitions' place in the queues (immutable after submit).
  QueueKey key(uint32_t position) const {
    return {static_cast<uint8_t>(priority),
            deadline
                ? std::chrono::duration_cast<std::chrono::nanoseconds>(deadline->time_since_epoch())
                      .count()
                : INT64_MAX,
            id, position};
  }
  std::atomic<bool> cancelled{false};  // read by budget waits without mu
  // Set once the job ends (cancelled, failed, abandoned): a running prove_start of one of its
  // partitions reads it without mu (groth16::ProverInput::stop) and stops at its next safe point.
  std::atomic<uint32_t> stop{0};
  // Below: guarded by Engine::Impl::mu in prose only (a Job cannot name it in ZKP_GUARDED_BY;
  // the Impl functions that touch them are ZKP_REQUIRES(mu)).
  // Guarded by mu: the deadline looks unreachable from measured times (said once in the log),
  // and when the estimate says the job ends (steady clock ns; 0: no estimate).
  bool deadline_at_risk = false;
  int64_t estimated_end_ns = 0;
  // Guarded by mu:
  std::shared_ptr<PluginJob> plugin;  // reset when the job ends
  ParamsHandle params;                // for the job's verification; reset when it ends
  JobState state = JobState::kQueued;
  Status status;
  std::vector<PartState> parts;
  std::vector<std::optional<groth16::Proof>> proofs;
  std::vector<PartitionTiming> timings;
  std::vector<int64_t> queued_ns;      // when each partition last entered the synthesis queue
  std::vector<int64_t> parked_ns;      // when each partition began waiting for its params
  std::vector<double> params_wait_ms;  // that wait, added to its srs_wait when synthesized
  uint32_t proved = 0;
  int64_t submitted_ns = 0, ended_ns = 0;
  JobResult result;              // filled when the job ends
  std::vector<JobEvent> events;  // what JobWatch reports, in order
};

// One partition on its way through the pipeline; owns its buffers and reservations.
struct PartitionWork {
  std::shared_ptr<Job> job;
  std::shared_ptr<PluginJob> plugin;
  uint32_t partition = 0;
  ParamsHandle params;
  Reservation abc_reservation, rest_reservation;
  Buffer abc, witness;
  groth16::PendingProof pending;
  int64_t queued_ns = 0;  // entered its current queue
  PartitionTiming timing;
};

// What a step under mu leaves to be done after it: work and plugin jobs to free, and log
// lines to write, so that no destructor, plugin code or I/O runs under the tracker lock.
struct Deferred {
  std::vector<std::unique_ptr<PartitionWork>> work;
  std::vector<std::shared_ptr<PluginJob>> plugins;
  std::vector<std::string> warnings;
  std::vector<std::string> notes;  // info lines
  bool empty() const {
    return work.empty() && plugins.empty() && warnings.empty() && notes.empty();
  }
  void flush();  // call without mu
};

// Measured milliseconds of one partition's steps, per circuit: a moving average (the last few
// partitions weigh most), for the deadline estimates.
struct CircuitTimes {
  double synthesis = 0, prove_start = 0, prove_finish = 0;
  uint64_t samples = 0;
  void add(const PartitionTiming& t);
};

struct Counters {  // guarded by mu (Engine::Impl::counters)
  std::map<std::string, uint64_t> jobs_done, jobs_failed, jobs_cancelled, partitions_proved,
      verification_failures, retries;
  std::map<std::string, double> device_busy_s;
  std::map<std::string, uint64_t> h2d_bytes;
};

struct Engine::Impl {
  Config config;
  EngineOptions options;
  std::unique_ptr<PluginRegistry> registry;
  std::unique_ptr<MemoryPool> pool;
  std::unique_ptr<ComputeBackend> compute;
  std::unique_ptr<MemoryBudget> budget;
  std::unique_ptr<ParamsCache> params_cache;
  TraceRecorder trace;
  JobMetrics job_metrics;  // histograms and failure counters (its own locking)
  mutable Mutex plan_mu;
  mutable std::string plan_text ZKP_GUARDED_BY(plan_mu);
  MemoryPlan memory_plan;    // as checked at start
  uint64_t startup_rss = 0;  // the process's RSS when the plan was first made
  mutable uint64_t plan_params_loads ZKP_GUARDED_BY(plan_mu) = 0;  // ParamsStats::loads seen
  PipelineShape shape;
  size_t compute_workers = 0;
  // The most one partition of any submitted job needed (its params, scratch and working set):
  // what the jobs' held requests leave free (MemoryBudget::reserve_keeping).
  std::atomic<uint64_t> largest_need{0};

  mutable Mutex mu;  // the tracker lock
  std::condition_variable synth_cv, compute_cv, final_cv, ended_cv;
  std::condition_variable event_cv;  // a job event was added
  // (ended_ns, job), oldest first.
  std::deque<std::pair<int64_t, uint64_t>> ended_order ZKP_GUARDED_BY(mu);
  std::map<uint64_t, std::shared_ptr<Job>> jobs ZKP_GUARDED_BY(mu);
  std::map<std::string, uint64_t> by_request_id ZKP_GUARDED_BY(mu);
  std::set<QueueKey> synth_queue ZKP_GUARDED_BY(mu);
  // Params work off the synthesis workers (params_work.cpp; issue 33 #2: a CRITICAL job waited
  // 118 s behind another circuit's params check on the only synthesis worker): a partition
  // whose circuit's params are not hot waits here, by circuit, while a thread of that circuit's
  // own makes, checks or loads them; then it goes back to synth_queue.
  std::map<std::string, std::set<QueueKey>> params_waiting ZKP_GUARDED_BY(mu);
  size_t params_loads ZKP_GUARDED_BY(mu) = 0;  // those threads running
  std::condition_variable params_cv;           // a params thread ended
  // Partitions holding their memory and being synthesized. One of a higher priority than every
  // ready partition is waited for by a compute worker rather than overtaken by them
  // (compute_loop); such a partition is also synthesized past the ready depth (synthesis_loop).
  std::set<QueueKey> synthesizing ZKP_GUARDED_BY(mu);
  size_t compute_held ZKP_GUARDED_BY(mu) = 0;  // compute workers waiting for one of them
  // Partitions in `synthesizing` of a higher priority than every ready one.
  size_t urgent_synthesizing() const ZKP_REQUIRES(mu);
  std::map<std::string, CircuitTimes> circuit_times ZKP_GUARDED_BY(mu);         // by circuit id
  std::map<QueueKey, std::unique_ptr<PartitionWork>> ready ZKP_GUARDED_BY(mu);  // synthesized
  // For the finalizers.
  std::map<QueueKey, std::unique_ptr<PartitionWork>> started ZKP_GUARDED_BY(mu);
  // Jobs every partition of which came proved.
  std::deque<std::shared_ptr<Job>> proved_at_submit ZKP_GUARDED_BY(mu);
  // For options.on_job_end, oldest first.
  std::deque<JobResult> ended_reports ZKP_GUARDED_BY(mu);
  std::condition_variable report_cv;  // an ended job to report, or stopping
  size_t synth_active ZKP_GUARDED_BY(mu) = 0;
  uint64_t next_job ZKP_GUARDED_BY(mu) = 1;
  bool accepting ZKP_GUARDED_BY(mu) = true;
  bool stopping ZKP_GUARDED_BY(mu) = false;
  bool paused ZKP_GUARDED_BY(mu) = false;
  // Compute workers whose device still takes work.
  size_t live_compute ZKP_GUARDED_BY(mu) = 0;
  Status no_compute ZKP_GUARDED_BY(mu);  // why none is left (then every job fails, submit refuses)
  std::map<std::string, std::string> worker_state ZKP_GUARDED_BY(mu);
  Counters counters ZKP_GUARDED_BY(mu);
  std::vector<std::thread> threads;

  mutable Mutex types_mu;  // plugin loading
  std::map<std::string, ProofTypePlugin> types ZKP_GUARDED_BY(types_mu);
  // The circuit ids of each loaded type's presets (ABI 1.8; none for older plugins), for
  // params_readiness.
  std::map<std::string, std::vector<std::string>> type_circuits ZKP_GUARDED_BY(types_mu);
  // Under params.missing: fail, UNAVAILABLE while a loaded proof type with presets has params for
  // none of them: every job of it would fail (issue 33 #5).
  Status params_readiness() const ZKP_EXCLUDES(types_mu);

  // params.preload (engine.cpp): made hot by one thread at start, off the workers; until then,
  // and when one failed, ready() says so.
  mutable Mutex preload_mu;
  std::vector<std::string> preload_pending ZKP_GUARDED_BY(preload_mu);
  std::map<std::string, std::string> preload_failed ZKP_GUARDED_BY(preload_mu);  // id -> why
  size_t preload_total = 0;
  std::atomic<bool> preload_stop{false};
  std::thread preloader;
  void start_preload();
  void preload_loop();
  Status preload_readiness() const ZKP_EXCLUDES(preload_mu);

  // In synthesis_loop: parks partition `key` of `job` when its circuit's params are not hot
  // (starting that circuit's params thread if none runs); false when they are hot.
  bool park_for_params(const std::shared_ptr<Job>& job, const QueueKey& key) ZKP_REQUIRES(mu);
  void params_loop(std::string circuit, std::shared_ptr<Job> job, std::shared_ptr<PluginJob> plugin,
                   int32_t label) ZKP_EXCLUDES(mu);

  // Start-up and shutdown (engine.cpp).
  std::string startup_prediction(const MemoryPlan& plan, const SystemInfo& info,
                                 uint64_t baseline) const;
  // plan_text, made again once params were loaded since it was made (a daemon that started
  // with no params in params.dir predicts from the circuits it has made or loaded since).
  std::string current_plan_text() const ZKP_EXCLUDES(plan_mu);
  // Sets `paused` and live_compute, then starts the workers. Not analysed: it writes those
  // guarded members without mu, which is sound only because no worker thread exists yet.
  void start_workers(bool start_paused) ZKP_NO_THREAD_SAFETY_ANALYSIS;
  void stop() ZKP_EXCLUDES(mu);

  // The proof types (proof_types.cpp): loaded once, kept for the engine's life.
  Result<ProofTypePlugin> proof_type(const std::string& name) ZKP_EXCLUDES(types_mu);
  Status load_proof_types(const std::vector<std::string>& names);  // create(): all when empty
  // How long a parse waits for its memory when the budget has no room at once (admission.cpp).
  static constexpr std::chrono::seconds kParseWait{10};

  // Admission (admission.cpp). check(), plan() and submit() share parse(): the request parsed by
  // its plugin, not queued.
  Result<ProofTypeJob> parse(const JobRequest& request, const std::string& what);
  Result<Submitted> check(const JobRequest& request);                      // Engine::check
  Result<MemoryPrediction> plan(const JobRequest& sample, uint64_t jobs);  // Engine::plan
  Result<MemoryPrediction> plan_preset(const std::string& proof_type, const std::string& preset,
                                       uint64_t jobs);
  // Engine::submit_job, inside guarded(), in the steps below.
  Result<Submitted> submit(JobRequest request);
  // Takes mu: refused while draining or with no compute; a known request id attaches.
  Result<Submitted> admit(const JobRequest& request, const std::string& what,
                          const Sha256Digest& hash) ZKP_EXCLUDES(mu);
  Result<std::shared_ptr<Job>> make_job(const JobRequest& request, const std::string& what,
                                        const Sha256Digest& hash, ProofTypeJob parsed);
  // Refuses a job one partition of which can never fit, else reserves its parsed request.
  Status hold_request(Job& job, uint64_t input_bytes);
  // An earlier attempt's proofs (JobRequest::proved) taken where they decode.
  static void take_checkpoints(Job& job, const std::map<uint32_t, std::vector<uint8_t>>& proved);
  // Takes mu: queues the job's unproved partitions.
  Result<Submitted> enqueue(std::shared_ptr<Job> job, const JobRequest& request) ZKP_EXCLUDES(mu);
  Result<Submitted> attach(const std::string& request_id, const std::string& type,
                           const std::array<uint8_t, 32>& hash) ZKP_REQUIRES(mu);
  // The priority and deadline of a request (deadlines.cpp): its own, else config
  // scheduling.defaults, else the plugin's (ABI 1.3), else normal and none.
  void resolve_schedule(const JobRequest& request, const ProofTypePlugin& type, Priority& priority,
                        std::optional<std::chrono::steady_clock::time_point>& deadline) const;
  // Estimates when the job ends from the measured times of the partitions ahead of it and its
  // own; when that is past its deadline, marks it at risk and says so once in `later`.
  void check_deadline(Job& job, Deferred& later) ZKP_REQUIRES(mu);
  // Keeps a circuit's times in params.dir/<circuit>.times for `zkpipe plan` (a failure is
  // logged at debug: the times are a convenience). Call without mu.
  void keep_measured_times(const std::string& circuit_id, const CircuitTimes& t);

  // Events, retention, queue places (events.cpp).
  uint32_t queue_position(const Job& job) const ZKP_REQUIRES(mu);
  // Records an event of the job (position: the partition's, in the request) and wakes its
  // watchers.
  void emit(Job& job, EventKind kind, uint32_t position, std::string device = {}) ZKP_REQUIRES(mu);
  void forget_expired() ZKP_REQUIRES(mu);  // drops ended jobs past options.retain

  // The workers: synthesis.cpp, compute_worker.cpp, finalize.cpp; shared parts in workers.cpp.
  void synthesis_loop(size_t worker) ZKP_EXCLUDES(mu);
  Result<std::unique_ptr<PartitionWork>> synthesize(const std::shared_ptr<Job>& job,
                                                    std::shared_ptr<PluginJob> plugin,
                                                    uint32_t partition, const std::string& track)
      ZKP_EXCLUDES(mu);
  void compute_loop(size_t device, size_t worker) ZKP_EXCLUDES(mu);
  // The worker's device no longer takes work (quarantined): its state and the warning; when it
  // was the last one, every unfinished job fails (into `later`, flushed by the caller without mu).
  void retire_compute_worker(const std::string& track, const Status& health, Deferred& later)
      ZKP_REQUIRES(mu);
  void finalizer_loop(size_t worker) ZKP_EXCLUDES(mu);
  void finalize_job(const std::shared_ptr<Job>& job, const std::string& track) ZKP_EXCLUDES(mu);
  // Calls options.on_job_end outside mu; drains before it exits.
  void reporter_loop() ZKP_EXCLUDES(mu);
  Result<Buffer> allocate(uint64_t bytes);
  // Locks `lock` again (a UniqueLock of mu, unlocked), adding how long that took to *wait_ms.
  void lock_timed(UniqueLock& lock, double* wait_ms) ZKP_ACQUIRE(mu);

  // A job's end (job_end.cpp). A failed step of a partition, retried when allowed, else the job
  // ends.
  void fail_partition(Job& job, uint32_t partition, const Status& status, bool retryable,
                      Deferred& later) ZKP_REQUIRES(mu);
  // Ends a job (done, failed or cancelled), takes its queued work out, tells waiters.
  void end_job(Job& job, JobState state, Status status, Deferred& later) ZKP_REQUIRES(mu);
  // Engine::cancel (no failure: cancelled) and Engine::abandon (failed with `failure`).
  Status stop_job(uint64_t id, bool* was_running, std::optional<Status> failure) ZKP_EXCLUDES(mu);

  // Reports (report.cpp).
  void log_gpu_timing(const PartitionWork& w) const;
  void log_fin_timing(const PartitionWork& w) const;
  void log_job_timing(const JobResult& r, double trim_ms) const;
  nlohmann::json status_json() const ZKP_EXCLUDES(mu);
  std::string metrics_text() const ZKP_EXCLUDES(mu);
  // The devices with device memory and what their backend says of it (not under mu: the
  // plugin asks its driver).
  std::vector<std::pair<std::string, DeviceMemoryStatus>> memory_of_devices() const
      ZKP_EXCLUDES(mu);
};

bool ended(const Job& job);
// Its deadline passed (steady clock `now_ns`) and it has not ended: at risk whatever the
// estimate says (issue 33 #2: status said not at risk 61 s past a deadline).
bool deadline_passed(const Job& job, int64_t now_ns);
// It had a deadline and ended after it, or ended DEADLINE_EXCEEDED.
bool deadline_missed(const Job& job);
double ms_between(int64_t from_ns, int64_t to_ns);

inline constexpr size_t kFrBytes = sizeof(groth16::Fr);
// Waits shorter than this are not drawn as spans (they would only clutter the trace).
inline constexpr int64_t kMinWaitSpanNs = 1'000'000;
// "job 3 (req.bin) partition 7": a partition by its index in its sector, in messages and logs.
// "job 6 (request r)" / "job 6 (request r) partition 0": the job's id once, then its name.
std::string job_name(const Job& job);
std::string part_name(const Job& job, uint32_t p);
// The witness buffer of a synthesized partition as the prover reads it.
groth16::WitnessView witness_view(const PartitionWork& w);

}  // namespace zkpipe::pipeline
