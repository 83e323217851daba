// sqlite_owner.cpp: the SQLite store's calls from a claim's owner: heartbeat (leases and the
// worker's row), checkpoint, and the fenced ends of an attempt (complete, fail, cancelled,
// release). Every write names the fence of its claim; a stale one writes nothing.
#include <functional>

#include "sqlite_store.h"
#include "store_common.h"

namespace zkpipe::store {
namespace {

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) {
    if (!out.empty()) out += ',';
    out += w;
  }
  return out;
}

}  // namespace

Result<HeartbeatReply> SqliteStore::heartbeat(
    const WorkerInfo& worker, const std::vector<std::pair<uint64_t, uint64_t>>& held) {
  constexpr std::string_view op = "heartbeat";
  std::lock_guard<std::mutex> lock(mu_);
  Transaction txn(*db_);
  ZKP_RETURN_IF_ERROR(txn.begin(op));
  ZKP_ASSIGN_OR_RETURN(int64_t now, db_->now_ms(op));
  Stmt seen(*db_, op,
            "INSERT INTO zk_worker (name, host, devices, hot_circuits, running, started_ms, "
            "last_seen_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7) ON CONFLICT (name) DO UPDATE SET "
            "host = excluded.host, devices = excluded.devices, hot_circuits = "
            "excluded.hot_circuits, running = excluded.running, started_ms = excluded.started_ms, "
            "last_seen_ms = excluded.last_seen_ms");
  seen.bind(1, worker.name).bind(2, worker.host).bind(3, worker.devices);
  seen.bind(4, join(worker.hot_circuits)).bind(5, int64_t{worker.running});
  ZKP_RETURN_IF_ERROR(seen.bind(6, worker.started_unix_ms).bind(7, now).run());

  HeartbeatReply reply;
  Stmt renew(*db_, op,
             "UPDATE zk_job SET lease_until_ms = ?3 WHERE id = ?1 AND fence = ?2 AND "
             "state = 'running' AND owner = ?4 RETURNING cancel_requested");
  for (const auto& [id, fence] : held) {
    renew.reset();
    renew.bind(1, static_cast<int64_t>(id)).bind(2, static_cast<int64_t>(fence));
    renew.bind(3, now + config_.lease_ms).bind(4, worker.name);
    ZKP_ASSIGN_OR_RETURN(bool row, renew.step());
    if (!row) {
      reply.lost.push_back(id);
      continue;
    }
    if (renew.i64(0) != 0) reply.cancel_requested.push_back(id);
    ZKP_RETURN_IF_ERROR(renew.run());
  }
  ZKP_RETURN_IF_ERROR(txn.commit(op));
  return reply;
}

Status SqliteStore::checkpoint(uint64_t id, uint64_t fence, uint32_t position,
                               std::span<const uint8_t> proof) {
  constexpr std::string_view op = "checkpoint";
  std::lock_guard<std::mutex> lock(mu_);
  Transaction txn(*db_);
  ZKP_RETURN_IF_ERROR(txn.begin(op));
  Stmt job(*db_, op, "SELECT fence, state FROM zk_job WHERE id = ?1");
  ZKP_ASSIGN_OR_RETURN(bool found, job.bind(1, static_cast<int64_t>(id)).step());
  if (!found) return not_found("job " + std::to_string(id) + " is not in store " + describe());
  const std::string state = job.text(1);
  if (static_cast<uint64_t>(job.i64(0)) != fence || state != "running") {
    return failed_precondition(
        "job " + std::to_string(id) + ": the fence " + std::to_string(fence) +
        " is no longer current (" +
        (state == "running" ? std::string("another worker claimed it") : "the job is " + state) +
        ")");
  }
  ZKP_ASSIGN_OR_RETURN(int64_t now, db_->now_ms(op));
  Stmt put(*db_, op,
           "INSERT OR IGNORE INTO zk_partition (job_id, position, proof, created_ms) "
           "VALUES (?1, ?2, ?3, ?4)");
  put.bind(1, static_cast<int64_t>(id)).bind(2, int64_t{position}).bind_blob(3, proof);
  ZKP_RETURN_IF_ERROR(put.bind(4, now).run());
  return txn.commit(op);
}

Result<bool> SqliteStore::fenced_update(std::string_view op, const char* sql, uint64_t id,
                                        uint64_t fence, const std::function<void(Stmt&)>& bind) {
  std::lock_guard<std::mutex> lock(mu_);
  Transaction txn(*db_);
  ZKP_RETURN_IF_ERROR(txn.begin(op));
  ZKP_ASSIGN_OR_RETURN(int64_t now, db_->now_ms(op));
  Stmt update(*db_, op, sql);
  update.bind(1, static_cast<int64_t>(id)).bind(2, static_cast<int64_t>(fence)).bind(3, now);
  if (bind) bind(update);
  ZKP_RETURN_IF_ERROR(update.run());
  const bool changed = db_->changes() == 1;
  ZKP_RETURN_IF_ERROR(txn.commit(op));
  return changed;
}

Result<bool> SqliteStore::complete(uint64_t id, uint64_t fence, std::span<const uint8_t> result) {
  return fenced_update("complete",
                       "UPDATE zk_job SET state = 'done', result = ?4, ended_ms = ?3, "
                       "completions = completions + 1, lease_until_ms = NULL "
                       "WHERE id = ?1 AND fence = ?2 AND state = 'running'",
                       id, fence, [&](Stmt& s) { s.bind_blob(4, result); });
}

Result<bool> SqliteStore::cancelled(uint64_t id, uint64_t fence) {
  return fenced_update("cancelled",
                       "UPDATE zk_job SET state = 'cancelled', ended_ms = ?3, error_code = 8, "
                       "error = 'cancelled by a client', lease_until_ms = NULL "
                       "WHERE id = ?1 AND fence = ?2 AND state = 'running'",
                       id, fence);
}

Result<bool> SqliteStore::release(uint64_t id, uint64_t fence) {
  // Not an attempt: the count a claim added is taken back, and no worker is avoided.
  return fenced_update("release",
                       "UPDATE zk_job SET state = 'queued', owner = NULL, avoid_owner = NULL, "
                       "attempts = max(attempts - 1, 0), not_before_ms = ?3, "
                       "lease_until_ms = NULL WHERE id = ?1 AND fence = ?2 AND state = 'running'",
                       id, fence);
}

Result<bool> SqliteStore::fail(uint64_t id, uint64_t fence, Code code, const std::string& message,
                               bool retryable) {
  constexpr std::string_view op = "fail";
  std::lock_guard<std::mutex> lock(mu_);
  Transaction txn(*db_);
  ZKP_RETURN_IF_ERROR(txn.begin(op));
  ZKP_ASSIGN_OR_RETURN(int64_t now, db_->now_ms(op));
  Stmt job(*db_, op,
           "SELECT attempts, cancel_requested FROM zk_job WHERE id = ?1 AND fence = ?2 AND "
           "state = 'running'");
  job.bind(1, static_cast<int64_t>(id)).bind(2, static_cast<int64_t>(fence));
  ZKP_ASSIGN_OR_RETURN(bool held, job.step());
  if (!held) return false;
  const auto attempts = static_cast<uint32_t>(job.i64(0));
  if (retryable && job.i64(1) != 0) {  // a client asked to cancel it: no retry, it ends cancelled
    Stmt end(*db_, op,
             "UPDATE zk_job SET state = 'cancelled', ended_ms = ?3, lease_until_ms = NULL, "
             "error_code = 8, error = 'cancelled by a client' WHERE id = ?1 AND fence = ?2");
    end.bind(1, static_cast<int64_t>(id)).bind(2, static_cast<int64_t>(fence));
    ZKP_RETURN_IF_ERROR(end.bind(3, now).run());
    ZKP_RETURN_IF_ERROR(txn.commit(op));
    return true;
  }
  const bool again = retryable && attempts < config_.max_attempts;
  Stmt update(*db_, op,
              again ? "UPDATE zk_job SET state = 'queued', avoid_owner = owner, owner = NULL, "
                      "not_before_ms = ?3, lease_until_ms = NULL, error_code = ?4, error = ?5 "
                      "WHERE id = ?1 AND fence = ?2"
                    : "UPDATE zk_job SET state = 'failed', ended_ms = ?3, lease_until_ms = NULL, "
                      "error_code = ?4, error = ?5 WHERE id = ?1 AND fence = ?2");
  update.bind(1, static_cast<int64_t>(id)).bind(2, static_cast<int64_t>(fence));
  update.bind(3, again ? now + backoff_ms(config_, attempts) : now);
  ZKP_RETURN_IF_ERROR(update.bind(4, int64_t{static_cast<int32_t>(code)}).bind(5, message).run());
  if (again) {
    // A retry starts over: the next owner proves every partition again.
    Stmt drop(*db_, op, "DELETE FROM zk_partition WHERE job_id = ?1");
    ZKP_RETURN_IF_ERROR(drop.bind(1, static_cast<int64_t>(id)).run());
  }
  ZKP_RETURN_IF_ERROR(txn.commit(op));
  return true;
}

}  // namespace zkpipe::store
