// `zkpipe-tool validate`: exit codes and the table/JSON it prints for good and broken plugin
// sets and for the shipped configs.
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <utility>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "temp_dir.h"
#include "tools/run_tool.h"

using Catch::Matchers::Contains;
using zkpipe::test::run_tool;

namespace {
// Appended piece by piece: GCC 12 misreads string&& + literal here (-Warray-bounds).
std::string fixture(const std::string& c) {
  std::string path = ZKPIPE_TEST_FIXTURE_DIR;
  return path.append("/").append(c);
}
std::string config(const std::string& c) {
  std::string path = ZKPIPE_SOURCE_DIR;
  return path.append("/configs/").append(c);
}
}  // namespace

TEST_CASE("validate: the built plugin directory passes", "[tool]") {
  auto r =
      run_tool(std::string("validate --allow-unavailable --plugin-dir ") + ZKPIPE_TEST_PLUGIN_DIR);
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("pageable"));
  CHECK_THAT(r.output, Contains("PASS"));
  CHECK_THAT(r.output, !Contains("FAIL"));
}

TEST_CASE("validate: every broken fixture fails with its own reason", "[tool]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"bad_abi", "incompatible plugin ABI major version"},
      {"small_struct", "descriptor struct_size 56 is smaller than"},
      {"no_entry", "missing entry symbol 'zkp_plugin'"},
      {"mismatch", "manifest version '0.1.0' != descriptor version '0.2.0'"},
      {"failing_init", "init failed: fixture init fails on purpose"},
      {"not_a_library", "not a shared library"},
      {"truncated", "truncated or corrupt shared library"},
      {"missing_manifest", "missing manifest"},
  };
  for (const auto& [dir, reason] : cases) {
    auto r = run_tool("validate --plugin-dir " + fixture(dir));
    INFO(dir << ":\n" << r.output);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.output, Contains("FAIL"));
    CHECK_THAT(r.output, Contains(reason));
  }
}

TEST_CASE("validate: --json reports every row with a status", "[tool]") {
  auto r = run_tool("validate --json --plugin-dir " + fixture("good") + " --plugin-dir " +
                    fixture("bad_abi"));
  INFO(r.output);
  CHECK(r.exit_code == 1);
  auto j = nlohmann::json::parse(r.output);
  CHECK(j["ok"] == false);
  REQUIRE(j["rows"].size() == 2);
  CHECK(j["rows"][0]["status"] == "PASS");
  CHECK(j["rows"][0]["plugin"] == "fixture_good");
  CHECK(j["rows"][1]["status"] == "FAIL");
}

TEST_CASE("validate: cpu and pageable configs pass", "[tool]") {
  auto r = run_tool("validate " + config("cpu.yaml") + " " + config("pageable.yaml"));
  INFO(r.output);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.output, Contains("validate: all checks passed"));
}

TEST_CASE("validate: a bad config fails with file:line:column", "[tool]") {
  auto r =
      run_tool("validate " + std::string(ZKPIPE_SOURCE_DIR) + "/tests/tools/data/unknown_key.yaml");
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Contains("unknown_key.yaml:4:3:"));
}

TEST_CASE("validate: usage errors exit 2", "[tool]") {
  CHECK(run_tool("validate --no-such-flag").exit_code == 2);
  CHECK(run_tool("").exit_code == 2);
}

#include "zkpipe/system.h"

TEST_CASE("validate: GPU configs are unavailable without a CUDA driver, and fallback is logged",
          "[tool]") {
  const zkpipe::CudaInfo cuda = zkpipe::read_cuda_info();
  if (!std::filesystem::exists(std::string(ZKPIPE_TEST_PLUGIN_DIR) + "/pinned_pool.so")) {
    // A build without the CUDA toolchain has no CUDA plugins at all.
    auto r = run_tool("validate " + config("pinned-pool.yaml"));
    INFO(r.output);
    CHECK(r.exit_code == 1);
    CHECK_THAT(r.output, Contains("plugin 'pinned_pool' not found"));
    return;
  }
  if (cuda.status.ok() && !cuda.devices.empty()) {
    auto r = run_tool("validate " + config("pinned-pool.yaml") + " " + config("zero-copy.yaml"));
    INFO(r.output);
    CHECK(r.exit_code == 0);
    return;
  }
  auto r = run_tool("validate " + config("pinned-pool.yaml") + " " + config("zero-copy.yaml"));
  INFO(r.output);
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Contains("UNAVAILABLE"));
  CHECK_THAT(r.output, Contains("unavailable: "));
  // The memory plugins ask their own CUDA runtime, which names its error code.
  CHECK_THAT(r.output, Contains("(cudaError"));
  auto allowed = run_tool("validate --allow-unavailable " + config("pinned-pool.yaml") + " " +
                          config("zero-copy.yaml"));
  CHECK(allowed.exit_code == 0);
  // The CUDA compute plugin of a cuda-*.yaml config: its plugin row and its (compute) row, both
  // naming the driver's state as read_cuda_info reports it.
  auto gpu = run_tool("validate " + config("cuda-pageable.yaml"));
  INFO(gpu.output);
  CHECK(gpu.exit_code == 1);
  CHECK_THAT(gpu.output, Contains("(compute)"));
  CHECK_THAT(gpu.output, Contains("cuda           compute"));
  CHECK_THAT(gpu.output, Contains("compute.backend cuda: the plugin cannot run here: cannot list "
                                  "CUDA devices: " +
                                  cuda.status.message()));
  auto fb = run_tool("validate " + config("pinned-pool-fallback.yaml"));
  INFO(fb.output);
  CHECK_THAT(fb.output, Contains("using 'pageable' because memory.fallback"));
  CHECK_THAT(fb.output, Contains("memory: pageable (memory.fallback; logged)"));
}

// Issue 33 #11: a daemon's config (a server: or store: section) is checked as `zkpipe serve`
// would take it: its proof types load, its server section (addresses, token, sockets, ports) and
// its store (SQLite file or PostgreSQL connection) are probed without writing anything.
TEST_CASE("validate: a daemon's config: its proof types, server section and store", "[tool]") {
  zkpipe::testing::TempDir dir("zkp_validate_serve");
  const std::string sock = dir.file("zk.sock");
  auto write_config = [&](const std::string& name, const std::string& server_extra,
                          const std::string& store) {
    const std::string path = dir.file(name);
    std::ofstream(path) << "version: 1\n"
                        << "plugin_dirs: [" << ZKPIPE_TEST_PLUGIN_DIR << ", "
                        << ZKPIPE_TEST_PIPELINE_PLUGIN_DIR << "]\n"
                        << "memory: {backend: pageable}\n"
                        << "params: {dir: " << dir.file("params") << "}\n"
                        << store << "server:\n  listen: [\"unix://" << sock << "\"" << server_extra
                        << "]\n  http: \"127.0.0.1:0\"\n"
                        << "  proof_types: [mimc_jobs]\n";
    return path;
  };
  auto rows = [](const std::string& config) {
    auto r = run_tool("validate --json --no-self-test " + config);
    INFO(r.output);
    std::map<std::string, std::pair<std::string, std::string>> out;
    const nlohmann::json j = nlohmann::json::parse(r.output);
    for (const auto& row : j["rows"]) {
      out[row["plugin"].get<std::string>()] = {row["status"].get<std::string>(),
                                               row["reason"].get<std::string>()};
    }
    return std::make_pair(r.exit_code, out);
  };

  const std::string good = write_config("good.yaml", "", "");
  auto [code, got] = rows(good);
  CHECK(code == 0);
  CHECK(got["mimc_jobs"].first == "PASS");
  CHECK(got["(server)"].first == "PASS");
  CHECK_THAT(got["(server)"].second, Contains("unix://" + sock));
  CHECK(got["(store)"].first == "PASS");
  CHECK_THAT(got["(store)"].second, Contains(dir.file("jobs.db") + ": not there yet"));
  CHECK_FALSE(std::filesystem::exists(dir.file("jobs.db")));  // probed, not created

  // A server answering on the socket: serve would refuse to start.
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un sun{};
  sun.sun_family = AF_UNIX;
  std::snprintf(sun.sun_path, sizeof sun.sun_path, "%s", sock.c_str());
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&sun), sizeof sun) == 0);
  REQUIRE(::listen(fd, 1) == 0);
  std::tie(code, got) = rows(good);
  ::close(fd);
  CHECK(code == 1);
  CHECK(got["(server)"].first == "FAIL");
  CHECK_THAT(got["(server)"].second, Contains("another server is listening on this socket"));
  std::filesystem::remove(sock);

  // Off loopback without a token.
  std::tie(code, got) = rows(write_config("public.yaml", ", \"0.0.0.0:0\"", ""));
  CHECK(code == 1);
  CHECK(got["(server)"].first == "FAIL");
  CHECK_THAT(got["(server)"].second, Contains("needs a bearer token"));

  // A store of a newer schema than this build's; a file that is not a database.
  const std::string newer = dir.file("newer.db");
  REQUIRE(std::system(("python3 -c \"import sqlite3; c = sqlite3.connect('" + newer +
                       "'); c.execute('CREATE TABLE zk_meta (key TEXT PRIMARY KEY, value TEXT)'); "
                       "c.execute(\\\"INSERT INTO zk_meta VALUES ('schema_version', '99')\\\"); "
                       "c.commit()\"")
                          .c_str()) == 0);
  std::tie(code, got) = rows(
      write_config("newer.yaml", "", "store: {backend: sqlite, sqlite: {path: " + newer + "}}\n"));
  CHECK(code == 1);
  CHECK(got["(store)"].first == "FAIL");
  CHECK_THAT(got["(store)"].second, Contains("schema version 99 is newer than this build's"));
  const std::string junk = dir.file("junk.db");
  std::ofstream(junk) << std::string(4096, 'j');
  std::tie(code, got) = rows(
      write_config("junk.yaml", "", "store: {backend: sqlite, sqlite: {path: " + junk + "}}\n"));
  CHECK(got["(store)"].first == "FAIL");
  CHECK_THAT(got["(store)"].second, Contains("not an SQLite database"));

  // PostgreSQL that does not answer: UNAVAILABLE, naming the conninfo, within the timeout.
  std::tie(code, got) = rows(write_config(
      "pg.yaml", "",
      "store: {backend: postgres, postgres: {conninfo: \"host=127.0.0.1 port=1 dbname=zk "
      "connect_timeout=5\"}}\n"));
  CHECK(code == 1);
  CHECK(got["(store)"].first == "UNAVAILABLE");
  CHECK_THAT(got["(store)"].second, Contains("host=127.0.0.1 port=1 dbname=zk"));
}
