// config.cpp: the version 1 config schema of zkpipe/config.h on top of the strict YAML reader
// (yaml_strict.h): load_config, parse_config, SourceLocation::to_string, resolve_cap_bytes.
// The schema is documented in configs/README.md; keep the two in step.
// Thread-safety: no shared state; resolve_cap_bytes reads the system on each call.
#include "zkpipe/config.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <system_error>

#include "sections.h"
#include "yaml_strict.h"
#include "zkpipe/sdk/units.h"
#include "zkpipe/system.h"

namespace zkpipe {
namespace {

using config_detail::Field;
using config_detail::find_field;
using config_detail::YamlReader;

constexpr uint64_t kKnownVersion = 1;
constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kGiB = uint64_t{1} << 30;
// A config is a page of text; anything this large is the wrong file.
constexpr size_t kMaxConfigBytes = 4 * kMiB;
// resolve_cap_bytes for `cap: auto`: leave max(10%, 1 GiB) to the OS and other processes,
// and never plan with less than 64 MiB, so that a small container still gets a working pool.
constexpr uint64_t kMinAutoMarginBytes = kGiB;
constexpr uint64_t kMinAutoCapBytes = 64 * kMiB;

}  // namespace

namespace config_detail {

bool is_plugin_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
  });
}

Result<std::string> plugin_name(const YamlReader& r, const Field& f, std::string_view expected) {
  ZKP_ASSIGN_OR_RETURN(std::string name, r.scalar(f, expected));
  if (!is_plugin_name(name)) {
    return r.error(f, "invalid plugin name '" + echo_value(name) +
                          "' (use lowercase letters, digits and '_', e.g. pinned_pool)");
  }
  return name;
}

}  // namespace config_detail

namespace config_detail {

// A size > 0. With `allow_auto`, "auto" gives nullopt and the unit list in errors says so.
Result<std::optional<uint64_t>> positive_size(const YamlReader& r, const Field& f,
                                              bool allow_auto) {
  ZKP_ASSIGN_OR_RETURN(const std::string text,
                       r.scalar(f, allow_auto ? "a size or 'auto'" : "a size"));
  if (allow_auto && text == "auto") return std::optional<uint64_t>();
  Result<uint64_t> size = parse_size(text);
  if (!size.ok()) {
    std::string message = size.status().message();
    // parse_size ends an unknown-unit message with its unit list "(use ..., GB or TB)".
    constexpr std::string_view kUnitListEnd = "GB or TB)";
    if (allow_auto && message.ends_with(kUnitListEnd)) {
      message.replace(message.size() - kUnitListEnd.size(), kUnitListEnd.size(),
                      "GB, TB or 'auto')");
    }
    return r.error(f, message);
  }
  if (*size == 0) return r.error(f, "must be greater than 0, got '" + echo_value(text) + "'");
  return std::optional<uint64_t>(*size);
}

Result<std::string> resolve_dir(const YamlReader& r, const Field& f,
                                const std::filesystem::path& base) {
  ZKP_ASSIGN_OR_RETURN(const std::string text, r.scalar(f, "a directory"));
  if (text.empty()) return r.error(f, "empty directory name");
  std::filesystem::path dir(text);
  if (dir.is_relative()) dir = base / dir;
  std::error_code ec;
  dir = std::filesystem::absolute(dir, ec).lexically_normal();
  if (ec) return r.error(f, "cannot resolve '" + echo_value(text) + "': " + ec.message());
  if (!dir.has_filename() && dir.has_relative_path()) dir = dir.parent_path();  // "a/b/" -> "a/b"
  return dir.string();
}

}  // namespace config_detail

namespace {

using config_detail::plugin_name;
using config_detail::positive_size;
using config_detail::resolve_dir;

Status parse_log(const YamlReader& r, const Field& section, LogConfig& log) {
  ZKP_ASSIGN_OR_RETURN(const std::vector<Field> fields, r.map_fields(section, {"level", "format"}));
  if (const Field* f = find_field(fields, "level")) {
    ZKP_ASSIGN_OR_RETURN(log.level, r.choice(*f, {"trace", "debug", "info", "warn", "error"}));
  }
  if (const Field* f = find_field(fields, "format")) {
    ZKP_ASSIGN_OR_RETURN(log.format, r.choice(*f, {"text", "json"}));
  }
  return ok_status();
}

// `preallocate:` entries, then the check that they fit under an explicit cap.
Status parse_preallocate(const YamlReader& r, const Field& list, MemoryConfig& memory) {
  ZKP_ASSIGN_OR_RETURN(const std::vector<Field> items,
                       r.list_items(list, "a list of {count: N, size: SIZE} maps"));
  uint64_t total = 0;
  bool total_overflows = false;
  for (const Field& item : items) {
    ZKP_ASSIGN_OR_RETURN(const std::vector<Field> fields, r.map_fields(item, {"count", "size"}));
    PreallocEntry entry;
    for (std::string_view key : {"count", "size"}) {
      if (find_field(fields, key) == nullptr) {
        return r.error(item, "missing required key '" + std::string(key) + "'");
      }
    }
    ZKP_ASSIGN_OR_RETURN(const uint64_t count,
                         r.integer(*find_field(fields, "count"), 1, UINT32_MAX));
    entry.count = static_cast<uint32_t>(count);
    ZKP_ASSIGN_OR_RETURN(const std::optional<uint64_t> bytes,
                         positive_size(r, *find_field(fields, "size"), false));
    entry.bytes = *bytes;
    uint64_t entry_total = 0;
    total_overflows = total_overflows || __builtin_mul_overflow(entry.bytes, count, &entry_total) ||
                      __builtin_add_overflow(total, entry_total, &total);
    memory.preallocate.push_back(entry);
  }
  if (total_overflows) {
    return r.error_at(list.key_mark, list.path, "total preallocation does not fit in 64 bits");
  }
  if (memory.cap_bytes && total > *memory.cap_bytes) {
    return r.error_at(list.key_mark, list.path,
                      "total preallocation " + format_bytes(total) + " exceeds memory.cap " +
                          format_bytes(*memory.cap_bytes));
  }
  return ok_status();
}

Status parse_memory(const YamlReader& r, const Field& section, MemoryConfig& memory) {
  memory.location = r.location(section.key_mark);
  ZKP_ASSIGN_OR_RETURN(
      const std::vector<Field> fields,
      r.map_fields(section, {"backend", "fallback", "cap", "on_cap", "wait_timeout", "huge_pages",
                             "reuse", "preallocate"}));
  const Field* backend = find_field(fields, "backend");
  if (backend == nullptr) {
    return r.error_at(section.key_mark, section.path,
                      "missing required key 'backend' (e.g. backend: pageable)");
  }
  ZKP_ASSIGN_OR_RETURN(memory.backend, plugin_name(r, *backend, "a plugin name"));
  memory.backend_location = r.location(backend->mark);

  if (const Field* f = find_field(fields, "fallback")) {
    ZKP_ASSIGN_OR_RETURN(memory.fallback, plugin_name(r, *f, "'none' or a plugin name"));
    if (memory.fallback == memory.backend) {
      return r.error(*f, "'" + memory.fallback +
                             "' is already memory.backend; use 'none' or a different backend");
    }
    if (memory.fallback == "none") memory.fallback.clear();
  }
  if (const Field* f = find_field(fields, "cap")) {
    ZKP_ASSIGN_OR_RETURN(memory.cap_bytes, positive_size(r, *f, true));
  }
  if (const Field* f = find_field(fields, "on_cap")) {
    Result<std::string> on_cap = r.choice(*f, {"wait", "fail"});
    if (!on_cap.ok()) return on_cap.status();
    memory.on_cap = *on_cap == "wait" ? OnCap::kWait : OnCap::kFail;
  }
  if (const Field* f = find_field(fields, "wait_timeout")) {
    ZKP_ASSIGN_OR_RETURN(const std::string text, r.scalar(*f, "a duration or 'infinite'"));
    Result<int64_t> ms = parse_duration_ms(text);
    if (!ms.ok()) return r.error(*f, ms.status().message());
    memory.wait_timeout_ms = *ms;
  }
  if (const Field* f = find_field(fields, "huge_pages")) {
    ZKP_ASSIGN_OR_RETURN(memory.huge_pages, r.boolean(*f));
  }
  if (const Field* f = find_field(fields, "reuse")) {
    ZKP_ASSIGN_OR_RETURN(memory.reuse, r.boolean(*f));
  }
  // Last: the check against the cap needs `cap`, wherever it appears in the section.
  if (const Field* f = find_field(fields, "preallocate")) {
    ZKP_RETURN_IF_ERROR(parse_preallocate(r, *f, memory));
  }
  return ok_status();
}

Status check_version(const YamlReader& r, const Field& f, Config& config) {
  ZKP_ASSIGN_OR_RETURN(const uint64_t version, r.integer(f, 0, INT32_MAX));
  if (version != kKnownVersion) {
    return r.error(f, "unsupported config version " + std::to_string(version) +
                          "; this zkpipe reads version " + std::to_string(kKnownVersion));
  }
  config.version = static_cast<int>(version);
  return ok_status();
}

}  // namespace

std::string SourceLocation::to_string() const {
  if (line <= 0) return file;
  if (column <= 0) return file + ":" + std::to_string(line);
  return file + ":" + std::to_string(line) + ":" + std::to_string(column);
}

Result<Config> parse_config(std::string_view yaml_text, const std::string& name,
                            const std::string& base_dir) {
  const YamlReader r(name);
  ZKP_ASSIGN_OR_RETURN(const Field root, r.load_root(yaml_text));
  Config config;
  config.path = name;
  // The version first: a newer file is reported as such, not by the first key it added.
  const std::optional<Field> version = r.peek(root, "version");
  if (!version) {
    return r.error(root, "missing required key 'version' (this zkpipe reads version " +
                             std::to_string(kKnownVersion) + ")");
  }
  ZKP_RETURN_IF_ERROR(check_version(r, *version, config));
  ZKP_ASSIGN_OR_RETURN(const std::vector<Field> fields,
                       r.map_fields(root, {"version", "plugin_dirs", "log", "memory", "compute",
                                           "pipeline", "params", "server", "store", "scheduling"}));

  if (const Field* f = find_field(fields, "plugin_dirs")) {
    ZKP_ASSIGN_OR_RETURN(const std::vector<Field> dirs, r.list_items(*f, "a list of directories"));
    const std::filesystem::path base(base_dir.empty() ? "." : base_dir);
    for (const Field& dir : dirs) {
      ZKP_ASSIGN_OR_RETURN(std::string resolved, resolve_dir(r, dir, base));
      config.plugin_dirs.push_back(std::move(resolved));
    }
  }
  if (const Field* f = find_field(fields, "log")) {
    ZKP_RETURN_IF_ERROR(parse_log(r, *f, config.log));
  }
  const Field* memory = find_field(fields, "memory");
  if (memory == nullptr) {
    return r.error(root, "missing required section 'memory' (e.g. memory: {backend: pageable})");
  }
  ZKP_RETURN_IF_ERROR(parse_memory(r, *memory, config.memory));
  const std::filesystem::path base(base_dir.empty() ? "." : base_dir);
  ZKP_RETURN_IF_ERROR(config_detail::parse_pipeline_sections(r, fields, base, config));
  return config;
}

Result<Config> load_config(const std::string& path) {
  const auto cannot_read = [&path](int err) {
    // A symlink loop is a bad path, not a missing file.
    std::string m = "cannot read config '" + path + "': " + errno_message(err);
    return err == ELOOP ? invalid_argument(std::move(m)) : not_found(std::move(m));
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return cannot_read(errno);
  std::string text;
  char chunk[16384];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      return cannot_read(err);
    }
    if (n == 0) break;
    text.append(chunk, static_cast<size_t>(n));
    if (text.size() > kMaxConfigBytes) {
      ::close(fd);
      return invalid_argument(path + ":1:1: larger than " + format_bytes(kMaxConfigBytes) +
                              "; not a zkpipe config");
    }
  }
  ::close(fd);
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  return parse_config(text, path, parent.empty() ? "." : parent.string());
}

uint64_t resolve_cap_bytes(const MemoryConfig& memory) {
  if (memory.cap_bytes) return *memory.cap_bytes;
  const uint64_t usable = usable_memory_bytes(read_system_info());
  const uint64_t margin = std::max(usable / 10, kMinAutoMarginBytes);
  const uint64_t cap = usable > margin ? usable - margin : 0;
  return std::max(cap, kMinAutoCapBytes);
}

}  // namespace zkpipe
