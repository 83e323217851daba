// Logging: level names are validated, the host table handed to plugins tolerates bad input, and
// the json format writes one object a line with the thread's LogContext.
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <catch2/catch.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "zkpipe/log.h"
#include "zkpipe/log_context.h"

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

namespace {

// The default logger's lines, captured: a string sink in place of stderr for the test's life,
// with the format and level it had restored after.
class Captured {
 public:
  Captured() : saved_(spdlog::default_logger()), level_(spdlog::get_level()) {
    auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(out_);
    spdlog::set_default_logger(std::make_shared<spdlog::logger>("test", sink));
    spdlog::set_level(spdlog::level::trace);
  }
  ~Captured() {
    (void)zkpipe::set_log_format("text");
    spdlog::set_default_logger(saved_);
    spdlog::set_level(level_);
  }
  std::vector<nlohmann::json> objects() const {
    std::vector<nlohmann::json> out;
    std::istringstream in(out_.str());
    for (std::string line; std::getline(in, line);) out.push_back(nlohmann::json::parse(line));
    return out;
  }
  std::string text() const { return out_.str(); }

 private:
  std::ostringstream out_;
  std::shared_ptr<spdlog::logger> saved_;
  spdlog::level::level_enum level_;
};

}  // namespace

TEST_CASE("Log: json lines carry the thread's job, request, partition, stage and plugin", "[log]") {
  const Captured log;
  REQUIRE(zkpipe::set_log_format("json").ok());
  spdlog::info("no context");
  {
    const zkpipe::LogScope job(7, "sector-9", -1, "parse");
    spdlog::warn("job 7: \"quoted\"\tand \xff bytes");
    {
      const zkpipe::LogScope part(zkpipe::LogScope::stage("synthesize", 2));
      spdlog::debug("partition line");
      zkpipe::plugin_host()->log(ZKP_LOG_ERROR, "porep", "from a plugin");
    }
    spdlog::trace("back to the job");
  }
  spdlog::error("after");
  const std::vector<nlohmann::json> lines = log.objects();
  REQUIRE(lines.size() == 6);
  CHECK(lines[0]["msg"] == "no context");
  CHECK(lines[0]["level"] == "info");
  CHECK(!lines[0].contains("job"));
  CHECK(!lines[0].contains("stage"));
  CHECK(std::string(lines[0]["time"]).ends_with("Z"));
  CHECK(lines[1]["level"] == "warn");
  CHECK(lines[1]["job"] == 7);
  CHECK(lines[1]["request_id"] == "sector-9");
  CHECK(lines[1]["stage"] == "parse");
  CHECK(!lines[1].contains("partition"));
  CHECK(lines[1]["msg"] == "job 7: \"quoted\"\tand \xEF\xBF\xBD bytes");  // U+FFFD
  CHECK(lines[2]["level"] == "debug");
  CHECK(lines[2]["stage"] == "synthesize");
  CHECK(lines[2]["partition"] == 2);
  CHECK(lines[2]["request_id"] == "sector-9");
  CHECK(lines[3]["plugin"] == "porep");
  CHECK(lines[3]["msg"] == "from a plugin");  // the plugin is a field, not a "[porep]" prefix
  CHECK(lines[3]["partition"] == 2);
  CHECK(lines[4]["level"] == "trace");
  CHECK(lines[4]["stage"] == "parse");
  CHECK(!lines[4].contains("partition"));
  CHECK(!lines[4].contains("plugin"));
  CHECK(!lines[5].contains("job"));  // every scope restored what it replaced
  CHECK(lines[5]["level"] == "error");
}

TEST_CASE("Log: the text format keeps the plugin prefix; an unknown format is refused", "[log]") {
  const Captured log;
  REQUIRE(zkpipe::set_log_format("text").ok());
  {
    const zkpipe::LogScope job(7, "sector-9", 1, "prove_start");
    zkpipe::plugin_host()->log(ZKP_LOG_INFO, "porep", "hello");
  }
  CHECK_THAT(log.text(), Contains("[info] [porep] hello"));
  CHECK_THAT(log.text(), !Contains("sector-9"));
  const zkpipe::Status bad = zkpipe::set_log_format("xml");
  CHECK(bad.code() == zkpipe::Code::kInvalidArgument);
  CHECK_THAT(bad.message(), Contains("'xml'") && Contains("text or json"));
}
