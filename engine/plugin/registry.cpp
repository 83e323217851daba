// Loads plugins: manifest -> ELF check -> dlopen (Boost.DLL, local binding, never unloaded) ->
// descriptor checks against the manifest and the engine's ABI -> init. Every failure names the
// path, the loader's message and both ABI versions.
// Thread-safety: PluginRegistry is used on the start-up thread only (see plugin.h).
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <boost/dll/shared_library.hpp>

#include "zkpipe/log.h"
#include "zkpipe/plugin.h"
#include "zkpipe/sdk/abi/compute.h"
#include "zkpipe/sdk/abi/memory.h"
#include "zkpipe/sdk/abi/proof_type.h"

namespace zkpipe {
namespace fs = std::filesystem;
namespace {

constexpr const char* kManifestSuffix = ".plugin.toml";

// Libraries and their LoadedPlugin records stay for the life of the process: descriptors and
// code point into them. Process-wide, so a library is initialized once however many
// registries ask for it. The mutex serializes loading (start-up work, never on a hot path).
struct LoadedSet {
  std::mutex mu;
  std::vector<boost::dll::shared_library> libraries;
  std::map<std::string, std::unique_ptr<LoadedPlugin>> by_manifest;  // canonical path -> plugin
};

LoadedSet& loaded_set() {
  static auto* set = new LoadedSet();  // intentionally never destroyed
  return *set;
}

// True when the path names anything, a dangling symbolic link or a FIFO included: those are
// reported by the file checks, not skipped as absent.
bool something_at(const fs::path& p) {
  std::error_code ec;
  return fs::symlink_status(p, ec).type() != fs::file_type::not_found && !ec;
}

std::string engine_abi() {
  return std::to_string(ZKP_ABI_MAJOR) + "." + std::to_string(ZKP_ABI_MINOR);
}

std::string abi_note(const Manifest& m, const zkp_plugin_header* h) {
  std::string s = " [engine ABI " + engine_abi() + ", manifest ABI " + std::to_string(m.abi_major) +
                  "." + std::to_string(m.abi_minor);
  if (h != nullptr) {
    s += ", descriptor ABI " + std::to_string(h->abi_major) + "." + std::to_string(h->abi_minor);
  }
  return s + "]";
}

// The smallest descriptor of each kind the engine can use: its first layout, pinned as numbers
// (never sizeof, which grows when a minor version appends a field and would refuse every plugin
// built before). Later fields are read only when struct_size covers them.
constexpr uint32_t kMemoryDescriptor_1_0 = 96;      // header .. stats
constexpr uint32_t kProofTypeDescriptor_1_0 = 112;  // header .. destroy_r1cs
constexpr uint32_t kComputeDescriptor_1_2 = 128;    // header .. destroy_pending (new in 1.2)
static_assert(offsetof(zkp_memory_backend, stats) + sizeof(void*) == kMemoryDescriptor_1_0);
static_assert(offsetof(zkp_proof_type, destroy_r1cs) + sizeof(void*) == kProofTypeDescriptor_1_0);
static_assert(offsetof(zkp_compute_backend, destroy_pending) + sizeof(void*) ==
              kComputeDescriptor_1_2);

uint32_t min_struct_size(uint32_t kind) {
  switch (kind) {
    case ZKP_KIND_MEMORY:
      return kMemoryDescriptor_1_0;
    case ZKP_KIND_PROOF_TYPE:
      return kProofTypeDescriptor_1_0;
    case ZKP_KIND_COMPUTE:
      return kComputeDescriptor_1_2;
    default:
      return sizeof(zkp_plugin_header);
  }
}

// True when a descriptor of struct_size `size` holds the member ending at offset + its size.
constexpr bool covers(uint32_t size, size_t offset, size_t member) {
  return size >= offset + member;
}

Status check_descriptor(const Manifest& m, const std::string& lib, const zkp_plugin_header* h) {
  auto fail = [&](const std::string& why) {
    return failed_precondition(lib + ": " + why + abi_note(m, h));
  };
  if (h->abi_major != ZKP_ABI_MAJOR) return fail("incompatible plugin ABI major version");
  if (h->struct_size < min_struct_size(h->kind)) {
    return fail("descriptor struct_size " + std::to_string(h->struct_size) +
                " is smaller than the " + std::to_string(min_struct_size(h->kind)) +
                " bytes of a " + kind_name(h->kind) + " descriptor");
  }
  if (h->name == nullptr || h->version == nullptr || h->build_tag == nullptr ||
      h->init == nullptr || h->self_test == nullptr) {
    return fail("descriptor has a null name, version, build_tag, init or self_test");
  }
  if (m.name != h->name)
    return fail("manifest name '" + m.name + "' != descriptor name '" + h->name + "'");
  if (kind_from_name(m.kind) != h->kind) {
    return fail("manifest kind '" + m.kind + "' != descriptor kind '" + kind_name(h->kind) + "'");
  }
  if (m.version != h->version) {
    return fail("manifest version '" + m.version + "' != descriptor version '" + h->version + "'");
  }
  if (m.abi_major != h->abi_major || m.abi_minor != h->abi_minor) {
    return fail("manifest ABI differs from descriptor ABI");
  }
  if (h->kind == ZKP_KIND_MEMORY) {
    auto* t = reinterpret_cast<const zkp_memory_backend*>(h);
    if (!t->create || !t->destroy || !t->allocate || !t->release || !t->stats) {
      return fail("memory descriptor has a null function pointer");
    }
  }
  if (h->kind == ZKP_KIND_PROOF_TYPE) {
    auto* t = reinterpret_cast<const zkp_proof_type*>(h);
    if (!t->parse || !t->destroy_job || !t->info || !t->synthesize || !t->public_inputs ||
        !t->record || !t->destroy_r1cs) {
      return fail("proof_type descriptor has a null function pointer");
    }
    if (covers(h->struct_size, offsetof(zkp_proof_type, sample_request), sizeof(void*)) &&
        t->preset_count > 0) {
      if (t->presets == nullptr || t->sample_request == nullptr) {
        return fail("proof_type descriptor has " + std::to_string(t->preset_count) +
                    " presets but a null presets table or sample_request");
      }
      if (t->reserved_1_2 != 0) return fail("proof_type descriptor: reserved_1_2 is not zero");
      std::vector<std::string> seen;
      for (uint32_t i = 0; i < t->preset_count; ++i) {
        const zkp_preset& p = t->presets[i];
        const std::string at = "proof_type preset " + std::to_string(i);
        if (p.name == nullptr || p.description == nullptr)
          return fail(at + " has a null name or description");
        const std::string name = p.name;
        const bool plain = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
          return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
        });
        if (!plain) return fail(at + " name '" + name + "' is not [A-Za-z0-9._-]+");
        if (std::find(seen.begin(), seen.end(), name) != seen.end())
          return fail(at + " name '" + name + "' is listed twice");
        if (p.partitions == 0) return fail(at + " '" + name + "' has 0 partitions");
        if (p.reserved != 0) return fail(at + " '" + name + "': reserved is not zero");
        seen.push_back(name);
      }
    }
    if (covers(h->struct_size, offsetof(zkp_proof_type, command), sizeof(void*))) {
      if (t->default_priority > ZKP_PRIORITY_LOW) {
        return fail("proof_type descriptor: default_priority " +
                    std::to_string(t->default_priority) +
                    " is not a priority (0 none, 1 critical .. 4 low)");
      }
      if (t->reserved_1_3 != 0) return fail("proof_type descriptor: reserved_1_3 is not zero");
    }
  }
  if (h->kind == ZKP_KIND_COMPUTE) {
    auto* t = reinterpret_cast<const zkp_compute_backend*>(h);
    if (!t->create || !t->destroy || !t->device_count || !t->device_info || !t->register_key ||
        !t->destroy_key || !t->prove_start || !t->wait || !t->destroy_pending) {
      return fail("compute descriptor has a null function pointer");
    }
  }
  return ok_status();
}

}  // namespace

PluginRegistry::PluginRegistry(std::vector<std::string> search_dirs)
    : dirs_(std::move(search_dirs)) {}

Result<const LoadedPlugin*> PluginRegistry::load_manifest_file(const std::string& manifest_path) {
  std::error_code ec;
  const std::string key = fs::weakly_canonical(manifest_path, ec).string();
  LoadedSet& set = loaded_set();
  std::lock_guard<std::mutex> lock(set.mu);
  if (auto it = set.by_manifest.find(key); it != set.by_manifest.end()) {
    return static_cast<const LoadedPlugin*>(it->second.get());
  }

  stage("manifest");
  ZKP_ASSIGN_OR_RETURN(Manifest m, load_manifest(manifest_path));
  const fs::path mp(manifest_path);
  const std::string file_name = mp.filename().string();
  const std::string stem =
      file_name.substr(0, file_name.size() - std::string(kManifestSuffix).size());
  if (stem != m.name) {
    return invalid_argument(manifest_path + ": manifest name '" + m.name +
                            "' does not match its file name (expected " + m.name + kManifestSuffix +
                            ")");
  }
  const std::string lib = (mp.parent_path() / (m.name + ".so")).string();
  if (Status s = check_regular_file(lib, "plugin library"); !s.ok()) {
    return Status(s.code(),
                  s.message() + " (manifest " + manifest_path + ")" + abi_note(m, nullptr));
  }
  if (Status s = check_elf_file(lib); !s.ok())
    return Status(s.code(), s.message() + abi_note(m, nullptr));

  stage("dlopen");
  boost::dll::shared_library so;
  try {
    so.load(lib, boost::dll::load_mode::rtld_local | boost::dll::load_mode::rtld_now);
  } catch (const std::exception& e) {
    return failed_precondition(lib + ": cannot load: " + e.what() + abi_note(m, nullptr));
  }
  if (!so.has(ZKP_PLUGIN_SYMBOL_NAME)) {
    return failed_precondition(lib +
                               ": missing entry symbol '" ZKP_PLUGIN_SYMBOL_NAME
                               "' (export the descriptor with ZKP_EXPORT_PLUGIN)" +
                               abi_note(m, nullptr));
  }
  const auto* header = &so.get<const zkp_plugin_header>(ZKP_PLUGIN_SYMBOL_NAME);
  set.libraries.push_back(std::move(so));
  stage("descriptor");
  ZKP_RETURN_IF_ERROR(check_descriptor(m, lib, header));

  auto plugin = std::make_unique<LoadedPlugin>(LoadedPlugin{m, lib, header, ok_status()});
  std::vector<char> msg(ZKP_ERROR_CAPACITY, '\0');
  stage("init");
  zkp_status rc = header->init(plugin_host(), zkp_error{msg.data(), msg.size()});
  if (rc == ZKP_ERR_UNAVAILABLE) {
    plugin->init_status = unavailable(msg[0] ? msg.data() : "unavailable: (plugin gave no reason)");
  } else if (rc != ZKP_OK) {
    const Status s =
        status_from_plugin(rc, lib + ": init failed", msg[0] ? msg.data() : "(no message)");
    return Status(s.code(), s.message() + abi_note(m, header));
  }
  const LoadedPlugin* result = plugin.get();
  set.by_manifest[key] = std::move(plugin);
  return result;
}

Result<const LoadedPlugin*> PluginRegistry::load(const std::string& name, uint32_t expected_kind) {
  for (const auto& dir : dirs_) {
    const fs::path manifest = fs::path(dir) / (name + kManifestSuffix);
    if (something_at(manifest)) {
      ZKP_ASSIGN_OR_RETURN(const LoadedPlugin* p, load_manifest_file(manifest.string()));
      if (expected_kind != 0 && p->header->kind != expected_kind) {
        return invalid_argument(manifest.string() + ": plugin '" + name + "' is a " +
                                kind_name(p->header->kind) + " plugin, expected a " +
                                kind_name(expected_kind) + " plugin");
      }
      return p;
    }
    const fs::path lib = fs::path(dir) / (name + ".so");
    if (something_at(lib)) {
      return not_found(lib.string() + ": missing manifest " + manifest.filename().string() +
                       " beside the library");
    }
  }
  std::string searched;
  for (const auto& d : dirs_) searched += (searched.empty() ? "" : ", ") + d;
  return not_found("plugin '" + name +
                   "' not found (searched: " + (searched.empty() ? "no directories" : searched) +
                   "; expected " + name + kManifestSuffix + " and " + name + ".so)");
}

std::vector<PluginRegistry::DirItem> PluginRegistry::list_dir(const std::string& dir) {
  std::vector<DirItem> out;
  if (Status s = check_plugin_dir(dir); !s.ok()) {
    out.push_back({dir, s});
    return out;
  }
  std::error_code ec;
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir, ec)) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    const std::string name = f.filename().string();
    const bool is_manifest =
        name.size() > std::string(kManifestSuffix).size() && name.ends_with(kManifestSuffix);
    if (is_manifest) {
      out.push_back({f.string(), ok_status()});
    } else if (f.extension() == ".so") {
      const fs::path manifest = f.parent_path() / (f.stem().string() + kManifestSuffix);
      if (!something_at(manifest)) {
        out.push_back(
            {f.string(), not_found(f.string() + ": missing manifest " +
                                   manifest.filename().string() + " beside the library")});
      }
    }
  }
  if (out.empty())
    out.push_back({dir, not_found(dir + ": no plugins (*.plugin.toml) in this directory")});
  return out;
}

std::vector<PluginRegistry::DirEntry> PluginRegistry::load_dir(const std::string& dir) {
  std::vector<DirEntry> out;
  for (DirItem& item : list_dir(dir)) {
    if (item.status.ok()) {
      out.push_back({item.path, load_manifest_file(item.path)});
    } else {
      out.push_back({item.path, std::move(item.status)});
    }
  }
  return out;
}

}  // namespace zkpipe
