// Where plugins come from, as `zkpipe prove` and `zkpipe-tool validate` see it: a config's
// plugin_dirs entry that is missing, a file, or holds no such plugin is the same error in both,
// never a quiet fall back to the build's plugins; a FIFO named pageable.so is refused, not read.
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <catch2/catch.hpp>

#include "temp_dir.h"
#include "tools/run_tool.h"

using Catch::Matchers::Contains;
using zkpipe::test::run_program;
using zkpipe::test::ToolRun;
using zkpipe::testing::TempDir;
namespace fs = std::filesystem;

namespace {

std::string write(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
  return path.string();
}

// A config whose plugin_dirs are `first` and then the test proof type's directory.
std::string config_with(const TempDir& dir, const std::string& first) {
  return write(dir.path / "c.yaml",
               fmt::format("version: 1\nplugin_dirs: [{}, {}]\nmemory: {{backend: pageable}}\n"
                           "params: {{dir: params, missing: setup}}\ncompute: {{threads: 1}}\n",
                           first, ZKPIPE_TEST_PIPELINE_PLUGIN_DIR));
}

ToolRun prove(const TempDir& dir, const std::string& config) {
  const std::string input =
      write(dir.path / "r.json", R"({"rounds": 8, "partitions": 1, "seed": 1})");
  return run_program(std::string("timeout -k 10 120 ") + ZKPIPE_TEST_ZKPIPE,
                     fmt::format("prove --config {} --proof mimc_jobs --input {} --out {}", config,
                                 input, (dir.path / "p.bin").string()));
}

ToolRun validate(const std::string& config) {
  return run_program(std::string("timeout -k 10 120 ").append(ZKPIPE_TEST_TOOL),
                     "validate " + config);
}

}  // namespace

TEST_CASE("plugin_dirs: a missing, non-directory or pluginless entry fails prove and validate",
          "[tool][plugin]") {
  TempDir dir("plugin_dirs");
  const fs::path file = dir.path / "a_file";
  write(file, "not a directory\n");
  const fs::path random = dir.path / "random";
  fs::create_directories(random);
  write(random / "libfoo.so", "random bytes, not a plugin\n");
  write(random / "pageable2.so", "random bytes, not a plugin\n");
  const std::string cfg_path = (dir.path / "c.yaml").string();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"/nonexistent",
       cfg_path + ": plugin_dirs[0]: /nonexistent: plugin directory does not exist"},
      {file.string(), cfg_path + ": plugin_dirs[0]: " + file.string() +
                          ": plugin directory is a regular file, not a directory"},
      {random.string(), "plugin 'pageable' not found (searched: " + random.string() + ", " +
                            ZKPIPE_TEST_PIPELINE_PLUGIN_DIR + ";"},
  };
  for (const auto& [first, want] : cases) {
    const std::string config = config_with(dir, first);
    const ToolRun p = prove(dir, config);
    INFO(first << "\nprove:\n" << p.output);
    CHECK(p.exit_code != 0);
    CHECK(p.exit_code != 124);
    CHECK_THAT(p.output, Contains(want));
    CHECK_FALSE(fs::exists(dir.path / "p.bin"));
    const ToolRun v = validate(config);
    INFO("validate:\n" << v.output);
    CHECK(v.exit_code == 1);
    CHECK_THAT(v.output, Contains("FAIL"));
    CHECK_THAT(v.output, Contains(want));
  }
}

TEST_CASE("plugin_dirs: without plugin_dirs the build's plugins are used", "[tool][plugin]") {
  TempDir dir("plugin_dirs");
  const std::string config =
      write(dir.path / "c.yaml", "version: 1\nmemory: {backend: pageable}\n");
  const ToolRun v = validate(config);
  INFO(v.output);
  CHECK(v.exit_code == 0);
  CHECK_THAT(v.output, Contains("memory: pageable"));
}

TEST_CASE("zkpipe prove: a FIFO named pageable.so is refused before it is opened",
          "[tool][plugin]") {
  TempDir dir("plugin_dirs_fifo");
  const fs::path plugins = dir.path / "plugins";
  fs::create_directories(plugins);
  fs::copy_file(std::string(ZKPIPE_TEST_PLUGIN_DIR) + "/pageable.plugin.toml",
                plugins / "pageable.plugin.toml");
  REQUIRE(::mkfifo((plugins / "pageable.so").c_str(), 0644) == 0);
  const ToolRun p = prove(dir, config_with(dir, plugins.string()));
  INFO(p.output);
  CHECK(p.exit_code == 2);
  CHECK_THAT(p.output, Contains((plugins / "pageable.so").string() +
                                ": plugin library is a FIFO (named pipe), not a regular file; "
                                "refused before opening it"));
}
