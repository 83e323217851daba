// sqlite_schema.cpp: see sqlite_schema.h. Times are unix milliseconds of the database's clock;
// a job's input is the zk_blob chunks of its input_sha256, shared by jobs of the same input.
#include "sqlite_schema.h"

#include <array>
#include <charconv>

#include "zkpipe/store/job_store.h"

namespace zkpipe::store {
namespace {

// kMigrations[v] takes a store from version v to v + 1.
constexpr std::array<const char*, kSchemaVersion> kMigrations = {
    R"sql(
CREATE TABLE zk_meta (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
CREATE TABLE zk_job (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  request_id TEXT UNIQUE,
  proof_type TEXT NOT NULL,
  circuit_id TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
  priority INTEGER NOT NULL,
  deadline_ms INTEGER,
  submitted_ms INTEGER NOT NULL,
  ended_ms INTEGER,
  attempts INTEGER NOT NULL DEFAULT 0,
  owner TEXT,
  fence INTEGER NOT NULL DEFAULT 0,
  lease_until_ms INTEGER,
  avoid_owner TEXT,
  not_before_ms INTEGER NOT NULL,
  cancel_requested INTEGER NOT NULL DEFAULT 0,
  error_code INTEGER NOT NULL DEFAULT 0,
  error TEXT NOT NULL DEFAULT '',
  input_sha256 BLOB NOT NULL,
  input_size INTEGER NOT NULL,
  partitions INTEGER NOT NULL,
  result BLOB,
  completions INTEGER NOT NULL DEFAULT 0
);
-- The claim order, over queued jobs only.
CREATE INDEX zk_job_queue ON zk_job (priority, deadline_ms IS NULL, deadline_ms, id)
  WHERE state = 'queued';
CREATE INDEX zk_job_lease ON zk_job (lease_until_ms) WHERE state = 'running';
CREATE INDEX zk_job_ended ON zk_job (ended_ms) WHERE ended_ms IS NOT NULL;
CREATE INDEX zk_job_state ON zk_job (state, id);
CREATE INDEX zk_job_input ON zk_job (input_sha256);
CREATE TABLE zk_partition (
  job_id INTEGER NOT NULL REFERENCES zk_job (id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  proof BLOB NOT NULL,
  created_ms INTEGER NOT NULL,
  PRIMARY KEY (job_id, position)
);
CREATE TABLE zk_blob (
  sha256 BLOB NOT NULL,
  chunk INTEGER NOT NULL,
  data BLOB NOT NULL,
  PRIMARY KEY (sha256, chunk)
);
CREATE TABLE zk_worker (
  name TEXT PRIMARY KEY,
  host TEXT NOT NULL DEFAULT '',
  devices TEXT NOT NULL DEFAULT '',
  hot_circuits TEXT NOT NULL DEFAULT '',
  running INTEGER NOT NULL DEFAULT 0,
  started_ms INTEGER NOT NULL DEFAULT 0,
  last_seen_ms INTEGER NOT NULL
);
INSERT INTO zk_meta (key, value)
  VALUES ('created_ms', CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER));
)sql",
};

Result<bool> has_table(SqliteDb& db, const char* name) {
  Stmt s(db, "open: schema", "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1");
  return s.bind(1, std::string_view(name)).step();
}

// A table that is neither ours nor SQLite's: the file belongs to something else.
Result<std::string> foreign_table(SqliteDb& db) {
  Stmt s(db, "open: schema",
         "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'zk\\_%' ESCAPE "
         "'\\' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name LIMIT 1");
  ZKP_ASSIGN_OR_RETURN(bool row, s.step());
  return row ? s.text(0) : std::string();
}

Result<int> stored_version(SqliteDb& db) {
  ZKP_ASSIGN_OR_RETURN(bool has_meta, has_table(db, "zk_meta"));
  if (!has_meta) {
    ZKP_ASSIGN_OR_RETURN(std::string other, foreign_table(db));
    if (!other.empty()) {
      return failed_precondition("store " + db.path() +
                                 " is an SQLite database of something else (table '" + other +
                                 "', no zk_meta); set store.sqlite.path to another file");
    }
    return 0;
  }
  Stmt s(db, "open: schema", "SELECT value FROM zk_meta WHERE key = 'schema_version'");
  ZKP_ASSIGN_OR_RETURN(bool row, s.step());
  if (!row) return 0;
  const std::string text = s.text(0);
  int version = -1;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), version);
  if (ec != std::errc() || end != text.data() + text.size() || version < 0) {
    return failed_precondition("store " + db.path() + " has schema version '" + echo_value(text) +
                               "' in zk_meta, which is not a number");
  }
  return version;
}

}  // namespace

Result<int> migrate_schema(SqliteDb& db) {
  constexpr std::string_view op = "open: migrate the schema";
  Transaction txn(db);
  ZKP_RETURN_IF_ERROR(txn.begin(op));
  ZKP_ASSIGN_OR_RETURN(int version, stored_version(db));
  if (version > kSchemaVersion) {
    return failed_precondition("store " + db.path() + " has schema version " +
                               std::to_string(version) + "; this zkpipe knows up to " +
                               std::to_string(kSchemaVersion) +
                               " (upgrade zkpipe or use another store file)");
  }
  if (version == kSchemaVersion) return version;
  for (int v = version; v < kSchemaVersion; ++v) {
    ZKP_RETURN_IF_ERROR(db.exec(op, kMigrations[static_cast<size_t>(v)]));
  }
  Stmt set(db, op,
           "INSERT INTO zk_meta (key, value) VALUES ('schema_version', ?1) "
           "ON CONFLICT (key) DO UPDATE SET value = excluded.value");
  ZKP_RETURN_IF_ERROR(set.bind(1, std::to_string(kSchemaVersion)).run());
  ZKP_RETURN_IF_ERROR(txn.commit(op));
  return version;
}

}  // namespace zkpipe::store
