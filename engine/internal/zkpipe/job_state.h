// zkpipe/job_state.h: the states of a job, numbered once for every layer: the pipeline, the job
// stores (their `state` column holds the name), the RPC API (v1::JobState has the same numbers)
// and the metrics; one name function. Priorities are numbered the same way across layers in
// zkpipe/pipeline/priority.h. Thread-safety: pure values and functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace zkpipe {

// The values of v1::JobState (JOB_STATE_QUEUED = 1 .. JOB_STATE_CANCELLED = 5); 0 is no state.
enum class JobState : uint8_t { kQueued = 1, kRunning = 2, kDone = 3, kFailed = 4, kCancelled = 5 };

inline constexpr JobState kJobStates[] = {JobState::kQueued, JobState::kRunning, JobState::kDone,
                                          JobState::kFailed, JobState::kCancelled};

// "queued", "running", "done", "failed", "cancelled": logs, status JSON, stores, metrics.
inline constexpr std::string_view job_state_name(JobState state) {
  switch (state) {
    case JobState::kQueued:
      return "queued";
    case JobState::kRunning:
      return "running";
    case JobState::kDone:
      return "done";
    case JobState::kFailed:
      return "failed";
    case JobState::kCancelled:
      return "cancelled";
  }
  return "unknown";
}

// Done, failed or cancelled.
inline constexpr bool is_final(JobState state) {
  return state == JobState::kDone || state == JobState::kFailed || state == JobState::kCancelled;
}

inline constexpr std::optional<JobState> job_state_from_name(std::string_view name) {
  for (const JobState s : kJobStates) {
    if (job_state_name(s) == name) return s;
  }
  return std::nullopt;
}

// A state number from outside (an RPC value, a stored number); nullopt outside 1..5.
inline constexpr std::optional<JobState> job_state_from_int(int value) {
  if (value < 1 || value > 5) return std::nullopt;
  return static_cast<JobState>(value);
}

namespace pipeline {
using zkpipe::is_final;
using zkpipe::job_state_name;
using zkpipe::JobState;
}  // namespace pipeline

namespace store {
using zkpipe::is_final;
using zkpipe::job_state_from_name;
using zkpipe::job_state_name;
using zkpipe::JobState;
}  // namespace store

}  // namespace zkpipe
