// tests/pipeline/deadline_test.cpp: deadline-aware scheduling with the test-only mimc_jobs and
// mimc_bare proof types: a request's priority and deadline from itself, the config and the
// plugin; earliest deadline first within a priority; a CRITICAL job under a backlog waits behind
// only the partitions in flight when it came (an assertion on order, not on wall time); a
// deadline the measured times say is unreachable is reported early in status and metrics.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "engine_fixture.h"

namespace zkpipe::testing {
namespace {

using namespace std::chrono_literals;
using Catch::Matchers::Contains;
using pipeline::JobState;
using pipeline::Priority;

Config with_scheduling(const std::string& pipeline, const std::string& scheduling) {
  const std::string yaml = fmt::format(
      "version: 1\nplugin_dirs: [{}, {}]\nlog: {{level: warn}}\nmemory: {{backend: pageable}}\n"
      "params: {{dir: {}, missing: setup}}\ncompute: {{threads: 1}}\npipeline: {{{}}}\n"
      "scheduling: {{{}}}\n",
      ZKPIPE_TEST_PLUGIN_DIR, ZKPIPE_TEST_PIPELINE_PLUGIN_DIR, (scratch().path / "params").string(),
      pipeline, scheduling);
  Result<Config> parsed = parse_config(yaml, "test.yaml");
  INFO(parsed.status().to_string());
  REQUIRE(parsed.ok());
  return *parsed;
}

// Spans called `name`, ordered by start.
std::vector<pipeline::Span> spans_named(const pipeline::Engine& engine, const std::string& name) {
  std::vector<pipeline::Span> out;
  for (const auto& s : engine.trace().spans()) {
    if (s.name == name) out.push_back(s);
  }
  std::sort(out.begin(), out.end(),
            [](const auto& x, const auto& y) { return x.start_ns < y.start_ns; });
  return out;
}

TEST_CASE("Engine: a request's priority and deadline come from it, the config, then its plugin",
          "[pipeline][deadline]") {
  auto engine =
      make_engine(with_scheduling("", "defaults: {mimc_jobs: {priority: critical, deadline: 2h}}"));
  const auto now = std::chrono::steady_clock::now();
  // The config's defaults for mimc_jobs (a request that says no priority).
  pipeline::JobRequest unsaid = mimc_request(8, 1, 1);
  unsaid.priority.reset();
  Result<pipeline::Submitted> a = engine->check(unsaid);
  REQUIRE(a.ok());
  CHECK(a->priority == Priority::kCritical);
  REQUIRE(a->deadline);
  CHECK(*a->deadline > now + 119min);
  CHECK(*a->deadline < now + 121min);
  // The request's own say wins.
  pipeline::JobRequest own = mimc_request(8, 1, 1, Priority::kLow);
  own.deadline = now + 5min;
  Result<pipeline::Submitted> b = engine->check(own);
  REQUIRE(b.ok());
  CHECK(b->priority == Priority::kLow);
  CHECK(*b->deadline == now + 5min);
  // mimc_bare declares HIGH and one hour in its descriptor (ABI 1.3); the config says nothing.
  pipeline::JobRequest bare = mimc_request(8, 1, 1);
  bare.proof_type = "mimc_bare";
  bare.priority.reset();
  Result<pipeline::Submitted> c = engine->check(bare);
  INFO(c.status().to_string());
  REQUIRE(c.ok());
  CHECK(c->priority == Priority::kHigh);
  REQUIRE(c->deadline);
  CHECK(*c->deadline > now + 59min);
  // A request without priority of a type without defaults is NORMAL with no deadline.
  auto plain = make_engine(test_config());
  pipeline::JobRequest none = mimc_request(8, 1, 1);
  none.priority.reset();
  Result<pipeline::Submitted> d = plain->check(none);
  REQUIRE(d.ok());
  CHECK(d->priority == Priority::kNormal);
  CHECK_FALSE(d->deadline);
  // Submitted, the job carries the resolved values.
  Result<pipeline::Submitted> s = engine->submit_job(bare);
  REQUIRE(s.ok());
  CHECK(s->priority == Priority::kHigh);
  require_verified(*engine->wait(s->job));
  const auto status = engine->status_json();
  for (const auto& j : status["jobs"]) {
    if (j["job"] == s->job) CHECK(j["priority"] == "high");
  }
}

TEST_CASE("Engine: within a priority the earliest deadline goes first, then the oldest",
          "[pipeline][deadline]") {
  pipeline::EngineOptions options;
  options.start_paused = true;
  auto engine =
      make_engine(test_config("synthesis_workers: 1, ready_depth: 1"), std::move(options));
  const auto now = std::chrono::steady_clock::now();
  struct Item {
    char name;
    Priority priority;
    std::optional<std::chrono::minutes> deadline;
  };
  const std::vector<Item> items = {{'W', Priority::kHigh, std::nullopt},
                                   {'X', Priority::kHigh, 30min},
                                   {'Y', Priority::kNormal, 1min},
                                   {'Z', Priority::kHigh, 10min},
                                   {'V', Priority::kHigh, std::nullopt}};
  std::map<uint64_t, char> names;
  std::vector<uint64_t> ids;
  for (size_t j = 0; j < items.size(); ++j) {
    pipeline::JobRequest r = mimc_request(16, 1, 300 + j, items[j].priority);
    if (items[j].deadline) r.deadline = now + *items[j].deadline;
    Result<uint64_t> id = engine->submit(std::move(r));
    REQUIRE(id.ok());
    names[*id] = items[j].name;
    ids.push_back(*id);
  }
  engine->resume();
  for (uint64_t id : ids) require_verified(*engine->wait(id));
  std::string order;
  for (const auto& s : spans_named(*engine, "synthesis")) order += names[s.job];
  // HIGH: Z (10 min), X (30 min), then the ones without a deadline by age; then NORMAL Y.
  CHECK(order == "ZXWVY");
}

TEST_CASE("Engine: a CRITICAL job under a backlog waits behind only the partitions in flight",
          "[pipeline][deadline]") {
  // One compute worker, one synthesis worker, ready depth 2: in flight at any time are at most
  // one partition proving, two ready and one being synthesized.
  constexpr uint32_t kInFlight = 1 + 2 + 1;
  auto engine = make_engine(test_config("synthesis_workers: 1, ready_depth: 2"));
  // The params of both circuits first, so that no setup runs during the measured part.
  require_verified(*engine->wait(*engine->submit(mimc_request(96, 1, 1))));
  require_verified(*engine->wait(*engine->submit(mimc_request(40, 1, 2, Priority::kCritical))));
  constexpr int kBacklog = 8;
  std::vector<uint64_t> backlog;
  for (int j = 0; j < kBacklog; ++j) {
    Result<uint64_t> id = engine->submit(mimc_request(96, 2, 500 + j));
    REQUIRE(id.ok());
    backlog.push_back(*id);
  }
  // Once the backlog flows (its first partition proved), the CRITICAL job arrives.
  Result<pipeline::JobWatch> watch = engine->watch(backlog[0]);
  REQUIRE(watch.ok());
  for (;;) {
    std::optional<pipeline::JobEvent> e = watch->next(60s);
    REQUIRE(e);
    if (e->kind == pipeline::EventKind::kProved) break;
  }
  const int64_t submitted_ns = engine->trace().now_ns();
  Result<uint64_t> critical = engine->submit(mimc_request(40, 2, 600, Priority::kCritical));
  REQUIRE(critical.ok());
  require_verified(*engine->wait(*critical));
  for (uint64_t id : backlog) require_verified(*engine->wait(id));

  // Of the partitions that started proving after the CRITICAL job came, at most those already in
  // flight then went before its last partition.
  int64_t last_critical = 0;
  uint32_t critical_starts = 0;
  for (const auto& s : spans_named(*engine, "prove_start")) {
    if (s.job == *critical && s.track.rfind("compute-", 0) == 0) {
      last_critical = std::max(last_critical, s.start_ns);
      ++critical_starts;
    }
  }
  REQUIRE(critical_starts == 2);
  uint32_t overtaken = 0, after = 0;
  for (const auto& s : spans_named(*engine, "prove_start")) {
    if (s.job == *critical || s.track.rfind("compute-", 0) != 0) continue;
    if (s.start_ns > submitted_ns && s.start_ns < last_critical) ++overtaken;
    if (s.start_ns > last_critical) ++after;
  }
  INFO("backlog partitions proved before the CRITICAL job's last: " << overtaken);
  CHECK(overtaken <= kInFlight);
  // The backlog was long enough that most of it waited for the CRITICAL job.
  CHECK(after >= 2 * kBacklog - 2 - kInFlight - 2);
  // Its synthesis came before every backlog partition still queued when it arrived: at most the
  // one the synthesis worker had taken already started between.
  int64_t last_critical_synthesis = 0;
  for (const auto& s : spans_named(*engine, "synthesis")) {
    if (s.job == *critical) last_critical_synthesis = std::max(last_critical_synthesis, s.start_ns);
  }
  uint32_t synthesized_between = 0;
  for (const auto& s : spans_named(*engine, "synthesis")) {
    if (s.job != *critical && s.start_ns > submitted_ns && s.start_ns < last_critical_synthesis) {
      ++synthesized_between;
    }
  }
  CHECK(synthesized_between <= 1);
}

TEST_CASE("Engine: a deadline the measured times cannot meet is reported early",
          "[pipeline][deadline]") {
  auto engine = make_engine(test_config("synthesis_workers: 1, ready_depth: 1"));
  // Measure the circuit once.
  Result<pipeline::JobResult> first = engine->wait(*engine->submit(mimc_request(64, 1, 1)));
  REQUIRE(first.ok());
  require_verified(*first);
  const double prove_ms = first->partitions[0].prove_start;
  REQUIRE(prove_ms > 0);
  // A backlog of 20 partitions, then a LOW job whose deadline is eight partitions away.
  std::vector<uint64_t> backlog;
  for (int j = 0; j < 10; ++j) backlog.push_back(*engine->submit(mimc_request(64, 2, 700 + j)));
  const auto now = std::chrono::steady_clock::now();
  pipeline::JobRequest late = mimc_request(64, 1, 800, Priority::kLow);
  late.deadline = now + std::chrono::microseconds(static_cast<int64_t>(8000 * prove_ms));
  Result<uint64_t> late_id = engine->submit(std::move(late));
  pipeline::JobRequest easy = mimc_request(64, 1, 801, Priority::kLow);
  easy.deadline = now + 1h;
  Result<uint64_t> easy_id = engine->submit(std::move(easy));
  REQUIRE(late_id.ok());
  REQUIRE(easy_id.ok());
  const nlohmann::json status = engine->status_json();
  for (const auto& j : status["jobs"]) {
    if (j["job"] == *late_id) {
      CHECK(j.value("deadline_at_risk", false));
      CHECK(j.value("estimated_end_in_s", 0.0) > j.value("deadline_in_s", 0.0));
    }
    if (j["job"] == *easy_id) CHECK_FALSE(j.value("deadline_at_risk", true));
  }
  CHECK(engine->metrics_text().find("zkpipe_deadline_at_risk_jobs 1") != std::string::npos);
  // Proving late is not what happens: the job fails with DEADLINE_EXCEEDED (or, should the
  // machine be fast enough after all, proves); the easy one proves.
  Result<pipeline::JobResult> late_result = engine->wait(*late_id);
  REQUIRE(late_result.ok());
  if (late_result->state != JobState::kDone) {
    CHECK(late_result->status.code() == Code::kDeadlineExceeded);
  }
  require_verified(*engine->wait(*easy_id));
  for (uint64_t id : backlog) require_verified(*engine->wait(id));
}

// Issue 33 #2 and #6: a job past its deadline is at risk whatever the estimate (none here:
// nothing measured yet; status said `deadline_at_risk: false` 61 s past a deadline), its end
// counts in zkpipe_deadlines_missed_total, and the latency histograms and failure counters
// count what ended.
TEST_CASE("Engine: a job past its deadline is at risk; metrics count its miss and every end",
          "[pipeline][deadline]") {
  pipeline::EngineOptions options;
  options.start_paused = true;
  auto engine = make_engine(test_config("synthesis_workers: 1"), std::move(options));
  pipeline::JobRequest late = mimc_request(16, 1, 900);
  late.deadline = std::chrono::steady_clock::now() + 50ms;
  Result<uint64_t> late_id = engine->submit(std::move(late));
  Result<uint64_t> plain_id = engine->submit(mimc_request(16, 1, 901, Priority::kHigh));
  REQUIRE(late_id.ok());
  REQUIRE(plain_id.ok());
  std::string metrics = engine->metrics_text();
  CHECK_THAT(metrics, Contains("zkpipe_jobs{state=\"queued\",priority=\"normal\"} 1"));
  CHECK_THAT(metrics, Contains("zkpipe_jobs{state=\"queued\",priority=\"high\"} 1"));
  std::this_thread::sleep_for(100ms);  // paused: the late job cannot start, its deadline passes
  const nlohmann::json paused_status = engine->status_json();  // kept: the loop reads into it
  for (const auto& j : paused_status["jobs"]) {
    if (j["job"] == *late_id) {
      CHECK(j.value("deadline_in_s", 0.0) < 0);
      CHECK(j.value("deadline_at_risk", false));
    }
  }
  CHECK_THAT(engine->metrics_text(), Contains("zkpipe_deadline_at_risk_jobs 1\n"));
  engine->resume();
  Result<pipeline::JobResult> late_result = engine->wait(*late_id);
  REQUIRE(late_result.ok());
  require_verified(*engine->wait(*plain_id));
  metrics = engine->metrics_text();
  INFO(metrics);
  CHECK_THAT(metrics,
             Contains("zkpipe_deadlines_missed_total{priority=\"normal\",type=\"mimc_jobs\"} 1"));
  CHECK_THAT(metrics, Contains("zkpipe_deadline_at_risk_jobs 0\n"));
  CHECK_THAT(metrics, Contains("zkpipe_job_seconds_count{priority=\"high\",type=\"mimc_jobs\"} 1"));
  CHECK_THAT(metrics, Contains("zkpipe_stage_seconds_count{priority=\"high\",stage=\"prove\","
                               "type=\"mimc_jobs\"} 1"));
  CHECK_THAT(metrics, Contains("zkpipe_params_operations_total{work=\"load\"} 1\n"));
  if (late_result->state != JobState::kDone) {
    CHECK_THAT(metrics,
               Contains(fmt::format("zkpipe_job_failures_total{{code=\"{}\",type=\"mimc_jobs\"}} 1",
                                    code_name(late_result->status.code()))));
  }
}

// Issue 33 #2: a CRITICAL job waited 118 s and missed its deadline while the only synthesis
// worker made another circuit's params. Params work now runs on a thread of the circuit's own:
// with one synthesis worker and job A's params held in their setup (the plugin's hold_record),
// a CRITICAL job of another circuit is proved, and A is told as waiting for params.
TEST_CASE("Engine: params work runs off the synthesis workers; a CRITICAL job goes past it",
          "[pipeline][deadline]") {
  auto engine = make_engine(test_config("synthesis_workers: 1"));
  require_verified(*engine->wait(*engine->submit(mimc_request(16, 1, 1))));  // r16's params hot
  const std::string hold = (scratch().path / "hold-record").string();
  Result<uint64_t> a = engine->submit(
      mimc_request(27, 2, 2, Priority::kLow, fmt::format(R"(, "hold_record": "{}")", hold)));
  REQUIRE(a.ok());
  bool recording = false;  // bounded: 30 s for A's params thread to start its setup
  for (int i = 0; i < 600 && !recording; ++i) {
    recording = std::filesystem::exists(hold + ".recording");
    if (!recording) std::this_thread::sleep_for(50ms);
  }
  REQUIRE(recording);
  pipeline::JobRequest urgent = mimc_request(16, 1, 3, Priority::kCritical);
  Result<uint64_t> b = engine->submit(std::move(urgent));
  REQUIRE(b.ok());
  // Before: B waited for A's params on the only synthesis worker (the hold lasts 30 s).
  Result<pipeline::JobResult> b_result = engine->wait(*b, 20s);
  REQUIRE(b_result.ok());
  require_verified(*b_result);
  const nlohmann::json status = engine->status_json();
  for (const auto& j : status["jobs"]) {
    if (j["job"] != *a) continue;
    CHECK(j["state"] == "queued");
    for (const auto& part : j["partitions"]) CHECK(part["state"] == "params");
  }
  CHECK(status["workers"].contains("params-mimc-test-r27"));
  std::ofstream(hold + ".go").put('\n');
  Result<pipeline::JobResult> a_result = engine->wait(*a, 60s);
  REQUIRE(a_result.ok());
  require_verified(*a_result);
  for (const auto& t : a_result->partitions) CHECK(t.srs_wait > 0);  // the wait is params time
  bool drawn = false;
  for (const auto& s : spans_named(*engine, "params")) drawn = drawn || s.job == *a;
  CHECK(drawn);
  // Each of A's partitions has its own wait drawn (the panel's waterfall shows it as params).
  std::set<int32_t> waited;
  for (const auto& s : spans_named(*engine, "params_wait")) {
    if (s.job != *a) continue;
    CHECK(s.track == "params-wait-mimc-test-r27");
    CHECK_FALSE(s.busy);
    waited.insert(s.partition);
  }
  CHECK(waited == std::set<int32_t>{0, 1});
}

}  // namespace
}  // namespace zkpipe::testing
