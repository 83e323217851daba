// Manifests are parsed strictly: each problem is an error naming path:line:column.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <catch2/catch.hpp>

#include "temp_dir.h"
#include "zkpipe/plugin.h"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

// One directory per process (tests/temp_dir.h), removed at exit.
std::string write_manifest(const std::string& file, const std::string& text) {
  static const zkpipe::testing::TempDir dir("zkpipe_manifest_test");
  const std::string path = dir.file(file);
  std::ofstream(path) << text;
  return path;
}

const char* kGood =
    "name = \"x\"\nkind = \"memory\"\nabi = \"1.0\"\nversion = \"0.1.0\"\n"
    "description = \"d\"\n[requires]\ncuda = true\n";

}  // namespace

TEST_CASE("Manifest: a complete manifest parses", "[plugin]") {
  auto m = zkpipe::load_manifest(write_manifest("x.plugin.toml", kGood));
  REQUIRE(m.ok());
  CHECK(m->name == "x");
  CHECK(m->kind == "memory");
  CHECK(m->abi_major == 1);
  CHECK(m->abi_minor == 0);
  CHECK(m->requires_cuda);
}

TEST_CASE("Manifest: each problem names the file, line and column", "[plugin]") {
  struct Case {
    std::string text, expect;
  };
  std::vector<Case> cases = {
      {"name = \"x\"\nkind = \"memory\"\nabi = \"1.0\"\nversion = \"1\"\ncolour = 1\n",
       "x.plugin.toml:5:1: unknown key 'colour' (allowed: name, kind, abi, version, description, "
       "requires)"},
      {"name = \"x\"\nkind = \"gpu\"\nabi = \"1.0\"\nversion = \"1\"\n",
       "x.plugin.toml:2:8: kind 'gpu' is not one of memory, compute, proof_type"},
      {"name = \"x\"\nkind = \"memory\"\nabi = 1\nversion = \"1\"\n",
       "x.plugin.toml:3:7: 'abi' must be a string"},
      {"name = \"x\"\nkind = \"memory\"\nabi = \"one\"\nversion = \"1\"\n",
       "x.plugin.toml:3:7: abi 'one' must be MAJOR.MINOR"},
      {"name = \"x\"\nkind = \"memory\"\nversion = \"1\"\n",
       "x.plugin.toml: missing required key 'abi'"},
      {"name = \"X-Y\"\nkind = \"memory\"\nabi = \"1.0\"\nversion = \"1\"\n",
       "x.plugin.toml:1:8: name 'X-Y' must match"},
      {"name = \"x\"\nkind = \"memory\"\nabi = \"1.0\"\nversion = \"1\"\n[requires]\ncuda = "
       "\"yes\"\n",
       "x.plugin.toml:6:8: 'requires.cuda' must be true or false"},
      {"name = \"x\"\nkind = \"memory\"\nabi = \"1.0\"\nversion = \"1\"\n[requires]\ngpu = true\n",
       "x.plugin.toml:6:1: unknown key 'requires.gpu' (allowed: cuda)"},
      {"name = \"x\"\nname = \"y\"\n", "x.plugin.toml:2:"},
  };
  for (const auto& c : cases) {
    auto path = write_manifest("x.plugin.toml", c.text);
    auto m = zkpipe::load_manifest(path);
    INFO(c.text);
    REQUIRE(!m.ok());
    CHECK(m.status().code() == zkpipe::Code::kInvalidArgument);
    CHECK_THAT(m.status().message(), Contains(c.expect));
    CHECK_THAT(m.status().message(), StartsWith(path));
  }
}

TEST_CASE("Manifest: a missing file is NOT_FOUND", "[plugin]") {
  auto m = zkpipe::load_manifest("/nonexistent/dir/x.plugin.toml");
  CHECK(m.status().code() == zkpipe::Code::kNotFound);
}
