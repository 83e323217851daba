// engine/server/client/convert.cpp: the engine's values as messages and back
// (zkpipe/server/convert.h), shared by the service and the client commands.
#include "zkpipe/server/convert.h"

#include <fmt/core.h>

#include <set>
#include <string_view>
#include <vector>

#include "zkpipe/groth16/prover.h"
#include "zkpipe/server/client.h"

namespace zkpipe::server {

// Priorities and states have one numbering across the layers (zkpipe/pipeline/priority.h,
// zkpipe/job_state.h): the proto's values are the engine's.
std::optional<pipeline::Priority> priority_from_proto(v1::Priority p) {
  if (p == v1::PRIORITY_UNSPECIFIED) return pipeline::Priority::kNormal;
  return pipeline::priority_from_int(p);
}

v1::Priority priority_to_proto(pipeline::Priority p) {
  return static_cast<v1::Priority>(p);
}

v1::JobState state_to_proto(JobState s) {
  return static_cast<v1::JobState>(s);
}

std::optional<JobState> state_from_proto(int32_t s) {
  return job_state_from_int(s);
}

void timings_to_proto(const pipeline::PartitionTiming& t, v1::StepTimings* out) {
  out->set_queue_wait_ms(t.queue_wait);
  out->set_srs_wait_ms(t.srs_wait);
  out->set_reserve_wait_ms(t.reserve_wait);
  out->set_synthesis_ms(t.synthesis);
  out->set_ready_wait_ms(t.ready_wait);
  out->set_h2d_ms(t.h2d);
  out->set_ntt_ms(t.ntt);
  out->set_msm_ms(t.msm);
  out->set_prove_start_ms(t.prove_start);
  out->set_prove_finish_ms(t.prove_finish);
  out->set_verify_ms(t.verify);
  out->set_attempts(t.attempts);
  out->set_device(t.device);
  out->set_h2d_bytes(t.h2d_bytes);
  out->set_h2d_path(t.h2d_path);
}

pipeline::PartitionTiming timings_from_proto(const v1::StepTimings& t) {
  pipeline::PartitionTiming p;
  p.queue_wait = t.queue_wait_ms();
  p.srs_wait = t.srs_wait_ms();
  p.reserve_wait = t.reserve_wait_ms();
  p.synthesis = t.synthesis_ms();
  p.ready_wait = t.ready_wait_ms();
  p.h2d = t.h2d_ms();
  p.ntt = t.ntt_ms();
  p.msm = t.msm_ms();
  p.prove_start = t.prove_start_ms();
  p.prove_finish = t.prove_finish_ms();
  p.verify = t.verify_ms();
  p.attempts = t.attempts();
  p.device = t.device();
  p.h2d_bytes = t.h2d_bytes();
  p.h2d_path = t.h2d_path();
  return p;  // lock_wait is not part of the API: 0
}

void result_to_proto(const pipeline::JobResult& r, v1::ProofResult* out) {
  out->set_job_id(r.job);
  out->set_request_id(r.request_id);
  out->set_proof_type(r.proof_type);
  out->set_circuit_id(r.circuit_id);
  out->set_state(state_to_proto(r.state));
  const grpc::Status s = to_grpc(r.status);
  out->set_status_code(static_cast<int32_t>(s.error_code()));
  out->set_status_message(r.status.message());
  if (r.state == pipeline::JobState::kDone) {
    out->set_proof(std::string(r.proof.begin(), r.proof.end()));
  }
  for (size_t p = 0; p < r.partitions.size(); ++p) {
    v1::PartitionResult* part = out->add_partitions();
    part->set_index(p < r.partition_indices.size() ? r.partition_indices[p]
                                                   : static_cast<uint32_t>(p));
    if (p < r.public_inputs.size()) {
      for (const groth16::Fr& x : r.public_inputs[p]) {
        std::string bytes(32, '\0');
        x.to_bytes_be(reinterpret_cast<uint8_t*>(bytes.data()));
        part->add_public_inputs(std::move(bytes));
      }
    }
    timings_to_proto(r.partitions[p], part->mutable_timings());
  }
  out->set_wall_ms(r.wall_ms);
  out->set_verify_ms(r.verify_ms);
  out->set_finalize_ms(r.finalize_ms);
}

std::string grpc_code_text(int32_t code) {
  if (code < 0 || code > 16) return fmt::format("CODE_{}", code);
  return std::string(grpc_code_name(static_cast<grpc::StatusCode>(code)));
}

std::string job_state_text(int state) {
  if (!v1::JobState_IsValid(state)) return fmt::format("STATE_{}", state);
  const std::string& name = v1::JobState_Name(static_cast<v1::JobState>(state));
  constexpr std::string_view kPrefix = "JOB_STATE_";
  return name.rfind(kPrefix, 0) == 0 ? name.substr(kPrefix.size()) : name;
}

Result<pipeline::JobResult> result_from_proto(const v1::ProofResult& r) {
  pipeline::JobResult j;
  j.job = r.job_id();
  j.request_id = r.request_id();
  j.proof_type = r.proof_type();
  j.circuit_id = r.circuit_id();
  const std::string job = fmt::format("job {}", r.job_id());
  switch (r.state()) {
    case v1::JOB_STATE_DONE:
      j.state = pipeline::JobState::kDone;
      break;
    case v1::JOB_STATE_FAILED:
      j.state = pipeline::JobState::kFailed;
      break;
    case v1::JOB_STATE_CANCELLED:
      j.state = pipeline::JobState::kCancelled;
      break;
    default:
      return internal_error(fmt::format("ProofResult.state of {}: {} is not an ended job's", job,
                                        job_state_text(r.state())));
  }
  if (r.status_code() < 0 || r.status_code() > 16) {
    return internal_error(
        fmt::format("ProofResult.status_code of {}: {} is not a gRPC code", job, r.status_code()));
  }
  j.status =
      from_grpc(grpc::Status(static_cast<grpc::StatusCode>(r.status_code()), r.status_message()));
  if (j.state == pipeline::JobState::kDone && !j.status.ok()) {
    return internal_error(fmt::format("ProofResult.status_code of {}: {} with state DONE", job,
                                      grpc_code_text(r.status_code())));
  }
  if (j.state == pipeline::JobState::kCancelled && j.status.ok()) {
    j.status = aborted(r.status_message().empty() ? job + " cancelled" : r.status_message());
  } else if (j.state == pipeline::JobState::kFailed && j.status.ok()) {
    j.status = internal_error(job + " FAILED with status_code 0: " + r.status_message());
  }
  std::set<uint32_t> seen;
  for (int p = 0; p < r.partitions_size(); ++p) {
    const v1::PartitionResult& part = r.partitions(p);
    if (!seen.insert(part.index()).second) {
      return internal_error(
          fmt::format("ProofResult.partitions[{}].index of {}: {} twice", p, job, part.index()));
    }
    j.partition_indices.push_back(part.index());
    std::vector<groth16::Fr>& inputs = j.public_inputs.emplace_back();
    for (int k = 0; k < part.public_inputs_size(); ++k) {
      const std::string& bytes = part.public_inputs(k);
      const std::string field = fmt::format("ProofResult.partitions[{}].public_inputs[{}]", p, k);
      if (bytes.size() != groth16::Fr::kBytes) {
        return internal_error(fmt::format("{} of {}: {} bytes, not {}", field, job, bytes.size(),
                                          groth16::Fr::kBytes));
      }
      Result<groth16::Fr> v =
          groth16::Fr::from_bytes_be(reinterpret_cast<const uint8_t*>(bytes.data()));
      if (!v.ok()) {
        return internal_error(fmt::format("{} of {}: {}", field, job, v.status().message()));
      }
      inputs.push_back(*v);
    }
    j.partitions.push_back(timings_from_proto(part.timings()));
  }
  if (j.state == pipeline::JobState::kDone) {
    const size_t want = j.partitions.size() * groth16::kProofBytes;
    if (j.partitions.empty()) return internal_error("ProofResult.partitions of " + job + ": none");
    if (r.proof().size() != want) {
      return internal_error(
          fmt::format("ProofResult.proof of {}: {} bytes, not {} partition(s) x {}", job,
                      r.proof().size(), j.partitions.size(), groth16::kProofBytes));
    }
    j.proof.assign(r.proof().begin(), r.proof().end());
  }
  j.wall_ms = r.wall_ms();
  j.verify_ms = r.verify_ms();
  j.finalize_ms = r.finalize_ms();
  return j;
}

}  // namespace zkpipe::server
