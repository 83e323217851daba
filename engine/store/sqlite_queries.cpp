// sqlite_queries.cpp: the SQLite store's reads (get, find_request, list, counts, workers), a
// client's cancel, and the housekeeping any worker runs (reap expired leases, expire old jobs).
#include <spdlog/spdlog.h>

#include <algorithm>
#include <limits>

#include "sqlite_store.h"
#include "store_common.h"

namespace zkpipe::store {
namespace {

// The columns read_record reads; `result` only when asked for. The owner of a job queued again
// is the one it avoids: the last one.
std::string record_select(bool with_result) {
  return std::string(
             "SELECT id, request_id, proof_type, circuit_id, state, priority, partitions, "
             "(SELECT count(*) FROM zk_partition p WHERE p.job_id = zk_job.id), attempts, "
             "coalesce(owner, avoid_owner), cancel_requested, error_code, error, ") +
         (with_result ? "result" : "NULL") + ", submitted_ms, ended_ms, completions FROM zk_job ";
}

JobRecord read_record(const Stmt& s) {
  JobRecord r;
  r.id = static_cast<uint64_t>(s.i64(0));
  r.request_id = s.text(1);
  r.proof_type = s.text(2);
  r.circuit_id = s.text(3);
  r.state = job_state_from_name(s.text(4)).value_or(JobState::kFailed);
  r.priority = static_cast<uint8_t>(s.i64(5));
  r.partitions = static_cast<uint32_t>(s.i64(6));
  r.checkpointed = static_cast<uint32_t>(s.i64(7));
  r.attempts = static_cast<uint32_t>(s.i64(8));
  r.owner = s.text(9);
  r.cancel_requested = s.i64(10) != 0;
  r.error_code = static_cast<int32_t>(s.i64(11));
  r.error = s.text(12);
  r.result = s.blob(13);
  r.submitted_unix_ms = s.i64(14);
  r.ended_unix_ms = s.i64_or_null(15).value_or(0);
  r.completions = static_cast<uint32_t>(s.i64(16));
  return r;
}

std::vector<std::string> split(const std::string& joined) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < joined.size()) {
    const size_t comma = std::min(joined.find(',', start), joined.size());
    out.push_back(joined.substr(start, comma - start));
    start = comma + 1;
  }
  return out;
}

int64_t sql_limit(size_t limit) {
  return static_cast<int64_t>(std::min<size_t>(limit, std::numeric_limits<int64_t>::max()));
}

}  // namespace

Result<std::optional<JobRecord>> SqliteStore::get_where(std::string_view op, const char* where,
                                                        const std::function<void(Stmt&)>& bind,
                                                        bool with_result) {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt s(*db_, op, record_select(with_result) + where);
  bind(s);
  ZKP_ASSIGN_OR_RETURN(bool found, s.step());
  if (!found) return std::optional<JobRecord>();
  return std::optional<JobRecord>(read_record(s));
}

Result<std::optional<JobRecord>> SqliteStore::get(uint64_t id, bool with_result) {
  return get_where(
      "get", "WHERE id = ?1", [&](Stmt& s) { s.bind(1, static_cast<int64_t>(id)); }, with_result);
}

Result<std::optional<JobRecord>> SqliteStore::find_request(const std::string& request_id,
                                                           bool with_result) {
  if (request_id.empty()) return std::optional<JobRecord>();
  return get_where(
      "find_request", "WHERE request_id = ?1", [&](Stmt& s) { s.bind(1, request_id); },
      with_result);
}

Result<std::vector<JobRecord>> SqliteStore::list(std::optional<JobState> state, size_t limit) {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt s(*db_, "list",
         record_select(false) + "WHERE (?1 IS NULL OR state = ?1) ORDER BY id DESC LIMIT ?2");
  if (state) s.bind(1, job_state_name(*state));
  s.bind(2, sql_limit(limit));
  std::vector<JobRecord> out;
  for (;;) {
    ZKP_ASSIGN_OR_RETURN(bool row, s.step());
    if (!row) return out;
    out.push_back(read_record(s));
  }
}

Result<QueueCounts> SqliteStore::counts() {
  std::lock_guard<std::mutex> lock(mu_);
  Stmt s(*db_, "counts", "SELECT state, priority, count(*) FROM zk_job GROUP BY state, priority");
  QueueCounts out;
  for (;;) {
    ZKP_ASSIGN_OR_RETURN(bool row, s.step());
    if (!row) return out;
    const auto n = static_cast<uint32_t>(s.i64(2));
    switch (job_state_from_name(s.text(0)).value_or(JobState::kFailed)) {
      case JobState::kQueued:
        out.queued[static_cast<uint8_t>(s.i64(1))] += n;
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
}

Result<CancelReply> SqliteStore::cancel(uint64_t id) {
  constexpr std::string_view op = "cancel";
  std::lock_guard<std::mutex> lock(mu_);
  Transaction txn(*db_);
  ZKP_RETURN_IF_ERROR(txn.begin(op));
  Stmt job(*db_, op, "SELECT state FROM zk_job WHERE id = ?1");
  ZKP_ASSIGN_OR_RETURN(bool found, job.bind(1, static_cast<int64_t>(id)).step());
  if (!found) return not_found("job " + std::to_string(id) + " is not in store " + describe());
  const std::string state = job.text(0);
  CancelReply reply;
  if (state == "queued") {
    ZKP_ASSIGN_OR_RETURN(int64_t now, db_->now_ms(op));
    Stmt end(*db_, op,
             "UPDATE zk_job SET state = 'cancelled', ended_ms = ?2, error_code = 8, "
             "error = 'cancelled by a client' WHERE id = ?1");
    ZKP_RETURN_IF_ERROR(end.bind(1, static_cast<int64_t>(id)).bind(2, now).run());
    reply.ended = true;
  } else if (state == "running") {
    Stmt flag(*db_, op, "UPDATE zk_job SET cancel_requested = 1 WHERE id = ?1");
    ZKP_RETURN_IF_ERROR(flag.bind(1, static_cast<int64_t>(id)).run());
    reply.was_running = true;
  } else {
    return failed_precondition("job " + std::to_string(id) + " already ended (" + state + ")");
  }
  ZKP_RETURN_IF_ERROR(txn.commit(op));
  return reply;
}

Result<size_t> SqliteStore::reap() {
  constexpr std::string_view op = "reap";
  std::lock_guard<std::mutex> lock(mu_);
  Transaction txn(*db_);
  ZKP_RETURN_IF_ERROR(txn.begin(op));
  ZKP_ASSIGN_OR_RETURN(int64_t now, db_->now_ms(op));
  Stmt expired(*db_, op,
               "SELECT id, owner, attempts, error, cancel_requested FROM zk_job "
               "WHERE state = 'running' AND lease_until_ms < ?1");
  expired.bind(1, now);
  struct Lapsed {
    int64_t id;
    std::string owner, error;
    uint32_t attempts;
    bool cancel_requested;
  };
  std::vector<Lapsed> lapsed;
  for (;;) {
    ZKP_ASSIGN_OR_RETURN(bool row, expired.step());
    if (!row) break;
    lapsed.push_back({expired.i64(0), expired.text(1), expired.text(3),
                      static_cast<uint32_t>(expired.i64(2)), expired.i64(4) != 0});
  }
  Stmt failed(*db_, op,
              "UPDATE zk_job SET state = 'failed', ended_ms = ?2, lease_until_ms = NULL, "
              "error_code = 3, error = ?3 WHERE id = ?1 AND state = 'running'");
  Stmt queued(*db_, op,
              "UPDATE zk_job SET state = 'queued', avoid_owner = owner, owner = NULL, "
              "not_before_ms = ?2, lease_until_ms = NULL, error_code = 3, error = ?3 "
              "WHERE id = ?1 AND state = 'running'");
  Stmt cancelled(*db_, op,
                 "UPDATE zk_job SET state = 'cancelled', ended_ms = ?2, lease_until_ms = NULL, "
                 "error_code = 8, error = 'cancelled by a client' WHERE id = ?1 AND "
                 "state = 'running'");
  for (const Lapsed& job : lapsed) {
    if (job.cancel_requested) {  // a client asked to cancel it: it is not proved again
      cancelled.reset();
      ZKP_RETURN_IF_ERROR(cancelled.bind(1, job.id).bind(2, now).run());
    } else if (job.attempts >= config_.max_attempts) {
      const std::string message = "worker " + job.owner + " stopped renewing its lease (attempt " +
                                  std::to_string(job.attempts) + " of " +
                                  std::to_string(config_.max_attempts) +
                                  "); last error: " + (job.error.empty() ? "none" : job.error);
      failed.reset();
      ZKP_RETURN_IF_ERROR(failed.bind(1, job.id).bind(2, now).bind(3, message).run());
    } else {
      queued.reset();
      queued.bind(1, job.id).bind(2, now + backoff_ms(config_, job.attempts));
      ZKP_RETURN_IF_ERROR(queued.bind(3, "lease of worker " + job.owner + " expired").run());
    }
    spdlog::warn("store sqlite {}: job {}: the lease of worker {} expired (attempt {} of {}); {}",
                 config_.sqlite_path, job.id, job.owner, job.attempts, config_.max_attempts,
                 job.attempts >= config_.max_attempts ? "failed" : "queued again");
  }
  ZKP_RETURN_IF_ERROR(txn.commit(op));
  return lapsed.size();
}

Result<size_t> SqliteStore::expire() {
  constexpr std::string_view op = "expire";
  std::lock_guard<std::mutex> lock(mu_);
  Transaction txn(*db_);
  ZKP_RETURN_IF_ERROR(txn.begin(op));
  ZKP_ASSIGN_OR_RETURN(int64_t now, db_->now_ms(op));
  const int64_t cutoff = now - config_.retain_ms;
  Stmt parts(*db_, op,
             "DELETE FROM zk_partition WHERE job_id IN (SELECT id FROM zk_job WHERE state IN "
             "('done', 'failed', 'cancelled') AND ended_ms < ?1)");
  ZKP_RETURN_IF_ERROR(parts.bind(1, cutoff).run());
  Stmt jobs(*db_, op,
            "DELETE FROM zk_job WHERE state IN ('done', 'failed', 'cancelled') AND ended_ms < ?1");
  ZKP_RETURN_IF_ERROR(jobs.bind(1, cutoff).run());
  const auto n = static_cast<size_t>(db_->changes());
  if (n > 0) {
    ZKP_RETURN_IF_ERROR(db_->exec(op,
                                  "DELETE FROM zk_blob WHERE NOT EXISTS (SELECT 1 FROM zk_job j "
                                  "WHERE j.input_sha256 = zk_blob.sha256)"));
  }
  ZKP_RETURN_IF_ERROR(txn.commit(op));
  return n;
}

Result<std::vector<WorkerInfo>> SqliteStore::workers(int64_t within_ms) {
  constexpr std::string_view op = "workers";
  std::lock_guard<std::mutex> lock(mu_);
  ZKP_ASSIGN_OR_RETURN(int64_t now, db_->now_ms(op));
  Stmt s(*db_, op,
         "SELECT name, host, devices, hot_circuits, running, started_ms, last_seen_ms "
         "FROM zk_worker WHERE last_seen_ms >= ?1 ORDER BY last_seen_ms DESC, name");
  s.bind(1, now - within_ms);
  std::vector<WorkerInfo> out;
  for (;;) {
    ZKP_ASSIGN_OR_RETURN(bool row, s.step());
    if (!row) return out;
    WorkerInfo w;
    w.name = s.text(0);
    w.host = s.text(1);
    w.devices = s.text(2);
    w.hot_circuits = split(s.text(3));
    w.running = static_cast<uint32_t>(s.i64(4));
    w.started_unix_ms = s.i64(5);
    w.last_seen_unix_ms = s.i64(6);
    out.push_back(std::move(w));
  }
}

}  // namespace zkpipe::store
