// Logging: level names are validated and the host table handed to plugins tolerates bad input.
#include <spdlog/spdlog.h>
#include <catch2/catch.hpp>

#include "zkpipe/log.h"

using Catch::Matchers::Contains;

TEST_CASE("Log: set_log_level takes the five names and rejects others", "[log]") {
  const auto saved = spdlog::get_level();
  for (const char* level : {"trace", "debug", "info", "warn", "error"})
    CHECK(zkpipe::set_log_level(level).ok());
  CHECK(spdlog::get_level() == spdlog::level::err);
  auto bad = zkpipe::set_log_level("loud");
  CHECK(bad.code() == zkpipe::Code::kInvalidArgument);
  CHECK_THAT(bad.message(), Contains("loud"));
  CHECK_THAT(bad.message(), Contains("warn"));
  spdlog::set_level(saved);
}

TEST_CASE("Log: the plugin host table is versioned and its callback takes nulls", "[log]") {
  const zkp_host* host = zkpipe::plugin_host();
  REQUIRE(host != nullptr);
  CHECK(host->struct_size == sizeof(zkp_host));
  CHECK(host->abi_major == ZKP_ABI_MAJOR);
  REQUIRE(host->log != nullptr);
  host->log(ZKP_LOG_DEBUG, nullptr, nullptr);
  host->log(99, "test_plugin", "level out of range is clamped");
  host->log(-5, "test_plugin", "so is a negative one");
}
