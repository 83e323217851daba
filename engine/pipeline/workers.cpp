// workers.cpp: what every worker loop shares: the reporter loop (on_job_end outside the lock),
// Deferred::flush, the timed tracker lock and buffer allocation within the size classes. The
// loops themselves: synthesis.cpp, compute_worker.cpp, finalize.cpp; a job's end: job_end.cpp.
// Thread-safety: see engine_impl.h.
#include <malloc.h>
#include <spdlog/spdlog.h>

#include <fmt/core.h>

#include "engine_impl.h"
#include "zkpipe/groth16/verifier.h"
#include "zkpipe/proof_type.h"
#include "zkpipe/retry_policy.h"
#include "zkpipe/sdk/units.h"

namespace zkpipe::pipeline {

std::string job_name(const Job& job) {
  std::string self = fmt::format("job {}", job.id);
  // The daemon names its jobs "job <id> (request <id>)" already: not twice.
  if (job.input_name.empty() || job.input_name == self) return self;
  if (job.input_name.starts_with(self + " ")) return job.input_name;
  return fmt::format("{} ({})", self, job.input_name);
}

std::string part_name(const Job& job, uint32_t p) {
  return fmt::format("{} partition {}", job_name(job), job.label(p));
}

groth16::WitnessView witness_view(const PartitionWork& w) {
  const auto* fr = static_cast<const groth16::Fr*>(w.witness.host());
  const JobInfo& info = w.job->info;
  return {{fr, info.num_inputs}, {fr + info.num_inputs, info.num_aux}};
}

bool ended(const Job& job) {
  return job.state != JobState::kQueued && job.state != JobState::kRunning;
}

bool deadline_passed(const Job& job, int64_t now_ns) {
  return job.deadline && !ended(job) && now_ns > job.key(0).deadline_ns;
}

bool deadline_missed(const Job& job) {
  return job.deadline && (job.status.code() == Code::kDeadlineExceeded ||
                          zkpipe::now_ns() > job.key(0).deadline_ns);
}

void Engine::Impl::reporter_loop() {
  UniqueLock lock(mu);
  for (;;) {
    report_cv.wait(lock.native(),
                   [&]() ZKP_REQUIRES(mu) { return stopping || !ended_reports.empty(); });
    if (ended_reports.empty()) return;  // stopping, and every report delivered
    const JobResult r = std::move(ended_reports.front());
    ended_reports.pop_front();
    lock.unlock();
    const Status s = guarded("on_job_end", [&] {
      options.on_job_end(r);
      return ok_status();
    });
    if (!s.ok()) spdlog::error("job {}: reporting its end: {}", r.job, s.to_string());
    lock.lock();
  }
}

void Deferred::flush() {
  for (const std::string& w : warnings) spdlog::warn("{}", w);
  for (const std::string& n : notes) spdlog::info("{}", n);
  warnings.clear();
  notes.clear();
  work.clear();
  plugins.clear();
}

// Not analysed: clang cannot tell that `lock` (a reference) is a lock of mu; callers see
// ZKP_ACQUIRE(mu).
void Engine::Impl::lock_timed(UniqueLock& lock, double* wait_ms) ZKP_NO_THREAD_SAFETY_ANALYSIS {
  const int64_t t0 = now_ns();
  lock.lock();
  if (wait_ms != nullptr) *wait_ms += ms_between(t0, now_ns());
}

Result<Buffer> Engine::Impl::allocate(uint64_t bytes) {
  Result<Buffer> buffer = options.allocate ? options.allocate(*pool, bytes) : pool->allocate(bytes);
  // The budget reserved the size class; a backend that rounds further is under-counted.
  if (buffer.ok() && buffer->bytes() > size_class(bytes, shape.granularity)) {
    static std::atomic<bool> said{false};
    if (!said.exchange(true)) {
      spdlog::warn(
          "memory backend {} gave {} for a request of {}, more than the size class {} the "
          "memory budget reserves (zkpipe/sdk/abi/size_class.h): the budget under-counts it",
          pool->backend_name(), format_bytes(buffer->bytes()), format_bytes(bytes),
          format_bytes(size_class(bytes, shape.granularity)));
    }
  }
  return buffer;
}

}  // namespace zkpipe::pipeline
