// zkpipe/pipeline/measured_times.h: the per-circuit step times an engine measured (the moving
// averages the deadline estimates use), kept in params.dir/<circuit>.times beside the params so
// `zkpipe plan` can predict a workload's time as well as its memory, and the prediction itself:
// the first partition's steps one after another, the rest at the pipeline's rate (the slowest of
// synthesis, prove_start and prove_finish over their workers).
// Thread-safety: pure functions and values; the file is replaced atomically.
#pragma once

#include <cstdint>
#include <string>

#include "zkpipe/sdk/status.h"

namespace zkpipe::pipeline {

struct MeasuredTimes {
  std::string circuit_id;
  std::string backend;   // the compute backend that proved (cpu, cuda, ...)
  std::string devices;   // its devices as the engine named them ("cuda0 (NVIDIA H200)", ...)
  uint64_t samples = 0;  // partitions measured
  double synthesis_ms = 0, prove_start_ms = 0, prove_finish_ms = 0;
};

std::string measured_times_path(const std::string& params_dir, const std::string& circuit_id);
// Replaces the file (a JSON object); errors name it.
Status write_measured_times(const std::string& path, const MeasuredTimes& t);
// NOT_FOUND when there is none; INVALID_ARGUMENT naming the file and the key when malformed.
Result<MeasuredTimes> read_measured_times(const std::string& path);

struct TimePrediction {
  double partition_s = 0;  // one partition's steps, one after another
  double rate = 0;         // partitions a second once the pipeline is full
  std::string bottleneck;  // "synthesis", "prove_start" or "prove_finish"
  double first_job_s = 0;  // a job of `partitions` alone
  double workload_s = 0;   // `jobs` of them submitted at once
};
// `synthesis_workers`, `compute_workers`, `finalizers`: the planned pipeline's.
TimePrediction predict_time(const MeasuredTimes& t, uint64_t jobs, uint64_t partitions,
                            uint64_t synthesis_workers, uint64_t compute_workers,
                            uint64_t finalizers);

}  // namespace zkpipe::pipeline
