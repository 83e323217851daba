// postgres_schema.cpp: the PostgreSQL store's tables (the same names and columns as the SQLite
// store's, so that scripts may query either) and their migration at open.
// Daemons that open one database at once: CREATE TABLE IF NOT EXISTS of zk_meta may still race
// in the catalog (unique violation), so that step is retried; everything after it runs under
// the row lock of zk_meta's schema_version (a row lock, which YSQL also has).
#include <spdlog/spdlog.h>

#include <chrono>
#include <string>
#include <thread>

#include "postgres_store.h"

namespace zkpipe::store {
namespace {

constexpr const char* kCreateMeta =
    "CREATE TABLE IF NOT EXISTS zk_meta (key text PRIMARY KEY, value text NOT NULL)";

// Schema version 1.
constexpr const char* kCreateV1[] = {
    "CREATE TABLE IF NOT EXISTS zk_job ("
    " id bigserial PRIMARY KEY,"
    " request_id text UNIQUE,"  // NULL: none
    " proof_type text NOT NULL,"
    " circuit_id text NOT NULL DEFAULT '',"
    " state text NOT NULL CHECK (state IN ('queued','running','done','failed','cancelled')),"
    " priority int NOT NULL,"
    " deadline_ms bigint,"  // absolute unix ms; NULL: none
    " submitted_ms bigint NOT NULL,"
    " ended_ms bigint,"
    " attempts int NOT NULL DEFAULT 0,"
    " owner text,"
    " fence bigint NOT NULL DEFAULT 0,"
    " lease_until_ms bigint,"
    " avoid_owner text,"
    " not_before_ms bigint NOT NULL DEFAULT 0,"
    " cancel_requested boolean NOT NULL DEFAULT false,"
    " error_code int NOT NULL DEFAULT 0,"
    " error text NOT NULL DEFAULT '',"
    " input_sha256 bytea NOT NULL,"
    " input_size bigint NOT NULL,"
    " partitions int NOT NULL DEFAULT 0,"
    " result bytea,"
    " completions int NOT NULL DEFAULT 0)",
    "CREATE INDEX IF NOT EXISTS zk_job_queue ON zk_job (state, priority, id)",
    "CREATE INDEX IF NOT EXISTS zk_job_lease ON zk_job (state, lease_until_ms)",
    "CREATE INDEX IF NOT EXISTS zk_job_ended ON zk_job (ended_ms)",
    "CREATE INDEX IF NOT EXISTS zk_job_input ON zk_job (input_sha256)",
    "CREATE TABLE IF NOT EXISTS zk_partition ("
    " job_id bigint NOT NULL,"
    " position int NOT NULL,"
    " proof bytea NOT NULL,"
    " created_ms bigint NOT NULL,"
    " PRIMARY KEY (job_id, position))",
    "CREATE TABLE IF NOT EXISTS zk_blob ("
    " sha256 bytea NOT NULL,"
    " chunk int NOT NULL,"
    " data bytea NOT NULL,"
    " PRIMARY KEY (sha256, chunk))",
    "CREATE TABLE IF NOT EXISTS zk_worker ("
    " name text PRIMARY KEY,"
    " host text NOT NULL DEFAULT '',"
    " devices text NOT NULL DEFAULT '',"
    " hot_circuits text NOT NULL DEFAULT '',"
    " running int NOT NULL DEFAULT 0,"
    " started_ms bigint NOT NULL,"
    " last_seen_ms bigint NOT NULL)",
};

// 23505 unique_violation, 42P07 duplicate_table, 42710 duplicate_object: another daemon created
// the same catalog entry at the same moment.
bool is_creation_race(const std::string& sqlstate) {
  return sqlstate == "23505" || sqlstate == "42P07" || sqlstate == "42710";
}

Status create_meta(PgConn& conn) {
  constexpr int kTries = 5;
  for (int attempt = 1;; ++attempt) {
    Status s = conn.transaction("creating zk_meta", [&]() -> Status {
      ZKP_RETURN_IF_ERROR(conn.exec("creating zk_meta", kCreateMeta).status());
      return conn
          .exec("creating zk_meta",
                "INSERT INTO zk_meta (key, value) VALUES ('schema_version', '0') "
                "ON CONFLICT (key) DO NOTHING")
          .status();
    });
    if (s.ok() || attempt == kTries || !is_creation_race(conn.last_sqlstate())) return s;
    spdlog::debug("store {}: another daemon is creating zk_meta ({}); trying again",
                  conn.describe(), s.message());
    std::this_thread::sleep_for(std::chrono::milliseconds(20 * attempt));
  }
}

}  // namespace

Status migrate_postgres_schema(PgConn& conn) {
  ZKP_RETURN_IF_ERROR(create_meta(conn));
  return conn.transaction("migrating the schema", [&]() -> Status {
    // Taken by every daemon that opens the store: one migrates, the others wait and then see
    // the new version.
    ZKP_ASSIGN_OR_RETURN(PgRows version,
                         conn.exec("reading the schema version",
                                   "SELECT value FROM zk_meta WHERE key = 'schema_version' "
                                   "FOR UPDATE"));
    if (version.size() != 1) {
      return internal_error("store " + conn.describe() +
                            ": zk_meta has no schema_version row after creating it");
    }
    const std::string text = version.text(0, 0);
    int found = 0;
    try {
      found = std::stoi(text);
    } catch (const std::exception&) {
      return failed_precondition("store " + conn.describe() + " has schema version '" + text +
                                 "' in zk_meta, which is not a number; this zkpipe knows up to " +
                                 std::to_string(kSchemaVersion));
    }
    if (found > kSchemaVersion) {
      return failed_precondition("store " + conn.describe() + " has schema version " +
                                 std::to_string(found) + "; this zkpipe knows up to " +
                                 std::to_string(kSchemaVersion) +
                                 " (a newer zkpipe wrote it: upgrade this daemon)");
    }
    if (found == kSchemaVersion) return ok_status();
    for (const char* sql : kCreateV1)
      ZKP_RETURN_IF_ERROR(conn.exec("creating tables", sql).status());
    return conn
        .exec("recording the schema version",
              "UPDATE zk_meta SET value = $1 WHERE key = 'schema_version'",
              PgParams().text(std::to_string(kSchemaVersion)))
        .status();
  });
}

}  // namespace zkpipe::store
