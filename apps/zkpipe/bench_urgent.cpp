// `zkpipe bench --config C --proof T --preset P --jobs N --urgent U:Q [--urgent ...] [--rounds R]`:
// the deadline scenario. For each urgent request (proof type U, preset Q, made by its plugin, with
// its own default priority and deadline) in one engine, after a warm-up that makes every params
// hot: R rounds of
//   idle     the urgent job alone on the idle engine: its latency (submit to proof);
//   backlog  N jobs of T/P submitted at once: partitions per minute;
//   mixed    the same backlog, and once its first partition is proved the urgent job: the urgent
//            job's latency, and the backlog's partitions per minute (the loss includes the
//            urgent job's own device time, which no scheduling avoids).
// Prints medians: the urgent latency under the backlog against idle (goal: at most idle plus one
// backlog partition's prove_start) and the throughput loss (goal: under 5%); writes urgent.json.
// Thread-safety: main thread (plus the signal watcher).
#include <chrono>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "bench_urgent.h"
#include "zkpipe/sdk/file_io.h"
#include "zkpipe/sdk/percentile.h"

namespace zkpipe::cli {
namespace {

using Clock = std::chrono::steady_clock;

struct Round {
  double idle_ms = 0, mixed_ms = 0;       // the urgent job's latency
  double backlog_ppm = 0, mixed_ppm = 0;  // the backlog's partitions per minute
  double backlog_prove_ms = 0;            // median prove_start of a backlog partition
  std::string urgent_priority;
};

pipeline::JobRequest request_of(const std::string& type, const std::vector<uint8_t>& input,
                                const std::string& name) {
  pipeline::JobRequest r;
  r.proof_type = type;
  r.input = input;
  r.input_name = name;
  return r;
}

// Submits the backlog; returns its job ids.
Result<std::vector<uint64_t>> submit_backlog(pipeline::Engine& engine, const UrgentBench& b,
                                             const std::vector<uint8_t>& input) {
  std::vector<uint64_t> ids;
  for (uint32_t j = 0; j < b.jobs; ++j) {
    ZKP_ASSIGN_OR_RETURN(
        uint64_t id, engine.submit(request_of(b.proof, input, fmt::format("backlog job {}", j))));
    ids.push_back(id);
  }
  return ids;
}

// Waits for every job; the partitions proved, and their prove_start times.
Result<uint32_t> wait_all(pipeline::Engine& engine, const std::vector<uint64_t>& ids,
                          std::vector<double>* prove_ms = nullptr) {
  uint32_t partitions = 0;
  for (uint64_t id : ids) {
    ZKP_ASSIGN_OR_RETURN(pipeline::JobResult r, engine.wait(id));
    if (!r.status.ok()) return r.status.with_context(fmt::format("job {}", id));
    partitions += static_cast<uint32_t>(r.partitions.size());
    if (prove_ms != nullptr) {
      for (const auto& t : r.partitions) prove_ms->push_back(t.prove_start);
    }
  }
  return partitions;
}

Result<double> urgent_latency(pipeline::Engine& engine, const std::string& type,
                              const std::vector<uint8_t>& input, std::string* priority) {
  const auto t0 = Clock::now();
  ZKP_ASSIGN_OR_RETURN(pipeline::Submitted s,
                       engine.submit_job(request_of(type, input, "urgent job")));
  *priority = std::string(pipeline::priority_name(s.priority));
  ZKP_ASSIGN_OR_RETURN(pipeline::JobResult r, engine.wait(s.job));
  if (!r.status.ok()) return r.status.with_context("the urgent job");
  return ms_since(t0);
}

Result<Round> run_round(pipeline::Engine& engine, const UrgentBench& b,
                        const std::vector<uint8_t>& backlog_input, const std::string& type,
                        const std::vector<uint8_t>& urgent_input) {
  Round round;
  ZKP_ASSIGN_OR_RETURN(round.idle_ms,
                       urgent_latency(engine, type, urgent_input, &round.urgent_priority));
  auto t0 = Clock::now();
  ZKP_ASSIGN_OR_RETURN(std::vector<uint64_t> ids, submit_backlog(engine, b, backlog_input));
  std::vector<double> prove_ms;
  ZKP_ASSIGN_OR_RETURN(uint32_t parts, wait_all(engine, ids, &prove_ms));
  round.backlog_ppm = parts / (ms_since(t0) / 60'000);
  round.backlog_prove_ms = median(prove_ms);

  t0 = Clock::now();
  ZKP_ASSIGN_OR_RETURN(ids, submit_backlog(engine, b, backlog_input));
  ZKP_ASSIGN_OR_RETURN(pipeline::JobWatch watch, engine.watch(ids.front()));
  for (;;) {  // the backlog flows: its first partition is proved
    std::optional<pipeline::JobEvent> e = watch.next(std::chrono::minutes(10));
    if (!e) return deadline_exceeded("the backlog proved nothing in 10 minutes");
    if (e->kind == pipeline::EventKind::kProved) break;
    if (e->kind == pipeline::EventKind::kJobEnded) return e->status.with_context("backlog job");
  }
  ZKP_ASSIGN_OR_RETURN(pipeline::Submitted urgent,
                       engine.submit_job(request_of(type, urgent_input, "urgent job")));
  const auto u0 = Clock::now();
  ZKP_ASSIGN_OR_RETURN(pipeline::JobResult r, engine.wait(urgent.job));
  if (!r.status.ok()) return r.status.with_context("the urgent job under the backlog");
  round.mixed_ms = ms_since(u0);
  ZKP_ASSIGN_OR_RETURN(parts, wait_all(engine, ids));
  round.mixed_ppm = parts / (ms_since(t0) / 60'000);
  return round;
}

}  // namespace

Status run_urgent_bench(pipeline::Engine& engine, const UrgentBench& b,
                        const std::vector<uint8_t>& backlog_input,
                        const std::vector<UrgentInput>& urgent, const std::string& out_dir) {
  // Warm-up: every circuit's params hot, and the estimates measured.
  ZKP_ASSIGN_OR_RETURN(std::vector<uint64_t> warm,
                       submit_backlog(engine, {b.proof, b.preset, 1, 1}, backlog_input));
  ZKP_RETURN_IF_ERROR(wait_all(engine, warm).status());
  for (const UrgentInput& u : urgent) {
    std::string ignored;
    ZKP_RETURN_IF_ERROR(urgent_latency(engine, u.type, u.input, &ignored).status());
  }
  nlohmann::json out = nlohmann::json::array();
  for (const UrgentInput& u : urgent) {
    std::vector<Round> rounds;
    for (uint32_t k = 0; k < b.rounds; ++k) {
      fmt::print("   {}:{} round {} of {} ...\n", u.type, u.preset, k + 1, b.rounds);
      ZKP_ASSIGN_OR_RETURN(Round r, run_round(engine, b, backlog_input, u.type, u.input));
      rounds.push_back(r);
    }
    auto med = [&](double Round::*field) {
      std::vector<double> v;
      for (const Round& r : rounds) v.push_back(r.*field);
      return median(v);
    };
    const double idle = med(&Round::idle_ms), mixed = med(&Round::mixed_ms);
    const double ppm = med(&Round::backlog_ppm), mixed_ppm = med(&Round::mixed_ppm);
    const double one_prove = med(&Round::backlog_prove_ms);
    const double loss = ppm > 0 ? 100 * (1 - mixed_ppm / ppm) : 0;
    fmt::print(
        "== urgent {}:{} ({}) under {} x {} {}: latency {:.0f} ms vs {:.0f} ms idle (+{:.0f} ms; "
        "goal <= one backlog prove_start, {:.0f} ms: {}); backlog throughput {:.2f} vs "
        "{:.2f} partitions/min alone ({:.1f}% loss; goal < 5%: {}); medians of {} round(s)\n",
        u.type, u.preset, rounds.front().urgent_priority, b.jobs, b.proof, b.preset, mixed, idle,
        mixed - idle, one_prove, mixed <= idle + one_prove ? "met" : "missed", mixed_ppm, ppm, loss,
        loss < 5 ? "met" : "missed", rounds.size());
    out.push_back({{"urgent", u.type + ":" + u.preset},
                   {"priority", rounds.front().urgent_priority},
                   {"backlog", fmt::format("{} x {}:{}", b.jobs, b.proof, b.preset)},
                   {"rounds", rounds.size()},
                   {"idle_latency_ms", idle},
                   {"backlog_latency_ms", mixed},
                   {"backlog_prove_start_ms", one_prove},
                   {"latency_goal_met", mixed <= idle + one_prove},
                   {"backlog_partitions_per_min", ppm},
                   {"mixed_partitions_per_min", mixed_ppm},
                   {"throughput_loss_percent", loss},
                   {"throughput_goal_met", loss < 5}});
  }
  return write_file(out_dir + "/urgent.json", out.dump(2) + "\n");
}

}  // namespace zkpipe::cli
