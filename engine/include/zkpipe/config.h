// zkpipe/config.h: the YAML configuration that selects a pipeline variant, parsed strictly:
// unknown keys, duplicate keys, wrong types and bad sizes are errors naming file:line:column.
// The schema is documented in configs/README.md. Thread-safety: a Config is a plain value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "zkpipe/status.h"

namespace zkpipe {

// A place in a config file; line and column are 1-based (0 = unknown).
struct SourceLocation {
  std::string file;
  int line = 0;
  int column = 0;
  std::string to_string() const;  // "configs/cpu.yaml:3:5"
};

enum class OnCap { kWait, kFail };

struct PreallocEntry {
  uint64_t bytes = 0;
  uint32_t count = 0;
};

struct MemoryConfig {
  std::string backend = "pageable";  // plugin name: pageable, pinned_pool, zero_copy, ...
  std::string fallback;  // empty: none; else a backend used when `backend` is unavailable
  std::optional<uint64_t> cap_bytes;  // nullopt: auto (see resolve_cap_bytes)
  OnCap on_cap = OnCap::kWait;
  int64_t wait_timeout_ms = 60'000;  // < 0: wait forever
  bool huge_pages = false;
  bool reuse = true;
  std::vector<PreallocEntry> preallocate;
  SourceLocation location;          // of the `memory:` section, for later errors
  SourceLocation backend_location;  // of the `backend:` value
};

struct LogConfig {
  std::string level = "info";  // trace, debug, info, warn, error
};

struct Config {
  std::string path;  // the file it came from ("<string>" when parsed from text)
  int version = 1;
  std::vector<std::string> plugin_dirs;  // resolved against the config file's directory
  LogConfig log;
  MemoryConfig memory;
};

// Reads and validates a config file. NOT_FOUND when it cannot be read, INVALID_ARGUMENT with
// "file:line:column: ..." for anything wrong inside it.
Result<Config> load_config(const std::string& path);

// The same from text; `name` is used in messages, relative plugin dirs resolve against base_dir.
Result<Config> parse_config(std::string_view yaml_text, const std::string& name,
                            const std::string& base_dir = ".");

// The cap in bytes: the configured one, or for `auto` the usable memory of this machine
// (RAM or cgroup limit, whichever is lower) minus a margin of 10% (at least 1 GiB).
uint64_t resolve_cap_bytes(const MemoryConfig& memory);

}  // namespace zkpipe
