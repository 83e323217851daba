// ProofTypeJob (zkpipe/proof_type_job.h): the engine's calls into a proof-type plugin's job.
#include "zkpipe/proof_type_job.h"

#include <cstring>
#include <utility>

#include "zkpipe/sdk/circuit_id.h"

namespace zkpipe {

Result<ProofTypeJob> ProofTypeJob::parse(const ProofTypePlugin& type,
                                         std::span<const uint8_t> input, const std::string& what) {
  const zkp_proof_type* t = type.table();
  char message[ZKP_ERROR_CAPACITY] = "";
  zkp_job* handle = nullptr;
  const zkp_status rc =
      t->parse(input.data(), input.size(), what.c_str(), &handle, {message, sizeof message});
  ProofTypeJob job(type, what, handle);  // destroys what the plugin made, whatever follows
  ZKP_RETURN_IF_ERROR(status_from_plugin(rc, what, message));
  if (handle == nullptr) {
    return internal_error(what + ": proof type '" + type.name() +
                          "': parse returned OK without a job");
  }
  zkp_job_info info{};
  info.struct_size = sizeof info;
  // Each call's status is read before its message (the message is written by the call).
  const zkp_status info_rc = t->info(handle, &info, {message, sizeof message});
  ZKP_RETURN_IF_ERROR(status_from_plugin(info_rc, what, message));
  const std::string plugin = "proof type '" + type.name() + "'";
  if (std::memchr(info.circuit_id, '\0', sizeof info.circuit_id) == nullptr) {
    return internal_error(what + ": " + plugin + ": info: the circuit id is not NUL-terminated");
  }
  job.info_.circuit_id = info.circuit_id;
  if (Status bad = check_circuit_id(job.info_.circuit_id, what + ": " + plugin + ": info");
      !bad.ok()) {
    return internal_error(bad.message());
  }
  if (info.partitions == 0) return internal_error(what + ": " + plugin + ": info: 0 partitions");
  if (info.num_inputs == 0) {
    return internal_error(what + ": " + plugin + ": info: 0 inputs (the constant one counts)");
  }
  job.info_.partitions = info.partitions;
  job.info_.num_inputs = info.num_inputs;
  job.info_.num_aux = info.num_aux;
  job.info_.num_constraints = info.num_constraints;
  return job;
}

ProofTypeJob::ProofTypeJob(ProofTypeJob&& other) noexcept
    : type_(std::move(other.type_)),
      what_(std::move(other.what_)),
      handle_(std::exchange(other.handle_, nullptr)),
      info_(std::move(other.info_)) {}

ProofTypeJob& ProofTypeJob::operator=(ProofTypeJob&& other) noexcept {
  if (this != &other) {
    if (handle_ != nullptr) type_.table()->destroy_job(handle_);
    type_ = std::move(other.type_);
    what_ = std::move(other.what_);
    handle_ = std::exchange(other.handle_, nullptr);
    info_ = std::move(other.info_);
  }
  return *this;
}

ProofTypeJob::~ProofTypeJob() {
  if (handle_ != nullptr) type_.table()->destroy_job(handle_);
}

Result<std::vector<uint32_t>> ProofTypeJob::partition_indices() const {
  return zkpipe::partition_indices(type_.table(), handle_, info_.partitions, what_);
}

Status ProofTypeJob::synthesize(uint32_t position, std::span<groth16::Fr> inputs,
                                std::span<groth16::Fr> aux, const std::string& what) const {
  static_assert(sizeof(zkp_fr) == sizeof(groth16::Fr));
  if (inputs.size() != info_.num_inputs || aux.size() != info_.num_aux) {
    return internal_error(what + ": synthesize: buffers of " + std::to_string(inputs.size()) +
                          " inputs and " + std::to_string(aux.size()) + " aux for a circuit of " +
                          std::to_string(info_.num_inputs) + " and " +
                          std::to_string(info_.num_aux));
  }
  char message[ZKP_ERROR_CAPACITY] = "";
  const zkp_status rc = type_.table()->synthesize(
      handle_, position, reinterpret_cast<zkp_fr*>(inputs.data()), inputs.size(),
      reinterpret_cast<zkp_fr*>(aux.data()), aux.size(), {message, sizeof message});
  return status_from_plugin(rc, what + ": synthesize", message);
}

Result<std::vector<groth16::Fr>> ProofTypeJob::public_inputs(uint32_t position,
                                                             const std::string& what) const {
  std::vector<groth16::Fr> out(info_.num_inputs - 1);
  char message[ZKP_ERROR_CAPACITY] = "";
  const zkp_status rc =
      type_.table()->public_inputs(handle_, position, reinterpret_cast<zkp_fr*>(out.data()),
                                   out.size(), {message, sizeof message});
  ZKP_RETURN_IF_ERROR(status_from_plugin(rc, what + ": public inputs", message));
  return out;
}

Result<groth16::R1cs> ProofTypeJob::record() const {
  return record_r1cs(type_.table(), handle_, "proof type " + type_.name());
}

}  // namespace zkpipe
