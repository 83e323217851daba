// deadlines.cpp: a request's priority and deadline (its own, the config's scheduling.defaults,
// then its proof type's, ABI 1.3), the measured per-circuit step times, and the estimate that
// says early, in the log and in status, when a job's deadline looks unreachable.
// Thread-safety: check_deadline runs under Impl::mu; resolve_schedule reads only the config.
#include <spdlog/spdlog.h>

#include <fmt/core.h>

#include "engine_impl.h"
#include "zkpipe/pipeline/measured_times.h"
#include "zkpipe/proof_type.h"
#include "zkpipe/sdk/clock.h"

namespace zkpipe::pipeline {
namespace {

// The weight of the newest partition in the moving averages.
constexpr double kNewest = 0.3;

double mix(double average, double sample, uint64_t samples) {
  return samples == 0 ? sample : (1 - kNewest) * average + kNewest * sample;
}

}  // namespace

void CircuitTimes::add(const PartitionTiming& t) {
  synthesis = mix(synthesis, t.synthesis, samples);
  prove_start = mix(prove_start, t.prove_start, samples);
  prove_finish = mix(prove_finish, t.prove_finish, samples);
  ++samples;
}

void Engine::Impl::keep_measured_times(const std::string& circuit_id, const CircuitTimes& t) {
  if (t.samples == 0) return;
  MeasuredTimes m;
  m.circuit_id = circuit_id;
  m.backend = compute->name();
  for (size_t d = 0; d < compute->device_count(); ++d) {
    m.devices += (d == 0 ? "" : ", ") + compute->device_name(d);
  }
  m.samples = t.samples;
  m.synthesis_ms = t.synthesis;
  m.prove_start_ms = t.prove_start;
  m.prove_finish_ms = t.prove_finish;
  const std::string path = measured_times_path(config.params.dir, circuit_id);
  if (const Status s = write_measured_times(path, m); !s.ok()) {
    spdlog::debug("{} (zkpipe plan will not predict this circuit's time)", s.to_string());
  }
}

void Engine::Impl::resolve_schedule(
    const JobRequest& request, const ProofTypePlugin& type, Priority& priority,
    std::optional<std::chrono::steady_clock::time_point>& deadline) const {
  const ProofTypeSchedule plugin = type.schedule();
  const auto configured = config.scheduling.defaults.find(request.proof_type);
  const ScheduleDefault* c =
      configured == config.scheduling.defaults.end() ? nullptr : &configured->second;
  if (request.priority) {
    priority = *request.priority;
  } else if (c != nullptr && c->priority) {
    priority = *c->priority;
  } else if (plugin.priority) {
    priority = *plugin.priority;
  } else {
    priority = Priority::kNormal;
  }
  deadline.reset();
  std::optional<int64_t> ms;
  if (request.deadline) {
    deadline = request.deadline;
    return;
  }
  if (c != nullptr && c->deadline_ms) {
    ms = *c->deadline_ms;
  } else if (plugin.deadline_ms > 0) {
    ms = static_cast<int64_t>(std::min<uint64_t>(plugin.deadline_ms, INT64_MAX / 1'000'000));
  }
  if (ms && *ms > 0) {
    deadline = saturating_after(std::chrono::steady_clock::now(), std::chrono::milliseconds(*ms));
  }
}

void Engine::Impl::check_deadline(Job& job, Deferred& later) {
  if (!job.deadline || ended(job) || live_compute == 0) return;
  const auto own = circuit_times.find(job.info.circuit_id);
  if (own == circuit_times.end()) return;  // nothing measured yet: no estimate
  // Compute time ahead of this job: partitions proving now, and queued or synthesized ones that
  // a compute worker takes first. Circuits never measured count as nothing (an estimate low
  // rather than a false alarm).
  const QueueKey mine = job.key(0);
  double ahead_ms = 0;
  uint32_t ahead = 0;
  for (const auto& [id, other] : jobs) {
    if (other.get() == &job || ended(*other)) continue;
    const auto t = circuit_times.find(other->info.circuit_id);
    const double each = t == circuit_times.end() ? 0 : t->second.prove_start;
    const bool before = other->key(0) < mine;
    for (PartState s : other->parts) {
      const bool waiting = s == PartState::kQueued || s == PartState::kParams ||
                           s == PartState::kSynthesizing || s == PartState::kReady;
      if (s == PartState::kProving || (before && waiting)) {
        ahead_ms += each;
        ++ahead;
      }
    }
  }
  uint32_t left = 0;
  for (PartState s : job.parts) left += s != PartState::kProved && s != PartState::kFinishing;
  const CircuitTimes& t = own->second;
  const double workers = static_cast<double>(live_compute);
  const double end_ms = (ahead_ms + left * t.prove_start) / workers + t.synthesis + t.prove_finish;
  const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                          std::chrono::steady_clock::now().time_since_epoch())
                          .count();
  job.estimated_end_ns = now + static_cast<int64_t>(end_ms * 1e6);
  const int64_t deadline_ns = job.key(0).deadline_ns;
  const bool at_risk = job.estimated_end_ns > deadline_ns;
  if (at_risk && !job.deadline_at_risk) {
    later.warnings.push_back(fmt::format(
        "{}: its deadline looks unreachable: estimated to end in {:.1f} s, {:.1f} s "
        "after its deadline ({} partition(s) ahead of its {} on {} compute worker(s); {} measured "
        "{:.0f} ms prove_start, {:.0f} ms synthesis per partition)",
        job_name(job), end_ms / 1e3, static_cast<double>(job.estimated_end_ns - deadline_ns) / 1e9,
        ahead, left, live_compute, job.info.circuit_id, t.prove_start, t.synthesis));
  } else if (!at_risk && job.deadline_at_risk) {
    later.notes.push_back(fmt::format("{}: its deadline looks reachable again", job_name(job)));
  }
  job.deadline_at_risk = at_risk;
}

}  // namespace zkpipe::pipeline
