// run_summary.h: what one run of the pipeline measured, from the engine's own spans: per device
// busy time over the window after warm-up (first prove_start to the end of the last one: the
// time the devices had work to be given), idle gaps,
// throughput, peak RSS, bytes moved host-to-device; and the tables `zkpipe prove` and `zkpipe
// bench` print.
// Thread-safety: pure functions (read_peak_rss / reset_peak_rss read and write /proc/self).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "zkpipe/pipeline/engine.h"

namespace zkpipe::cli {

struct RunSummary {
  std::string config;
  double wall_s = 0;    // first submit to the last job's end
  double window_s = 0;  // after warm-up: first prove_start start to last prove_start end
  size_t jobs = 0, jobs_ok = 0, partitions = 0;
  double proofs_per_min = 0;       // partition proofs per minute of wall time
  double warm_proofs_per_min = 0;  // per minute of the window after warm-up
  std::vector<pipeline::TrackSummary> devices;
  uint64_t h2d_bytes = 0;
  double h2d_gbs = 0;  // bytes / total h2d time
  uint64_t peak_rss_bytes = 0;
  uint64_t predicted_peak_bytes = 0;  // the engine's prediction (pipeline::Engine::plan); 0: none
  nlohmann::json to_json() const;
};

RunSummary summarize_run(const pipeline::Engine& engine, const std::string& config,
                         const std::vector<pipeline::JobResult>& results, double wall_s);

// Per partition (named by its index in the sector): device, attempts and milliseconds per step;
// then the job's verify and wall.
std::string timing_table(const pipeline::JobResult& r);
// The summary lines under it.
std::string summary_text(const RunSummary& s);
// Configs side by side (bench).
std::string side_by_side(const std::vector<RunSummary>& runs);

uint64_t read_peak_rss();  // VmHWM of this process
void reset_peak_rss();     // so the next run's peak is its own (Linux: /proc/self/clear_refs)

}  // namespace zkpipe::cli
