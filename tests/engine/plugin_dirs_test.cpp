// plugin_search_dirs: named directories are searched exactly, each checked, with no fallback;
// the defaults only when none is named. check_regular_file and the loader refuse plugin files
// that are not regular files before opening them.
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "temp_dir.h"
#include "zkpipe/plugin.h"
#include "zkpipe/sdk/abi/memory.h"

using Catch::Matchers::Contains;
using zkpipe::Code;
using zkpipe::testing::TempDir;
namespace fs = std::filesystem;

TEST_CASE("PluginDirs: named directories are searched exactly, without the defaults", "[plugin]") {
  TempDir tmp("plugin_dirs");
  fs::create_directories(tmp.path / "a");
  fs::create_directories(tmp.path / "b");
  auto r = zkpipe::plugin_search_dirs(
      {{"c.yaml: plugin_dirs", {tmp.file("a")}}, {"--plugin-dir", {tmp.file("b")}}});
  REQUIRE(r.ok());
  CHECK(*r == std::vector<std::string>{tmp.file("a"), tmp.file("b")});
}

TEST_CASE("PluginDirs: a missing or non-directory entry names origin[i] and the path", "[plugin]") {
  TempDir tmp("plugin_dirs");
  fs::create_directories(tmp.path / "a");
  std::ofstream(tmp.path / "file") << "x";
  auto missing =
      zkpipe::plugin_search_dirs({{"c.yaml: plugin_dirs", {tmp.file("a"), "/nonexistent"}}});
  CHECK(missing.status().code() == Code::kFailedPrecondition);
  CHECK(missing.status().message() ==
        "c.yaml: plugin_dirs[1]: /nonexistent: plugin directory does not exist");
  auto file = zkpipe::plugin_search_dirs({{"--plugin-dir", {tmp.file("file")}}});
  CHECK(file.status().code() == Code::kFailedPrecondition);
  CHECK(file.status().message() == "--plugin-dir[0]: " + tmp.file("file") +
                                       ": plugin directory is a regular file, not a directory");
  fs::create_symlink(tmp.file("gone"), tmp.path / "dangling");
  auto dangling = zkpipe::plugin_search_dirs({{"c.yaml: plugin_dirs", {tmp.file("dangling")}}});
  CHECK_THAT(dangling.status().message(),
             Contains("plugin directory is a dangling symbolic link (to " + tmp.file("gone")));
}

TEST_CASE("PluginDirs: with none named, the defaults, and $ZKPIPE_PLUGIN_DIR is checked",
          "[plugin]") {
  TempDir tmp("plugin_dirs");
  const char* saved = std::getenv("ZKPIPE_PLUGIN_DIR");
  const std::string restore = saved != nullptr ? saved : "";
  ::setenv("ZKPIPE_PLUGIN_DIR", tmp.path.c_str(), 1);
  auto set = zkpipe::plugin_search_dirs({{"c.yaml: plugin_dirs", {}}});
  ::setenv("ZKPIPE_PLUGIN_DIR", tmp.file("missing").c_str(), 1);
  auto missing = zkpipe::plugin_search_dirs({});
  if (saved != nullptr) {
    ::setenv("ZKPIPE_PLUGIN_DIR", restore.c_str(), 1);
  } else {
    ::unsetenv("ZKPIPE_PLUGIN_DIR");
  }
  REQUIRE(set.ok());
  CHECK(*set == std::vector<std::string>{tmp.path.string()});
  CHECK(missing.status().code() == Code::kFailedPrecondition);
  CHECK(missing.status().message() ==
        "$ZKPIPE_PLUGIN_DIR: " + tmp.file("missing") + ": plugin directory does not exist");
}

TEST_CASE("PluginLoader: a library that is a FIFO, directory, device or dangling link is refused",
          "[plugin]") {
  TempDir tmp("plugin_files");
  const std::string manifest =
      std::string(ZKPIPE_TEST_FIXTURE_DIR) + "/good/fixture_good.plugin.toml";
  const auto load_with = [&](const std::string& name, auto&& make_library) {
    const fs::path d = tmp.path / name;
    fs::create_directories(d);
    fs::copy_file(manifest, d / "fixture_good.plugin.toml");
    make_library((d / "fixture_good.so").string());
    zkpipe::PluginRegistry reg({d.string()});
    return reg.load("fixture_good", ZKP_KIND_MEMORY).status();
  };
  const auto fifo =
      load_with("fifo", [](const std::string& p) { REQUIRE(::mkfifo(p.c_str(), 0644) == 0); });
  CHECK(fifo.code() == Code::kInvalidArgument);
  CHECK_THAT(fifo.message(),
             Contains("/fifo/fixture_good.so: plugin library is a FIFO (named pipe), not a "
                      "regular file; refused before opening it (manifest "));
  CHECK_THAT(load_with("dir", [](const std::string& p) { fs::create_directory(p); }).message(),
             Contains("plugin library is a directory, not a regular file"));
  CHECK_THAT(
      load_with("dev", [](const std::string& p) { fs::create_symlink("/dev/zero", p); }).message(),
      Contains("plugin library is a character device, not a regular file"));
  CHECK_THAT(
      load_with("dangling", [](const std::string& p) { fs::create_symlink("x.so", p); }).message(),
      Contains("plugin library is a dangling symbolic link (to x.so)"));
  CHECK(zkpipe::check_regular_file(tmp.file("none"), "plugin library").code() == Code::kNotFound);
}

TEST_CASE("PluginLoader: a manifest that is a FIFO is refused before it is read", "[plugin]") {
  TempDir tmp("plugin_files");
  REQUIRE(::mkfifo(tmp.file("fixture_good.plugin.toml").c_str(), 0644) == 0);
  zkpipe::PluginRegistry reg({tmp.path.string()});
  const auto s = reg.load("fixture_good", ZKP_KIND_MEMORY).status();
  CHECK(s.code() == Code::kInvalidArgument);
  CHECK(s.message() == tmp.file("fixture_good.plugin.toml") +
                           ": plugin manifest is a FIFO (named pipe), not a regular file; refused "
                           "before opening it");
}
