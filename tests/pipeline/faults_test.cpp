// tests/pipeline/faults_test.cpp: faults and their reports: a failing allocation, prove_start or
// plugin, a corrupted proof (caught by verification, never returned), with and without retries;
// cancellation, deadlines, drain, a request larger than the budget, a plan larger than the
// machine. Nothing hangs (every wait has a timeout) and no reservation leaks.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include "engine_fixture.h"

namespace zkpipe::testing {
namespace {

using namespace std::chrono_literals;
using pipeline::JobState;

pipeline::JobResult wait_for(pipeline::Engine& engine, uint64_t id) {
  Result<pipeline::JobResult> r = engine.wait(id, 10s);
  INFO(r.status().to_string());
  if (!r.ok()) fmt::print(stderr, "status: {}\n", engine.status_json().dump());
  REQUIRE(r.ok());
  return *r;
}

// Once every job has ended, the budget holds the hot params and nothing else. Work in flight
// when its job was cancelled ends at its next step (up to seconds in a sanitizer build).
void require_no_leak(const pipeline::Engine& engine) {
  for (int i = 0; i < 6000; ++i) {
    const auto s = engine.status_json();
    if (s["budget"]["reserved_bytes"] == s["params"]["hot_bytes"]) return;
    std::this_thread::sleep_for(10ms);
  }
  const auto s = engine.status_json();
  CHECK(s["budget"]["reserved_bytes"] == s["params"]["hot_bytes"]);
}

// The cpu plugin whose first prove_start holds, once entered, until the engine sets its stop flag
// (at most 60 s), and then runs for real: the plugin must see the flag through the compute ABI
// and stop before its first NTT. Later calls run at once.
class StallingCompute final : public pipeline::ComputeBackend {
 public:
  std::string name() const override { return "stalling-cpu"; }
  size_t device_count() const override { return 1; }
  std::string device_name(size_t d) const override { return inner_->device_name(d); }
  Result<groth16::PendingProof> prove_start(size_t d, const pipeline::StartInput& input,
                                            pipeline::StartStats& stats) override {
    if (!first_.exchange(false)) return inner_->prove_start(d, input, stats);
    entered_.store(true);
    const std::atomic<uint32_t>* stop = input.prover.stop;
    for (int i = 0; i < 60000 && (stop == nullptr || stop->load() == 0); ++i) {
      std::this_thread::sleep_for(1ms);
    }
    Result<groth16::PendingProof> r = inner_->prove_start(d, input, stats);
    const std::lock_guard lock(mu_);
    first_status_ = r.status();
    return r;
  }
  Result<groth16::Proof> prove_finish(groth16::PendingProof&& pending,
                                      const groth16::ProverRandomness& r) override {
    return inner_->prove_finish(std::move(pending), r);
  }
  // Until the first prove_start has begun (at most 60 s).
  bool wait_entered() const {
    for (int i = 0; i < 6000 && !entered_.load(); ++i) std::this_thread::sleep_for(10ms);
    return entered_.load();
  }
  Status first_status() const {
    const std::lock_guard lock(mu_);
    return first_status_;
  }

 private:
  std::unique_ptr<pipeline::ComputeBackend> inner_ = open_cpu_compute();
  std::atomic<bool> first_{true}, entered_{false};
  mutable std::mutex mu_;
  Status first_status_ = internal_error("the first prove_start has not returned");
};

TEST_CASE("Engine faults: a failed allocation fails the job, or is retried", "[pipeline]") {
  SECTION("no retries: the job fails with the backend's message and frees everything") {
    pipeline::EngineOptions options;
    options.allocate = fail_nth_allocation(3);  // 1: params, 2: a/b/c of partition 0, 3: witness
    auto engine = make_engine(test_config(), std::move(options));
    const pipeline::JobResult r = wait_for(*engine, *engine->submit(mimc_request(32, 2, 1)));
    CHECK(r.state == JobState::kFailed);
    CHECK(r.status.message().find("injected allocation failure") != std::string::npos);
    CHECK(r.status.message().find("partition 0") != std::string::npos);
    CHECK(r.proof.empty());
    require_no_leak(*engine);
    require_verified(wait_for(*engine, *engine->submit(mimc_request(32, 2, 2))));  // still works
  }
  SECTION("one retry: the job completes, the partition took two attempts") {
    pipeline::EngineOptions options;
    options.allocate = fail_nth_allocation(3);
    auto engine = make_engine(test_config("retries: 1"), std::move(options));
    const pipeline::JobResult r = wait_for(*engine, *engine->submit(mimc_request(32, 2, 1)));
    require_verified(r);
    CHECK(r.partitions[0].attempts == 2);
    CHECK(engine->metrics_text().find("zkpipe_partition_retries_total{type=\"mimc_jobs\"} 1") !=
          std::string::npos);
  }
}

TEST_CASE("Engine faults: a failing prove_start fails the job, or is retried", "[pipeline]") {
  for (const uint32_t retries : {0u, 2u}) {
    pipeline::EngineOptions options;
    options.compute = std::make_unique<FaultyCompute>(2, 0);
    auto engine = make_engine(test_config(fmt::format("retries: {}", retries)), std::move(options));
    const pipeline::JobResult r = wait_for(*engine, *engine->submit(mimc_request(32, 3, 1)));
    if (retries == 0) {
      CHECK(r.state == JobState::kFailed);
      CHECK(r.status.message().find("injected prove_start failure") != std::string::npos);
      CHECK(r.proof.empty());
    } else {
      require_verified(r);
    }
    require_no_leak(*engine);
  }
}

TEST_CASE("Engine status: device memory per device, in status and as metrics", "[pipeline]") {
  {  // The cpu backend has no device memory: nothing to show.
    auto engine = make_engine(test_config());
    CHECK(engine->status_json()["device_memory"].empty());
    CHECK(engine->metrics_text().find("zkpipe_device_memory") == std::string::npos);
  }
  auto compute = std::make_unique<FaultyCompute>(0, 0);
  compute->memory = {80ull << 30, 30ull << 30, 45ull << 30, 64ull << 30};
  pipeline::EngineOptions options;
  options.compute = std::move(compute);
  auto engine = make_engine(test_config(), std::move(options));
  const auto m = engine->status_json()["device_memory"]["cpu0"];
  CHECK(m["total_bytes"] == 80ull << 30);
  CHECK(m["used_bytes"] == 30ull << 30);
  CHECK(m["free_bytes"] == 45ull << 30);
  CHECK(m["budget_bytes"] == 64ull << 30);
  const std::string metrics = engine->metrics_text();
  CHECK(metrics.find("# TYPE zkpipe_device_memory_used_bytes gauge\n") != std::string::npos);
  CHECK(metrics.find("zkpipe_device_memory_used_bytes{device=\"cpu0\"} 32212254720\n") !=
        std::string::npos);
  CHECK(metrics.find("zkpipe_device_memory_budget_bytes{device=\"cpu0\"} 68719476736\n") !=
        std::string::npos);
  // The exposition format as Prometheus reads it (Debian `prometheus`, installed by the test
  // setup like the daemon test's).
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / fmt::format("zkpipe-metrics-{}.txt", ::getpid());
  {
    std::ofstream out(file);
    out << metrics;
  }
  const int rc = std::system(fmt::format("promtool check metrics < '{}'", file.string()).c_str());
  std::filesystem::remove(file);
  CHECK(rc == 0);
}

TEST_CASE("Engine faults: a quarantined device stops its worker; with none left jobs fail",
          "[pipeline]") {
  pipeline::EngineOptions options;
  options.compute = std::make_unique<FaultyCompute>(0, 0, 2);
  auto engine = make_engine(test_config("retries: 2"), std::move(options));
  const pipeline::JobResult r = wait_for(*engine, *engine->submit(mimc_request(32, 3, 1)));
  CHECK(r.state == JobState::kFailed);
  CHECK(r.status.code() == Code::kUnavailable);
  CHECK(r.status.message().find("no compute device is left: cpu0 is quarantined (injected)") !=
        std::string::npos);
  CHECK(r.proof.empty());
  const Result<uint64_t> later = engine->submit(mimc_request(32, 1, 1));
  REQUIRE_FALSE(later.ok());
  CHECK(later.status().code() == Code::kUnavailable);
  CHECK(later.status().message().find("not accepted") != std::string::npos);
  const std::string workers = engine->status_json()["workers"].dump();
  CHECK(workers.find("stopped: cpu0 is quarantined (injected)") != std::string::npos);
  require_no_leak(*engine);
}

TEST_CASE("Engine faults: a corrupted proof is caught by verification and never returned",
          "[pipeline]") {
  SECTION("no retries: the job fails naming the partition") {
    pipeline::EngineOptions options;
    options.compute = std::make_unique<FaultyCompute>(0, 2);
    auto engine = make_engine(test_config(), std::move(options));
    const pipeline::JobResult r = wait_for(*engine, *engine->submit(mimc_request(32, 3, 1)));
    CHECK(r.state == JobState::kFailed);
    CHECK(r.status.message().find("does not verify") != std::string::npos);
    CHECK(r.proof.empty());
    CHECK(engine->metrics_text().find("zkpipe_verification_failures_total{type=\"mimc_jobs\"} 1") !=
          std::string::npos);
    require_no_leak(*engine);
  }
  SECTION("one retry: the partition is proved again and the job's proof verifies") {
    pipeline::EngineOptions options;
    options.compute = std::make_unique<FaultyCompute>(0, 2);
    auto engine = make_engine(test_config("retries: 1"), std::move(options));
    const pipeline::JobResult r = wait_for(*engine, *engine->submit(mimc_request(32, 3, 1)));
    require_verified(r);
  }
}

TEST_CASE("Engine faults: a failing plugin partition fails its job, every waiter hears",
          "[pipeline]") {
  auto engine = make_engine(test_config("synthesis_workers: 2"));
  const uint64_t bad = *engine->submit(
      mimc_request(32, 3, 1, pipeline::Priority::kNormal, R"(, "fail_partition": 1)"));
  const uint64_t good = *engine->submit(mimc_request(32, 2, 9));
  std::vector<Result<pipeline::JobResult>> heard(3, internal_error("no answer"));
  std::vector<std::thread> waiters;  // no Catch macros on these threads (Catch2 v2 is not
                                     // thread-safe): the answers are checked below
  for (auto& h : heard) waiters.emplace_back([&] { h = engine->wait(bad, 60s); });
  for (auto& t : waiters) t.join();
  for (const auto& answer : heard) {
    REQUIRE(answer.ok());
    const pipeline::JobResult& h = *answer;
    CHECK(h.state == JobState::kFailed);
    CHECK(h.status.message().find("injected synthesis failure of partition 1") !=
          std::string::npos);
  }
  require_verified(wait_for(*engine, good));
  require_no_leak(*engine);
}

TEST_CASE("Engine faults: cancellation tells waiters at once and frees everything", "[pipeline]") {
  SECTION("before it starts") {
    pipeline::EngineOptions options;
    options.start_paused = true;
    auto engine = make_engine(test_config(), std::move(options));
    const uint64_t id = *engine->submit(mimc_request(32, 4, 1));
    REQUIRE(engine->cancel(id).ok());
    const pipeline::JobResult r = wait_for(*engine, id);
    CHECK(r.state == JobState::kCancelled);
    CHECK(r.status.code() == Code::kAborted);
    CHECK(engine->cancel(id).code() == Code::kFailedPrecondition);
    engine->resume();
    require_verified(wait_for(*engine, *engine->submit(mimc_request(32, 1, 2))));
    CHECK(engine->status_json()["queues"]["synthesis"] == 0);
  }
  SECTION("while it runs") {
    auto engine = make_engine(test_config());
    const uint64_t id = *engine->submit(mimc_request(2048, 16, 1));
    for (int i = 0; i < 2000; ++i) {  // until its first partition is proved
      const auto s = engine->status_json();
      if (s["jobs"][0]["partitions"][0]["state"] == "proved") break;
      std::this_thread::sleep_for(5ms);
    }
    REQUIRE(engine->cancel(id).ok());
    CHECK(wait_for(*engine, id).state == JobState::kCancelled);
    require_no_leak(*engine);
  }
  SECTION("inside prove_start: the partition stops at its next safe point, the next job goes on") {
    pipeline::EngineOptions options;
    auto stalling = std::make_unique<StallingCompute>();
    StallingCompute& compute = *stalling;
    options.compute = std::move(stalling);
    auto engine = make_engine(test_config(), std::move(options));
    // `next` is submitted once `first` is inside prove_start: the stalled call is first's (two
    // jobs submitted together may reach prove_start in either order once their params are
    // ready, as a loaded machine showed).
    const uint64_t first = *engine->submit(mimc_request(32, 1, 1));
    REQUIRE(compute.wait_entered());
    const uint64_t next = *engine->submit(mimc_request(32, 1, 2));
    REQUIRE(engine->cancel(first).ok());
    CHECK(wait_for(*engine, first).state == JobState::kCancelled);
    // The one compute worker is free again only once the stalled call returned: `next` proves.
    require_verified(wait_for(*engine, next));
    const Status stopped = compute.first_status();
    CHECK(stopped.code() == Code::kAborted);
    CHECK(stopped.message().find("stopped before the NTTs: its job was cancelled") !=
          std::string::npos);
    require_no_leak(*engine);
  }
}

TEST_CASE("Engine faults: a passed deadline fails the job with DEADLINE_EXCEEDED", "[pipeline]") {
  pipeline::EngineOptions options;
  options.start_paused = true;
  auto engine = make_engine(test_config(), std::move(options));
  auto request = mimc_request(32, 2, 1);
  request.deadline = std::chrono::steady_clock::now() + 1ms;
  const uint64_t id = *engine->submit(std::move(request));
  std::this_thread::sleep_for(5ms);
  engine->resume();
  const pipeline::JobResult r = wait_for(*engine, id);
  CHECK(r.state == JobState::kFailed);
  CHECK(r.status.code() == Code::kDeadlineExceeded);
}

TEST_CASE("Engine faults: drain finishes accepted jobs and refuses new ones", "[pipeline]") {
  auto engine = make_engine(test_config());
  const uint64_t a = *engine->submit(mimc_request(64, 2, 1));
  const uint64_t b = *engine->submit(mimc_request(64, 2, 2));
  engine->drain();
  require_verified(wait_for(*engine, a));
  require_verified(wait_for(*engine, b));
  CHECK(engine->submit(mimc_request(64, 1, 3)).status().code() == Code::kUnavailable);
}

TEST_CASE("Engine faults: a request larger than the whole budget fails at once", "[pipeline]") {
  pipeline::EngineOptions options;
  options.budget_bytes = 64 << 10;
  auto engine = make_engine(test_config(), std::move(options));
  Result<uint64_t> r = engine->submit(mimc_request(4096, 1, 1));
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().code() == Code::kResourceExhausted);
  CHECK(r.status().message().find("pipeline.budget") != std::string::npos);
}

// Issue 34 #11: a circuit whose params do not exist yet was checked against the budget with its
// a/b/c and witness only, so a client-chosen shape went to setup (params.missing: setup) and
// past the budget. Its params' H and L queries count now: refused before any setup.
TEST_CASE("Engine faults: a circuit whose params could never fit is refused before its setup",
          "[pipeline]") {
  const std::string dir = (scratch().path / "never-fits").string();
  pipeline::EngineOptions options;
  options.budget_bytes = 3 << 20;  // above a/b/c + witness of 4096 rounds, below with H and L
  auto engine = make_engine(test_config("", "threads: 1", dir), std::move(options));
  pipeline::JobRequest r = mimc_request(4096, 1, 1);
  for (const bool check_only : {true, false}) {
    INFO(check_only);
    const Status s = check_only ? engine->check(r).status() : engine->submit(r).status();
    REQUIRE_FALSE(s.ok());
    CHECK(s.code() == Code::kResourceExhausted);
    CHECK(s.message().find("its params are not made") != std::string::npos);
    CHECK(s.message().find("pipeline.budget") != std::string::npos);
  }
  std::error_code ec;
  CHECK((!std::filesystem::exists(dir, ec) || std::filesystem::is_empty(dir, ec)));  // no setup
}

TEST_CASE("Engine faults: a memory plan larger than this machine refuses to start", "[pipeline]") {
  Result<std::unique_ptr<pipeline::Engine>> e =
      pipeline::Engine::create(test_config("budget: 1000TiB"));
  REQUIRE_FALSE(e.ok());
  CHECK(e.status().code() == Code::kFailedPrecondition);
  CHECK(e.status().message().find("test.yaml") != std::string::npos);
}

}  // namespace
}  // namespace zkpipe::testing
