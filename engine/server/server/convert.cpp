// convert.cpp: engine values as zkpipe.v1 messages (service.h).
// Thread-safety: pure functions.
#include <fmt/core.h>

#include <algorithm>

#include "service.h"
#include "zkpipe/version.h"

namespace zkpipe::server {

namespace {

v1::JobState state_from_name(const std::string& name) {
  const std::optional<JobState> s = job_state_from_name(name);
  return s ? state_to_proto(*s) : v1::JOB_STATE_UNSPECIFIED;
}

template <typename T>
T get_or(const nlohmann::json& j, const char* key, T fallback) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return fallback;
  return it->get<T>();
}

}  // namespace

void fill_event(const pipeline::JobEvent& e, v1::JobEvent* out) {
  static constexpr v1::EventKind kKinds[] = {v1::EVENT_KIND_QUEUED,   v1::EVENT_KIND_SYNTHESIZED,
                                             v1::EVENT_KIND_PROVING,  v1::EVENT_KIND_PROVED,
                                             v1::EVENT_KIND_VERIFIED, v1::EVENT_KIND_JOB_ENDED};
  out->set_job_id(e.job);
  out->set_kind(kKinds[static_cast<size_t>(e.kind)]);
  out->set_partition(e.partition);
  out->set_position(e.position);
  out->set_partitions(e.partitions);
  out->set_elapsed_ms(e.elapsed_ms);
  out->set_device(e.device);
  out->set_state(state_to_proto(e.state));
  if (e.kind == pipeline::EventKind::kJobEnded) {
    out->set_status_code(static_cast<int32_t>(to_grpc(e.status).error_code()));
    out->set_status_message(e.status.message());
  }
}

void fill_status(const nlohmann::json& st, const pipeline::Engine& engine,
                 const ServiceState& state, v1::EngineStatus* out) {
  out->set_accepting(get_or<bool>(st, "accepting", false));
  out->set_ready(engine.ready().ok() && !state.draining.load());
  const nlohmann::json compute = st.value("compute", nlohmann::json::object());
  out->set_compute_backend(get_or<std::string>(compute, "backend", ""));
  out->set_memory_backend(get_or<std::string>(st, "memory_backend", ""));
  const nlohmann::json busy = st.value("device_busy_s", nlohmann::json::object());
  const nlohmann::json h2d = st.value("device_h2d_bytes", nlohmann::json::object());
  const nlohmann::json device_names = compute.value("devices", nlohmann::json::array());
  const nlohmann::json memory = st.value("device_memory", nlohmann::json::object());
  for (const auto& d : device_names) {
    v1::Device* dev = out->add_devices();
    const std::string name = d.get<std::string>();
    dev->set_name(name);
    dev->set_busy_seconds(get_or<double>(busy, name.c_str(), 0.0));
    dev->set_h2d_bytes(get_or<uint64_t>(h2d, name.c_str(), 0));
    const nlohmann::json m = memory.value(name, nlohmann::json::object());
    dev->set_memory_total_bytes(get_or<uint64_t>(m, "total_bytes", 0));
    dev->set_memory_used_bytes(get_or<uint64_t>(m, "used_bytes", 0));
    dev->set_memory_free_bytes(get_or<uint64_t>(m, "free_bytes", 0));
    dev->set_memory_budget_bytes(get_or<uint64_t>(m, "budget_bytes", 0));
  }
  const nlohmann::json workers = st.value("workers", nlohmann::json::object());
  for (const auto& [name, what] : workers.items()) {
    v1::Worker* w = out->add_workers();
    w->set_name(name);
    w->set_state(what.get<std::string>());
  }
  const nlohmann::json prio = st.value("priorities", nlohmann::json::object());
  for (const pipeline::Priority p : pipeline::kPriorities) {
    const nlohmann::json q =
        prio.value(std::string(pipeline::priority_name(p)), nlohmann::json::object());
    v1::QueueDepth* d = out->add_queues();
    d->set_priority(priority_to_proto(p));
    d->set_jobs(get_or<uint32_t>(q, "jobs", 0));
    d->set_partitions(get_or<uint32_t>(q, "partitions_queued", 0));
  }
  const nlohmann::json b = st.value("budget", nlohmann::json::object());
  v1::Budget* budget = out->mutable_budget();
  budget->set_total_bytes(get_or<uint64_t>(b, "total_bytes", 0));
  budget->set_reserved_bytes(get_or<uint64_t>(b, "reserved_bytes", 0));
  budget->set_peak_bytes(get_or<uint64_t>(b, "peak_bytes", 0));
  budget->set_waiting(get_or<uint32_t>(b, "waiting", 0));
  budget->set_refusals(get_or<uint64_t>(b, "refusals", 0));
  const nlohmann::json pr = st.value("params", nlohmann::json::object());
  v1::HotParams* params = out->mutable_params();
  params->set_hot(get_or<uint32_t>(pr, "hot", 0));
  params->set_warm(get_or<uint32_t>(pr, "warm", 0));
  params->set_in_use(get_or<uint32_t>(pr, "in_use", 0));
  params->set_hot_bytes(get_or<uint64_t>(pr, "hot_bytes", 0));
  params->set_hits(get_or<uint64_t>(pr, "hits", 0));
  params->set_loads(get_or<uint64_t>(pr, "loads", 0));
  params->set_evictions(get_or<uint64_t>(pr, "evictions", 0));
  const nlohmann::json jobs = st.value("jobs", nlohmann::json::array());
  for (const auto& j : jobs) {
    const std::string job_state = get_or<std::string>(j, "state", "");
    if (job_state != "queued" && job_state != "running") continue;
    v1::JobSummary* s = out->add_jobs();
    s->set_job_id(get_or<uint64_t>(j, "job", 0));
    s->set_request_id(get_or<std::string>(j, "request_id", ""));
    s->set_proof_type(get_or<std::string>(j, "proof_type", ""));
    s->set_circuit_id(get_or<std::string>(j, "circuit_id", ""));
    const auto p = pipeline::parse_priority(get_or<std::string>(j, "priority", "normal"));
    s->set_priority(priority_to_proto(p.value_or(pipeline::Priority::kNormal)));
    s->set_state(state_from_name(job_state));
    s->set_error(get_or<std::string>(j, "error", ""));
    if (j.contains("deadline_in_s")) s->set_deadline_in_seconds(j["deadline_in_s"].get<double>());
    s->set_deadline_at_risk(get_or<bool>(j, "deadline_at_risk", false));
    if (j.contains("estimated_end_in_s")) {
      s->set_estimated_end_in_seconds(j["estimated_end_in_s"].get<double>());
    }
    const nlohmann::json parts = j.value("partitions", nlohmann::json::array());
    for (const auto& part : parts) {
      v1::PartitionState* ps = s->add_partitions();
      ps->set_index(get_or<uint32_t>(part, "partition", 0));
      ps->set_state(get_or<std::string>(part, "state", ""));
      ps->set_attempts(get_or<uint32_t>(part, "attempts", 0));
    }
  }
  const nlohmann::json c = st.value("counters", nlohmann::json::object());
  v1::Counters* counters = out->mutable_counters();
  counters->set_jobs_done(get_or<uint64_t>(c, "jobs_done", 0));
  counters->set_jobs_failed(get_or<uint64_t>(c, "jobs_failed", 0));
  counters->set_jobs_cancelled(get_or<uint64_t>(c, "jobs_cancelled", 0));
  counters->set_partitions_proved(get_or<uint64_t>(c, "partitions_proved", 0));
  counters->set_verification_failures(get_or<uint64_t>(c, "verification_failures", 0));
  counters->set_retries(get_or<uint64_t>(c, "retries", 0));
  counters->set_submits_refused(state.submits_refused.load());
  for (const std::string& t : engine.proof_types()) out->add_proof_types(t);
  out->set_memory_plan(get_or<std::string>(st, "memory", ""));
  out->set_uptime_seconds(get_or<double>(st, "uptime_s", 0.0));
  out->set_retained_results(get_or<uint32_t>(st, "retained_results", 0));
  out->set_version(version_name("zkpipe"));
}

nlohmann::json status_document(const pipeline::Engine& engine, const ServiceState& state,
                               bool cluster) {
  nlohmann::json st = engine.status_json();
  st["draining"] = state.draining.load();
  st["proof_types"] = engine.proof_types();
  if (state.broker != nullptr) st["store"] = state.broker->status_json(cluster);
  return st;
}

void fill_stored_result(const store::JobRecord& r, v1::ProofResult* out) {
  if (r.state == store::JobState::kDone && !r.result.empty() &&
      out->ParseFromArray(r.result.data(), static_cast<int>(r.result.size()))) {
    out->set_job_id(r.id);
    return;
  }
  out->Clear();
  out->set_job_id(r.id);
  out->set_request_id(r.request_id);
  out->set_proof_type(r.proof_type);
  out->set_circuit_id(r.circuit_id);
  switch (r.state) {
    case store::JobState::kQueued:
      out->set_state(v1::JOB_STATE_QUEUED);
      break;
    case store::JobState::kRunning:
      out->set_state(v1::JOB_STATE_RUNNING);
      break;
    case store::JobState::kDone: {
      // A done job whose stored result does not decode: say so rather than return no proof.
      out->set_state(v1::JOB_STATE_FAILED);
      const grpc::Status s = to_grpc(internal_error(fmt::format(
          "job {}: its stored result does not decode ({} bytes)", r.id, r.result.size())));
      out->set_status_code(static_cast<int32_t>(s.error_code()));
      out->set_status_message(s.error_message());
      return;
    }
    case store::JobState::kFailed:
      out->set_state(v1::JOB_STATE_FAILED);
      break;
    case store::JobState::kCancelled:
      out->set_state(v1::JOB_STATE_CANCELLED);
      break;
  }
  if (r.error_code != 0) {
    const grpc::Status s =
        to_grpc(Status(code_from_int(r.error_code).value_or(Code::kInternal), r.error));
    out->set_status_code(static_cast<int32_t>(s.error_code()));
    out->set_status_message(r.error);
  }
}

void fill_store_status(const nlohmann::json& j, v1::EngineStatus* out) {
  v1::StoreStatus* s = out->mutable_store();
  s->set_store(j.value("store", ""));
  s->set_worker(j.value("worker", ""));
  s->set_shared(j.value("shared", false));
  if (j.contains("queued")) {
    for (const auto& [priority, n] : j["queued"].items()) {
      v1::QueueDepth* q = s->add_queued();
      q->set_priority(static_cast<v1::Priority>(std::stoi(priority)));
      q->set_jobs(n.get<uint32_t>());
    }
  }
  s->set_running(j.value("running", 0u));
  s->set_done(j.value("done", 0u));
  s->set_failed(j.value("failed", 0u));
  s->set_cancelled(j.value("cancelled", 0u));
  s->set_claimed_here(j.value("claimed_here", 0u));
  s->set_error(j.value("error", ""));
  if (j.contains("workers")) {
    for (const auto& w : j["workers"]) {
      v1::ClusterWorker* cw = s->add_workers();
      cw->set_name(w.value("name", ""));
      cw->set_host(w.value("host", ""));
      cw->set_devices(w.value("devices", ""));
      for (const auto& h : w["hot_circuits"]) cw->add_hot_circuits(h.get<std::string>());
      cw->set_running(w.value("running", 0u));
      cw->set_last_seen_seconds_ago(w.value("last_seen_seconds_ago", 0.0));
      cw->set_state(w.value("state", ""));
    }
  }
}

}  // namespace zkpipe::server
