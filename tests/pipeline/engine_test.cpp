// tests/pipeline/engine_test.cpp: the pipeline end to end with the test-only mimc_jobs proof
// type: proofs verified independently, queue order by priority, many concurrent mixed jobs,
// duplicate request ids, status snapshot and metrics, params residency.
#include <algorithm>
#include <map>
#include <thread>

#include "engine_fixture.h"

namespace zkpipe::testing {
namespace {

using pipeline::JobState;
using pipeline::Priority;

TEST_CASE("Engine: a job's partitions are proved, verified and assembled in order", "[pipeline]") {
  auto engine = make_engine(test_config());
  Result<uint64_t> id = engine->submit(mimc_request(64, 3, 5));
  REQUIRE(id.ok());
  Result<pipeline::JobResult> r = engine->wait(*id);
  REQUIRE(r.ok());
  require_verified(*r);
  CHECK(r->circuit_id == "mimc-test-r64");
  for (const auto& t : r->partitions) {
    CHECK(t.attempts == 1);
    CHECK(t.device == "cpu0");
    CHECK(t.prove_start > 0);
  }
  // Partition order: partition k proves seed 5 + k, so its public inputs differ per partition.
  CHECK(r->public_inputs[0] != r->public_inputs[1]);
  // Every step left a span; the budget holds only the params once the job is done.
  const auto spans = engine->trace().spans();
  for (const char* name : {"synthesis", "prove_start", "prove_finish", "verify"}) {
    CHECK(std::any_of(spans.begin(), spans.end(), [&](const auto& s) { return s.name == name; }));
  }
  const auto status = engine->status_json();
  CHECK(status["budget"]["reserved_bytes"] == status["params"]["hot_bytes"]);
}

TEST_CASE("Engine: partitions are synthesized by priority, then job age, then partition",
          "[pipeline]") {
  pipeline::EngineOptions options;
  options.start_paused = true;
  auto engine =
      make_engine(test_config("synthesis_workers: 1, ready_depth: 1"), std::move(options));
  std::map<uint64_t, char> names;
  const std::vector<std::pair<char, Priority>> jobs = {{'A', Priority::kLow},
                                                       {'B', Priority::kNormal},
                                                       {'C', Priority::kCritical},
                                                       {'D', Priority::kNormal},
                                                       {'E', Priority::kHigh}};
  std::vector<uint64_t> ids;
  std::string positions;  // each job's queue position: the jobs that will start before it
  for (size_t j = 0; j < jobs.size(); ++j) {
    Result<pipeline::Submitted> s =
        engine->submit_job(mimc_request(16, 2, 100 + j, jobs[j].second));
    REQUIRE(s.ok());
    names[s->job] = jobs[j].first;
    ids.push_back(s->job);
    positions += fmt::format("{}{}", jobs[j].first, s->queue_position);
  }
  CHECK(positions == "A0B0C0D2E1");
  engine->resume();
  for (uint64_t id : ids) require_verified(*engine->wait(id));
  std::vector<pipeline::Span> synth;
  for (const auto& s : engine->trace().spans()) {
    if (s.name == "synthesis") synth.push_back(s);
  }
  std::sort(synth.begin(), synth.end(),
            [](const auto& x, const auto& y) { return x.start_ns < y.start_ns; });
  std::string order;
  for (const auto& s : synth) order += fmt::format("{}{}", names[s.job], s.partition);
  CHECK(order == "C0C1E0E1B0B1D0D1A0A1");
}

TEST_CASE("Engine: many mixed concurrent jobs all complete with verified proofs", "[pipeline]") {
  auto engine = make_engine(test_config("synthesis_workers: 3, finalizers: 2, ready_depth: 2",
                                        "workers_per_device: 2, threads: 1"));
  constexpr int kThreads = 4, kPerThread = 5;
  std::vector<std::vector<uint64_t>> ids(kThreads);
  std::vector<std::thread> submitters;
  for (int t = 0; t < kThreads; ++t) {
    submitters.emplace_back([&, t] {
      for (int j = 0; j < kPerThread; ++j) {
        const uint64_t rounds = (t + j) % 3 == 0 ? 24 : (t + j) % 3 == 1 ? 40 : 72;
        const auto priority = static_cast<Priority>((t * kPerThread + j) % 4 + 1);
        Result<uint64_t> id =
            engine->submit(mimc_request(rounds, 1 + (j % 3), 1000 * t + j, priority));
        if (id.ok()) ids[t].push_back(*id);
      }
    });
  }
  for (auto& s : submitters) s.join();
  size_t done = 0;
  for (const auto& list : ids) {
    REQUIRE(list.size() == kPerThread);
    for (uint64_t id : list) {
      Result<pipeline::JobResult> r = engine->wait(id);
      REQUIRE(r.ok());
      require_verified(*r);
      ++done;
      for (const auto& t : r->partitions) CHECK(t.lock_wait < 250.0);  // never held across work
    }
  }
  CHECK(done == kThreads * kPerThread);
  const std::string metrics = engine->metrics_text();
  CHECK(metrics.find(fmt::format("zkpipe_jobs_completed_total{{type=\"mimc_jobs\"}} {}",
                                 kThreads * kPerThread)) != std::string::npos);
  CHECK(metrics.find("zkpipe_device_busy_seconds_total{device=\"cpu0\"}") != std::string::npos);
  CHECK(metrics.find("# TYPE zkpipe_partitions_proved_total counter") != std::string::npos);
  const auto status = engine->status_json();
  CHECK(status["jobs"].size() == kThreads * kPerThread);
  CHECK(status["queues"]["synthesis"] == 0);
  CHECK(status["params"]["loads"] == 3);  // three circuits, each loaded once
  CHECK(status["budget"]["reserved_bytes"] == status["params"]["hot_bytes"]);
}

TEST_CASE("Engine: a repeated request id attaches to its job, a different input is refused",
          "[pipeline]") {
  pipeline::EngineOptions options;
  options.start_paused = true;
  auto engine = make_engine(test_config(), std::move(options));
  auto first = mimc_request(16, 2, 1);
  first.request_id = "sector-7";
  auto again = first;
  auto other = mimc_request(16, 2, 2);
  other.request_id = "sector-7";
  Result<uint64_t> a = engine->submit(std::move(first));
  Result<uint64_t> b = engine->submit(std::move(again));
  Result<uint64_t> c = engine->submit(std::move(other));
  REQUIRE(a.ok());
  REQUIRE(b.ok());
  CHECK(*a == *b);
  REQUIRE_FALSE(c.ok());
  CHECK(c.status().code() == Code::kAlreadyExists);
  CHECK(c.status().message().find("sector-7") != std::string::npos);
  engine->resume();
  require_verified(*engine->wait(*a));
  CHECK(engine->status_json()["jobs"].size() == 1);
}

TEST_CASE("Engine: bad requests are refused at submit, naming the request", "[pipeline]") {
  auto engine = make_engine(test_config());
  pipeline::JobRequest bad = mimc_request(16, 0, 1);
  bad.input_name = "req.json";
  Result<uint64_t> r = engine->submit(std::move(bad));
  REQUIRE_FALSE(r.ok());
  CHECK(r.status().message().find("req.json") != std::string::npos);
  pipeline::JobRequest unknown = mimc_request(16, 1, 1);
  unknown.proof_type = "no_such_type";
  CHECK(engine->submit(std::move(unknown)).status().code() == Code::kNotFound);
  CHECK(engine->wait(12345).status().code() == Code::kNotFound);
}

TEST_CASE("Engine: params stay hot, are evicted on request or for room, never while used",
          "[pipeline]") {
  auto engine = make_engine(test_config());
  require_verified(*engine->wait(*engine->submit(mimc_request(32, 1, 1))));
  CHECK(engine->status_json()["params"]["hot"] == 1);
  REQUIRE(engine->evict_params("mimc-test-r32").ok());
  CHECK(engine->status_json()["params"]["hot"] == 0);
  // The ended job's parsed request is freed just after wait() returns (outside the tracker
  // lock, by design): give it a moment, bounded.
  for (int i = 0; i < 200 && engine->status_json()["budget"]["reserved_bytes"] != 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  CHECK(engine->status_json()["budget"]["reserved_bytes"] == 0);
  CHECK(engine->evict_params("mimc-test-r32").code() == Code::kNotFound);
  REQUIRE(engine->preload_params("mimc-test-r32").ok());
  CHECK(engine->status_json()["params"]["hot"] == 1);
  CHECK(engine->preload_params("mimc-test-r999").code() == Code::kNotFound);

  // A budget with room for one circuit's params and working set at a time: the second circuit's
  // params evict the first's (unused by then).
  require_verified(*engine->wait(*engine->submit(mimc_request(512, 1, 1))));
  require_verified(*engine->wait(*engine->submit(mimc_request(1024, 1, 1))));
  REQUIRE(engine->evict_params("mimc-test-r32").ok());
  REQUIRE(engine->evict_params("mimc-test-r512").ok());
  const uint64_t hot1024 = engine->status_json()["params"]["hot_bytes"];
  pipeline::EngineOptions options;
  options.budget_bytes = hot1024 + (600 << 10);  // the working set is ~516 KiB
  auto small = make_engine(test_config(), std::move(options));
  require_verified(*small->wait(*small->submit(mimc_request(512, 1, 1))));
  require_verified(*small->wait(*small->submit(mimc_request(1024, 1, 1))));
  const auto status = small->status_json();
  CHECK(status["params"]["evictions"] == 1);
  CHECK(status["params"]["hot"] == 1);
}

TEST_CASE(
    "Engine: watchers see every event; finished jobs are forgotten past the policy; twin "
    "request ids never attach across inputs",
    "[pipeline]") {
  pipeline::EngineOptions options;
  options.retain.count = 2;
  auto engine = make_engine(test_config("synthesis_workers: 2"), std::move(options));
  // Two threads watch one job while it runs: both see all of its events, in order.
  Result<uint64_t> id = engine->submit(mimc_request(32, 3, 41));
  REQUIRE(id.ok());
  std::vector<std::vector<pipeline::EventKind>> seen(2);
  std::vector<std::thread> watchers;
  for (auto& kinds : seen) {
    watchers.emplace_back([&engine, &kinds, job = *id] {
      Result<pipeline::JobWatch> w = engine->watch(job);  // no REQUIRE off the main thread
      if (!w.ok()) return;
      for (int i = 0; i < 100; ++i) {
        std::optional<pipeline::JobEvent> e = w->next(std::chrono::milliseconds(5000));
        if (!e) break;
        kinds.push_back(e->kind);
        if (e->kind == pipeline::EventKind::kJobEnded) break;
      }
    });
  }
  for (std::thread& t : watchers) t.join();
  require_verified(*engine->wait(*id));
  for (const auto& kinds : seen) {
    REQUIRE(kinds.size() == 3 * 5 + 1);
    CHECK(kinds.back() == pipeline::EventKind::kJobEnded);
    CHECK(std::count(kinds.begin(), kinds.end(), pipeline::EventKind::kVerified) == 3);
  }
  // Twins: the same request id with two inputs, submitted at once from two threads: one is
  // accepted, the other refused (never attached to the other's job).
  for (int round = 0; round < 4; ++round) {
    const std::string rid = "twin-" + std::to_string(round);
    std::vector<std::optional<Result<pipeline::Submitted>>> slots(2);
    std::vector<std::thread> twins;
    for (int k = 0; k < 2; ++k) {
      twins.emplace_back([&, k] {
        pipeline::JobRequest r = mimc_request(16, 1, 100 + round * 2 + k);
        r.request_id = rid;
        slots[k] = engine->submit_job(std::move(r));
      });
    }
    for (std::thread& t : twins) t.join();
    std::vector<Result<pipeline::Submitted>> got = {*slots[0], *slots[1]};
    CHECK(got[0].ok() != got[1].ok());
    for (int k = 0; k < 2; ++k) {
      if (!got[k].ok()) CHECK(got[k].status().code() == Code::kAlreadyExists);
      if (got[k].ok()) CHECK_FALSE(got[k]->attached);
    }
    for (int k = 0; k < 2; ++k) {
      if (got[k].ok()) REQUIRE(engine->wait(got[k]->job)->state == pipeline::JobState::kDone);
    }
  }
  // Retention: only the last two finished jobs are still known.
  engine->forget_expired();
  CHECK(engine->wait(*id).status().code() == Code::kNotFound);
  CHECK(engine->find_request("twin-0").status().code() == Code::kNotFound);
  CHECK(engine->find_request("twin-3").ok());
  CHECK(engine->status_json()["retained_results"] == 2);
}

}  // namespace
}  // namespace zkpipe::testing
