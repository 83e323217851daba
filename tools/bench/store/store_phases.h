// store_phases.h: what zkpipe-bench-store times: durable submits one after another, a worker's
// claim-one-then-complete loop, and the exactly-once check that follows them.
// Thread-safety: each function uses only its arguments; run one `work` per thread, each with its
// own store and WorkerRun (they share only the atomic claim count).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "zkpipe/sdk/status.h"
#include "zkpipe/store/job_store.h"

namespace zkpipe::bench {

using Clock = std::chrono::steady_clock;

inline constexpr const char* kProofType = "bench";
inline constexpr size_t kResultBytes = 200;

inline double ms_between(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

struct SubmitPhase {
  std::vector<uint64_t> ids;
  std::vector<double> ms;  // each submit's wall time, in order
  double wall_s = 0;
};

// `jobs` jobs of `input_bytes` random bytes (seeded; every input differs) and distinct request
// ids. Any error, or a submit that attached to a stored job, ends it.
Result<SubmitPhase> submit_all(store::JobStore& store, uint32_t jobs, uint64_t input_bytes);

struct WorkerRun {
  std::vector<double> claim_ms, complete_ms;  // claims that found a job; every complete
  std::vector<uint64_t> claimed_ids;
  uint64_t fence_lost = 0;  // complete() answered false
  Status error;             // the call that stopped it
};

// As `name`: claims one job at a time and completes it with a kResultBytes result, until a claim
// finds none, `total` (claims of all workers) reaches `jobs`, `deadline` passes or a call fails.
void work(store::JobStore& store, const std::string& name, uint32_t jobs,
          Clock::time_point deadline, std::atomic<uint32_t>& total, WorkerRun& run);

// Every submitted job read back: done, one completion, claimed once by the workers.
struct Check {
  size_t good = 0, not_done = 0, completions_not_one = 0, claims_not_one = 0, unknown_claims = 0;
  bool exactly_once() const {
    return not_done == 0 && completions_not_one == 0 && claims_not_one == 0 && unknown_claims == 0;
  }
};

Result<Check> check_all(store::JobStore& store, const std::vector<uint64_t>& ids,
                        const std::vector<WorkerRun>& runs);

}  // namespace zkpipe::bench
