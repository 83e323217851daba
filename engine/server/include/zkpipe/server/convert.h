// zkpipe/server/convert.h: the engine's values as the RPC API's messages and back, one file for
// both ends: the service (engine/server/server) fills messages with the *_to_proto functions, the
// client commands (apps/zkpipe) read them back with the *_from_proto ones, which check what a
// server sent (every field they refuse is named). Priorities and states need no table: the
// proto's numbers are the engine's (zkpipe/pipeline/priority.h, zkpipe/job_state.h).
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "zkpipe/job_state.h"
#include "zkpipe/pipeline/engine.h"
#include "zkpipe/pipeline/priority.h"
#include "zkpipe/sdk/status.h"
#include "zkpipe/v1/proving_engine.pb.h"

namespace zkpipe::server {

// UNSPECIFIED is normal; nullopt for a number that is no Priority.
std::optional<pipeline::Priority> priority_from_proto(v1::Priority p);
v1::Priority priority_to_proto(pipeline::Priority p);
v1::JobState state_to_proto(JobState s);
// nullopt for UNSPECIFIED and numbers that are no JobState.
std::optional<JobState> state_from_proto(int32_t s);

void timings_to_proto(const pipeline::PartitionTiming& t, v1::StepTimings* out);
pipeline::PartitionTiming timings_from_proto(const v1::StepTimings& t);  // lock_wait: 0

void result_to_proto(const pipeline::JobResult& r, v1::ProofResult* out);
// An ended job's result as a server sent it, checked: an ended state, a gRPC status code that
// agrees with it, distinct partition indices, 32-byte canonical public inputs, and for DONE a
// proof of 192 bytes per partition. INTERNAL naming the field otherwise.
Result<pipeline::JobResult> result_from_proto(const v1::ProofResult& r);

// "DONE" for JOB_STATE_DONE, "STATE_9" for a number that is none; "NOT_FOUND" for gRPC code 5,
// "CODE_99" for a number that is none.
std::string job_state_text(int state);
std::string grpc_code_text(int32_t code);

}  // namespace zkpipe::server
