// zkpipe/proof_type.h: the engine's side of a proof-type plugin (zkpipe/sdk/abi/proof_type.h): a
// plugin's status as a Status, the R1CS a plugin recorded, copied out of its view and checked, and
// ProofTypePlugin, a loaded descriptor with its presets and sample requests (ABI 1.2).
// Thread-safety: pure functions; a ProofTypePlugin is immutable and safe to share (the plugin's
// sample_request is thread-safe by the ABI).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "zkpipe/groth16/r1cs.h"
#include "zkpipe/pipeline/priority.h"
#include "zkpipe/sdk/abi/proof_type.h"

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

// A plugin call's status and message as a Status, prefixed with `what` (status_from_plugin:
// a value that is no zkp_status code is INTERNAL). Message buffers: ZKP_ERROR_CAPACITY bytes.
inline Status plugin_status(zkp_status rc, const char* message, const std::string& what) {
  return status_from_plugin(rc, what, message);
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
    char message[ZKP_ERROR_CAPACITY] = "";
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
  char message[ZKP_ERROR_CAPACITY] = "";
  zkp_r1cs* handle = nullptr;
  zkp_r1cs_view view{};
  view.struct_size = sizeof view;
  ZKP_RETURN_IF_ERROR(plugin_status(type->record(job, &handle, &view, {message, sizeof message}),
                                    message, what + ": record"));
  Result<groth16::R1cs> r = r1cs_from_view(view, what);
  type->destroy_r1cs(handle);
  return r;
}

class PluginRegistry;

// The scheduling defaults a descriptor declares (ABI 1.3): a priority (none when the type
// declares ZKP_PRIORITY_NONE or a value past ZKP_PRIORITY_LOW) and a deadline in ms after
// submission (0: none). A 1.0-1.2 descriptor has none.
struct ProofTypeSchedule {
  std::optional<pipeline::Priority> priority;  // nullopt: the type declares none
  uint64_t deadline_ms = 0;
};
inline ProofTypeSchedule proof_type_schedule(const zkp_proof_type* type) {
  if (type->header.struct_size < offsetof(zkp_proof_type, command) + sizeof type->command) {
    return {};
  }
  ProofTypeSchedule out;
  out.priority = pipeline::priority_from_int(type->default_priority);
  out.deadline_ms = type->default_deadline_ms;
  return out;
}

// A preset of a proof type (zkp_preset), copied out of the plugin's table.
// What a request's (or a preset's) circuit is.
struct JobInfo {
  uint32_t partitions = 0;
  uint32_t num_inputs = 0;  // with the constant one
  uint32_t num_aux = 0;
  uint64_t num_constraints = 0;
  std::string circuit_id;
};

// A preset's circuit without a request (ABI 1.7): its info and the terms of A, B and C as the
// circuit writes them (at least what a recorded R1CS keeps).
struct PresetCircuitInfo {
  JobInfo info;
  uint64_t terms[3] = {0, 0, 0};
};

struct ProofTypePreset {
  std::string name;
  std::string description;
  uint32_t partitions = 0;
};

// A loaded proof-type descriptor under its plugin's name (and library, for messages).
class ProofTypePlugin {
 public:
  ProofTypePlugin(const zkp_proof_type* table, std::string name, std::string library = {})
      : table_(table), name_(std::move(name)), library_(std::move(library)) {}

  // Loads proof type `name` from `registry`; its init must have succeeded (else the init
  // status, naming the proof type).
  static Result<ProofTypePlugin> load(PluginRegistry& registry, const std::string& name);

  const zkp_proof_type* table() const { return table_; }
  const std::string& name() const { return name_; }

  // True when the descriptor has the ABI 1.2 fields (struct_size covers sample_request).
  bool has_preset_fields() const;
  // Its presets, in the plugin's order; none for a 1.0/1.1 descriptor or preset_count 0.
  std::vector<ProofTypePreset> presets() const;
  // The complete request of `preset` made from `seed` (same preset and seed: same bytes).
  // NOT_FOUND for an unknown preset (listing the known ones); INVALID_ARGUMENT when the proof
  // type has no presets (saying whether its plugin predates ABI 1.2 or declares none); a plugin
  // failure as its code with the plugin's message, naming the plugin.
  Result<std::vector<uint8_t>> sample_request(const std::string& preset, uint64_t seed) const;

  // ABI 1.7: the circuit of `preset` without a request (zkp_proof_type.preset_circuit).
  // FAILED_PRECONDITION when the type cannot say (its plugin predates ABI 1.7 or gives none: a
  // sample request is needed); NOT_FOUND for an unknown preset; a plugin failure as its code.
  // `count` false (ABI 1.8, ZKP_PRESET_CIRCUIT_ID_ONLY): the circuit id and partitions only,
  // nothing synthesized (counts as the plugin leaves them: zero from the SDK); FAILED_PRECONDITION
  // for a plugin before 1.8.
  Result<PresetCircuitInfo> preset_circuit(const std::string& preset, bool count = true) const;
  bool has_preset_circuit() const;
  // ABI 1.8: the circuit id of every preset, without synthesizing (ZKP_PRESET_CIRCUIT_ID_ONLY),
  // in the presets' order; empty when the plugin predates ABI 1.8 or cannot describe presets.
  // Cheap: what /readyz asks to tell whether a proof type's params are on disk.
  Result<std::vector<std::string>> preset_circuit_ids() const;

  ProofTypeSchedule schedule() const { return proof_type_schedule(table_); }
  // Runs the type's own command line (ABI 1.3 `command`; args[0] is the first argument after the
  // type's name) and returns its exit code; INVALID_ARGUMENT when the type has no commands
  // (saying whether its plugin predates ABI 1.3).
  Result<int> run_command(const std::vector<std::string>& args) const;

 private:
  std::string what() const;  // "proof type 'porep' (/path/porep.so)"

  const zkp_proof_type* table_;
  std::string name_;
  std::string library_;
};

}  // namespace zkpipe
