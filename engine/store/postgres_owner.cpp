// postgres_owner.cpp: what a claim's owner writes (checkpoint, complete, fail, cancelled,
// release) and a client's cancel, for the PostgreSQL store (see postgres_store.h). Every write
// of an owner is one statement or transaction that names the job's fence and state 'running':
// an owner whose lease was reaped and the job claimed again changes nothing. A job a client asked
// to cancel is not tried again: a retryable failure ends it cancelled (so does reap()).
#include <mutex>

#include "postgres_store.h"
#include "store_common.h"

namespace zkpipe::store {

Result<bool> PostgresStore::fenced_update(std::string_view what, const char* sql,
                                          const PgParams& params) {
  std::lock_guard lock(mutex_);
  ZKP_ASSIGN_OR_RETURN(PgRows rows, conn_.exec(what, sql, params));
  return rows.affected() > 0;
}

Status PostgresStore::checkpoint(uint64_t id, uint64_t fence, uint32_t position,
                                 std::span<const uint8_t> proof) {
  std::lock_guard lock(mutex_);
  // FOR SHARE: a concurrent fail() (which drops checkpoints) or claim waits for this insert, or
  // this insert waits for it and then finds the fence changed.
  ZKP_ASSIGN_OR_RETURN(
      PgRows inserted,
      conn_.exec("keeping a checkpoint",
                 "INSERT INTO zk_partition (job_id, position, proof, created_ms) "
                 "SELECT id, $3, $4, " ZKP_PG_NOW_MS " FROM zk_job "
                 "WHERE id = $1 AND fence = $2 AND state = 'running' FOR SHARE "
                 "ON CONFLICT (job_id, position) DO NOTHING",
                 PgParams().i64(int64_t(id)).i64(int64_t(fence)).i64(position).bytes(proof)));
  if (inserted.affected() > 0) return ok_status();
  ZKP_ASSIGN_OR_RETURN(PgRows current,
                       conn_.exec("keeping a checkpoint",
                                  "SELECT 1 FROM zk_job WHERE id = $1 AND fence = $2 AND "
                                  "state = 'running'",
                                  PgParams().i64(int64_t(id)).i64(int64_t(fence))));
  if (current.size() > 0) return ok_status();  // that position was already kept: it stays
  return failed_precondition("store " + conn_.describe() + ": job " + std::to_string(id) +
                             ": fence " + std::to_string(fence) +
                             " is no longer current (the job was claimed again or ended); "
                             "checkpoint of partition " +
                             std::to_string(position) + " not kept");
}

Result<bool> PostgresStore::complete(uint64_t id, uint64_t fence, std::span<const uint8_t> result) {
  return fenced_update("completing a job",
                       "UPDATE zk_job SET state = 'done', result = $3, "
                       "completions = completions + 1, lease_until_ms = NULL, "
                       "ended_ms = " ZKP_PG_NOW_MS
                       " WHERE id = $1 AND fence = $2 AND state = 'running'",
                       PgParams().i64(int64_t(id)).i64(int64_t(fence)).bytes(result));
}

Result<bool> PostgresStore::fail(uint64_t id, uint64_t fence, Code code, const std::string& message,
                                 bool retryable) {
  std::lock_guard lock(mutex_);
  bool changed = false;
  Status s = conn_.transaction("failing a job", [&]() -> Status {
    changed = false;
    ZKP_ASSIGN_OR_RETURN(PgRows row,
                         conn_.exec("failing a job",
                                    "SELECT attempts, cancel_requested FROM zk_job WHERE id = $1 "
                                    "AND fence = $2 AND state = 'running' FOR UPDATE",
                                    PgParams().i64(int64_t(id)).i64(int64_t(fence))));
    if (row.size() == 0) return ok_status();
    changed = true;
    const auto attempts = static_cast<uint32_t>(row.i64(0, 0));
    const bool cancel_requested = row.boolean(0, 1);
    PgParams p;
    p.i64(int64_t(id));
    if (retryable && cancel_requested) {  // a client asked: no retry, it ends cancelled
      return conn_
          .exec("failing a job",
                "UPDATE zk_job SET state = 'cancelled', error_code = $2, error = $3, "
                "lease_until_ms = NULL, ended_ms = " ZKP_PG_NOW_MS " WHERE id = $1",
                p.i64(int32_t(Code::kAborted))
                    .text("cancelled by a client; its last attempt failed: " + message))
          .status();
    }
    p.i64(int32_t(code)).text(message);
    if (retryable && attempts < config_.max_attempts) {
      ZKP_RETURN_IF_ERROR(
          conn_
              .exec("failing a job",
                    "UPDATE zk_job SET state = 'queued', error_code = $2, error = $3, "
                    "avoid_owner = owner, owner = NULL, lease_until_ms = NULL, "
                    "not_before_ms = " ZKP_PG_NOW_MS " + $4 WHERE id = $1",
                    p.i64(backoff_ms(config_, attempts)))
              .status());
      // A retry starts over: a failed attempt's partial proofs are not trusted.
      return conn_
          .exec("failing a job", "DELETE FROM zk_partition WHERE job_id = $1",
                PgParams().i64(int64_t(id)))
          .status();
    }
    return conn_
        .exec("failing a job",
              "UPDATE zk_job SET state = 'failed', error_code = $2, error = $3, "
              "lease_until_ms = NULL, ended_ms = " ZKP_PG_NOW_MS " WHERE id = $1",
              p)
        .status();
  });
  if (!s.ok()) return s;
  return changed;
}

Result<bool> PostgresStore::cancelled(uint64_t id, uint64_t fence) {
  return fenced_update(
      "ending a cancelled job",
      "UPDATE zk_job SET state = 'cancelled', error_code = $3, "
      "error = 'cancelled by a client', lease_until_ms = NULL, "
      "ended_ms = " ZKP_PG_NOW_MS " WHERE id = $1 AND fence = $2 AND state = 'running'",
      PgParams().i64(int64_t(id)).i64(int64_t(fence)).i64(int32_t(Code::kAborted)));
}

Result<bool> PostgresStore::release(uint64_t id, uint64_t fence) {
  return fenced_update("releasing a job",
                       "UPDATE zk_job SET state = 'queued', attempts = GREATEST(attempts - 1, 0), "
                       "owner = NULL, avoid_owner = NULL, lease_until_ms = NULL, "
                       "not_before_ms = " ZKP_PG_NOW_MS
                       " "
                       "WHERE id = $1 AND fence = $2 AND state = 'running'",
                       PgParams().i64(int64_t(id)).i64(int64_t(fence)));
}

Result<CancelReply> PostgresStore::cancel(uint64_t id) {
  std::lock_guard lock(mutex_);
  CancelReply reply;
  Status s = conn_.transaction("cancelling a job", [&]() -> Status {
    reply = {};
    ZKP_ASSIGN_OR_RETURN(PgRows row, conn_.exec("cancelling a job",
                                                "SELECT state FROM zk_job WHERE id = $1 FOR UPDATE",
                                                PgParams().i64(int64_t(id))));
    if (row.size() == 0) {
      return not_found("store " + conn_.describe() + ": no job " + std::to_string(id) +
                       " (never submitted, or expired after store.retain)");
    }
    const std::string state = row.text(0, 0);
    if (state == "queued") {
      reply.ended = true;
      return conn_
          .exec("cancelling a job",
                "UPDATE zk_job SET state = 'cancelled', error_code = $2, "
                "error = 'cancelled by a client', ended_ms = " ZKP_PG_NOW_MS " WHERE id = $1",
                PgParams().i64(int64_t(id)).i64(int32_t(Code::kAborted)))
          .status();
    }
    if (state == "running") {
      reply.was_running = true;
      return conn_
          .exec("cancelling a job", "UPDATE zk_job SET cancel_requested = true WHERE id = $1",
                PgParams().i64(int64_t(id)))
          .status();
    }
    return failed_precondition("store " + conn_.describe() + ": job " + std::to_string(id) +
                               " has already ended (" + state + "); nothing to cancel");
  });
  if (!s.ok()) return s;
  return reply;
}

}  // namespace zkpipe::store
