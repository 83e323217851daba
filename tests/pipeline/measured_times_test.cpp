// tests/pipeline/measured_times_test.cpp: the per-circuit step times an engine keeps in
// params.dir/<circuit>.times for `zkpipe plan` (zkpipe/pipeline/measured_times.h): an engine that
// proved a job leaves them (backend, samples, the three steps), they read back, a damaged file is
// named with its key, and the workload time follows the pipeline's slowest stage.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "pipeline/engine_fixture.h"
#include "zkpipe/pipeline/measured_times.h"

namespace zkpipe::testing {
namespace {

using pipeline::MeasuredTimes;

TEST_CASE("Measured times: an engine that proved a job keeps them beside its params",
          "[pipeline]") {
  const TempDir dir("zkpipe_measured_times");
  const std::string params = (dir.path / "params").string();
  {
    auto engine = make_engine(test_config("", "threads: 1", params));
    Result<uint64_t> id = engine->submit(mimc_request(64, 3, 11));
    REQUIRE(id.ok());
    Result<pipeline::JobResult> r = engine->wait(*id);
    REQUIRE(r.ok());
    INFO(r->status.to_string());
    REQUIRE(r->state == pipeline::JobState::kDone);
  }
  Result<MeasuredTimes> t =
      pipeline::read_measured_times(pipeline::measured_times_path(params, "mimc-test-r64"));
  INFO(t.status().to_string());
  REQUIRE(t.ok());
  CHECK(t->circuit_id == "mimc-test-r64");
  CHECK(t->backend == "cpu");
  CHECK(t->devices == "cpu0");
  CHECK(t->samples == 3);
  CHECK(t->synthesis_ms > 0);
  CHECK(t->prove_start_ms > 0);
  CHECK(t->prove_finish_ms > 0);
}

TEST_CASE("Measured times: files round-trip; a damaged one is named with its key", "[pipeline]") {
  const TempDir dir("zkpipe_measured_times_file");
  const std::string path = dir.file("c.times");
  CHECK(pipeline::read_measured_times(path).status().code() == Code::kNotFound);
  MeasuredTimes m{"c", "cuda", "cuda0 (H200)", 7, 1500, 800, 250};
  REQUIRE(pipeline::write_measured_times(path, m).ok());
  Result<MeasuredTimes> back = pipeline::read_measured_times(path);
  REQUIRE(back.ok());
  CHECK(back->backend == "cuda");
  CHECK(back->devices == "cuda0 (H200)");
  CHECK(back->samples == 7);
  CHECK(back->prove_start_ms == 800);
  const std::pair<const char*, const char*> bad[] = {
      {"[1, 2]", "not a JSON object"},
      {R"({"circuit": "c", "backend": "cpu", "devices": "", "samples": 1,
          "synthesis_ms": 1, "prove_start_ms": -4, "prove_finish_ms": 1})",
       "prove_start_ms"},
      {R"({"circuit": "c", "backend": 3, "devices": "", "samples": 1})", "backend"},
  };
  for (const auto& [text, key] : bad) {
    std::ofstream(path) << text;
    const Status s = pipeline::read_measured_times(path).status();
    CHECK(s.code() == Code::kInvalidArgument);
    CHECK_THAT(s.message(), Catch::Contains(path) && Catch::Contains(key));
  }
}

TEST_CASE("Measured times: the workload runs at the slowest stage's rate", "[pipeline]") {
  // 2 s synthesis on 4 workers (0.5 s a partition), 1 s prove_start on one GPU, 0.4 s finish
  // on 2 finalizers (0.2 s): the GPU is the bottleneck, 1 partition a second.
  const MeasuredTimes m{"c", "cuda", "cuda0", 10, 2000, 1000, 400};
  const pipeline::TimePrediction t = pipeline::predict_time(m, 3, 10, 4, 1, 2);
  CHECK(t.partition_s == Approx(3.4));
  CHECK(t.bottleneck == "prove_start");
  CHECK(t.rate == Approx(1.0));
  CHECK(t.first_job_s == Approx(3.4 + 9));
  CHECK(t.workload_s == Approx(3.4 + 29));
  // One synthesis worker: synthesis bounds it at 2 s a partition.
  const pipeline::TimePrediction s = pipeline::predict_time(m, 1, 4, 1, 2, 2);
  CHECK(s.bottleneck == "synthesis");
  CHECK(s.first_job_s == Approx(3.4 + 3 * 2));
}

}  // namespace
}  // namespace zkpipe::testing
