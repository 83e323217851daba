// pipeline_config_test.cpp: the config's `compute`, `pipeline` and `params` sections
// (engine/config/pipeline_sections.cpp): defaults, every key, errors naming file:line:column and
// key, params.dir resolution.
#include <catch2/catch.hpp>

#include <string>

#include "zkpipe/config.h"

namespace {

using zkpipe::Result;

Result<zkpipe::Config> parse(const std::string& sections) {
  return zkpipe::parse_config("version: 1\nmemory: {backend: pageable}\n" + sections, "p.yaml",
                              "/base");
}

TEST_CASE("Pipeline config: absent sections get the documented defaults", "[config]") {
  const Result<zkpipe::Config> c = parse("");
  REQUIRE(c.ok());
  CHECK(c->compute.backend == "cpu");
  CHECK(c->compute.workers_per_device == 1);
  CHECK(c->compute.threads == 0);
  CHECK(c->pipeline.synthesis_workers == 1);
  CHECK(c->pipeline.synthesis_threads == 1);
  CHECK(c->pipeline.finalizers == 1);
  CHECK(c->pipeline.ready_depth == 2);
  CHECK_FALSE(c->pipeline.budget_bytes.has_value());
  CHECK(c->pipeline.retries == 0);
  CHECK_FALSE(c->pipeline.trim);
  CHECK(c->pipeline.overhead_bytes == 512ull << 20);
  CHECK(c->params.dir == "params");
  CHECK_FALSE(c->params.setup_when_missing);
  CHECK(c->params.setup_seed == 1);
  CHECK(c->params.filecoin_dir.empty());
}

TEST_CASE("Pipeline config: every key is read", "[config]") {
  const Result<zkpipe::Config> c = parse(
      "compute: {backend: cpu, workers_per_device: 3, threads: 4}\n"
      "pipeline:\n  synthesis_workers: 2\n  synthesis_threads: 0\n  finalizers: 2\n"
      "  ready_depth: 5\n  budget: 6GiB\n  retries: 2\n  trim: true\n  overhead: 1GiB\n"
      "params: {dir: p/q, missing: setup, setup_seed: 42, filecoin_dir: /var/tmp/fil}\n");
  REQUIRE(c.ok());
  CHECK(c->compute.workers_per_device == 3);
  CHECK(c->compute.threads == 4);
  CHECK(c->pipeline.synthesis_workers == 2);
  CHECK(c->pipeline.synthesis_threads == 0);
  CHECK(c->pipeline.finalizers == 2);
  CHECK(c->pipeline.ready_depth == 5);
  CHECK(c->pipeline.budget_bytes == 6ull << 30);
  CHECK(c->pipeline.retries == 2);
  CHECK(c->pipeline.trim);
  CHECK(c->pipeline.overhead_bytes == 1ull << 30);
  CHECK(c->params.dir == "/base/p/q");
  CHECK(c->params.setup_when_missing);
  CHECK(c->params.setup_seed == 42);
  CHECK(c->params.filecoin_dir == "/var/tmp/fil");
  const Result<zkpipe::Config> gpu =
      parse("compute: {backend: cuda, devices: [1, GPU-8a1f0c3e-1111]}\n");
  REQUIRE(gpu.ok());
  CHECK(gpu->compute.backend == "cuda");
  CHECK(gpu->compute.devices == std::vector<std::string>{"1", "GPU-8a1f0c3e-1111"});
  CHECK(c->compute.devices.empty());
  const Result<zkpipe::Config> budgeted = parse("compute: {backend: cuda, device_budget: 96GiB}\n");
  REQUIRE(budgeted.ok());
  CHECK(budgeted->compute.device_budget_bytes == 96ull << 30);
  CHECK(c->compute.device_budget_bytes == 0);  // auto
  REQUIRE(parse("compute: {device_budget: auto}\n").ok());
  CHECK(parse("compute: {device_budget: auto}\n")->compute.device_budget_bytes == 0);
  REQUIRE(parse("pipeline: {budget: auto}\n").ok());
  CHECK_FALSE(parse("pipeline: {budget: auto}\n")->pipeline.budget_bytes.has_value());
}

TEST_CASE("Pipeline config: bad values are errors naming file, position and key", "[config]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"compute: {backend: Rocm-2}\n", "p.yaml:3:20: compute.backend: invalid plugin name"},
      {"compute: {devices: 0}\n", "p.yaml:3:20: compute.devices: expected a list"},
      {"compute: {devices: []}\n", "p.yaml:3:20: compute.devices: an empty list"},
      {"compute: {devices: [0, 0]}\n", "p.yaml:3:24: compute.devices[1]: device '0' is listed"},
      {"compute: {devices: ['']}\n", "p.yaml:3:21: compute.devices[0]: a device is an index"},
      {"compute: {workers_per_device: 0}\n", "p.yaml:3:31: compute.workers_per_device: "},
      {"compute: {threads: -1}\n", "p.yaml:3:20: compute.threads: "},
      {"compute: {gpus: 2}\n", "p.yaml:3:11: compute.gpus: unknown key 'gpus'"},
      {"compute: {device_budget: 0}\n", "p.yaml:3:26: compute.device_budget: must be greater"},
      {"compute: {device_budget: 4XB}\n", "p.yaml:3:26: compute.device_budget: unknown unit"},
      {"pipeline: {synthesis_workers: 1000}\n", "p.yaml:3:31: pipeline.synthesis_workers: "},
      {"pipeline: {budget: 0}\n", "p.yaml:3:20: pipeline.budget: must be greater than 0"},
      {"pipeline: {budget: 4XB}\n", "p.yaml:3:20: pipeline.budget: unknown unit"},
      {"pipeline: {retries: 101}\n", "p.yaml:3:21: pipeline.retries: "},
      {"pipeline: {trim: yes}\n", "p.yaml:3:18: pipeline.trim: expected true or false"},
      {"params: {missing: make}\n", "p.yaml:3:19: params.missing: "},
      {"params: {dir: ''}\n", "p.yaml:3:15: params.dir: empty directory name"},
      {"pipeline: {}\npipeline: {}\n", "p.yaml:4:1: pipeline: duplicate key 'pipeline'"},
  };
  for (const auto& [yaml, prefix] : cases) {
    const Result<zkpipe::Config> c = parse(yaml);
    INFO(yaml);
    REQUIRE_FALSE(c.ok());
    INFO(c.status().message());
    CHECK(c.status().code() == zkpipe::Code::kInvalidArgument);
    CHECK(c.status().message().rfind(prefix, 0) == 0);
  }
}

TEST_CASE("pipeline config: compute.backend names any compute plugin", "[config]") {
  // Whether it exists and can run is the loader's question at start-up, not the parser's.
  const Result<zkpipe::Config> c = parse("compute: {backend: rocm}\n");
  INFO(c.status().to_string());
  REQUIRE(c.ok());
  CHECK(c->compute.backend == "rocm");
}

}  // namespace

TEST_CASE("Pipeline config: pipeline.reserve and scheduling.defaults", "[config]") {
  const Result<zkpipe::Config> none = parse("");
  REQUIRE(none.ok());
  CHECK(none->pipeline.reserve_bytes == 0);
  CHECK(none->scheduling.defaults.empty());
  const Result<zkpipe::Config> c = parse(
      "pipeline: {budget: 8GiB, reserve: 2GiB}\n"
      "scheduling:\n  defaults:\n    winning_post: {priority: critical, deadline: 15s}\n"
      "    window_post: {deadline: 25m}\n    porep: {priority: low, deadline: none}\n");
  INFO(c.status().to_string());
  REQUIRE(c.ok());
  CHECK(c->pipeline.reserve_bytes == 2ull << 30);
  REQUIRE(c->scheduling.defaults.size() == 3);
  const auto& winning = c->scheduling.defaults.at("winning_post");
  CHECK(winning.priority == zkpipe::pipeline::Priority::kCritical);
  CHECK(winning.deadline_ms == 15'000);
  const auto& window = c->scheduling.defaults.at("window_post");
  CHECK_FALSE(window.priority.has_value());
  CHECK(window.deadline_ms == 25 * 60'000);
  CHECK(c->scheduling.defaults.at("porep").priority == zkpipe::pipeline::Priority::kLow);
  CHECK(c->scheduling.defaults.at("porep").deadline_ms == -1);
  CHECK(parse("pipeline: {reserve: 0}\n").ok());

  const std::vector<std::pair<std::string, std::string>> cases = {
      {"pipeline: {budget: 1GiB, reserve: 1GiB}\n",
       "p.yaml:3:35: pipeline.reserve: the reserve for CRITICAL work must be below"},
      {"pipeline: {reserve: 3XB}\n", "p.yaml:3:21: pipeline.reserve: unknown unit"},
      {"scheduling: {when: 1}\n", "p.yaml:3:14: scheduling.when: unknown key 'when'"},
      {"scheduling: {defaults: {Win-Post: {priority: high}}}\n",
       "p.yaml:3:25: scheduling.defaults.Win-Post: 'Win-Post' is not a proof type's name"},
      {"scheduling: {defaults: {porep: {priority: urgent}}}\n",
       "p.yaml:3:43: scheduling.defaults.porep.priority: unknown value 'urgent'"},
      {"scheduling: {defaults: {porep: {deadline: 0s}}}\n",
       "p.yaml:3:43: scheduling.defaults.porep.deadline: '0s' is not a deadline"},
      {"scheduling: {defaults: {porep: {deadline: soon}}}\n",
       "p.yaml:3:43: scheduling.defaults.porep.deadline: 'soon' is not a deadline"},
      {"scheduling: {defaults: {porep: {}}}\n",
       "p.yaml:3:32: scheduling.defaults.porep: say a priority, a deadline or both"},
      {"scheduling: {defaults: {porep: {order: 1}}}\n",
       "p.yaml:3:33: scheduling.defaults.porep.order: unknown key 'order'"},
      {"scheduling: {defaults: {porep: {priority: low}, porep: {priority: high}}}\n",
       "p.yaml:3:49: scheduling.defaults.porep: duplicate key 'porep'"},
  };
  for (const auto& [yaml, prefix] : cases) {
    const Result<zkpipe::Config> bad = parse(yaml);
    INFO(yaml);
    REQUIRE_FALSE(bad.ok());
    INFO(bad.status().message());
    CHECK(bad.status().code() == zkpipe::Code::kInvalidArgument);
    CHECK(bad.status().message().rfind(prefix, 0) == 0);
  }
}

TEST_CASE("Pipeline config: params.preload names circuits, or all", "[config]") {
  const Result<zkpipe::Config> none = parse("");
  REQUIRE(none.ok());
  CHECK(none->params.preload.empty());
  CHECK_FALSE(none->params.preload_all);
  const Result<zkpipe::Config> listed =
      parse("params: {preload: [filecoin-winning-post-32GiB, mimc-test-r32]}\n");
  INFO(listed.status().to_string());
  REQUIRE(listed.ok());
  CHECK(listed->params.preload ==
        std::vector<std::string>{"filecoin-winning-post-32GiB", "mimc-test-r32"});
  const Result<zkpipe::Config> all = parse("params: {preload: all}\n");
  REQUIRE(all.ok());
  CHECK(all->params.preload_all);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"params: {preload: some}\n", "p.yaml:3:19: params.preload: unknown value 'some'"},
      {"params: {preload: [a/b]}\n", "p.yaml:3:20: params.preload[0]: a circuit id: 'a/b' is not"},
      {"params: {preload: [a, a]}\n",
       "p.yaml:3:23: params.preload[1]: circuit 'a' is listed twice"},
      {"params: {preload: {a: 1}}\n", "p.yaml:3:19: params.preload: expected a list of circuit"},
  };
  for (const auto& [yaml, prefix] : cases) {
    const Result<zkpipe::Config> bad = parse(yaml);
    INFO(yaml);
    REQUIRE_FALSE(bad.ok());
    INFO(bad.status().message());
    CHECK(bad.status().message().rfind(prefix, 0) == 0);
  }
}
