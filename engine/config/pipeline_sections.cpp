// pipeline_sections.cpp: the `compute`, `pipeline`, `params`, `server` (and `store`) sections of a
// version 1 config (zkpipe/config.h), read strictly like the rest (sections.h). Documented in
// configs/README.md. Thread-safety: pure functions.
#include "sections.h"
#include "zkpipe/sdk/circuit_id.h"
#include "zkpipe/sdk/units.h"

namespace zkpipe::config_detail {
namespace {

// The most workers/threads a config may ask for: far above any machine, low enough that a typo
// (100000) is reported instead of starting that many threads.
constexpr uint64_t kMaxWorkers = 256;
constexpr uint64_t kMaxThreads = 4096;

Status parse_compute(const YamlReader& r, const Field& section, ComputeConfig& compute) {
  ZKP_ASSIGN_OR_RETURN(const std::vector<Field> fields,
                       r.map_fields(section, {"backend", "devices", "workers_per_device", "threads",
                                              "device_budget"}));
  if (const Field* f = find_field(fields, "backend")) {
    // Any compute plugin (cpu, cuda, or one built out of tree): the engine loads it by name
    // and says why when it is missing or cannot run on this machine.
    ZKP_ASSIGN_OR_RETURN(compute.backend, plugin_name(r, *f, "a compute plugin name"));
  }
  if (const Field* f = find_field(fields, "devices")) {
    ZKP_ASSIGN_OR_RETURN(const std::vector<Field> items,
                         r.list_items(*f, "a list of CUDA device indices or UUIDs"));
    for (const Field& item : items) {
      ZKP_ASSIGN_OR_RETURN(std::string d, r.scalar(item, "a CUDA device index or UUID"));
      if (d.empty()) return r.error(item, "a device is an index (0, 1, ...) or a UUID (GPU-...)");
      for (const std::string& seen : compute.devices) {
        if (seen == d) return r.error(item, "device '" + echo_value(d) + "' is listed twice");
      }
      compute.devices.push_back(std::move(d));
    }
    if (compute.devices.empty()) return r.error(*f, "an empty list; leave the key out for all");
  }
  if (const Field* f = find_field(fields, "workers_per_device")) {
    ZKP_ASSIGN_OR_RETURN(const uint64_t n, r.integer(*f, 1, kMaxWorkers));
    compute.workers_per_device = static_cast<uint32_t>(n);
  }
  if (const Field* f = find_field(fields, "threads")) {
    ZKP_ASSIGN_OR_RETURN(const uint64_t n, r.integer(*f, 0, kMaxThreads));
    compute.threads = static_cast<uint32_t>(n);
  }
  if (const Field* f = find_field(fields, "device_budget")) {
    ZKP_ASSIGN_OR_RETURN(const std::optional<uint64_t> b, positive_size(r, *f, true));
    compute.device_budget_bytes = b.value_or(0);
  }
  return ok_status();
}

}  // namespace

Status read_count(const YamlReader& r, const Field* f, uint64_t min, uint64_t max, uint32_t& out) {
  if (f == nullptr) return ok_status();
  ZKP_ASSIGN_OR_RETURN(const uint64_t n, r.integer(*f, min, max));
  out = static_cast<uint32_t>(n);
  return ok_status();
}

namespace {

Status parse_pipeline(const YamlReader& r, const Field& section, PipelineConfig& p) {
  ZKP_ASSIGN_OR_RETURN(
      const std::vector<Field> fields,
      r.map_fields(section, {"synthesis_workers", "synthesis_threads", "finalizers", "ready_depth",
                             "budget", "retries", "trim", "overhead", "reserve"}));
  ZKP_RETURN_IF_ERROR(
      read_count(r, find_field(fields, "synthesis_workers"), 1, kMaxWorkers, p.synthesis_workers));
  ZKP_RETURN_IF_ERROR(
      read_count(r, find_field(fields, "synthesis_threads"), 0, kMaxThreads, p.synthesis_threads));
  ZKP_RETURN_IF_ERROR(
      read_count(r, find_field(fields, "finalizers"), 1, kMaxWorkers, p.finalizers));
  ZKP_RETURN_IF_ERROR(
      read_count(r, find_field(fields, "ready_depth"), 1, kMaxWorkers, p.ready_depth));
  ZKP_RETURN_IF_ERROR(read_count(r, find_field(fields, "retries"), 0, 100, p.retries));
  if (const Field* f = find_field(fields, "budget")) {
    ZKP_ASSIGN_OR_RETURN(p.budget_bytes, positive_size(r, *f, true));
  }
  if (const Field* f = find_field(fields, "overhead")) {
    ZKP_ASSIGN_OR_RETURN(const std::optional<uint64_t> bytes, positive_size(r, *f, false));
    p.overhead_bytes = *bytes;
  }
  if (const Field* f = find_field(fields, "trim")) {
    ZKP_ASSIGN_OR_RETURN(p.trim, r.boolean(*f));
  }
  if (const Field* f = find_field(fields, "reserve")) {
    ZKP_ASSIGN_OR_RETURN(const std::string text, r.scalar(*f, "a size or 0"));
    if (text != "0") {
      ZKP_ASSIGN_OR_RETURN(const std::optional<uint64_t> bytes, positive_size(r, *f, false));
      p.reserve_bytes = *bytes;
    }
    if (p.budget_bytes && p.reserve_bytes >= *p.budget_bytes) {
      return r.error(*f, "the reserve for CRITICAL work must be below pipeline.budget (" +
                             format_bytes(*p.budget_bytes) + ")");
    }
  }
  return ok_status();
}

Status parse_params(const YamlReader& r, const Field& section, const std::filesystem::path& base,
                    ParamsConfig& params) {
  ZKP_ASSIGN_OR_RETURN(
      const std::vector<Field> fields,
      r.map_fields(section, {"dir", "missing", "setup_seed", "filecoin_dir", "preload"}));
  if (const Field* f = find_field(fields, "dir")) {
    ZKP_ASSIGN_OR_RETURN(params.dir, resolve_dir(r, *f, base));
  }
  if (const Field* f = find_field(fields, "filecoin_dir")) {
    ZKP_ASSIGN_OR_RETURN(params.filecoin_dir, resolve_dir(r, *f, base));
  }
  if (const Field* f = find_field(fields, "missing")) {
    ZKP_ASSIGN_OR_RETURN(const std::string what, r.choice(*f, {"fail", "setup"}));
    params.setup_when_missing = what == "setup";
  }
  if (const Field* f = find_field(fields, "setup_seed")) {
    ZKP_ASSIGN_OR_RETURN(params.setup_seed, r.integer(*f, 0, UINT64_MAX));
  }
  if (const Field* f = find_field(fields, "preload")) {
    if (f->node.IsScalar()) {
      ZKP_ASSIGN_OR_RETURN(const std::string all, r.choice(*f, {"all"}));
      params.preload_all = !all.empty();
    } else {
      ZKP_ASSIGN_OR_RETURN(const std::vector<Field> items,
                           r.list_items(*f, "a list of circuit ids, or all"));
      params.preload.clear();
      for (const Field& item : items) {
        ZKP_ASSIGN_OR_RETURN(std::string id, r.scalar(item, "a circuit id"));
        if (Status bad = check_circuit_id(id, "a circuit id"); !bad.ok()) {
          return r.error(item, bad.message());
        }
        for (const std::string& seen : params.preload) {
          if (seen == id) return r.error(item, "circuit '" + id + "' is listed twice");
        }
        params.preload.push_back(std::move(id));
      }
    }
  }
  return ok_status();
}

}  // namespace

Status parse_duration(const YamlReader& r, const Field& f, bool allow_infinite, int64_t& out) {
  ZKP_ASSIGN_OR_RETURN(const std::string text,
                       r.scalar(f, allow_infinite ? "a duration or 'infinite'" : "a duration"));
  Result<int64_t> ms = parse_duration_ms(text);
  if (!ms.ok()) return r.error(f, ms.status().message());
  if (*ms < 0 && !allow_infinite) return r.error(f, "must be a finite duration (e.g. 1h)");
  out = *ms;
  return ok_status();
}

namespace {

Status parse_server(const YamlReader& r, const Field& section, ServerConfig& s) {
  ZKP_ASSIGN_OR_RETURN(
      const std::vector<Field> fields,
      r.map_fields(section, {"listen", "http", "token_file", "max_message", "max_queued_jobs",
                             "max_waiting_calls", "retain_results", "proof_types", "drain_timeout",
                             "trace_window"}));
  if (const Field* f = find_field(fields, "listen")) {
    ZKP_ASSIGN_OR_RETURN(const std::vector<Field> items,
                         r.list_items(*f, "a list of addresses (unix:///path.sock, host:port)"));
    s.listen.clear();
    for (const Field& item : items) {
      ZKP_ASSIGN_OR_RETURN(std::string a, r.scalar(item, "an address"));
      if (a.empty()) return r.error(item, "an empty address");
      for (const std::string& seen : s.listen) {
        if (seen == a) return r.error(item, "address '" + echo_value(a) + "' is listed twice");
      }
      s.listen.push_back(std::move(a));
    }
    if (s.listen.empty()) return r.error(*f, "lists no address; a server needs at least one");
  }
  if (const Field* f = find_field(fields, "http")) {
    ZKP_ASSIGN_OR_RETURN(s.http, r.scalar(*f, "host:port, or \"\" for none"));
  }
  if (const Field* f = find_field(fields, "token_file")) {
    ZKP_ASSIGN_OR_RETURN(s.token_file, r.scalar(*f, "a file path"));
  }
  if (const Field* f = find_field(fields, "max_message")) {
    ZKP_ASSIGN_OR_RETURN(const std::optional<uint64_t> bytes, positive_size(r, *f, false));
    if (*bytes > (2ull << 30) - 1) return r.error(*f, "gRPC messages are at most 2 GiB - 1");
    if (*bytes < 4096) return r.error(*f, "must be at least 4KiB");
    s.max_message_bytes = *bytes;
  }
  ZKP_RETURN_IF_ERROR(
      read_count(r, find_field(fields, "max_queued_jobs"), 1, 1'000'000, s.max_queued_jobs));
  // At most 480 of the server's 512 threads: the rest answer status, submits and cancels.
  ZKP_RETURN_IF_ERROR(
      read_count(r, find_field(fields, "max_waiting_calls"), 1, 480, s.max_waiting_calls));
  if (const Field* f = find_field(fields, "retain_results")) {
    ZKP_ASSIGN_OR_RETURN(const std::vector<Field> keep, r.map_fields(*f, {"count", "age"}));
    ZKP_RETURN_IF_ERROR(read_count(r, find_field(keep, "count"), 0, 10'000'000, s.retain_count));
    if (const Field* age = find_field(keep, "age")) {
      ZKP_RETURN_IF_ERROR(parse_duration(r, *age, false, s.retain_age_ms));
    }
  }
  if (const Field* f = find_field(fields, "proof_types")) {
    ZKP_ASSIGN_OR_RETURN(const std::vector<Field> items,
                         r.list_items(*f, "a list of proof-type plugin names"));
    for (const Field& item : items) {
      ZKP_ASSIGN_OR_RETURN(std::string name, r.scalar(item, "a plugin name"));
      if (name.empty()) return r.error(item, "an empty plugin name");
      for (const std::string& seen : s.proof_types) {
        if (seen == name) return r.error(item, "'" + echo_value(name) + "' is listed twice");
      }
      s.proof_types.push_back(std::move(name));
    }
  }
  if (const Field* f = find_field(fields, "drain_timeout")) {
    ZKP_RETURN_IF_ERROR(parse_duration(r, *f, true, s.drain_timeout_ms));
  }
  if (const Field* f = find_field(fields, "trace_window")) {
    ZKP_RETURN_IF_ERROR(parse_duration(r, *f, false, s.trace_window_ms));
    if (s.trace_window_ms < 1000) return r.error(*f, "must be at least 1s");
  }
  return ok_status();
}

}  // namespace

Status parse_pipeline_sections(const YamlReader& r, const std::vector<Field>& root_fields,
                               const std::filesystem::path& base, Config& config) {
  if (const Field* f = find_field(root_fields, "compute")) {
    ZKP_RETURN_IF_ERROR(parse_compute(r, *f, config.compute));
  }
  if (const Field* f = find_field(root_fields, "pipeline")) {
    ZKP_RETURN_IF_ERROR(parse_pipeline(r, *f, config.pipeline));
  }
  if (const Field* f = find_field(root_fields, "params")) {
    ZKP_RETURN_IF_ERROR(parse_params(r, *f, base, config.params));
  }
  if (const Field* f = find_field(root_fields, "server")) {
    ZKP_RETURN_IF_ERROR(parse_server(r, *f, config.server));
    config.serve_sections = true;
  }
  if (const Field* f = find_field(root_fields, "store")) {
    ZKP_RETURN_IF_ERROR(parse_store(r, *f, base, config.store));
    config.serve_sections = true;
  }
  if (const Field* f = find_field(root_fields, "scheduling")) {
    ZKP_RETURN_IF_ERROR(parse_scheduling(r, *f, config.scheduling));
  }
  return ok_status();
}

}  // namespace zkpipe::config_detail
