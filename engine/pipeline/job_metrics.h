// engine/pipeline/job_metrics.h: the latency histograms and failure counters an operator graphs
// and alerts on (issue 33 #6): end-to-end seconds and each partition's stages by proof type and
// priority, failures by status code, deadlines missed. Kept and written in Prometheus' text
// format by prometheus-cpp (Debian's prometheus-cpp-dev); the engine's other families are
// written by report.cpp.
// Thread-safety: every member may be called from any thread (prometheus-cpp locks its own).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "zkpipe/job_state.h"
#include "zkpipe/pipeline/engine.h"
#include "zkpipe/pipeline/priority.h"
#include "zkpipe/sdk/status.h"

namespace prometheus {
class Registry;
}

namespace zkpipe::pipeline {

// What a job's end tells the metrics.
struct JobEnd {
  std::string type;
  Priority priority = Priority::kNormal;
  JobState state = JobState::kDone;
  Code code = Code::kOk;
  double wall_s = 0;             // submit to end
  double verify_s = 0;           // the job's verification (finalizer)
  bool missed_deadline = false;  // it had one and ended after it, or not DONE by it
  const std::vector<PartitionTiming>* partitions = nullptr;  // each partition's stages
  const std::vector<bool>* proved = nullptr;                 // which of them were proved
};

class JobMetrics {
 public:
  JobMetrics();
  ~JobMetrics();
  JobMetrics(const JobMetrics&) = delete;
  JobMetrics& operator=(const JobMetrics&) = delete;

  void job_ended(const JobEnd& e);
  // The families in Prometheus' text format (only those with a series yet).
  std::string text() const;

 private:
  struct Families;
  std::shared_ptr<prometheus::Registry> registry_;
  std::unique_ptr<Families> f_;
};

}  // namespace zkpipe::pipeline
