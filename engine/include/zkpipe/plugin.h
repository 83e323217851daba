// zkpipe/plugin.h: finds, checks and loads plugins. A plugin is <dir>/<name>.so plus its
// manifest <dir>/<name>.plugin.toml; manifest, ELF file and descriptor must agree before any
// plugin code runs. Libraries are loaded with local binding and never unloaded.
// Thread-safety: loading is serialized process-wide and each library is loaded and initialized
// once, whichever registry asks; the LoadedPlugin pointers stay valid for the life of the
// process and are safe to share. Load on the start-up thread: init runs plugin code.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "zkpipe/abi/common.h"
#include "zkpipe/status.h"

namespace zkpipe {

struct Manifest {
  std::string path;
  std::string name;
  std::string kind;  // "memory", "compute", "proof_type"
  uint16_t abi_major = 0;
  uint16_t abi_minor = 0;
  std::string version;
  std::string description;
  bool requires_cuda = false;
};

// Parses and checks a manifest (strict: unknown keys and wrong types are errors naming
// path:line:column).
Result<Manifest> load_manifest(const std::string& path);

// "memory" <-> ZKP_KIND_MEMORY; 0 when unknown.
uint32_t kind_from_name(const std::string& name);
const char* kind_name(uint32_t kind);

struct LoadedPlugin {
  Manifest manifest;
  std::string library_path;
  const zkp_plugin_header* header = nullptr;  // points into the loaded library
  Status init_status;                         // OK, or why the plugin cannot run here

  bool available() const { return init_status.ok(); }
  template <typename Descriptor>
  const Descriptor* table() const {
    return reinterpret_cast<const Descriptor*>(header);
  }
};

class PluginRegistry {
 public:
  explicit PluginRegistry(std::vector<std::string> search_dirs);

  // Finds `name` in the search dirs, loads it, checks its kind and runs its init. A plugin
  // whose init says UNAVAILABLE is returned (check available()); other failures are errors.
  Result<const LoadedPlugin*> load(const std::string& name, uint32_t expected_kind);

  // Loads the plugin described by a manifest file.
  Result<const LoadedPlugin*> load_manifest_file(const std::string& manifest_path);

  // Every plugin in `dir`: each manifest, and each .so without a manifest (an error).
  struct DirEntry {
    std::string path;
    Result<const LoadedPlugin*> plugin;
  };
  std::vector<DirEntry> load_dir(const std::string& dir);

  const std::vector<std::string>& search_dirs() const { return dirs_; }

 private:
  std::vector<std::string> dirs_;
};

// Where plugins are looked for by default: $ZKPIPE_PLUGIN_DIR if set, else <exe>/../plugins,
// else <exe>/../lib/zkpipe/plugins, whichever exists.
std::vector<std::string> default_plugin_dirs();

// Checks that `path` is a complete ELF shared object for this machine before dlopen sees it.
Status check_elf_file(const std::string& path);

}  // namespace zkpipe
