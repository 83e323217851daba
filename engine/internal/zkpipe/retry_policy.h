// zkpipe/retry_policy.h: which failures are tried again, and where. Two policies, side by side so
// they differ only on purpose:
//   kRetryInEngine   a partition's step again in the same engine (pipeline.retries): a fault of
//                    the device, the memory or a plugin (INTERNAL, UNAVAILABLE,
//                    RESOURCE_EXHAUSTED; a proof that did not verify is INTERNAL).
//   kRetryFromStore  a job given back to the job store for another attempt, on any prover
//                    (store.max_attempts): the same, and FAILED_PRECONDITION (what this prover
//                    could not do, e.g. params larger than its budget, another one may).
// Bad input (INVALID_ARGUMENT), missing files (NOT_FOUND), cancellation (ABORTED) and deadlines
// (DEADLINE_EXCEEDED) are never tried again. Thread-safety: pure functions.
#pragma once

#include "zkpipe/sdk/status.h"

namespace zkpipe {

enum class RetryPolicy { kRetryInEngine, kRetryFromStore };

inline constexpr bool retryable(RetryPolicy policy, Code code) {
  switch (code) {
    case Code::kInternal:
    case Code::kUnavailable:
    case Code::kResourceExhausted:
      return true;
    case Code::kFailedPrecondition:
      return policy == RetryPolicy::kRetryFromStore;
    default:
      return false;
  }
}

}  // namespace zkpipe
