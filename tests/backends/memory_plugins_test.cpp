// tests/backends/memory_plugins_test.cpp: the built memory plugins through the engine API
// (PluginRegistry, MemoryPool): pageable everywhere; pinned_pool and zero_copy load on any
// machine and either run (GPU, [cuda]) or say "unavailable: ..." (no driver or device).
// Thread-safety: single-threaded tests; plugins stay loaded for the process.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

#include "feature_required.h"
#include "gpu_required.h"
#include "zkpipe/memory.h"
#include "zkpipe/plugin.h"
#include "zkpipe/sdk/abi/memory.h"
#include "zkpipe/system.h"

using namespace zkpipe;

namespace {

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = 1024 * kKiB;

// The built plugins; ZKPIPE_TEST_PLUGIN_DIR in the environment overrides the build's path (the
// relocated bundle of scripts/gpu-check).
std::string plugin_dir() {
  const char* env = std::getenv("ZKPIPE_TEST_PLUGIN_DIR");
  return env != nullptr ? env : ZKPIPE_TEST_PLUGIN_DIR;
}

// Never destroyed, like the engine's: loaded plugins live for the whole process (plugin.h).
PluginRegistry& registry() {
  static auto* r = new PluginRegistry({plugin_dir()});
  return *r;
}

const LoadedPlugin* load(const std::string& name) {
  auto loaded = registry().load(name, ZKP_KIND_MEMORY);
  INFO(loaded.status().to_string());
  REQUIRE(loaded.ok());
  return *loaded;
}

// Whether <name>.so was built (the CUDA backends are built only with the CUDA toolkit).
// A CUDA build must have produced it; without one the test fails unless
// ZKPIPE_ALLOW_MISSING_CUDA=1 (tests/feature_required.h).
bool built(const std::string& name) {
  const bool present = std::filesystem::exists(plugin_dir() + "/" + name + ".plugin.toml");
  REQUIRE(present == zkpipe::testing::kCudaBuilt);
  return zkpipe::testing::feature_present(present, "CUDA", name + ".so (the CUDA build, nvcc)");
}

bool have_cuda_device() {
  const CudaInfo info = read_cuda_info();
  return info.status.ok() && !info.devices.empty();
}

Status run_self_test(const LoadedPlugin& plugin) {
  char message[ZKP_ERROR_CAPACITY] = {0};
  const zkp_status rc = plugin.header->self_test(zkp_error{message, sizeof message});
  return status_from_plugin(rc, plugin.manifest.name + ": self_test", message);
}

MemoryConfig small_config(const std::string& backend) {
  MemoryConfig config;
  config.backend = backend;
  config.cap_bytes = 8 * kMiB;
  config.on_cap = OnCap::kFail;
  config.preallocate = {{1 * kMiB, 1}};
  return config;
}

// Allocates, writes and reads back, frees; checks the properties every buffer must have.
void exercise(MemoryPool& pool, bool pinned, bool mapped) {
  auto got = pool.allocate(100 * kKiB);
  INFO(got.status().to_string());
  REQUIRE(got.ok());
  Buffer& b = *got;
  CHECK(b.bytes() >= 100 * kKiB);
  CHECK(b.pinned() == pinned);
  CHECK(b.device_mapped() == mapped);
  CHECK((b.device() != nullptr) == mapped);
  std::memset(b.host(), 0x3c, b.bytes());
  CHECK(static_cast<unsigned char*>(b.host())[b.bytes() - 1] == 0x3c);
  b.reset();
  auto stats = pool.stats();
  REQUIRE(stats.ok());
  CHECK(stats->in_use_bytes == 0);
  CHECK(stats->releases == 1);
  CHECK(stats->allocations == 2);  // the preallocated 1 MiB and the 112 KiB class
  CHECK(stats->held_bytes <= 8 * kMiB);

  auto too_big = pool.allocate(9 * kMiB);
  CHECK(too_big.status().code() == Code::kResourceExhausted);
  int on_stack = 0;
  CHECK(pool.release(zkp_buffer{&on_stack, nullptr, 64 * kKiB, 0, 0}).code() ==
        Code::kInvalidArgument);
}

}  // namespace

TEST_CASE("MemoryPlugins: pageable loads and passes its self-test", "[plugin]") {
  const LoadedPlugin* plugin = load("pageable");
  REQUIRE(plugin->available());
  CHECK(std::string(plugin->header->name) == "pageable");
  CHECK(std::string(plugin->header->build_tag).find("no cuda") != std::string::npos);
  CHECK_FALSE(plugin->manifest.requires_cuda);
  const Status s = run_self_test(*plugin);
  INFO(s.to_string());
  CHECK(s.ok());
}

TEST_CASE("MemoryPlugins: pageable hands out buffers through MemoryPool", "[plugin]") {
  const LoadedPlugin* plugin = load("pageable");
  auto pool = MemoryPool::create(*plugin, small_config("pageable"));
  INFO(pool.status().to_string());
  REQUIRE(pool.ok());
  CHECK((*pool)->backend_name() == "pageable");
  exercise(**pool, /*pinned=*/false, /*mapped=*/false);

  SECTION("huge pages: 2 MiB-aligned buffers in 2 MiB steps") {
    MemoryConfig config = small_config("pageable");
    config.huge_pages = true;
    config.preallocate.clear();
    auto huge = MemoryPool::create(*plugin, config);
    REQUIRE(huge.ok());
    auto got = (*huge)->allocate(3 * kMiB);
    REQUIRE(got.ok());
    CHECK(got->bytes() == 4 * kMiB);
    CHECK(reinterpret_cast<uintptr_t>(got->host()) % (2 * kMiB) == 0);
    std::memset(got->host(), 1, got->bytes());
  }
  SECTION("bad options are refused by create") {
    MemoryConfig config = small_config("pageable");
    config.cap_bytes = 512 * kKiB;  // below the 1 MiB preallocation
    auto refused = MemoryPool::create(*plugin, config);
    CHECK(refused.status().code() == Code::kResourceExhausted);
  }
}

TEST_CASE("MemoryPlugins: CUDA backends load and say why they cannot run without a device",
          "[plugin]") {
  for (const char* name : {"pinned_pool", "zero_copy"}) {
    DYNAMIC_SECTION(name) {
      if (!built(name)) continue;
      const LoadedPlugin* plugin = load(name);
      CHECK(plugin->manifest.requires_cuda);
      CHECK(std::string(plugin->header->build_tag).find("; cuda ") != std::string::npos);
      // Options are validated before any CUDA call, available or not.
      const auto* table = plugin->table<zkp_memory_backend>();
      zkp_memory_options options{};
      options.struct_size = sizeof options;
      options.cap_bytes = 1 * kMiB;
      options.huge_pages = 1;
      zkp_memory_pool* raw = nullptr;
      char message[ZKP_ERROR_CAPACITY] = {0};
      CHECK(table->create(&options, &raw, zkp_error{message, sizeof message}) ==
            ZKP_ERR_INVALID_ARGUMENT);
      CHECK(std::string(message) == "huge_pages is supported only by the pageable backend");
      CHECK(raw == nullptr);
      if (have_cuda_device()) continue;  // the [cuda] test covers a working device

      CHECK_FALSE(plugin->available());
      CHECK(plugin->init_status.code() == Code::kUnavailable);
      CHECK_THAT(plugin->init_status.message(), Catch::StartsWith("unavailable: "));
      const Status self_test = run_self_test(*plugin);
      CHECK(self_test.code() == Code::kUnavailable);
      auto pool = MemoryPool::create(*plugin, small_config(name));
      CHECK(pool.status().code() == Code::kUnavailable);
    }
  }
}

TEST_CASE("MemoryPlugins: CUDA backends pass their self-test on a GPU", "[plugin][cuda]") {
  if (!testing::gpu_usable(have_cuda_device(), read_cuda_info().status.to_string())) return;
  for (const char* name : {"pinned_pool", "zero_copy"}) {
    DYNAMIC_SECTION(name) {
      REQUIRE(built(name));
      const LoadedPlugin* plugin = load(name);
      INFO(plugin->init_status.to_string());
      REQUIRE(plugin->available());
      const Status s = run_self_test(*plugin);
      INFO(s.to_string());
      CHECK(s.ok());
      auto pool = MemoryPool::create(*plugin, small_config(name));
      INFO(pool.status().to_string());
      REQUIRE(pool.ok());
      exercise(**pool, /*pinned=*/true, /*mapped=*/std::string(name) == "zero_copy");
    }
  }
}
