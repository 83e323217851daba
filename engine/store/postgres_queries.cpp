// postgres_queries.cpp: the PostgreSQL store's reads (get, find_request, list, counts,
// workers) and its housekeeping that any daemon may run at any time (reap, expire), see
// postgres_store.h. Housekeeping takes rows with FOR UPDATE SKIP LOCKED in bounded batches, so
// that daemons running it at once neither block nor do a job twice.
#include <spdlog/spdlog.h>

#include <mutex>
#include <set>

#include "postgres_store.h"
#include "store_common.h"

namespace zkpipe::store {
namespace {

constexpr int kBatch = 500;  // rows one reap or expire transaction takes

// get/find_request/list read these columns, in this order; the result only when asked for. A job
// queued again has no owner but avoids the last one: that is the one named.
constexpr const char* kRecordColumns =
    "SELECT id, request_id, proof_type, circuit_id, state, priority, partitions, "
    "(SELECT count(*) FROM zk_partition p WHERE p.job_id = j.id)::int, attempts, "
    "coalesce(owner, avoid_owner), "
    "cancel_requested, error_code, error, submitted_ms, ended_ms, completions, ";

JobRecord record_of(const PgRows& rows, int r) {
  JobRecord out;
  out.id = static_cast<uint64_t>(rows.i64(r, 0));
  out.request_id = rows.text(r, 1);
  out.proof_type = rows.text(r, 2);
  out.circuit_id = rows.text(r, 3);
  out.state = job_state_from_name(rows.text(r, 4)).value_or(JobState::kFailed);
  out.priority = static_cast<uint8_t>(rows.i64(r, 5));
  out.partitions = static_cast<uint32_t>(rows.i64(r, 6));
  out.checkpointed = static_cast<uint32_t>(rows.i64(r, 7));
  out.attempts = static_cast<uint32_t>(rows.i64(r, 8));
  out.owner = rows.text(r, 9);
  out.cancel_requested = rows.boolean(r, 10);
  out.error_code = static_cast<int32_t>(rows.i64(r, 11));
  out.error = rows.text(r, 12);
  out.submitted_unix_ms = rows.i64(r, 13);
  out.ended_unix_ms = rows.i64(r, 14);
  out.completions = static_cast<uint32_t>(rows.i64(r, 15));
  const std::span<const uint8_t> result = rows.bytes(r, 16);
  out.result.assign(result.begin(), result.end());
  return out;
}

}  // namespace

Result<std::vector<JobRecord>> PostgresStore::records(const char* where_sql, const PgParams& params,
                                                      bool with_result) {
  const std::string sql = std::string(kRecordColumns) + (with_result ? "result" : "NULL::bytea") +
                          " FROM zk_job j " + where_sql;
  std::lock_guard lock(mutex_);
  ZKP_ASSIGN_OR_RETURN(PgRows rows, conn_.exec("reading jobs", sql.c_str(), params));
  std::vector<JobRecord> out;
  for (int r = 0; r < rows.size(); ++r) out.push_back(record_of(rows, r));
  return out;
}

Result<std::optional<JobRecord>> PostgresStore::get(uint64_t id, bool with_result) {
  ZKP_ASSIGN_OR_RETURN(std::vector<JobRecord> found,
                       records("WHERE id = $1", PgParams().i64(int64_t(id)), with_result));
  if (found.empty()) return std::optional<JobRecord>();
  return std::optional<JobRecord>(std::move(found[0]));
}

Result<std::optional<JobRecord>> PostgresStore::find_request(const std::string& request_id,
                                                             bool with_result) {
  if (request_id.empty()) return std::optional<JobRecord>();
  ZKP_ASSIGN_OR_RETURN(std::vector<JobRecord> found,
                       records("WHERE request_id = $1", PgParams().text(request_id), with_result));
  if (found.empty()) return std::optional<JobRecord>();
  return std::optional<JobRecord>(std::move(found[0]));
}

Result<std::vector<JobRecord>> PostgresStore::list(std::optional<JobState> state, size_t limit) {
  const auto n = static_cast<int64_t>(std::min<size_t>(limit, INT64_MAX));
  if (state) {
    return records("WHERE state = $1 ORDER BY id DESC LIMIT $2",
                   PgParams().text(job_state_name(*state)).i64(n), false);
  }
  return records("ORDER BY id DESC LIMIT $1", PgParams().i64(n), false);
}

Result<QueueCounts> PostgresStore::counts() {
  std::lock_guard lock(mutex_);
  ZKP_ASSIGN_OR_RETURN(PgRows rows, conn_.exec("counting jobs",
                                               "SELECT state, priority, count(*) FROM zk_job "
                                               "GROUP BY state, priority"));
  QueueCounts out;
  for (int r = 0; r < rows.size(); ++r) {
    const auto n = static_cast<uint32_t>(rows.i64(r, 2));
    switch (job_state_from_name(rows.text(r, 0)).value_or(JobState::kFailed)) {
      case JobState::kQueued:
        out.queued[static_cast<uint8_t>(rows.i64(r, 1))] += n;
        break;
      case JobState::kRunning:
        out.running += n;
        break;
      case JobState::kDone:
        out.done += n;
        break;
      case JobState::kFailed:
        out.failed += n;
        break;
      case JobState::kCancelled:
        out.cancelled += n;
        break;
    }
  }
  return out;
}

Result<size_t> PostgresStore::reap() {
  std::lock_guard lock(mutex_);
  size_t reaped = 0;
  Status s = conn_.transaction("reaping expired leases", [&]() -> Status {
    reaped = 0;
    ZKP_ASSIGN_OR_RETURN(
        PgRows rows, conn_.exec("reaping expired leases",
                                "SELECT id, attempts, owner, error, cancel_requested FROM zk_job "
                                "WHERE state = 'running' AND lease_until_ms < " ZKP_PG_NOW_MS
                                " ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED",
                                PgParams().i64(kBatch)));
    for (int r = 0; r < rows.size(); ++r) {
      const int64_t id = rows.i64(r, 0);
      const auto attempts = static_cast<uint32_t>(rows.i64(r, 1));
      const std::string owner = rows.text(r, 2);
      const std::string of = " (attempt " + std::to_string(attempts) + " of " +
                             std::to_string(config_.max_attempts) + ")";
      PgParams p;
      p.i64(id);
      const char* sql;
      if (rows.boolean(r, 4)) {  // a client asked: it ends here
        sql =
            "UPDATE zk_job SET state = 'cancelled', error_code = $2, error = $3, "
            "lease_until_ms = NULL, ended_ms = " ZKP_PG_NOW_MS " WHERE id = $1";
        p.i64(int32_t(Code::kAborted))
            .text("cancelled by a client; worker " + owner + " stopped renewing its lease");
      } else if (attempts < config_.max_attempts) {
        sql =
            "UPDATE zk_job SET state = 'queued', error_code = $2, error = $3, "
            "avoid_owner = owner, owner = NULL, lease_until_ms = NULL, "
            "not_before_ms = " ZKP_PG_NOW_MS " + $4 WHERE id = $1";
        p.i64(int32_t(Code::kUnavailable))
            .text("lease of worker " + owner + " expired")
            .i64(backoff_ms(config_, attempts));
      } else {
        const std::string last = rows.text(r, 3);
        sql =
            "UPDATE zk_job SET state = 'failed', error_code = $2, error = $3, "
            "lease_until_ms = NULL, ended_ms = " ZKP_PG_NOW_MS " WHERE id = $1";
        p.i64(int32_t(Code::kUnavailable))
            .text("worker " + owner + " stopped renewing its lease" + of +
                  "; last error: " + (last.empty() ? "none" : last));
      }
      ZKP_RETURN_IF_ERROR(conn_.exec("reaping expired leases", sql, p).status());
      spdlog::warn("store {}: job {}: the lease of worker {} expired{}; {}", conn_.describe(), id,
                   owner, of,
                   rows.boolean(r, 4)                ? "cancelled (a client asked)"
                   : attempts < config_.max_attempts ? "queued again"
                                                     : "failed");
      ++reaped;
    }
    return ok_status();
  });
  if (!s.ok()) return s;
  return reaped;
}

Result<size_t> PostgresStore::expire() {
  std::lock_guard lock(mutex_);
  size_t expired = 0;
  for (int batch = 0; batch < 1000; ++batch) {  // bounded: 500'000 jobs per call
    int64_t n = 0;
    ZKP_RETURN_IF_ERROR(conn_.transaction("expiring finished jobs", [&]() -> Status {
      ZKP_ASSIGN_OR_RETURN(
          PgRows gone,
          conn_.exec("expiring finished jobs",
                     "DELETE FROM zk_job WHERE id IN (SELECT id FROM zk_job WHERE state IN "
                     "('done', 'failed', 'cancelled') AND ended_ms < " ZKP_PG_NOW_MS " - $1 "
                     "ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED) RETURNING id, input_sha256",
                     PgParams().i64(config_.retain_ms).i64(kBatch)));
      n = gone.size();
      if (n == 0) return ok_status();
      std::vector<int64_t> ids;
      std::set<std::string> digests;  // raw bytes
      for (int r = 0; r < gone.size(); ++r) {
        ids.push_back(gone.i64(r, 0));
        const std::span<const uint8_t> d = gone.bytes(r, 1);
        digests.emplace(d.begin(), d.end());
      }
      ZKP_RETURN_IF_ERROR(conn_
                              .exec("expiring finished jobs",
                                    "DELETE FROM zk_partition WHERE job_id = ANY($1)",
                                    PgParams().i64_array(ids))
                              .status());
      // Inputs no job uses any more. Chunk 0 is locked first, and jobs are looked for by the
      // next statement (a new snapshot): a submit of the same input either committed before
      // (its job is seen) or waits for this transaction and then stores the input again.
      std::vector<std::vector<uint8_t>> list;
      for (const std::string& d : digests) list.emplace_back(d.begin(), d.end());
      ZKP_RETURN_IF_ERROR(conn_
                              .exec("expiring finished jobs",
                                    "SELECT sha256 FROM zk_blob WHERE sha256 = ANY($1) AND "
                                    "chunk = 0 ORDER BY sha256 FOR UPDATE",
                                    PgParams().bytes_array(list))
                              .status());
      return conn_
          .exec("expiring finished jobs",
                "DELETE FROM zk_blob b WHERE b.sha256 = ANY($1) AND NOT EXISTS "
                "(SELECT 1 FROM zk_job j WHERE j.input_sha256 = b.sha256)",
                PgParams().bytes_array(list))
          .status();
    }));
    expired += static_cast<size_t>(n);
    if (n < kBatch) break;
  }
  // Workers gone for longer than jobs are kept.
  ZKP_RETURN_IF_ERROR(conn_
                          .exec("forgetting old workers",
                                "DELETE FROM zk_worker WHERE last_seen_ms < " ZKP_PG_NOW_MS " - $1",
                                PgParams().i64(config_.retain_ms))
                          .status());
  return expired;
}

Result<std::vector<WorkerInfo>> PostgresStore::workers(int64_t within_ms) {
  std::lock_guard lock(mutex_);
  ZKP_ASSIGN_OR_RETURN(
      PgRows rows,
      conn_.exec("listing workers",
                 "SELECT name, host, devices, hot_circuits, running, started_ms, last_seen_ms "
                 "FROM zk_worker WHERE last_seen_ms >= " ZKP_PG_NOW_MS " - $1 "
                 "ORDER BY last_seen_ms DESC, name",
                 PgParams().i64(within_ms)));
  std::vector<WorkerInfo> out;
  for (int r = 0; r < rows.size(); ++r) {
    WorkerInfo w;
    w.name = rows.text(r, 0);
    w.host = rows.text(r, 1);
    w.devices = rows.text(r, 2);
    w.hot_circuits = split_commas(rows.text(r, 3));
    w.running = static_cast<uint32_t>(rows.i64(r, 4));
    w.started_unix_ms = rows.i64(r, 5);
    w.last_seen_unix_ms = rows.i64(r, 6);
    out.push_back(std::move(w));
  }
  return out;
}

}  // namespace zkpipe::store
