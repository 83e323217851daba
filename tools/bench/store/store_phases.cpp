// store_phases.cpp: see store_phases.h.
#include "store_phases.h"

#include <fmt/core.h>
#include <unistd.h>

#include <optional>
#include <random>
#include <unordered_map>

namespace zkpipe::bench {

Result<SubmitPhase> submit_all(store::JobStore& store, uint32_t jobs, uint64_t input_bytes) {
  SubmitPhase phase;
  std::mt19937_64 rng(0x5eed);
  store::NewJob job;
  job.proof_type = kProofType;
  job.circuit_id = "bench-circuit";
  job.partitions = 1;
  job.input.resize(input_bytes);
  const std::string prefix = fmt::format("bench-{}-", ::getpid());
  const Clock::time_point start = Clock::now();
  for (uint32_t i = 0; i < jobs; ++i) {
    job.request_id = prefix + std::to_string(i);
    for (uint8_t& b : job.input) b = static_cast<uint8_t>(rng());
    const Clock::time_point t0 = Clock::now();
    Result<store::Submitted> submitted = store.submit(job);
    const Clock::time_point t1 = Clock::now();
    const std::string where = fmt::format("submit {} of {}", i + 1, jobs);
    if (!submitted.ok()) return submitted.status().with_context(where);
    if (submitted->attached) return internal_error(where + ": attached to a stored job");
    phase.ids.push_back(submitted->id);
    phase.ms.push_back(ms_between(t0, t1));
  }
  phase.wall_s = ms_between(start, Clock::now()) / 1e3;
  return phase;
}

void work(store::JobStore& store, const std::string& name, uint32_t jobs,
          Clock::time_point deadline, std::atomic<uint32_t>& total, WorkerRun& run) {
  store::ClaimFilter filter;
  filter.proof_types = {kProofType};
  filter.max_jobs = 1;
  const std::vector<uint8_t> result(kResultBytes, 0x5a);
  while (Clock::now() < deadline && total.load() < jobs) {
    Clock::time_point t0 = Clock::now();
    Result<std::vector<store::Claimed>> claimed = store.claim(name, filter);
    Clock::time_point t1 = Clock::now();
    if (!claimed.ok()) {
      run.error = claimed.status().with_context(name + ": claim");
      return;
    }
    if (claimed->empty()) return;
    run.claim_ms.push_back(ms_between(t0, t1));
    total += static_cast<uint32_t>(claimed->size());
    for (const store::Claimed& c : *claimed) {
      run.claimed_ids.push_back(c.id);
      t0 = Clock::now();
      Result<bool> done = store.complete(c.id, c.fence, result);
      t1 = Clock::now();
      if (!done.ok()) {
        run.error = done.status().with_context(fmt::format("{}: complete job {}", name, c.id));
        return;
      }
      run.complete_ms.push_back(ms_between(t0, t1));
      if (!*done) ++run.fence_lost;
    }
  }
}

Result<Check> check_all(store::JobStore& store, const std::vector<uint64_t>& ids,
                        const std::vector<WorkerRun>& runs) {
  std::unordered_map<uint64_t, uint32_t> claims;
  for (uint64_t id : ids) claims[id] = 0;
  Check check;
  for (const WorkerRun& run : runs) {
    for (uint64_t id : run.claimed_ids) {
      auto it = claims.find(id);
      if (it == claims.end()) {
        ++check.unknown_claims;
      } else {
        ++it->second;
      }
    }
  }
  for (uint64_t id : ids) {
    ZKP_ASSIGN_OR_RETURN(std::optional<store::JobRecord> record, store.get(id, false));
    const bool done = record && record->state == store::JobState::kDone;
    const bool once = record && record->completions == 1;
    const bool claimed_once = claims[id] == 1;
    check.not_done += !done;
    check.completions_not_one += !once;
    check.claims_not_one += !claimed_once;
    check.good += done && once && claimed_once;
  }
  return check;
}

}  // namespace zkpipe::bench
