// The loader rejects each deliberately broken fixture (tests/fixtures/) with its own message,
// and loads good plugins.
#include <string>

#include <catch2/catch.hpp>

#include "zkpipe/memory.h"
#include "zkpipe/plugin.h"
#include "zkpipe/sdk/abi/memory.h"
#include "zkpipe/sdk/sdk.h"

using Catch::Matchers::Contains;

namespace {

std::string fixture(const std::string& c) {
  return std::string(ZKPIPE_TEST_FIXTURE_DIR) + "/" + c;
}

zkpipe::Status load_fixture(const std::string& c, const std::string& name) {
  zkpipe::PluginRegistry reg({fixture(c)});
  auto r = reg.load(name, ZKP_KIND_MEMORY);
  return r.status();
}

}  // namespace

TEST_CASE("PluginLoader: a well-formed plugin loads and passes its self-test", "[plugin]") {
  zkpipe::PluginRegistry reg({fixture("good")});
  auto r = reg.load("fixture_good", ZKP_KIND_MEMORY);
  REQUIRE(r.ok());
  const zkpipe::LoadedPlugin* p = *r;
  CHECK(p->available());
  CHECK(p->manifest.version == "0.1.0");
  // Built by this build's compiler (gcc, or clang in the sanitizer build): the tag names it.
  CHECK(std::string(p->header->build_tag).rfind(ZKP_SDK_COMPILER "; ", 0) == 0);
  char msg[ZKP_ERROR_CAPACITY] = {0};
  CHECK(p->header->self_test(zkp_error{msg, sizeof msg}) == ZKP_OK);
  // Loading again returns the same plugin: libraries are loaded once.
  auto again = reg.load("fixture_good", ZKP_KIND_MEMORY);
  REQUIRE(again.ok());
  CHECK(*again == p);
}

TEST_CASE("PluginLoader: a 1.0-layout descriptor still loads after the 1.2 bump", "[plugin]") {
  // Built before 1.2 appended buffer_flags: 96 bytes, manifest and descriptor ABI 1.0.
  zkpipe::PluginRegistry reg({fixture("abi_1_0")});
  auto r = reg.load("abi_1_0", ZKP_KIND_MEMORY);
  INFO(r.status().to_string());
  REQUIRE(r.ok());
  CHECK((*r)->available());
  CHECK((*r)->header->struct_size == 96);
  CHECK((*r)->header->abi_minor == 0);
  zkpipe::MemoryConfig config;
  config.backend = "abi_1_0";
  config.cap_bytes = 1 << 20;
  auto pool = zkpipe::MemoryPool::create(**r, config);
  INFO(pool.status().to_string());
  REQUIRE(pool.ok());
  // The 1.2 field lies past its descriptor: never read, the pool-level flags are 0.
  CHECK((*pool)->buffer_flags() == 0u);
  CHECK_FALSE((*pool)->page_locked());
}

TEST_CASE("PluginLoader: wrong abi_major is rejected with both ABI versions", "[plugin]") {
  auto s = load_fixture("bad_abi", "bad_abi");
  CHECK(s.code() == zkpipe::Code::kFailedPrecondition);
  CHECK_THAT(s.message(), Contains("bad_abi.so: incompatible plugin ABI major version"));
  CHECK_THAT(s.message(), Contains("engine ABI 1.8"));
  CHECK_THAT(s.message(), Contains("descriptor ABI 2.8"));
}

TEST_CASE("PluginLoader: a struct_size too small for the kind is rejected", "[plugin]") {
  auto s = load_fixture("small_struct", "small_struct");
  CHECK(s.code() == zkpipe::Code::kFailedPrecondition);
  CHECK_THAT(
      s.message(),
      Contains("descriptor struct_size 56 is smaller than the 96 bytes of a memory descriptor"));
}

TEST_CASE("PluginLoader: a library without the entry symbol is rejected", "[plugin]") {
  auto s = load_fixture("no_entry", "no_entry");
  CHECK(s.code() == zkpipe::Code::kFailedPrecondition);
  CHECK_THAT(s.message(), Contains("missing entry symbol 'zkp_plugin'"));
}

TEST_CASE("PluginLoader: manifest and descriptor that disagree are rejected", "[plugin]") {
  auto s = load_fixture("mismatch", "mismatch");
  CHECK(s.code() == zkpipe::Code::kFailedPrecondition);
  CHECK_THAT(s.message(), Contains("manifest version '0.1.0' != descriptor version '0.2.0'"));
}

TEST_CASE("PluginLoader: a failing init stops the load with the plugin's message", "[plugin]") {
  auto s = load_fixture("failing_init", "failing_init");
  CHECK(s.code() == zkpipe::Code::kInternal);
  CHECK_THAT(s.message(), Contains("init failed: fixture init fails on purpose"));
}

TEST_CASE("PluginLoader: a file that is not a shared library is rejected before dlopen",
          "[plugin]") {
  auto s = load_fixture("not_a_library", "not_a_library");
  CHECK(s.code() == zkpipe::Code::kInvalidArgument);
  CHECK_THAT(s.message(), Contains("not a shared library: bytes 0-3 are not the ELF magic"));
}

TEST_CASE("PluginLoader: a truncated library is rejected with the byte offset", "[plugin]") {
  auto s = load_fixture("truncated", "truncated");
  CHECK(s.code() == zkpipe::Code::kInvalidArgument);
  CHECK_THAT(s.message(), Contains("truncated or corrupt shared library"));
  CHECK_THAT(s.message(), Contains("but the file has"));
}

TEST_CASE("PluginLoader: a library without a manifest is rejected", "[plugin]") {
  auto s = load_fixture("missing_manifest", "missing_manifest");
  CHECK(s.code() == zkpipe::Code::kNotFound);
  CHECK_THAT(s.message(), Contains("missing manifest missing_manifest.plugin.toml"));
  zkpipe::PluginRegistry reg({});
  auto entries = reg.load_dir(fixture("missing_manifest"));
  REQUIRE(entries.size() == 1);
  CHECK_THAT(entries[0].plugin.status().message(), Contains("missing manifest"));
}

TEST_CASE("PluginLoader: an unknown plugin names the directories searched", "[plugin]") {
  zkpipe::PluginRegistry reg({fixture("good"), fixture("bad_abi")});
  auto r = reg.load("nope", ZKP_KIND_MEMORY);
  CHECK(r.status().code() == zkpipe::Code::kNotFound);
  CHECK_THAT(r.status().message(), Contains("plugin 'nope' not found (searched: "));
  CHECK_THAT(r.status().message(), Contains("/good, "));
}

TEST_CASE("PluginLoader: a plugin of the wrong kind is rejected", "[plugin]") {
  zkpipe::PluginRegistry reg({fixture("good")});
  auto r = reg.load("fixture_good", ZKP_KIND_COMPUTE);
  CHECK(r.status().code() == zkpipe::Code::kInvalidArgument);
  CHECK_THAT(r.status().message(), Contains("is a memory plugin, expected a compute plugin"));
}

TEST_CASE("PluginLoader: the built plugin directory validates as a set", "[plugin]") {
  zkpipe::PluginRegistry reg({});
  auto entries = reg.load_dir(ZKPIPE_TEST_PLUGIN_DIR);
  REQUIRE(!entries.empty());
  bool saw_pageable = false;
  for (auto& e : entries) {
    INFO(e.path << ": " << e.plugin.status().to_string());
    REQUIRE(e.plugin.ok());
    if ((*e.plugin)->manifest.name == "pageable") saw_pageable = (*e.plugin)->available();
  }
  CHECK(saw_pageable);
}
