// store_section.cpp: the `store` section of a version 1 config (zkpipe/config.h StoreConfig):
// where `zkpipe serve` records accepted jobs. Read strictly like the rest (sections.h);
// documented in configs/README.md. Thread-safety: pure functions.
#include <unistd.h>

#include "sections.h"
#include "zkpipe/sdk/units.h"

namespace zkpipe {

std::string default_sqlite_path(const Config& config) {
  const std::filesystem::path params(config.params.dir.empty() ? "params" : config.params.dir);
  std::filesystem::path parent = params.lexically_normal().parent_path();
  if (params.lexically_normal().filename().empty()) parent = parent.parent_path();  // "dir/"
  return (parent / "jobs.db").string();
}

namespace config_detail {

Status parse_store(const YamlReader& r, const Field& section, const std::filesystem::path& base,
                   StoreConfig& s) {
  ZKP_ASSIGN_OR_RETURN(const std::vector<Field> fields,
                       r.map_fields(section, {"backend", "sqlite", "postgres", "lease", "heartbeat",
                                              "poll", "reap", "max_attempts", "retry_backoff",
                                              "retain", "worker", "claim_ahead", "chunk"}));
  if (const Field* f = find_field(fields, "backend")) {
    ZKP_ASSIGN_OR_RETURN(s.backend, r.choice(*f, {"sqlite", "postgres"}));
  }
  if (const Field* f = find_field(fields, "sqlite")) {
    ZKP_ASSIGN_OR_RETURN(const std::vector<Field> sq, r.map_fields(*f, {"path"}));
    if (const Field* p = find_field(sq, "path")) {
      ZKP_ASSIGN_OR_RETURN(std::string path, r.scalar(*p, "a file path"));
      if (path.empty()) return r.error(*p, "an empty path (leave the key out for the default)");
      const std::filesystem::path fp(path);
      s.sqlite_path = fp.is_absolute() ? fp.lexically_normal().string()
                                       : (base / fp).lexically_normal().string();
    }
  }
  if (const Field* f = find_field(fields, "postgres")) {
    ZKP_ASSIGN_OR_RETURN(const std::vector<Field> pg, r.map_fields(*f, {"conninfo"}));
    if (const Field* c = find_field(pg, "conninfo")) {
      ZKP_ASSIGN_OR_RETURN(s.postgres_conninfo,
                           r.scalar(*c, "a libpq connection string (host=... dbname=...)"));
    }
  }
  // An empty (or absent) conninfo takes everything from the PG* variables, as libpq does.
  if (s.backend == "sqlite" && find_field(fields, "postgres") != nullptr) {
    return r.error(*find_field(fields, "postgres"),
                   "the store's backend is sqlite; 'postgres' settings would be ignored "
                   "(set backend: postgres or remove them)");
  }
  if (s.backend == "postgres" && find_field(fields, "sqlite") != nullptr) {
    return r.error(*find_field(fields, "sqlite"),
                   "the store's backend is postgres; 'sqlite' settings would be ignored "
                   "(set backend: sqlite or remove them)");
  }
  struct Period {
    const char* key;
    int64_t& value;
    int64_t min_ms;
  };
  for (Period p :
       {Period{"lease", s.lease_ms, 1000}, Period{"heartbeat", s.heartbeat_ms, 100},
        Period{"poll", s.poll_ms, 10}, Period{"reap", s.reap_ms, 100},
        Period{"retry_backoff", s.retry_backoff_ms, 0}, Period{"retain", s.retain_ms, 1000}}) {
    if (const Field* f = find_field(fields, p.key)) {
      ZKP_RETURN_IF_ERROR(parse_duration(r, *f, false, p.value));
      if (p.value < p.min_ms) {
        return r.error(*f, "must be at least " + std::to_string(p.min_ms) + " ms");
      }
    }
  }
  if (s.heartbeat_ms * 3 > s.lease_ms) {
    const Field* f = find_field(fields, "heartbeat");
    return r.error(f != nullptr ? *f : section,
                   "the heartbeat (" + std::to_string(s.heartbeat_ms) + " ms" +
                       ") must be at most a third of the lease (" + std::to_string(s.lease_ms) +
                       " ms" + "), so one late heartbeat does not lose a job");
  }
  ZKP_RETURN_IF_ERROR(read_count(r, find_field(fields, "max_attempts"), 1, 1000, s.max_attempts));
  ZKP_RETURN_IF_ERROR(read_count(r, find_field(fields, "claim_ahead"), 0, 1000, s.claim_ahead));
  if (const Field* f = find_field(fields, "worker")) {
    ZKP_ASSIGN_OR_RETURN(s.worker, r.scalar(*f, "a worker name"));
    if (s.worker.empty() || s.worker.size() > 128) return r.error(*f, "1 to 128 characters");
    for (char c : s.worker) {
      if (c < 0x21 || c > 0x7e) return r.error(*f, "printable ASCII without spaces");
    }
  }
  if (const Field* f = find_field(fields, "chunk")) {
    ZKP_ASSIGN_OR_RETURN(const std::optional<uint64_t> bytes, positive_size(r, *f, false));
    if (*bytes < 4096 || *bytes > (64ull << 20)) return r.error(*f, "must be 4KiB .. 64MiB");
    s.chunk_bytes = *bytes;
  }
  return ok_status();
}

}  // namespace config_detail
}  // namespace zkpipe
