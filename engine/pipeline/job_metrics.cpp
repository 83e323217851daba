// job_metrics.cpp: JobMetrics (job_metrics.h) over prometheus-cpp.
#include "job_metrics.h"

#include <prometheus/counter.h>
#include <prometheus/histogram.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

namespace zkpipe::pipeline {
namespace {

// From 5 ms (a tiny circuit's stage) to an hour (a 32GiB PoRep's wait behind a backlog).
prometheus::Histogram::BucketBoundaries seconds_buckets() {
  return {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,  1,    2.5, 5,
          10,    25,   60,    120,  300, 600,  1200, 1800, 3600};
}

}  // namespace

struct JobMetrics::Families {
  prometheus::Family<prometheus::Histogram>* job_seconds = nullptr;
  prometheus::Family<prometheus::Histogram>* stage_seconds = nullptr;
  prometheus::Family<prometheus::Counter>* failures = nullptr;
  prometheus::Family<prometheus::Counter>* missed = nullptr;
};

JobMetrics::JobMetrics()
    : registry_(std::make_shared<prometheus::Registry>()), f_(std::make_unique<Families>()) {
  f_->job_seconds = &prometheus::BuildHistogram()
                         .Name("zkpipe_job_seconds")
                         .Help("Seconds from submit to a verified proof, of jobs that ended DONE.")
                         .Register(*registry_);
  f_->stage_seconds =
      &prometheus::BuildHistogram()
           .Name("zkpipe_stage_seconds")
           .Help(
               "Seconds each proved partition spent in a stage: queue (waiting for a synthesis "
               "worker), params (made, checked or loaded), memory (budget wait), synthesis, "
               "ready (waiting for a compute worker), prove (prove_start), finish "
               "(prove_finish); verify is the job's.")
           .Register(*registry_);
  f_->failures = &prometheus::BuildCounter()
                      .Name("zkpipe_job_failures_total")
                      .Help("Jobs that ended FAILED or CANCELLED, by status code.")
                      .Register(*registry_);
  f_->missed = &prometheus::BuildCounter()
                    .Name("zkpipe_deadlines_missed_total")
                    .Help("Jobs with a deadline that ended after it, or other than DONE by it.")
                    .Register(*registry_);
}

JobMetrics::~JobMetrics() = default;

void JobMetrics::job_ended(const JobEnd& e) {
  const std::string priority(priority_name(e.priority));
  if (e.missed_deadline) f_->missed->Add({{"type", e.type}, {"priority", priority}}).Increment();
  if (e.state != JobState::kDone) {
    f_->failures->Add({{"type", e.type}, {"code", std::string(code_name(e.code))}}).Increment();
    return;
  }
  const prometheus::Labels labels{{"type", e.type}, {"priority", priority}};
  f_->job_seconds->Add(labels, seconds_buckets()).Observe(e.wall_s);
  auto stage = [&](const char* name, double seconds) {
    prometheus::Labels l = labels;
    l["stage"] = name;
    f_->stage_seconds->Add(l, seconds_buckets()).Observe(seconds);
  };
  if (e.partitions != nullptr) {
    for (size_t p = 0; p < e.partitions->size(); ++p) {
      if (e.proved != nullptr && p < e.proved->size() && !(*e.proved)[p]) continue;
      const PartitionTiming& t = (*e.partitions)[p];
      stage("queue", t.queue_wait / 1e3);
      stage("params", t.srs_wait / 1e3);
      stage("memory", t.reserve_wait / 1e3);
      stage("synthesis", t.synthesis / 1e3);
      stage("ready", t.ready_wait / 1e3);
      stage("prove", t.prove_start / 1e3);
      stage("finish", t.prove_finish / 1e3);
    }
  }
  stage("verify", e.verify_s);
}

std::string JobMetrics::text() const {
  return prometheus::TextSerializer().Serialize(registry_->Collect());
}

}  // namespace zkpipe::pipeline
