// engine/pipeline/proof_types.cpp: the engine's proof types: loaded at create (those the options
// name, else every proof-type plugin in the plugin dirs) or on first use, each as a
// ProofTypePlugin (zkpipe/proof_type.h) kept for the engine's life.
// Thread-safety: loading is under types_mu, never the tracker lock.
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>

#include "engine_impl.h"

namespace zkpipe::pipeline {

Result<ProofTypePlugin> Engine::Impl::proof_type(const std::string& name) {
  MutexLock lock(types_mu);
  if (auto it = types.find(name); it != types.end()) return it->second;
  ZKP_ASSIGN_OR_RETURN(ProofTypePlugin type, ProofTypePlugin::load(*registry, name));
  ZKP_ASSIGN_OR_RETURN(std::vector<std::string> ids, type.preset_circuit_ids());
  type_circuits.emplace(name, std::move(ids));
  types.emplace(name, type);
  return type;
}

Status Engine::Impl::load_proof_types(const std::vector<std::string>& wanted) {
  std::vector<std::string> names = wanted;
  if (names.empty()) {  // every proof type in the plugin dirs (the first of a name wins)
    for (const std::string& dir : registry->search_dirs()) {
      for (const PluginRegistry::DirItem& item : PluginRegistry::list_dir(dir)) {
        if (!item.status.ok()) continue;  // a .so without a manifest: not a plugin we load
        Result<Manifest> m = load_manifest(item.path);
        if (!m.ok()) return m.status().with_context("loading the proof types");
        if (m->kind == "proof_type" &&
            std::find(names.begin(), names.end(), m->name) == names.end()) {
          names.push_back(m->name);
        }
      }
    }
    if (names.empty()) {
      return not_found("no proof-type plugin in the plugin dirs (" +
                       fmt::format("{}", fmt::join(registry->search_dirs(), ", ")) + ")");
    }
  }
  for (const std::string& name : names) {
    Result<ProofTypePlugin> t = proof_type(name);
    if (!t.ok()) return t.status().with_context("loading the proof types");
  }
  spdlog::info("{}: proof types {}", config.path, fmt::join(names, ", "));
  return ok_status();
}

std::vector<std::string> Engine::proof_types() const {
  MutexLock lock(impl_->types_mu);
  std::vector<std::string> names;
  for (const auto& [name, table] : impl_->types) names.push_back(name);
  return names;
}

}  // namespace zkpipe::pipeline
