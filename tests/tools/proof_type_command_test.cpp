// `zkpipe-tool proof-type TYPE ARGS...`: a proof-type plugin's own command line (ABI 1.3). The
// test plugin mimc_bare has one (`echo`, `fail`); mimc_jobs has none. The arguments after the
// type reach the plugin untouched and its exit code is the tool's.
#include <catch2/catch.hpp>

#include <string>

#include "tools/run_tool.h"

using Catch::Matchers::Contains;
using zkpipe::test::run_tool;

namespace {

std::string in_test_plugins(const std::string& args) {
  return std::string("proof-type --plugin-dir ") + ZKPIPE_TEST_PIPELINE_PLUGIN_DIR + " " + args;
}

}  // namespace

TEST_CASE("proof-type: runs the plugin's command with its arguments and exit code",
          "[tool][proof-type]") {
  auto echo = run_tool(in_test_plugins("mimc_bare echo --sector a.sector:7 -x"));
  INFO(echo.output);
  CHECK(echo.exit_code == 0);
  CHECK_THAT(echo.output, Contains("mimc_bare echo: --sector a.sector:7 -x"));
  CHECK(run_tool(in_test_plugins("mimc_bare fail")).exit_code == 3);
  auto usage = run_tool(in_test_plugins("mimc_bare"));
  CHECK(usage.exit_code == 2);
  CHECK_THAT(usage.output, Contains("usage: echo ARGS"));
}

TEST_CASE("proof-type: a type without commands, or unknown, is refused with exit 2",
          "[tool][proof-type]") {
  auto none = run_tool(in_test_plugins("mimc_jobs vanilla"));
  CHECK(none.exit_code == 2);
  CHECK_THAT(none.output, Contains("proof type 'mimc_jobs'"));
  CHECK_THAT(none.output, Contains("has no commands"));
  auto unknown = run_tool(in_test_plugins("no_such_type vanilla"));
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.output, Contains("no_such_type"));
  CHECK(run_tool("proof-type").exit_code == 2);  // the type is required
}
