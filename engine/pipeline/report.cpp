// report.cpp: what the engine tells: the structured timing lines (GPU_TIMING per partition after
// prove_start, FIN_TIMING after prove_finish and per finished job, the names the reference
// system's logs use so runs compare), the status snapshot (JSON) and Prometheus metrics.
// Thread-safety: the snapshot and metrics take the tracker lock only to copy state.
#include <spdlog/spdlog.h>

#include <fmt/core.h>

#include "engine_impl.h"

namespace zkpipe::pipeline {

std::string_view part_state_name(PartState s) {
  switch (s) {
    case PartState::kQueued:
      return "queued";
    case PartState::kParams:
      return "params";
    case PartState::kSynthesizing:
      return "synthesizing";
    case PartState::kReady:
      return "ready";
    case PartState::kProving:
      return "proving";
    case PartState::kFinishing:
      return "finishing";
    case PartState::kProved:
      return "proved";
    case PartState::kDropped:
      return "dropped";
  }
  return "unknown";
}

void Engine::Impl::log_gpu_timing(const PartitionWork& w) const {
  const PartitionTiming& t = w.timing;
  // The transfer (GPU backends): path, bytes and rate; nothing on the CPU.
  const std::string h2d =
      t.h2d_path.empty()
          ? std::string()
          : fmt::format(" h2d_path={} h2d_bytes={} h2d_gbps={:.2f}", t.h2d_path, t.h2d_bytes,
                        t.h2d > 0 ? static_cast<double>(t.h2d_bytes) / (t.h2d * 1e6) : 0.0);
  spdlog::info(
      "GPU_TIMING job={} partition={} type={} device={} attempt={} queue_wait_ms={:.1f} "
      "srs_wait_ms={:.1f} reserve_wait_ms={:.1f} synth_ms={:.1f} ready_wait_ms={:.1f} "
      "h2d_ms={:.1f} ntt_ms={:.1f} msm_ms={:.1f} prove_start_ms={:.1f} lock_wait_ms={:.3f}{}",
      w.job->id, w.job->label(w.partition), w.job->type_name, t.device, t.attempts, t.queue_wait,
      t.srs_wait, t.reserve_wait, t.synthesis, t.ready_wait, t.h2d, t.ntt, t.msm, t.prove_start,
      t.lock_wait, h2d);
}

void Engine::Impl::log_fin_timing(const PartitionWork& w) const {
  spdlog::info("FIN_TIMING job={} partition={} type={} prove_finish_ms={:.1f}", w.job->id,
               w.job->label(w.partition), w.job->type_name, w.timing.prove_finish);
}

void Engine::Impl::log_job_timing(const JobResult& r, double trim_ms) const {
  spdlog::info(
      "FIN_TIMING job={} type={} partitions={} verify_ms={:.1f} finalize_ms={:.1f} "
      "trim_ms={:.1f} wall_ms={:.1f}",
      r.job, r.proof_type, r.partitions.size(), r.verify_ms, r.finalize_ms, trim_ms, r.wall_ms);
}

std::vector<std::pair<std::string, DeviceMemoryStatus>> Engine::Impl::memory_of_devices() const {
  std::vector<std::pair<std::string, DeviceMemoryStatus>> out;
  for (size_t d = 0; d < compute->device_count(); ++d) {
    const DeviceMemoryStatus m = compute->device_memory(d);
    if (m.total_bytes > 0) out.emplace_back(compute->device_name(d), m);
  }
  return out;
}

nlohmann::json Engine::Impl::status_json() const {
  using nlohmann::json;
  json out;
  const std::string memory_text = current_plan_text();  // before mu (it reads the cache)
  const BudgetStats b = budget->stats();
  const ParamsStats s = params_cache->stats();
  const auto device_mem = memory_of_devices();
  MutexLock lock(mu);
  json jobs_json = json::array();
  for (const auto& [id, job] : jobs) {
    json parts = json::array();
    for (uint32_t p = 0; p < job->parts.size(); ++p) {
      parts.push_back({{"partition", job->label(p)},
                       {"state", part_state_name(job->parts[p])},
                       {"attempts", job->earlier_attempts + job->timings[p].attempts}});
    }
    json j = {{"job", id},
              {"request_id", job->request_id},
              {"proof_type", job->type_name},
              {"circuit_id", job->info.circuit_id},
              {"priority", priority_name(job->priority)},
              {"state", job_state_name(job->state)},
              {"submitted_s", static_cast<double>(job->submitted_ns) / 1e9},
              {"partitions", parts}};
    if (job->deadline) {
      const int64_t now = std::chrono::duration_cast<std::chrono::nanoseconds>(
                              std::chrono::steady_clock::now().time_since_epoch())
                              .count();
      j["deadline_in_s"] = static_cast<double>(job->key(0).deadline_ns - now) / 1e9;
      if (!ended(*job)) {
        j["deadline_at_risk"] = job->deadline_at_risk || deadline_passed(*job, now);
        if (job->estimated_end_ns != 0) {
          j["estimated_end_in_s"] = static_cast<double>(job->estimated_end_ns - now) / 1e9;
        }
      }
    }
    if (ended(*job)) {
      j["ended_s"] = static_cast<double>(job->ended_ns) / 1e9;
      j["wall_ms"] = job->result.wall_ms;
    }
    if (!job->status.ok()) j["error"] = job->status.to_string();
    jobs_json.push_back(std::move(j));
  }
  out["jobs"] = std::move(jobs_json);
  out["queues"] = {
      {"synthesis", synth_queue.size()}, {"ready", ready.size()}, {"finalize", started.size()}};
  json by_priority = json::object();
  for (Priority p : {Priority::kCritical, Priority::kHigh, Priority::kNormal, Priority::kLow}) {
    uint64_t unfinished = 0, waiting = 0;
    for (const auto& [id, job] : jobs) {
      if (job->priority == p && !ended(*job)) ++unfinished;
    }
    for (const QueueKey& k : synth_queue) {
      if (k.priority == static_cast<uint8_t>(p)) ++waiting;
    }
    by_priority[std::string(priority_name(p))] = {{"jobs", unfinished},
                                                  {"partitions_queued", waiting}};
  }
  out["priorities"] = std::move(by_priority);
  out["retained_results"] = ended_order.size();
  out["uptime_s"] = static_cast<double>(trace.now_ns()) / 1e9;
  out["workers"] = worker_state;
  out["accepting"] = accepting;
  out["budget"] = {{"total_bytes", b.total},
                   {"reserved_bytes", b.reserved},
                   {"critical_reserve_bytes", config.pipeline.reserve_bytes},
                   {"peak_bytes", b.peak},
                   {"waiting", b.waiting},
                   {"grants", b.grants},
                   {"refusals", b.refusals},
                   {"timeouts", b.timeouts}};
  out["memory"] = memory_text;  // the start-up line, remade once params were loaded
  out["params"] = {{"hot", s.hot},
                   {"warm", s.warm},
                   {"in_use", s.in_use},
                   {"hot_bytes", s.hot_bytes},
                   {"hits", s.hits},
                   {"loads", s.loads},
                   {"setups", s.setups},
                   {"evictions", s.evictions},
                   {"hot_circuits", s.hot_circuits},
                   {"load_s", s.load_s},
                   {"setup_s", s.setup_s},
                   {"check_s", s.check_s}};
  if (preload_total > 0) {
    MutexLock preload_lock(preload_mu);
    out["params"]["preload"] = {
        {"circuits", preload_total}, {"pending", preload_pending}, {"failed", preload_failed}};
  }
  json devices = json::array();
  for (size_t d = 0; d < compute->device_count(); ++d) devices.push_back(compute->device_name(d));
  out["compute"] = {{"backend", compute->name()}, {"devices", devices}};
  json device_memory = json::object();
  for (const auto& [name, m] : device_mem) {
    device_memory[name] = {{"total_bytes", m.total_bytes},
                           {"used_bytes", m.used_bytes},
                           {"free_bytes", m.free_bytes},
                           {"budget_bytes", m.budget_bytes}};
  }
  out["device_memory"] = std::move(device_memory);
  out["memory_backend"] = pool->backend_name();
  auto total = [](const std::map<std::string, uint64_t>& m) {
    uint64_t n = 0;
    for (const auto& [k, v] : m) n += v;
    return n;
  };
  out["counters"] = {{"jobs_done", total(counters.jobs_done)},
                     {"jobs_failed", total(counters.jobs_failed)},
                     {"jobs_cancelled", total(counters.jobs_cancelled)},
                     {"partitions_proved", total(counters.partitions_proved)},
                     {"verification_failures", total(counters.verification_failures)},
                     {"retries", total(counters.retries)}};
  json busy = json::object();
  for (const auto& [dev, s] : counters.device_busy_s) busy[dev] = s;
  out["device_busy_s"] = std::move(busy);
  out["device_h2d_bytes"] = counters.h2d_bytes;
  return out;
}

std::string Engine::Impl::metrics_text() const {
  const BudgetStats b = budget->stats();
  const ParamsStats s = params_cache->stats();
  const std::map<std::string, uint64_t> bytes = trace.byte_counters();
  const auto device_mem = memory_of_devices();
  std::string out;
  auto family = [&out](std::string_view name, std::string_view type, std::string_view help) {
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
  };
  auto by_label = [&out](std::string_view name, std::string_view label, const auto& map) {
    for (const auto& [key, value] : map)
      out += fmt::format("{}{{{}=\"{}\"}} {}\n", name, label, key, value);
  };
  if (!device_mem.empty()) {
    using Field = uint64_t DeviceMemoryStatus::*;
    struct Gauge {
      const char* name;
      Field field;
      const char* help;
    };
    const Gauge gauges[] = {
        {"zkpipe_device_memory_used_bytes", &DeviceMemoryStatus::used_bytes,
         "Device memory the compute backend holds (bases, buffers, scratch, tables)."},
        {"zkpipe_device_memory_free_bytes", &DeviceMemoryStatus::free_bytes,
         "Device memory free (every process)."},
        {"zkpipe_device_memory_budget_bytes", &DeviceMemoryStatus::budget_bytes,
         "compute.device_budget per device; 0: none (free memory less a reserve)."},
        {"zkpipe_device_memory_total_bytes", &DeviceMemoryStatus::total_bytes,
         "Device memory of the device."}};
    for (const Gauge& g : gauges) {
      family(g.name, "gauge", g.help);
      for (const auto& [dev, m] : device_mem) {
        out += fmt::format("{}{{device=\"{}\"}} {}\n", g.name, dev, m.*(g.field));
      }
    }
  }
  MutexLock lock(mu);
  family("zkpipe_device_busy_seconds_total", "counter",
         "Seconds each device spent in prove_start.");
  by_label("zkpipe_device_busy_seconds_total", "device", counters.device_busy_s);
  family("zkpipe_h2d_bytes_total", "counter", "Bytes copied host to device.");
  by_label("zkpipe_h2d_bytes_total", "device", counters.h2d_bytes);
  family("zkpipe_jobs_completed_total", "counter", "Jobs finished with a verified proof.");
  by_label("zkpipe_jobs_completed_total", "type", counters.jobs_done);
  family("zkpipe_jobs_failed_total", "counter", "Jobs that failed.");
  by_label("zkpipe_jobs_failed_total", "type", counters.jobs_failed);
  family("zkpipe_jobs_cancelled_total", "counter", "Jobs cancelled.");
  by_label("zkpipe_jobs_cancelled_total", "type", counters.jobs_cancelled);
  family("zkpipe_partitions_proved_total", "counter", "Partition proofs finished.");
  by_label("zkpipe_partitions_proved_total", "type", counters.partitions_proved);
  family("zkpipe_verification_failures_total", "counter", "Partition proofs that did not verify.");
  by_label("zkpipe_verification_failures_total", "type", counters.verification_failures);
  family("zkpipe_partition_retries_total", "counter", "Partitions queued again after a failure.");
  by_label("zkpipe_partition_retries_total", "type", counters.retries);
  family("zkpipe_queue_depth", "gauge", "Partitions waiting in each queue.");
  out += fmt::format("zkpipe_queue_depth{{queue=\"synthesis\"}} {}\n", synth_queue.size());
  out += fmt::format("zkpipe_queue_depth{{queue=\"ready\"}} {}\n", ready.size());
  out += fmt::format("zkpipe_queue_depth{{queue=\"finalize\"}} {}\n", started.size());
  family("zkpipe_deadline_at_risk_jobs", "gauge",
         "Unfinished jobs past their deadline, or whose deadline the estimate says they miss.");
  uint64_t at_risk = 0;
  const int64_t now = zkpipe::now_ns();
  for (const auto& [id, job] : jobs) {
    at_risk += !ended(*job) && (job->deadline_at_risk || deadline_passed(*job, now));
  }
  out += fmt::format("zkpipe_deadline_at_risk_jobs {}\n", at_risk);
  family("zkpipe_budget_bytes", "gauge", "The memory budget: total, reserved now, peak.");
  out += fmt::format("zkpipe_budget_bytes{{kind=\"total\"}} {}\n", b.total);
  out += fmt::format("zkpipe_budget_bytes{{kind=\"reserved\"}} {}\n", b.reserved);
  out += fmt::format("zkpipe_budget_bytes{{kind=\"peak\"}} {}\n", b.peak);
  family("zkpipe_budget_waiting", "gauge", "Reservations waiting for memory.");
  out += fmt::format("zkpipe_budget_waiting {}\n", b.waiting);
  family("zkpipe_params_hot_bytes", "gauge", "Params resident in backend memory.");
  out += fmt::format("zkpipe_params_hot_bytes {}\n", s.hot_bytes);
  family("zkpipe_params_evictions_total", "counter", "Params evicted from backend memory.");
  out += fmt::format("zkpipe_params_evictions_total {}\n", s.evictions);
  family("zkpipe_trace_bytes_total", "counter", "Bytes counted by the trace, by counter.");
  by_label("zkpipe_trace_bytes_total", "counter", bytes);
  family("zkpipe_jobs", "gauge", "Jobs in this engine not ended, by state and priority.");
  std::map<std::pair<std::string_view, std::string_view>, uint64_t> live;
  for (const Priority p : kPriorities) {
    live[{"queued", priority_name(p)}] = 0;
    live[{"running", priority_name(p)}] = 0;
  }
  for (const auto& [id, job] : jobs) {
    if (!ended(*job)) ++live[{job_state_name(job->state), priority_name(job->priority)}];
  }
  for (const auto& [key, n] : live) {
    out +=
        fmt::format("zkpipe_jobs{{state=\"{}\",priority=\"{}\"}} {}\n", key.first, key.second, n);
  }
  family("zkpipe_params_seconds_total", "counter",
         "Seconds of params work: whole loads (setups and checks included), development setups, "
         "checks of every point.");
  out += fmt::format("zkpipe_params_seconds_total{{work=\"load\"}} {:.3f}\n", s.load_s);
  out += fmt::format("zkpipe_params_seconds_total{{work=\"setup\"}} {:.3f}\n", s.setup_s);
  out += fmt::format("zkpipe_params_seconds_total{{work=\"check\"}} {:.3f}\n", s.check_s);
  family("zkpipe_params_operations_total", "counter",
         "Params loads, development setups and checks of every point.");
  out += fmt::format("zkpipe_params_operations_total{{work=\"load\"}} {}\n", s.loads);
  out += fmt::format("zkpipe_params_operations_total{{work=\"setup\"}} {}\n", s.setups);
  out += fmt::format("zkpipe_params_operations_total{{work=\"check\"}} {}\n", s.checks);
  out += job_metrics.text();
  return out;
}

}  // namespace zkpipe::pipeline
