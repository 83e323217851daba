// `zkpipe-tool validate` survives the plugins it validates: corrupted copies of a real plugin
// (.dynsym, .dynamic, .text, .rela.dyn overwritten at run time), a plugin that crashes in init,
// one whose self-test never returns, and plugin files that are FIFOs, directories, devices or
// dangling links. Each is a FAIL row naming what happened, and the plugins after it are checked.
#include <elf.h>
#include <sys/stat.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "temp_dir.h"
#include "tools/run_tool.h"

using Catch::Matchers::Contains;
using zkpipe::testing::read_bytes;
using zkpipe::testing::TempDir;
using zkpipe::testing::write_bytes;
namespace fs = std::filesystem;

namespace {

std::string fixture(const std::string& c) {
  return std::string(ZKPIPE_TEST_FIXTURE_DIR) + "/" + c;
}

// The tool under `timeout` (SIGKILL 10 s after SIGTERM), so that a hang fails the test (exit
// 124 or 137) instead of stalling it.
zkpipe::test::ToolRun validate(const std::string& args) {
  return zkpipe::test::run_program(std::string("timeout -k 10 120 ") + ZKPIPE_TEST_TOOL,
                                   "validate " + args);
}

// [offset, offset + size) of the named section in a 64-bit ELF image (size 0 when absent).
std::pair<uint64_t, uint64_t> section(const std::vector<uint8_t>& elf, const std::string& name) {
  Elf64_Ehdr eh;
  std::memcpy(&eh, elf.data(), sizeof eh);
  std::vector<Elf64_Shdr> sh(eh.e_shnum);
  std::memcpy(sh.data(), elf.data() + eh.e_shoff, sh.size() * sizeof(Elf64_Shdr));
  const char* names = reinterpret_cast<const char*>(elf.data() + sh[eh.e_shstrndx].sh_offset);
  for (const Elf64_Shdr& s : sh) {
    if (name == names + s.sh_name) return {s.sh_offset, s.sh_size};
  }
  return {0, 0};
}

// <dir>/fixture_good.so and its manifest, the library passed through `corrupt` first.
std::string copy_good(const TempDir& tmp, const std::string& dir,
                      void (*corrupt)(std::vector<uint8_t>&, const std::string&),
                      const std::string& arg) {
  const fs::path d = tmp.path / dir;
  fs::create_directories(d);
  fs::copy_file(fixture("good") + "/fixture_good.plugin.toml", d / "fixture_good.plugin.toml");
  std::vector<uint8_t> bytes = read_bytes(fixture("good") + "/fixture_good.so");
  REQUIRE(bytes.size() > sizeof(Elf64_Ehdr));
  corrupt(bytes, arg);
  write_bytes((d / "fixture_good.so").string(), bytes);
  return d.string();
}

// Every byte of the section inverted.
void flip_section(std::vector<uint8_t>& elf, const std::string& name) {
  const auto [offset, size] = section(elf, name);
  REQUIRE(size > 0);
  for (uint64_t i = offset; i < offset + size; ++i) elf[i] ^= 0xff;
}

// .text filled with an instruction that faults wherever execution enters it: hlt (privileged,
// SIGSEGV in user mode) on x86-64, udf #0 (SIGILL) on AArch64.
void fault_text(std::vector<uint8_t>& elf, const std::string&) {
  const auto [offset, size] = section(elf, ".text");
  REQUIRE(size > 0);
#if defined(__x86_64__)
  std::memset(elf.data() + offset, 0xf4, size);
#else
  std::memset(elf.data() + offset, 0x00, size);
#endif
}

void unchanged(std::vector<uint8_t>&, const std::string&) {}

nlohmann::json rows_of(const zkpipe::test::ToolRun& r) {
  INFO(r.output);
  const size_t open = r.output.find("{\n");
  REQUIRE(open != std::string::npos);
  return nlohmann::json::parse(r.output.substr(open))["rows"];
}

}  // namespace

TEST_CASE("validate: corrupted .dynsym, .dynamic, .text, .rela.dyn fail as rows; the rest run",
          "[tool][plugin]") {
  TempDir tmp("validate_corrupt");
  const std::vector<std::pair<std::string, std::string>> cases = {
    {copy_good(tmp, "dynsym", flip_section, ".dynsym"), "crashed: SIGSEGV during dlopen"},
    {copy_good(tmp, "dynamic", flip_section, ".dynamic"), "crashed: SIGSEGV during dlopen"},
#if defined(__x86_64__)
    {copy_good(tmp, "text", fault_text, ""), "crashed: SIGSEGV during dlopen"},
#else
    {copy_good(tmp, "text", fault_text, ""), "crashed: SIGILL during dlopen"},
#endif
    {copy_good(tmp, "rela", flip_section, ".rela.dyn"), "exited with status 127 during dlopen"},
  };
  const std::string good = copy_good(tmp, "good", unchanged, "");
  std::string args = "--json";
  for (const auto& c : cases) args += " --plugin-dir " + c.first;
  const auto r = validate(args + " --plugin-dir " + good);
  INFO(r.output);
  CHECK(r.exit_code == 1);
  const nlohmann::json rows = rows_of(r);
  REQUIRE(rows.size() == cases.size() + 1);
  for (size_t i = 0; i < cases.size(); ++i) {
    INFO(cases[i].first);
    CHECK(rows[i]["source"] == cases[i].first);
    CHECK(rows[i]["status"] == "FAIL");
    CHECK_THAT(rows[i]["reason"].get<std::string>(), Contains(cases[i].second));
  }
  CHECK(rows[cases.size()]["source"] == good);
  CHECK(rows[cases.size()]["status"] == "PASS");
}

TEST_CASE("validate: a plugin that crashes in init is a FAIL row naming the signal and stage",
          "[tool][plugin]") {
  const auto r =
      validate("--json --plugin-dir " + fixture("crash_init") + " --plugin-dir " + fixture("good"));
  INFO(r.output);
  CHECK(r.exit_code == 1);
  const nlohmann::json rows = rows_of(r);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0]["status"] == "FAIL");
  CHECK(rows[0]["reason"] == "crashed: SIGSEGV during init");
  CHECK(rows[1]["plugin"] == "fixture_good");
  CHECK(rows[1]["status"] == "PASS");
}

TEST_CASE("validate: a self-test that never returns is killed after --timeout", "[tool][plugin]") {
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = validate("--timeout 1 --plugin-dir " + fixture("hang_self_test") +
                          " --plugin-dir " + fixture("good"));
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Contains("timed out after 1 s during self_test (killed)"));
  CHECK_THAT(r.output, Contains("fixture_good"));
  CHECK(s < 30);
}

TEST_CASE("validate: a FIFO, directory, device or dangling link is refused before it is opened",
          "[tool][plugin]") {
  TempDir tmp("validate_files");
  const auto dir_with = [&](const std::string& name, auto&& make_library) {
    const fs::path d = tmp.path / name;
    fs::create_directories(d);
    fs::copy_file(fixture("good") + "/fixture_good.plugin.toml", d / "fixture_good.plugin.toml");
    make_library((d / "fixture_good.so").string());
    return d.string();
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {dir_with("fifo", [](const std::string& p) { REQUIRE(::mkfifo(p.c_str(), 0644) == 0); }),
       "plugin library is a FIFO (named pipe), not a regular file; refused before opening it"},
      {dir_with("directory", [](const std::string& p) { fs::create_directory(p); }),
       "plugin library is a directory, not a regular file"},
      {dir_with("device", [](const std::string& p) { fs::create_symlink("/dev/null", p); }),
       "plugin library is a character device, not a regular file"},
      {dir_with("dangling", [](const std::string& p) { fs::create_symlink("gone.so", p); }),
       "plugin library is a dangling symbolic link (to gone.so)"},
  };
  const fs::path fifo_manifest = tmp.path / "fifo_manifest";
  fs::create_directories(fifo_manifest);
  REQUIRE(::mkfifo((fifo_manifest / "fixture_good.plugin.toml").c_str(), 0644) == 0);
  std::string args = "--json";
  for (const auto& c : cases) args += " --plugin-dir " + c.first;
  const auto r = validate(args + " --plugin-dir " + fifo_manifest.string());
  INFO(r.output);
  CHECK(r.exit_code == 1);
  const nlohmann::json rows = rows_of(r);
  REQUIRE(rows.size() == cases.size() + 1);
  for (size_t i = 0; i < cases.size(); ++i) {
    CHECK(rows[i]["status"] == "FAIL");
    CHECK_THAT(rows[i]["reason"].get<std::string>(),
               Contains(cases[i].first + "/fixture_good.so: " + cases[i].second));
  }
  CHECK_THAT(rows[cases.size()]["reason"].get<std::string>(),
             Contains("fixture_good.plugin.toml: plugin manifest is a FIFO (named pipe)"));
}
