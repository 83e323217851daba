// zkpipe/plugin.h: finds, checks and loads plugins. A plugin is <dir>/<name>.so plus its
// manifest <dir>/<name>.plugin.toml; manifest, ELF file and descriptor must agree before any
// plugin code runs. Libraries are loaded with local binding and never unloaded.
// Thread-safety: loading is serialized process-wide and each library is loaded and initialized
// once, whichever registry asks; the LoadedPlugin pointers stay valid for the life of the
// process and are safe to share. Load on the start-up thread: init runs plugin code.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "zkpipe/sdk/abi/common.h"
#include "zkpipe/sdk/status.h"

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

  // What a directory holds, without loading anything: each manifest (status OK), each .so
  // without a manifest (NOT_FOUND), or the directory itself when it cannot be listed.
  struct DirItem {
    std::string path;
    Status status;
  };
  static std::vector<DirItem> list_dir(const std::string& dir);

  // Every plugin in `dir`: each manifest loaded, and the errors of list_dir.
  struct DirEntry {
    std::string path;
    Result<const LoadedPlugin*> plugin;
  };
  std::vector<DirEntry> load_dir(const std::string& dir);

  // Called with "manifest", "dlopen", "descriptor" and "init" as a load reaches each stage (a
  // validator in a child process reports them, so a crash names the stage it happened in).
  void set_stage_hook(std::function<void(std::string_view stage)> hook) {
    stage_hook_ = std::move(hook);
  }

  const std::vector<std::string>& search_dirs() const { return dirs_; }

 private:
  void stage(std::string_view s) const {
    if (stage_hook_) stage_hook_(s);
  }

  std::vector<std::string> dirs_;
  std::function<void(std::string_view)> stage_hook_;
};

// Directories a config's plugin_dirs or a --plugin-dir flag named, and where, for messages.
struct PluginDirList {
  std::string origin;  // "configs/cpu.yaml: plugin_dirs", "--plugin-dir"
  std::vector<std::string> dirs;
};

// Where plugins come from: the one rule every program follows. When any list names a directory,
// exactly the named directories are searched, in order, and each must be a directory this process
// can read: otherwise FAILED_PRECONDITION naming "<origin>[i]" and the path; there is no fallback.
// When none is named, default_plugin_dirs(), checked the same way when $ZKPIPE_PLUGIN_DIR names
// it (possibly empty: no default exists).
Result<std::vector<std::string>> plugin_search_dirs(const std::vector<PluginDirList>& named);

// OK when `dir` is a directory this process can list; else FAILED_PRECONDITION saying why
// ("does not exist", "is a regular file, not a directory", "cannot be read: ...").
Status check_plugin_dir(const std::string& dir);

// A plugin's files must be regular files (or symbolic links to one), checked before anything
// opens them: opening a FIFO blocks, a directory or a device is no plugin. NOT_FOUND when
// nothing is there; INVALID_ARGUMENT naming `path`, `what` ("plugin library") and what it is.
Status check_regular_file(const std::string& path, const std::string& what);

// Where plugins are looked for by default: $ZKPIPE_PLUGIN_DIR if set, else <exe>/../plugins,
// else <exe>/../lib/zkpipe/plugins, whichever exists.
std::vector<std::string> default_plugin_dirs();

// Checks that `path` is a regular file holding a complete ELF shared object for this machine
// before dlopen sees it.
Status check_elf_file(const std::string& path);

}  // namespace zkpipe
