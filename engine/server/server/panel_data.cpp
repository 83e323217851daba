// panel_data.cpp: the JSON behind the panel (GET /panel/data; the contract is described in
// engine/server/panel/panel.js): device busy intervals, queues, budget, a waterfall of recent
// jobs, throughput and failures, all on the engine's trace clock (seconds since start).
// Thread-safety: reads the engine's thread-safe snapshots only.
#include "http.h"
#include "zkpipe/version.h"

#include <algorithm>
#include <map>

namespace zkpipe::server {
namespace {

using nlohmann::json;

constexpr size_t kMaxJobs = 20;
constexpr double kBucketS = 10;

double seconds(int64_t ns) {
  return static_cast<double>(ns) / 1e9;
}

// The union of [start, end] intervals, merged and sorted.
std::vector<std::pair<double, double>> merge(std::vector<std::pair<double, double>> v) {
  std::sort(v.begin(), v.end());
  std::vector<std::pair<double, double>> out;
  for (const auto& iv : v) {
    if (!out.empty() && iv.first <= out.back().second) {
      out.back().second = std::max(out.back().second, iv.second);
    } else {
      out.push_back(iv);
    }
  }
  return out;
}

}  // namespace

nlohmann::json panel_data(pipeline::Engine& engine, const ServiceState& state, double window_s) {
  const json st = engine.status_json();
  const int64_t now_ns = engine.trace().now_ns();
  const double now = seconds(now_ns);
  const double from = std::max(0.0, now - window_s);
  const std::vector<pipeline::Span> spans =
      engine.trace().spans_since(now_ns - static_cast<int64_t>(window_s * 1e9));
  json out;
  out["version"] = version_name("zkpipe");
  out["uptime_s"] = now;
  out["now_s"] = now;
  out["window_s"] = window_s;
  out["accepting"] = st.value("accepting", false) && !state.draining.load();
  out["ready"] = engine.ready().ok() && !state.draining.load();

  json devices = json::array();
  for (const std::string& track : engine.device_tracks()) {
    std::vector<std::pair<double, double>> busy;
    for (const pipeline::Span& s : spans) {
      if (s.track != track || !s.busy || s.name != "prove_start") continue;
      busy.emplace_back(std::max(from, seconds(s.start_ns)), std::min(now, seconds(s.end_ns)));
    }
    double total = 0;
    json intervals = json::array();
    for (const auto& [a, b] : merge(busy)) {
      if (b <= a) continue;
      total += b - a;
      intervals.push_back({a, b});
    }
    const double wall = now - from;
    devices.push_back({{"name", track.substr(std::string_view("device-").size())},
                       {"busy_pct", wall > 0 ? 100.0 * total / wall : 0.0},
                       {"intervals", std::move(intervals)}});
  }
  out["devices"] = std::move(devices);

  json queues = json::object();
  const json prio = st.value("priorities", json::object());
  for (const char* p : {"critical", "high", "normal", "low"}) {
    const json q = prio.value(p, json::object());
    queues[p] = {{"jobs", q.value("jobs", uint64_t{0})},
                 {"partitions_queued", q.value("partitions_queued", uint64_t{0})}};
  }
  out["queues"] = std::move(queues);
  const json b = st.value("budget", json::object());
  out["budget"] = {
      {"total_bytes", b.value("total_bytes", uint64_t{0})},
      {"reserved_bytes", b.value("reserved_bytes", uint64_t{0})},
      {"peak_bytes", b.value("peak_bytes", uint64_t{0})},
      {"hot_params_bytes", st.value("params", json::object()).value("hot_bytes", uint64_t{0})}};

  // The waterfall: unfinished jobs, then the newest finished ones.
  std::vector<json> jobs_all;
  for (const json& j : st.value("jobs", json::array())) jobs_all.push_back(j);
  std::sort(jobs_all.begin(), jobs_all.end(), [](const json& x, const json& y) {
    const bool xe = x.contains("ended_s"), ye = y.contains("ended_s");
    if (xe != ye) return !xe;
    return x.value("job", uint64_t{0}) > y.value("job", uint64_t{0});
  });
  std::map<std::pair<uint64_t, int32_t>, json> by_partition;
  for (const pipeline::Span& s : spans) {
    if (s.job == 0 || s.partition < 0 || s.track.rfind("device-", 0) == 0) continue;
    // A partition's wait for its params (made, checked or loaded by the params thread, or loaded
    // by its synthesis worker) is params time, not queue wait or synthesis: drawn as "params".
    const bool params = s.name == "params_wait" || s.name == "srs_wait";
    if (!params && s.name != "queue_wait" && s.name != "synthesis" && s.name != "prove_start" &&
        s.name != "prove_finish") {
      continue;
    }
    json& list = by_partition[{s.job, s.partition}];
    if (list.is_null()) list = json::array();
    list.push_back({{"name", params ? "params" : s.name},
                    {"start_s", seconds(s.start_ns)},
                    {"end_s", seconds(s.end_ns)}});
  }
  json jobs = json::array();
  json failures = json::array();
  std::map<int64_t, double> done_per_bucket;
  for (const json& j : jobs_all) {
    const std::string job_state = j.value("state", "");
    const uint64_t id = j.value("job", uint64_t{0});
    if (job_state == "done" && j.contains("ended_s")) {
      const double t = j["ended_s"].get<double>();
      // Proofs: one per partition, as `zkpipe bench` counts them.
      const double proofs = static_cast<double>(j.value("partitions", json::array()).size());
      if (t >= from) done_per_bucket[static_cast<int64_t>(t / kBucketS)] += proofs;
    }
    if (job_state == "failed" && failures.size() < kMaxJobs) {
      failures.push_back({{"job", id},
                          {"proof_type", j.value("proof_type", "")},
                          {"t_s", j.value("ended_s", 0.0)},
                          {"error", j.value("error", "")}});
    }
    if (jobs.size() >= kMaxJobs) continue;
    json parts = json::array();
    for (const json& p : j.value("partitions", json::array())) {
      const int32_t index = p.value("partition", 0);
      auto it = by_partition.find({id, index});
      parts.push_back({{"partition", index},
                       {"state", p.value("state", "")},
                       {"spans", it == by_partition.end() ? json::array() : it->second}});
    }
    jobs.push_back({{"job", id},
                    {"proof_type", j.value("proof_type", "")},
                    {"priority", j.value("priority", "")},
                    {"deadline_at_risk", j.value("deadline_at_risk", false)},
                    {"state", job_state},
                    {"submitted_s", j.value("submitted_s", 0.0)},
                    {"ended_s", j.contains("ended_s") ? j["ended_s"] : json(nullptr)},
                    {"wall_ms", j.value("wall_ms", 0.0)},
                    {"error", j.value("error", "")},
                    {"partitions", std::move(parts)}});
  }
  out["jobs"] = std::move(jobs);
  out["failures"] = std::move(failures);
  json throughput = json::array();
  for (int64_t k = static_cast<int64_t>(from / kBucketS); k <= static_cast<int64_t>(now / kBucketS);
       ++k) {
    auto it = done_per_bucket.find(k);
    throughput.push_back({{"t_s", std::min(now, (static_cast<double>(k) + 1) * kBucketS)},
                          {"proofs_per_min", it == done_per_bucket.end() ? 0.0 : it->second * 6}});
  }
  out["throughput"] = std::move(throughput);
  const json c = st.value("counters", json::object());
  out["counters"] = {{"jobs_done", c.value("jobs_done", uint64_t{0})},
                     {"jobs_failed", c.value("jobs_failed", uint64_t{0})},
                     {"jobs_cancelled", c.value("jobs_cancelled", uint64_t{0})},
                     {"partitions_proved", c.value("partitions_proved", uint64_t{0})}};
  return out;
}

}  // namespace zkpipe::server
