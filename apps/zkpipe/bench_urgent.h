// bench_urgent.h: `zkpipe bench --urgent TYPE:PRESET`, the deadline scenario (bench_urgent.cpp):
// an urgent job's latency under a backlog against idle, and the backlog's throughput loss.
// Thread-safety: main thread.
#pragma once

#include <string>
#include <vector>

#include "zkpipe/pipeline/engine.h"

namespace zkpipe::cli {

struct UrgentBench {
  std::string proof, preset;  // the backlog's
  uint32_t jobs = 4;          // backlog jobs, submitted at once
  uint32_t rounds = 1;        // rounds of idle / backlog / mixed; medians are reported
};

struct UrgentInput {
  std::string type, preset;
  std::vector<uint8_t> input;  // its plugin's sample request
};

// Runs the scenario for each urgent request in `engine` (see bench_urgent.cpp), prints the
// results and writes OUT_DIR/urgent.json.
Status run_urgent_bench(pipeline::Engine& engine, const UrgentBench& b,
                        const std::vector<uint8_t>& backlog_input,
                        const std::vector<UrgentInput>& urgent, const std::string& out_dir);

}  // namespace zkpipe::cli
