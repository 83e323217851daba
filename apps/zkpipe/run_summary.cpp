// run_summary.cpp: RunSummary from the engine's trace, and the tables of `zkpipe prove` and
// `zkpipe bench` (run_summary.h).
// Thread-safety: pure functions apart from /proc/self reads and writes.
#include "run_summary.h"

#include <algorithm>
#include <fstream>
#include <string>

#include <fmt/core.h>

#include "zkpipe/sdk/units.h"

namespace zkpipe::cli {
namespace {

// Idle gaps shorter than this are scheduling noise, not waiting for work.
constexpr int64_t kMinIdleGapNs = 1'000'000;

}  // namespace

uint64_t read_peak_rss() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoull(line.substr(6)) * 1024;  // "N kB"
  }
  return 0;
}

void reset_peak_rss() {
  std::ofstream out("/proc/self/clear_refs");
  out << "5";  // resets VmHWM to the current RSS
}

nlohmann::json RunSummary::to_json() const {
  nlohmann::json d = nlohmann::json::array();
  for (const auto& t : devices) {
    d.push_back({{"track", t.track},
                 {"busy_fraction", t.busy_fraction},
                 {"busy_s", t.busy_s},
                 {"window_s", t.wall_s},
                 {"idle_gaps", t.idle_gaps},
                 {"gap_p50_ms", t.gap_p50_ms},
                 {"gap_p99_ms", t.gap_p99_ms},
                 {"gap_max_ms", t.gap_max_ms}});
  }
  return {{"config", config},
          {"wall_s", wall_s},
          {"window_s", window_s},
          {"jobs", jobs},
          {"jobs_ok", jobs_ok},
          {"partitions", partitions},
          {"proofs_per_min", proofs_per_min},
          {"devices", d},
          {"h2d_bytes", h2d_bytes},
          {"h2d_gbs", h2d_gbs},
          {"peak_rss_bytes", peak_rss_bytes},
          {"predicted_peak_bytes", predicted_peak_bytes}};
}

RunSummary summarize_run(const pipeline::Engine& engine, const std::string& config,
                         const std::vector<pipeline::JobResult>& results, double wall_s) {
  RunSummary s;
  s.config = config;
  s.wall_s = wall_s;
  s.jobs = results.size();
  double h2d_ms = 0;
  for (const auto& r : results) {
    if (r.state != pipeline::JobState::kDone) continue;
    ++s.jobs_ok;
    s.partitions += r.partitions.size();
    for (const auto& p : r.partitions) h2d_ms += p.h2d;
  }
  s.proofs_per_min = wall_s > 0 ? 60.0 * static_cast<double>(s.partitions) / wall_s : 0;
  const std::vector<pipeline::Span> spans = engine.trace().spans();
  int64_t first = INT64_MAX, last = 0;
  for (const auto& sp : spans) {
    if (sp.name != "prove_start") continue;
    first = std::min(first, sp.start_ns);
    last = std::max(last, sp.end_ns);
  }
  if (first != INT64_MAX) {
    s.window_s = static_cast<double>(last - first) / 1e9;
    if (s.window_s > 0) {
      s.warm_proofs_per_min = 60.0 * static_cast<double>(s.partitions) / s.window_s;
    }
    for (const std::string& track : engine.device_tracks()) {
      s.devices.push_back(pipeline::summarize_track(spans, track, first, last, kMinIdleGapNs));
    }
  }
  const auto bytes = engine.trace().byte_counters();
  if (auto it = bytes.find("h2d"); it != bytes.end()) s.h2d_bytes = it->second;
  s.h2d_gbs = h2d_ms > 0 ? static_cast<double>(s.h2d_bytes) / (h2d_ms * 1e6) : 0;
  s.peak_rss_bytes = read_peak_rss();
  return s;
}

std::string timing_table(const pipeline::JobResult& r) {
  std::string out = fmt::format(
      "job {} ({}, {}): {}\n{:>4} {:>6} {:>3} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} "
      "{:>9} {:>8}\n",
      r.job, r.proof_type, r.circuit_id,
      r.status.ok() ? std::string("OK, verified") : r.status.to_string(), "part", "device", "try",
      "queue", "params", "memory", "synth", "ready", "start", "ntt", "msm", "finish", "lock");
  for (size_t p = 0; p < r.partitions.size(); ++p) {
    const auto& t = r.partitions[p];
    out += fmt::format(
        "{:>4} {:>6} {:>3} {:>9.1f} {:>9.1f} {:>9.1f} {:>9.1f} {:>9.1f} {:>9.1f} {:>9.1f} "
        "{:>9.1f} {:>9.1f} {:>8.3f}\n",
        p < r.partition_indices.size() ? r.partition_indices[p] : p, t.device, t.attempts,
        t.queue_wait, t.srs_wait, t.reserve_wait, t.synthesis, t.ready_wait, t.prove_start, t.ntt,
        t.msm, t.prove_finish, t.lock_wait);
  }
  out += fmt::format(
      "(ms; queue: waiting for a synthesis worker, params: loading/making params, memory: "
      "budget wait, ready: synthesized, waiting for a compute worker)\nverify {:.1f} ms (batch "
      "of {}), finalize {:.1f} ms, wall {:.1f} ms\n",
      r.verify_ms, r.partitions.size(), r.finalize_ms, r.wall_ms);
  return out;
}

std::string summary_text(const RunSummary& s) {
  std::string out = fmt::format(
      "run: {} job(s) ({} ok), {} partition proof(s) in {:.2f} s: {:.1f} proofs/min; peak RSS "
      "{}\n",
      s.jobs, s.jobs_ok, s.partitions, s.wall_s, s.proofs_per_min, format_bytes(s.peak_rss_bytes));
  for (const auto& d : s.devices) {
    out += fmt::format(
        "{}: busy {:.2f}% of {:.2f} s after warm-up; idle gaps >= 1 ms: {} (p50 {:.1f} ms, p99 "
        "{:.1f} ms, max {:.1f} ms)\n",
        d.track, 100 * d.busy_fraction, d.wall_s, d.idle_gaps, d.gap_p50_ms, d.gap_p99_ms,
        d.gap_max_ms);
  }
  out += s.h2d_bytes > 0 ? fmt::format("host-to-device: {} at {:.2f} GB/s\n",
                                       format_bytes(s.h2d_bytes), s.h2d_gbs)
                         : std::string("host-to-device: none (the CPU backend copies nothing)\n");
  return out;
}

std::string side_by_side(const std::vector<RunSummary>& runs) {
  std::string out = fmt::format("{:<28}", "");
  for (const auto& r : runs) out += fmt::format(" {:>20}", r.config);
  out += "\n";
  auto row = [&](std::string_view name, auto cell) {
    out += fmt::format("{:<28}", name);
    for (const auto& r : runs) out += fmt::format(" {:>20}", cell(r));
    out += "\n";
  };
  row("wall time (s)", [](const RunSummary& r) { return fmt::format("{:.2f}", r.wall_s); });
  row("jobs ok / submitted",
      [](const RunSummary& r) { return fmt::format("{} / {}", r.jobs_ok, r.jobs); });
  row("proofs/min", [](const RunSummary& r) { return fmt::format("{:.1f}", r.proofs_per_min); });
  row("after warm-up (s)", [](const RunSummary& r) { return fmt::format("{:.2f}", r.window_s); });
  row("proofs/min after warm-up",
      [](const RunSummary& r) { return fmt::format("{:.1f}", r.warm_proofs_per_min); });
  row("device busy % (warm)", [](const RunSummary& r) {
    return r.devices.empty() ? std::string("-")
                             : fmt::format("{:.2f}", 100 * r.devices[0].busy_fraction);
  });
  row("idle gaps (n, max ms)", [](const RunSummary& r) {
    return r.devices.empty()
               ? std::string("-")
               : fmt::format("{}, {:.1f}", r.devices[0].idle_gaps, r.devices[0].gap_max_ms);
  });
  row("H2D GB/s", [](const RunSummary& r) {
    return r.h2d_bytes > 0 ? fmt::format("{:.2f}", r.h2d_gbs) : std::string("- (no copies)");
  });
  row("peak RSS", [](const RunSummary& r) { return format_bytes(r.peak_rss_bytes); });
  row("predicted peak (zkpipe plan)", [](const RunSummary& r) {
    if (r.predicted_peak_bytes == 0 || r.peak_rss_bytes == 0) return std::string("-");
    return fmt::format("{} ({:+.1f}%)", format_bytes(r.predicted_peak_bytes),
                       100.0 * (static_cast<double>(r.predicted_peak_bytes) /
                                    static_cast<double>(r.peak_rss_bytes) -
                                1.0));
  });
  return out;
}

}  // namespace zkpipe::cli
