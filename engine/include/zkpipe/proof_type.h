// zkpipe/proof_type.h: the engine's side of a proof-type plugin (abi/proof_type.h): a plugin's
// status as a Status, and the R1CS a plugin recorded, copied out of its view and checked.
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "zkpipe/abi/proof_type.h"
#include "zkpipe/groth16/r1cs.h"

namespace zkpipe {

// Copies the view (the plugin keeps its storage until destroy_r1cs) and validates the matrices;
// `what` names the plugin in messages.
inline Result<groth16::R1cs> r1cs_from_view(const zkp_r1cs_view& view, const std::string& what) {
  static_assert(sizeof(zkp_fr) == sizeof(crypto::Fr));
  groth16::R1cs r;
  r.num_inputs = view.num_inputs;
  r.num_aux = view.num_aux;
  auto copy = [&](groth16::SparseMatrix& m, const zkp_sparse_matrix& s) {
    m.row_begin.assign(s.row_begin, s.row_begin + view.num_constraints + 1);
    m.column.assign(s.column, s.column + s.terms);
    const auto* values = reinterpret_cast<const crypto::Fr*>(s.value);
    m.value.assign(values, values + s.terms);
  };
  copy(r.a, view.a);
  copy(r.b, view.b);
  copy(r.c, view.c);
  ZKP_RETURN_IF_ERROR(r.validate(what + ": the recorded R1CS"));
  return r;
}

// Room for a plugin's error message.
inline constexpr size_t kPluginMessageBytes = 4096;

// A plugin call's status and message as a Status, prefixed with `what`.
inline Status plugin_status(zkp_status rc, const char* message, const std::string& what) {
  if (rc == ZKP_OK) return ok_status();
  return Status(static_cast<Code>(rc), what + ": " + message);
}

// The index in its sector of each of the `partitions` partitions of `job`, by position: through
// partition_index when the descriptor has it (ABI 1.1), else the positions. A repeated index is
// the plugin's fault (INTERNAL naming it).
inline Result<std::vector<uint32_t>> partition_indices(const zkp_proof_type* type,
                                                       const zkp_job* job, uint32_t partitions,
                                                       const std::string& what) {
  std::vector<uint32_t> out(partitions);
  const bool has = type->header.struct_size >=
                       offsetof(zkp_proof_type, partition_index) + sizeof type->partition_index &&
                   type->partition_index != nullptr;
  std::set<uint32_t> seen;
  for (uint32_t p = 0; p < partitions; ++p) {
    out[p] = p;
    if (!has) continue;
    char message[kPluginMessageBytes] = "";
    ZKP_RETURN_IF_ERROR(
        plugin_status(type->partition_index(job, p, &out[p], {message, sizeof message}), message,
                      what + ": partition_index"));
    if (!seen.insert(out[p]).second) {
      return internal_error(what + ": partition_index: the plugin gives sector index " +
                            std::to_string(out[p]) + " to two partitions of one request");
    }
  }
  return out;
}

// Records the circuit of `job` through its plugin and copies it out (record + destroy_r1cs).
inline Result<groth16::R1cs> record_r1cs(const zkp_proof_type* type, const zkp_job* job,
                                         const std::string& what) {
  char message[kPluginMessageBytes] = "";
  zkp_r1cs* handle = nullptr;
  zkp_r1cs_view view{};
  view.struct_size = sizeof view;
  ZKP_RETURN_IF_ERROR(plugin_status(type->record(job, &handle, &view, {message, sizeof message}),
                                    message, what + ": record"));
  Result<groth16::R1cs> r = r1cs_from_view(view, what);
  type->destroy_r1cs(handle);
  return r;
}

}  // namespace zkpipe
