// ProofTypePlugin (zkpipe/proof_type.h): a proof-type descriptor's presets and sample requests,
// read only where the descriptor's struct_size covers the ABI 1.2 fields.
#include "zkpipe/proof_type.h"

#include <cstring>
#include <exception>

#include "zkpipe/plugin.h"
#include "zkpipe/sdk/circuit_id.h"

namespace zkpipe {
namespace {

// A sample request larger than this is refused (the writer stops the plugin): no preset needs
// it, and a runaway plugin must not take the host's memory.
constexpr uint64_t kMaxSampleRequestBytes = uint64_t{1} << 32;

struct Sink {
  std::vector<uint8_t> bytes;
  Status status;  // why the writer stopped the plugin
};

int32_t append(void* ctx, const uint8_t* data, uint64_t n) {
  auto* sink = static_cast<Sink*>(ctx);
  if ((data == nullptr && n != 0) || n > kMaxSampleRequestBytes - sink->bytes.size()) {
    sink->status = data == nullptr
                       ? internal_error("the plugin wrote from a null pointer")
                       : resource_exhausted("the sample request exceeds " +
                                            std::to_string(kMaxSampleRequestBytes) + " bytes");
    return 1;
  }
  try {
    sink->bytes.insert(sink->bytes.end(), data, data + n);
  } catch (const std::exception& e) {  // bad_alloc, length_error: never across the C ABI
    sink->status = resource_exhausted(std::string("keeping the sample request: ") + e.what());
    return 1;
  }
  return 0;
}

}  // namespace

Result<ProofTypePlugin> ProofTypePlugin::load(PluginRegistry& registry, const std::string& name) {
  ZKP_ASSIGN_OR_RETURN(const LoadedPlugin* loaded, registry.load(name, ZKP_KIND_PROOF_TYPE));
  if (!loaded->available()) return loaded->init_status.with_context("proof type '" + name + "'");
  return ProofTypePlugin(loaded->table<zkp_proof_type>(), name, loaded->library_path);
}

bool ProofTypePlugin::has_preset_fields() const {
  return table_->header.struct_size >=
         offsetof(zkp_proof_type, sample_request) + sizeof table_->sample_request;
}

std::vector<ProofTypePreset> ProofTypePlugin::presets() const {
  std::vector<ProofTypePreset> out;
  if (!has_preset_fields() || table_->presets == nullptr) return out;
  for (uint32_t i = 0; i < table_->preset_count; ++i) {
    const zkp_preset& p = table_->presets[i];
    out.push_back({p.name ? p.name : "", p.description ? p.description : "", p.partitions});
  }
  return out;
}

Result<int> ProofTypePlugin::run_command(const std::vector<std::string>& args) const {
  if (table_->header.struct_size < offsetof(zkp_proof_type, command) + sizeof table_->command) {
    return invalid_argument(what() + " has no commands: its plugin was built before ABI 1.3");
  }
  if (table_->command == nullptr) return invalid_argument(what() + " has no commands");
  std::vector<const char*> argv{name_.c_str()};
  for (const std::string& a : args) argv.push_back(a.c_str());
  return static_cast<int>(table_->command(static_cast<int32_t>(argv.size()), argv.data()));
}

bool ProofTypePlugin::has_preset_circuit() const {
  return table_->header.struct_size >=
             offsetof(zkp_proof_type, preset_circuit) + sizeof table_->preset_circuit &&
         table_->preset_circuit != nullptr;
}

Result<std::vector<std::string>> ProofTypePlugin::preset_circuit_ids() const {
  std::vector<std::string> ids;
  if (!has_preset_circuit() || table_->header.abi_minor < 8) return ids;
  for (const ProofTypePreset& p : presets()) {
    ZKP_ASSIGN_OR_RETURN(PresetCircuitInfo c, preset_circuit(p.name, false));
    ids.push_back(std::move(c.info.circuit_id));
  }
  return ids;
}

Result<PresetCircuitInfo> ProofTypePlugin::preset_circuit(const std::string& preset,
                                                          bool count) const {
  if (!has_preset_circuit()) {
    return failed_precondition(
        what() + " cannot describe a preset's circuit without a request (" +
        (table_->header.struct_size <
                 offsetof(zkp_proof_type, preset_circuit) + sizeof table_->preset_circuit
             ? "its plugin predates ABI 1.7"
             : "its plugin gives no preset_circuit") +
        "): a sample request is needed");
  }
  if (!count && table_->header.abi_minor < 8) {  // a 1.7 plugin reads the field as reserved
    return failed_precondition(what() + " cannot name a preset's circuit without counting it: " +
                               "its plugin predates ABI 1.8");
  }
  zkp_preset_circuit c{};
  c.struct_size = sizeof c;
  c.flags = count ? 0 : ZKP_PRESET_CIRCUIT_ID_ONLY;
  c.info.struct_size = sizeof c.info;
  char message[ZKP_ERROR_CAPACITY] = "";
  const std::string where = what() + ": preset_circuit of preset '" + preset + "'";
  const zkp_status rc = table_->preset_circuit(preset.c_str(), &c, {message, sizeof message});
  ZKP_RETURN_IF_ERROR(plugin_status(rc, message, where));
  if (std::memchr(c.info.circuit_id, '\0', sizeof c.info.circuit_id) == nullptr) {
    return internal_error(where + ": the circuit id is not NUL-terminated");
  }
  PresetCircuitInfo out;
  out.info.circuit_id = c.info.circuit_id;
  ZKP_RETURN_IF_ERROR(check_circuit_id(out.info.circuit_id, where));
  if (c.info.partitions == 0 || (count && c.info.num_inputs == 0)) {
    return internal_error(where + ": no partitions or no inputs (the constant one counts)");
  }
  out.info.partitions = c.info.partitions;
  out.info.num_inputs = c.info.num_inputs;
  out.info.num_aux = c.info.num_aux;
  out.info.num_constraints = c.info.num_constraints;
  out.terms[0] = c.terms_a;
  out.terms[1] = c.terms_b;
  out.terms[2] = c.terms_c;
  return out;
}

std::string ProofTypePlugin::what() const {
  return "proof type '" + name_ + "'" + (library_.empty() ? "" : " (" + library_ + ")");
}

Result<std::vector<uint8_t>> ProofTypePlugin::sample_request(const std::string& preset,
                                                             uint64_t seed) const {
  const std::vector<ProofTypePreset> known = presets();
  if (known.empty()) {
    const std::string why = has_preset_fields()
                                ? "its plugin declares none"
                                : "its plugin is built against ABI " +
                                      std::to_string(table_->header.abi_major) + "." +
                                      std::to_string(table_->header.abi_minor) +
                                      ", before presets (ABI 1.2): give the request itself";
    return invalid_argument(what() + " has no presets (" + why + "); cannot make preset '" +
                            preset + "'");
  }
  std::string names;
  bool found = false;
  for (const ProofTypePreset& p : known) {
    found = found || p.name == preset;
    names += (names.empty() ? "" : ", ") + p.name;
  }
  if (!found) {
    return not_found(what() + ": unknown preset '" + preset + "' (presets: " + names + ")");
  }
  if (table_->sample_request == nullptr) {
    return internal_error(what() + ": the descriptor has presets but no sample_request");
  }
  Sink sink;
  char message[ZKP_ERROR_CAPACITY] = "";
  const zkp_status rc =
      table_->sample_request(preset.c_str(), seed, append, &sink, {message, sizeof message});
  if (!sink.status.ok()) {
    return sink.status.with_context(what() + ": sample_request of preset '" + preset + "'");
  }
  ZKP_RETURN_IF_ERROR(
      plugin_status(rc, message, what() + ": sample_request of preset '" + preset + "'"));
  if (sink.bytes.empty()) {
    return internal_error(what() + ": sample_request of preset '" + preset +
                          "' returned OK with an empty request");
  }
  return std::move(sink.bytes);
}

}  // namespace zkpipe
