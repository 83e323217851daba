// zkpipe/proof_type_job.h: a request parsed by its proof-type plugin, as the engine uses it: the
// C++ side of zkpipe/sdk/abi/proof_type.h's job calls (parse, info, partition_index, synthesize,
// public_inputs, record), every plugin status turned into a Status naming the request, the job's
// info checked (its circuit id by valid_circuit_id, its counts), and the plugin's job destroyed
// by that plugin when the ProofTypeJob goes. No zkp_* type or message buffer leaves this file.
// Thread-safety: a ProofTypeJob is immutable after parse; its calls are thread-safe (the ABI
// makes a parsed job's calls reentrant). Move-only.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "zkpipe/groth16/r1cs.h"
#include "zkpipe/proof_type.h"

namespace zkpipe {

// zkp_job_info, checked: partitions >= 1, num_inputs >= 1 (the one), a valid circuit id.

class ProofTypeJob {
 public:
  // Parses `input` with `type` (`what` names the request in messages, and the plugin gets it)
  // and reads its info. A plugin's refusal keeps its code and message; an info that breaks the
  // ABI (a bad circuit id, no partitions, no inputs) is INTERNAL naming the plugin.
  static Result<ProofTypeJob> parse(const ProofTypePlugin& type, std::span<const uint8_t> input,
                                    const std::string& what);

  ProofTypeJob(ProofTypeJob&& other) noexcept;
  ProofTypeJob& operator=(ProofTypeJob&& other) noexcept;
  ProofTypeJob(const ProofTypeJob&) = delete;
  ProofTypeJob& operator=(const ProofTypeJob&) = delete;
  ~ProofTypeJob();  // the plugin's destroy_job

  const JobInfo& info() const { return info_; }
  const ProofTypePlugin& type() const { return type_; }

  // The index in its sector of each partition, by position (partition_index, ABI 1.1; else the
  // positions). A repeated index is the plugin's fault: INTERNAL naming it.
  Result<std::vector<uint32_t>> partition_indices() const;
  // Witness-only synthesis of partition `position` into `inputs` (num_inputs values, the one
  // first) and `aux` (num_aux values). `what` names the partition in messages.
  Status synthesize(uint32_t position, std::span<groth16::Fr> inputs, std::span<groth16::Fr> aux,
                    const std::string& what) const;
  // The public inputs a verifier derives for partition `position` (num_inputs - 1 values).
  Result<std::vector<groth16::Fr>> public_inputs(uint32_t position, const std::string& what) const;
  // The circuit as the plugin records it, copied out and checked.
  Result<groth16::R1cs> record() const;

 private:
  ProofTypeJob(ProofTypePlugin type, std::string what, zkp_job* handle)
      : type_(std::move(type)), what_(std::move(what)), handle_(handle) {}

  ProofTypePlugin type_;
  std::string what_;  // the request, in messages
  zkp_job* handle_ = nullptr;
  JobInfo info_;
};

}  // namespace zkpipe
