// config_test.cpp: the strict YAML config (zkpipe/config.h): the shipped configs/*.yaml,
// defaults, every class of error with its exact file:line:column, path resolution and
// resolve_cap_bytes. Inline YAML is parsed as "t.yaml" with base_dir "/base".
// Thread-safety: single-threaded Catch2 test cases; temporary files get unique names.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "zkpipe/config.h"
#include "zkpipe/sdk/units.h"
#include "zkpipe/system.h"

namespace {

namespace fs = std::filesystem;
using zkpipe::Code;
using zkpipe::Config;

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kGiB = uint64_t{1} << 30;

Config parse_ok(const std::string& yaml) {
  auto r = zkpipe::parse_config(yaml, "t.yaml", "/base");
  INFO(yaml << "\n-> " << r.status().to_string());
  REQUIRE(r.ok());
  return *r;
}

// The INVALID_ARGUMENT message for `yaml`.
std::string error_of(const std::string& yaml) {
  auto r = zkpipe::parse_config(yaml, "t.yaml", "/base");
  INFO(yaml << "\n was accepted");
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kInvalidArgument);
  return r.status().message();
}

// A valid document with `memory_body` (indented by two spaces) as the memory section.
std::string with_memory(const std::string& memory_body) {
  return "version: 1\nmemory:\n" + memory_body;
}

// A file under the temp directory, removed with its directory at scope exit.
struct TempDir {
  fs::path path = fs::temp_directory_path() / ("zkpipe_config_test_" + std::to_string(getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name) << text;
    return (path / name).string();
  }
};

}  // namespace

TEST_CASE("Config: every shipped config parses", "[config]") {
  const fs::path dir = fs::path(ZKPIPE_SOURCE_DIR) / "configs";
  int count = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    auto r = zkpipe::load_config(entry.path().string());
    INFO(r.status().to_string());
    CHECK(r.ok());
    ++count;
  }
  CHECK(count >= 5);
}

TEST_CASE("Config: the shipped configs select the documented variants", "[config]") {
  const std::string dir = std::string(ZKPIPE_SOURCE_DIR) + "/configs/";
  auto load = [&](const char* name) {
    auto r = zkpipe::load_config(dir + name);
    INFO(r.status().to_string());
    REQUIRE(r.ok());
    CHECK(r->path == dir + name);
    return r->memory;
  };
  const auto cpu = load("cpu.yaml");
  CHECK(cpu.backend == "pageable");
  CHECK_FALSE(cpu.huge_pages);
  CHECK_FALSE(cpu.cap_bytes.has_value());
  CHECK(load("pageable.yaml").huge_pages);
  const auto pinned = load("pinned-pool.yaml");
  CHECK(pinned.backend == "pinned_pool");
  CHECK(pinned.fallback.empty());
  CHECK(pinned.cap_bytes == 8 * kGiB);
  CHECK(pinned.on_cap == zkpipe::OnCap::kWait);
  CHECK(pinned.wait_timeout_ms == 120'000);
  CHECK(pinned.preallocate.size() == 1);
  CHECK(load("zero-copy.yaml").backend == "zero_copy");
  CHECK(load("pinned-pool-fallback.yaml").fallback == "pageable");
}

TEST_CASE("Config: a minimal config gets the documented defaults", "[config]") {
  const Config c = parse_ok("version: 1\nmemory:\n  backend: pageable\n");
  CHECK(c.path == "t.yaml");
  CHECK(c.version == 1);
  CHECK(c.plugin_dirs.empty());
  CHECK(c.log.level == "info");
  CHECK(c.log.format == "text");
  CHECK(c.memory.backend == "pageable");
  CHECK(c.memory.fallback.empty());
  CHECK_FALSE(c.memory.cap_bytes.has_value());
  CHECK(c.memory.on_cap == zkpipe::OnCap::kWait);
  CHECK(c.memory.wait_timeout_ms == 60'000);
  CHECK_FALSE(c.memory.huge_pages);
  CHECK(c.memory.reuse);
  CHECK(c.memory.preallocate.empty());
  CHECK(c.memory.location.to_string() == "t.yaml:2:1");
  CHECK(c.memory.backend_location.to_string() == "t.yaml:3:12");
}

TEST_CASE("Config: every key is read", "[config]") {
  const Config c = parse_ok(
      "version: 1\n"
      "plugin_dirs: [/opt/zkpipe/plugins]\n"
      "log: {level: debug, format: json}\n"
      "memory:\n"
      "  backend: pinned_pool\n"
      "  fallback: pageable\n"
      "  cap: 1.5 GiB\n"
      "  on_cap: fail\n"
      "  wait_timeout: infinite\n"
      "  huge_pages: true\n"
      "  reuse: false\n"
      "  preallocate:\n"
      "    - {count: 2, size: 256MiB}\n"
      "    - count: 1\n"
      "      size: 1000000\n");
  CHECK(c.plugin_dirs == std::vector<std::string>{"/opt/zkpipe/plugins"});
  CHECK(c.log.level == "debug");
  CHECK(c.log.format == "json");
  CHECK(c.memory.backend == "pinned_pool");
  CHECK(c.memory.fallback == "pageable");
  CHECK(c.memory.cap_bytes == 3 * kGiB / 2);
  CHECK(c.memory.on_cap == zkpipe::OnCap::kFail);
  CHECK(c.memory.wait_timeout_ms == -1);
  CHECK(c.memory.huge_pages);
  CHECK_FALSE(c.memory.reuse);
  REQUIRE(c.memory.preallocate.size() == 2);
  CHECK(c.memory.preallocate[0].count == 2);
  CHECK(c.memory.preallocate[0].bytes == 256 * kMiB);
  CHECK(c.memory.preallocate[1].count == 1);
  CHECK(c.memory.preallocate[1].bytes == 1'000'000);
  CHECK(c.memory.backend_location.to_string() == "t.yaml:5:12");
}

TEST_CASE("Config: YAML syntax errors give the parser's position, 1-based", "[config]") {
  CHECK(error_of("version: 1\nmemory:\n  backend: [pageable\n  cap: 1GiB\n") ==
        "t.yaml:4:6: invalid YAML: end of sequence flow not found");
  CHECK(error_of("version: 1\nmemory:\n\tbackend: pageable\n") ==
        "t.yaml:3:9: invalid YAML: illegal map value");
  CHECK(error_of("version: 1\nmemory: {backend: a}}\n") ==
        "t.yaml:2:21: invalid YAML: illegal flow end");
  CHECK(error_of("version: 1\nmemory:\n  backend: pageable\n  cap: *nope\n") ==
        "t.yaml:4:8: invalid YAML: the referenced anchor is not defined");
}

TEST_CASE("Config: duplicate keys are rejected at the top level and nested", "[config]") {
  CHECK(error_of("version: 1\nmemory:\n  backend: a\nversion: 1\n") ==
        "t.yaml:4:1: version: duplicate key 'version' (first at line 1, column 1)");
  CHECK(error_of(with_memory("  backend: a\n  cap: 1GiB\n  backend: b\n")) ==
        "t.yaml:5:3: memory.backend: duplicate key 'backend' (first at line 3, column 3)");
  CHECK(error_of("version: 1\nlog: {level: info, level: warn}\nmemory: {backend: a}\n") ==
        "t.yaml:2:20: log.level: duplicate key 'level' (first at line 2, column 7)");
  CHECK(error_of(with_memory("  backend: a\n  preallocate:\n    - {count: 1, size: 1MiB, "
                             "count: 2}\n")) ==
        "t.yaml:5:30: memory.preallocate[0].count: duplicate key 'count' (first at line 5, "
        "column 8)");
}

TEST_CASE("Config: an unknown key lists the keys allowed at that level", "[config]") {
  CHECK(error_of("version: 1\nmemroy:\n  backend: a\n") ==
        "t.yaml:2:1: memroy: unknown key 'memroy' (allowed at the top level: version, "
        "plugin_dirs, log, memory, compute, pipeline, params, server, store or scheduling)");
  CHECK(error_of(with_memory("  backend: a\n  capp: 1GiB\n")) ==
        "t.yaml:4:3: memory.capp: unknown key 'capp' (allowed in 'memory': backend, fallback, "
        "cap, on_cap, wait_timeout, huge_pages, reuse or preallocate)");
  CHECK(error_of("version: 1\nlog:\n  lvl: info\nmemory: {backend: a}\n") ==
        "t.yaml:3:3: log.lvl: unknown key 'lvl' (allowed in 'log': level or format)");
  CHECK(error_of(with_memory("  backend: a\n  preallocate:\n    - {count: 1, bytes: 1MiB}\n")) ==
        "t.yaml:5:18: memory.preallocate[0].bytes: unknown key 'bytes' (allowed in "
        "'memory.preallocate[0]': count or size)");
  CHECK(error_of("version: 1\n[a]: 1\nmemory: {backend: a}\n") ==
        "t.yaml:2:1: expected a string key, got a list");
}

TEST_CASE("Config: values of the wrong type are rejected", "[config]") {
  CHECK(error_of(with_memory("  backend: a\n  cap: {size: 1GiB}\n")) ==
        "t.yaml:4:8: memory.cap: expected a size or 'auto', got a map");
  CHECK(error_of("version: yes\nmemory: {backend: a}\n") ==
        "t.yaml:1:10: version: expected an integer from 0 to 2147483647, got 'yes'");
  CHECK(error_of("version: \"1\"\nmemory: {backend: a}\n") ==
        "t.yaml:1:10: version: expected an integer from 0 to 2147483647, got the string '1' "
        "(remove the quotes)");
  CHECK(error_of(with_memory("  backend: a\n  huge_pages: yes\n")) ==
        "t.yaml:4:15: memory.huge_pages: expected true or false, got 'yes'");
  CHECK(error_of(with_memory("  backend: a\n  reuse: \"true\"\n")) ==
        "t.yaml:4:10: memory.reuse: expected true or false, got 'true'");
  CHECK(error_of(with_memory("  backend: [a]\n")) ==
        "t.yaml:3:12: memory.backend: expected a plugin name, got a list");
  CHECK(error_of(with_memory("  backend:\n  cap: 1GiB\n")) ==
        "t.yaml:3:3: memory.backend: expected a plugin name, got an empty value");
  CHECK(error_of("version: 1\nmemory: pageable\n") ==
        "t.yaml:2:9: memory: expected a map, got 'pageable'");
  CHECK(error_of("version: 1\nmemory:\n") ==
        "t.yaml:2:1: memory: expected a map, got an empty value");
  CHECK(error_of("version: 1\nlog: debug\nmemory: {backend: a}\n") ==
        "t.yaml:2:6: log: expected a map, got 'debug'");
  CHECK(error_of("version: 1\nplugin_dirs: plugins\nmemory: {backend: a}\n") ==
        "t.yaml:2:14: plugin_dirs: expected a list of directories, got 'plugins'");
  CHECK(error_of("version: 1\nplugin_dirs: [a, [b]]\nmemory: {backend: a}\n") ==
        "t.yaml:2:18: plugin_dirs[1]: expected a directory, got a list");
  CHECK(error_of(with_memory("  backend: a\n  preallocate: {count: 1, size: 1MiB}\n")) ==
        "t.yaml:4:16: memory.preallocate: expected a list of {count: N, size: SIZE} maps, got a "
        "map");
  CHECK(error_of(with_memory("  backend: a\n  preallocate: [4]\n")) ==
        "t.yaml:4:17: memory.preallocate[0]: expected a map, got '4'");
}

TEST_CASE("Config: bad sizes, counts and durations are rejected", "[config]") {
  CHECK(error_of("version: 1\nlog:\n  level: info\nmemory:\n  backend: a\n\n  cap: 4MB2\n") ==
        "t.yaml:7:8: memory.cap: unknown unit 'MB2' in '4MB2' (use B, KiB, MiB, GiB, TiB, KB, "
        "MB, GB, TB or 'auto')");
  CHECK(error_of(with_memory("  backend: a\n  cap: 0\n")) ==
        "t.yaml:4:8: memory.cap: must be greater than 0, got '0'");
  CHECK(error_of(with_memory("  backend: a\n  cap: -1GiB\n")) ==
        "t.yaml:4:8: memory.cap: negative size '-1GiB'");
  CHECK(error_of(with_memory("  backend: a\n  cap: 99999999TiB\n")) ==
        "t.yaml:4:8: memory.cap: size '99999999TiB' does not fit in 64 bits");
  CHECK(error_of(with_memory("  backend: a\n  preallocate:\n    - {count: 1, size: 0MiB}\n")) ==
        "t.yaml:5:24: memory.preallocate[0].size: must be greater than 0, got '0MiB'");
  CHECK(error_of(with_memory("  backend: a\n  preallocate:\n    - {count: 1, size: 1Mb}\n")) ==
        "t.yaml:5:24: memory.preallocate[0].size: unknown unit 'Mb' in '1Mb' (use B, KiB, MiB, "
        "GiB, TiB, KB, MB, GB or TB)");
  CHECK(error_of(with_memory("  backend: a\n  preallocate:\n    - {count: 0, size: 1MiB}\n")) ==
        "t.yaml:5:15: memory.preallocate[0].count: expected an integer from 1 to 4294967295, got "
        "'0'");
  CHECK(
      error_of(with_memory("  backend: a\n  preallocate:\n    - {count: 4294967296, size: 1}\n")) ==
      "t.yaml:5:15: memory.preallocate[0].count: expected an integer from 1 to 4294967295, got "
      "'4294967296'");
  CHECK(error_of(with_memory("  backend: a\n  preallocate:\n    - {count: 1.5, size: 1MiB}\n")) ==
        "t.yaml:5:15: memory.preallocate[0].count: expected an integer from 1 to 4294967295, got "
        "'1.5'");
  CHECK(error_of(with_memory("  backend: a\n  preallocate:\n    - {size: 1MiB}\n")) ==
        "t.yaml:5:7: memory.preallocate[0]: missing required key 'count'");
  CHECK(error_of(with_memory("  backend: a\n  wait_timeout: 10\n")) ==
        "t.yaml:4:17: memory.wait_timeout: duration '10' has no unit (use ms, s, m, h or "
        "'infinite')");
  CHECK(error_of(with_memory("  backend: a\n  wait_timeout: forever\n")) ==
        "t.yaml:4:17: memory.wait_timeout: invalid duration 'forever': expected <number>[ ]<unit> "
        "with unit ms, s, m, h or 'infinite'");
}

TEST_CASE("Config: bad enum values and plugin names are rejected", "[config]") {
  CHECK(error_of("version: 1\nlog: {level: verbose}\nmemory: {backend: a}\n") ==
        "t.yaml:2:14: log.level: unknown value 'verbose' (use trace, debug, info, warn or error)");
  CHECK(error_of("version: 1\nlog: {format: xml}\nmemory: {backend: a}\n") ==
        "t.yaml:2:15: log.format: unknown value 'xml' (use text or json)");
  CHECK(error_of(with_memory("  backend: a\n  on_cap: block\n")) ==
        "t.yaml:4:11: memory.on_cap: unknown value 'block' (use wait or fail)");
  CHECK(error_of(with_memory("  backend: Pinned-Pool\n")) ==
        "t.yaml:3:12: memory.backend: invalid plugin name 'Pinned-Pool' (use lowercase letters, "
        "digits and '_', e.g. pinned_pool)");
  CHECK(error_of(with_memory("  backend: a\n  fallback: \"\"\n")) ==
        "t.yaml:4:13: memory.fallback: invalid plugin name '' (use lowercase letters, digits and "
        "'_', e.g. pinned_pool)");
}

TEST_CASE("Config: fallback must differ from backend, and 'none' means no fallback", "[config]") {
  CHECK(error_of(with_memory("  backend: pageable\n  fallback: pageable\n")) ==
        "t.yaml:4:13: memory.fallback: 'pageable' is already memory.backend; use 'none' or a "
        "different backend");
  CHECK(
      parse_ok(with_memory("  backend: pinned_pool\n  fallback: none\n")).memory.fallback.empty());
}

TEST_CASE("Config: only version 1 is read", "[config]") {
  CHECK(error_of("version: 2\nmemory: {backend: a}\n") ==
        "t.yaml:1:10: version: unsupported config version 2; this zkpipe reads version 1");
  // A newer file is reported by its version, not by the keys it added.
  CHECK(error_of("memory: {backend: a}\ncompute: gpu\nversion: 2\n") ==
        "t.yaml:3:10: version: unsupported config version 2; this zkpipe reads version 1");
  CHECK(error_of("version: 0\nmemory: {backend: a}\n") ==
        "t.yaml:1:10: version: unsupported config version 0; this zkpipe reads version 1");
  CHECK(error_of("memory: {backend: a}\n") ==
        "t.yaml:1:1: missing required key 'version' (this zkpipe reads version 1)");
}

TEST_CASE("Config: the memory section and its backend are required", "[config]") {
  CHECK(error_of("version: 1\nlog: {level: info}\n") ==
        "t.yaml:1:1: missing required section 'memory' (e.g. memory: {backend: pageable})");
  CHECK(error_of("version: 1\nmemory:\n  cap: 1GiB\n") ==
        "t.yaml:2:1: memory: missing required key 'backend' (e.g. backend: pageable)");
}

TEST_CASE("Config: preallocation over an explicit cap is rejected", "[config]") {
  const std::string prealloc =
      "  preallocate:\n    - {count: 4, size: 256MiB}\n    - {count: 1, size: 1MiB}\n";
  CHECK(error_of(with_memory("  backend: a\n" + prealloc + "  cap: 1GiB\n")) ==
        "t.yaml:4:3: memory.preallocate: total preallocation 1.00 GiB exceeds memory.cap 1 GiB");
  CHECK(parse_ok(with_memory("  backend: a\n  cap: 1025MiB\n" + prealloc))
            .memory.preallocate.size() == 2);
  CHECK(parse_ok(with_memory("  backend: a\n  cap: auto\n" + prealloc)).memory.preallocate.size() ==
        2);
  CHECK(error_of(with_memory("  backend: a\n  preallocate:\n    - {count: 4294967295, size: "
                             "16777215TiB}\n")) ==
        "t.yaml:4:3: memory.preallocate: total preallocation does not fit in 64 bits");
}

TEST_CASE("Config: relative plugin_dirs resolve against base_dir", "[config]") {
  auto r = zkpipe::parse_config(
      "version: 1\nplugin_dirs: [../plugins, /abs/x/, local, ./a/../b/]\nmemory: {backend: a}\n",
      "t.yaml", "/opt/zk/configs");
  REQUIRE(r.ok());
  CHECK(r->plugin_dirs == std::vector<std::string>{"/opt/zk/plugins", "/abs/x",
                                                   "/opt/zk/configs/local", "/opt/zk/configs/b"});
  CHECK(error_of("version: 1\nplugin_dirs: [\"\"]\nmemory: {backend: a}\n") ==
        "t.yaml:2:15: plugin_dirs[0]: empty directory name");
}

TEST_CASE("Config: load_config resolves plugin_dirs against the file's directory", "[config]") {
  TempDir tmp;
  const std::string path =
      tmp.write("c.yaml", "version: 1\nplugin_dirs: [plugins]\nmemory: {backend: a}\n");
  auto r = zkpipe::load_config(path);
  REQUIRE(r.ok());
  CHECK(r->path == path);
  CHECK(r->plugin_dirs ==
        std::vector<std::string>{(tmp.path / "plugins").lexically_normal().string()});
  const std::string bad = tmp.write("bad.yaml", "version: 1\nmemory: {backend: a, cap: 4MB2}\n");
  auto e = zkpipe::load_config(bad);
  REQUIRE_FALSE(e.ok());
  CHECK(e.status().code() == Code::kInvalidArgument);
  CHECK_THAT(e.status().message(), Catch::StartsWith(bad + ":2:27: memory.cap: unknown unit"));
}

TEST_CASE("Config: an empty file or a non-map top level is rejected", "[config]") {
  CHECK(error_of("") ==
        "t.yaml:1:1: empty config; expected a map with at least 'version' and 'memory'");
  CHECK(error_of("# only a comment\n") ==
        "t.yaml:1:1: empty config; expected a map with at least 'version' and 'memory'");
  CHECK(error_of("- version: 1\n") == "t.yaml:1:1: expected a map at the top level, got a list");
  CHECK(error_of("just text\n") == "t.yaml:1:1: expected a map at the top level, got 'just text'");
  CHECK(error_of("version: 1\nmemory: {backend: a}\n---\nversion: 1\n") ==
        "t.yaml:4:1: a second YAML document; a config holds exactly one");
}

TEST_CASE("Config: load_config of a missing or unreadable file is NOT_FOUND", "[config]") {
  auto r = zkpipe::load_config("/nonexistent/zkpipe.yaml");
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kNotFound);
  CHECK(r.status().message() ==
        "cannot read config '/nonexistent/zkpipe.yaml': No such file or directory");
  TempDir tmp;
  auto dir = zkpipe::load_config(tmp.path.string());
  REQUIRE_FALSE(dir.ok());
  CHECK(dir.status().code() == Code::kNotFound);
  CHECK_THAT(dir.status().message(), Catch::EndsWith("': Is a directory"));
}

TEST_CASE("Config: a config path that is a symlink loop says so", "[config]") {
  TempDir tmp;
  const fs::path a = tmp.path / "a.yaml", b = tmp.path / "b.yaml";
  fs::create_symlink(b, a);
  fs::create_symlink(a, b);
  auto r = zkpipe::load_config(a.string());
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kInvalidArgument);
  CHECK(r.status().message() == "cannot read config '" + a.string() +
                                    "': symlink loop (too many levels of symbolic links)");
}

TEST_CASE("Config: a 3 MB value is quoted as its first 100 bytes and its length", "[config]") {
  const std::string big(3'000'000, 'y');
  CHECK(error_of("version: " + big + "\nmemory: {backend: a}\n") ==
        "t.yaml:1:10: version: expected an integer from 0 to 2147483647, got '" +
            std::string(100, 'y') + "... (3000000 bytes)'");
  CHECK(error_of("version: 1\nlog: {level: " + big + "}\nmemory: {backend: a}\n") ==
        "t.yaml:2:14: log.level: unknown value '" + std::string(100, 'y') +
            "... (3000000 bytes)' (use trace, debug, info, warn or error)");
}

// yaml-cpp parses recursively, a few stack frames per level: a 10,000-level document is refused
// before it is loaded, at the first collection beyond 64 levels.
TEST_CASE("Config: 10,000 levels of nesting are refused as nesting too deep", "[config]") {
  const std::string flow =
      "version: 1\nmemory: {backend: a}\nx: " + std::string(10000, '[') + std::string(10000, ']');
  // The top-level map is level 1; the 64th '[' (column 4 + 63) opens level 65.
  CHECK(error_of(flow) == "t.yaml:3:67: nesting too deep: more than 64 levels of maps and lists");
  std::string block;
  for (int i = 0; i < 10000; ++i) block += "- ";
  CHECK(error_of(block + "x\n") ==
        "t.yaml:1:129: nesting too deep: more than 64 levels of maps and lists");
  std::string maps = "version: 1\nmemory: {backend: a}\n";
  for (int i = 0; i < 1000; ++i) maps += std::string(i, ' ') + "k:\n";
  CHECK_THAT(error_of(maps),
             Catch::EndsWith(": nesting too deep: more than 64 levels of maps and lists"));
}

TEST_CASE("SourceLocation: to_string omits unknown parts", "[config]") {
  CHECK(zkpipe::SourceLocation{"configs/cpu.yaml", 3, 5}.to_string() == "configs/cpu.yaml:3:5");
  CHECK(zkpipe::SourceLocation{"configs/cpu.yaml", 3, 0}.to_string() == "configs/cpu.yaml:3");
  CHECK(zkpipe::SourceLocation{"configs/cpu.yaml", 0, 0}.to_string() == "configs/cpu.yaml");
}

TEST_CASE("resolve_cap_bytes: explicit cap, or usable memory less max(10%, 1 GiB)", "[config]") {
  zkpipe::MemoryConfig memory;
  memory.cap_bytes = 3 * kGiB;
  CHECK(zkpipe::resolve_cap_bytes(memory) == 3 * kGiB);
  memory.cap_bytes.reset();
  const uint64_t usable = zkpipe::usable_memory_bytes(zkpipe::read_system_info());
  const uint64_t margin = std::max(usable / 10, kGiB);
  const uint64_t expected = std::max(usable > margin ? usable - margin : 0, 64 * kMiB);
  CHECK(zkpipe::resolve_cap_bytes(memory) == expected);
  CHECK(zkpipe::resolve_cap_bytes(memory) >= 64 * kMiB);
}

TEST_CASE("Config: the server section is read strictly, with defaults", "[config]") {
  const Config d = parse_ok("version: 1\nmemory:\n  backend: pageable\n");
  CHECK(d.server.listen == std::vector<std::string>{"unix:///run/zkpipe/zkpipe.sock"});
  CHECK(d.server.http == "127.0.0.1:9821");
  CHECK(d.server.max_message_bytes == 128ull << 20);
  CHECK(d.server.retain_count == 1000);
  CHECK(d.server.drain_timeout_ms < 0);
  const Config c = parse_ok(
      "version: 1\nmemory:\n  backend: pageable\nserver:\n  listen: [unix:///tmp/a.sock, "
      "'127.0.0.1:9820']\n  http: ''\n  max_message: 64MiB\n  max_queued_jobs: 8\n"
      "  retain_results: {count: 5, age: 10m}\n  proof_types: [porep]\n  drain_timeout: 30s\n"
      "  trace_window: 2m\n");
  CHECK(c.server.listen.size() == 2);
  CHECK(c.server.http.empty());
  CHECK(c.server.max_message_bytes == 64ull << 20);
  CHECK(c.server.max_queued_jobs == 8);
  CHECK(c.server.retain_count == 5);
  CHECK(c.server.retain_age_ms == 600'000);
  CHECK(c.server.proof_types == std::vector<std::string>{"porep"});
  CHECK(c.server.drain_timeout_ms == 30'000);
  CHECK(c.server.trace_window_ms == 120'000);
  const std::string base = "version: 1\nmemory:\n  backend: pageable\nserver:\n";
  CHECK(error_of(base + "  listen: []\n").find("server.listen") != std::string::npos);
  CHECK(error_of(base + "  listen: [a, a]\n").find("listed twice") != std::string::npos);
  CHECK(error_of(base + "  max_message: 3GiB\n").find("2 GiB") != std::string::npos);
  CHECK(error_of(base + "  max_queued_jobs: 0\n").find("server.max_queued_jobs") !=
        std::string::npos);
  CHECK(error_of(base + "  retain_results: {cnt: 3}\n").find("unknown key 'cnt'") !=
        std::string::npos);
  CHECK(error_of(base + "  trace_window: 10ms\n").find("at least 1s") != std::string::npos);
  CHECK(error_of(base + "  listn: []\n").find("unknown key 'listn'") != std::string::npos);
}

TEST_CASE("Config: the store section is read strictly, with defaults", "[config]") {
  const Config d =
      parse_ok("version: 1\nmemory:\n  backend: pageable\nparams: {dir: /var/lib/zk/params}\n");
  CHECK(d.store.backend == "sqlite");
  CHECK(d.store.sqlite_path.empty());
  CHECK(zkpipe::default_sqlite_path(d) == "/var/lib/zk/jobs.db");
  CHECK(d.store.lease_ms == 30'000);
  CHECK(d.store.heartbeat_ms == 5'000);
  CHECK(d.store.max_attempts == 3);
  CHECK(d.store.retain_ms == 7ll * 24 * 3600'000);
  CHECK(d.store.claim_ahead == 1);
  const Config c = parse_ok(
      "version: 1\nmemory:\n  backend: pageable\nstore:\n  backend: postgres\n"
      "  postgres: {conninfo: 'host=db1 dbname=zkpipe'}\n  lease: 10s\n  heartbeat: 2s\n"
      "  poll: 250ms\n  reap: 3s\n  max_attempts: 5\n  retry_backoff: 2s\n  retain: 24h\n"
      "  worker: gpu-host-1\n  claim_ahead: 2\n  chunk: 4MiB\n");
  CHECK(c.store.backend == "postgres");
  CHECK(c.store.postgres_conninfo == "host=db1 dbname=zkpipe");
  CHECK(c.store.lease_ms == 10'000);
  CHECK(c.store.heartbeat_ms == 2'000);
  CHECK(c.store.poll_ms == 250);
  CHECK(c.store.reap_ms == 3'000);
  CHECK(c.store.max_attempts == 5);
  CHECK(c.store.retry_backoff_ms == 2'000);
  CHECK(c.store.retain_ms == 24 * 3600'000);
  CHECK(c.store.worker == "gpu-host-1");
  CHECK(c.store.claim_ahead == 2);
  CHECK(c.store.chunk_bytes == 4ull << 20);
  const Config rel = parse_ok(
      "version: 1\nmemory:\n  backend: pageable\nstore:\n"
      "  sqlite: {path: state/jobs.db}\n");
  CHECK(rel.store.sqlite_path.ends_with("/state/jobs.db"));
  const std::string base = "version: 1\nmemory:\n  backend: pageable\nstore:\n";
  CHECK(error_of(base + "  backend: mysql\n").find("store.backend") != std::string::npos);
  CHECK(error_of(base + "  postgres: {conninfo: x}\n").find("backend is sqlite") !=
        std::string::npos);
  CHECK(error_of(base + "  backend: postgres\n  sqlite: {path: a.db}\n")
            .find("backend is postgres") != std::string::npos);
  CHECK(error_of(base + "  lease: 3s\n  heartbeat: 2s\n").find("a third of the lease") !=
        std::string::npos);
  CHECK(error_of(base + "  lease: 10ms\n").find("at least 1000 ms") != std::string::npos);
  CHECK(error_of(base + "  max_attempts: 0\n").find("store.max_attempts") != std::string::npos);
  CHECK(error_of(base + "  worker: 'a b'\n").find("without spaces") != std::string::npos);
  CHECK(error_of(base + "  sqlite: {path: ''}\n").find("empty path") != std::string::npos);
  CHECK(error_of(base + "  chunk: 1KiB\n").find("4KiB") != std::string::npos);
  CHECK(error_of(base + "  leese: 1s\n").find("unknown key 'leese'") != std::string::npos);
}
