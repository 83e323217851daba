// pipeline_sections.cpp: the `compute`, `pipeline` and `params` sections of a version 1 config
// (zkpipe/config.h), read strictly like the rest (sections.h). Documented in configs/README.md.
// Thread-safety: pure functions.
#include "sections.h"

namespace zkpipe::config_detail {
namespace {

// The most workers/threads a config may ask for: far above any machine, low enough that a typo
// (100000) is reported instead of starting that many threads.
constexpr uint64_t kMaxWorkers = 256;
constexpr uint64_t kMaxThreads = 4096;

Status parse_compute(const YamlReader& r, const Field& section, ComputeConfig& compute) {
  ZKP_ASSIGN_OR_RETURN(
      const std::vector<Field> fields,
      r.map_fields(section, {"backend", "devices", "workers_per_device", "threads"}));
  if (const Field* f = find_field(fields, "backend")) {
    // Both names parse in every build; a build without CUDA refuses `cuda` when it opens the
    // backend (naming the build), so one config file serves every machine.
    ZKP_ASSIGN_OR_RETURN(compute.backend, r.choice(*f, {"cpu", "cuda"}));
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
  return ok_status();
}

Status read_count(const YamlReader& r, const Field* f, uint64_t min, uint64_t max, uint32_t& out) {
  if (f == nullptr) return ok_status();
  ZKP_ASSIGN_OR_RETURN(const uint64_t n, r.integer(*f, min, max));
  out = static_cast<uint32_t>(n);
  return ok_status();
}

Status parse_pipeline(const YamlReader& r, const Field& section, PipelineConfig& p) {
  ZKP_ASSIGN_OR_RETURN(
      const std::vector<Field> fields,
      r.map_fields(section, {"synthesis_workers", "synthesis_threads", "finalizers", "ready_depth",
                             "budget", "retries", "trim", "overhead"}));
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
  return ok_status();
}

Status parse_params(const YamlReader& r, const Field& section, const std::filesystem::path& base,
                    ParamsConfig& params) {
  ZKP_ASSIGN_OR_RETURN(const std::vector<Field> fields,
                       r.map_fields(section, {"dir", "missing", "setup_seed"}));
  if (const Field* f = find_field(fields, "dir")) {
    ZKP_ASSIGN_OR_RETURN(params.dir, resolve_dir(r, *f, base));
  }
  if (const Field* f = find_field(fields, "missing")) {
    ZKP_ASSIGN_OR_RETURN(const std::string what, r.choice(*f, {"fail", "setup"}));
    params.setup_when_missing = what == "setup";
  }
  if (const Field* f = find_field(fields, "setup_seed")) {
    ZKP_ASSIGN_OR_RETURN(params.setup_seed, r.integer(*f, 0, UINT64_MAX));
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
  return ok_status();
}

}  // namespace zkpipe::config_detail
