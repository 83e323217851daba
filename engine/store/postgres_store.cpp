// postgres_store.cpp: the PostgreSQL store's factory, submit, claim and heartbeat (see
// postgres_store.h). A claim is one transaction: SELECT ... FOR UPDATE SKIP LOCKED picks the
// rows no other daemon is taking, one UPDATE bumps their fences, and their inputs are read back
// from their chunks and checked against their SHA-256 before they are returned.
#include "postgres_store.h"

#include <algorithm>
#include <map>

#include "store_common.h"
#include "stores.h"

namespace zkpipe::store {
namespace {

std::string taken_message(const std::string& request_id, int64_t id) {
  return "request id '" + echo_value(request_id) + "' is taken by job " + std::to_string(id) +
         " with another input or proof type; use another request id";
}

}  // namespace

std::string join_commas(const std::vector<std::string>& items) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + items[i];
  return out;
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  size_t from = 0;
  while (from < text.size()) {
    const size_t comma = std::min(text.find(',', from), text.size());
    out.push_back(text.substr(from, comma - from));
    from = comma + 1;
  }
  return out;
}

Result<std::unique_ptr<JobStore>> open_postgres_store(const StoreConfig& config) {
  auto store = std::make_unique<PostgresStore>(config);
  ZKP_RETURN_IF_ERROR(store->open());
  return std::unique_ptr<JobStore>(std::move(store));
}

PostgresStore::PostgresStore(const StoreConfig& config)
    : config_(config),
      conn_(config.postgres_conninfo, config.worker.empty() ? "zkpipe" : "zkpipe " + config.worker,
            config.clock) {}

Status PostgresStore::open() {
  std::lock_guard lock(mutex_);
  ZKP_RETURN_IF_ERROR(conn_.connect());
  return migrate_postgres_schema(conn_);
}

Status PostgresStore::store_input(std::span<const uint8_t> input, std::span<const uint8_t> digest) {
  // The share lock on chunk 0 keeps expire() from dropping a stored copy before this job
  // commits (expire locks chunk 0 for update before it looks for jobs that still use it).
  ZKP_RETURN_IF_ERROR(conn_
                          .exec("storing the input",
                                "SELECT 1 FROM zk_blob WHERE sha256 = $1 AND chunk = 0 FOR SHARE",
                                PgParams().bytes(digest))
                          .status());
  // A whole copy (same digest, same length) is shared; a torn one is replaced.
  ZKP_ASSIGN_OR_RETURN(PgRows have,
                       conn_.exec("storing the input",
                                  "SELECT count(*), coalesce(sum(length(data)), 0)::bigint "
                                  "FROM zk_blob WHERE sha256 = $1",
                                  PgParams().bytes(digest)));
  if (have.i64(0, 0) > 0 && have.i64(0, 1) == int64_t(input.size())) return ok_status();
  if (have.i64(0, 0) > 0) {
    ZKP_RETURN_IF_ERROR(conn_
                            .exec("replacing a torn input", "DELETE FROM zk_blob WHERE sha256 = $1",
                                  PgParams().bytes(digest))
                            .status());
  }
  const size_t chunk = static_cast<size_t>(std::max<uint64_t>(config_.chunk_bytes, 1));
  const size_t chunks = std::max<size_t>(1, (input.size() + chunk - 1) / chunk);
  for (size_t i = 0; i < chunks; ++i) {
    const size_t from = std::min(i * chunk, input.size());
    const size_t n = std::min(chunk, input.size() - from);
    ZKP_RETURN_IF_ERROR(
        conn_
            .exec("storing the input",
                  "INSERT INTO zk_blob (sha256, chunk, data) VALUES ($1, $2, $3) "
                  "ON CONFLICT (sha256, chunk) DO NOTHING",
                  PgParams().bytes(digest).i64(int64_t(i)).bytes(input.subspan(from, n)))
            .status());
  }
  return ok_status();
}

Result<Submitted> PostgresStore::submit(const NewJob& job) {
  const Digest digest = sha256(job.input);
  std::lock_guard lock(mutex_);
  Submitted out;
  // A stored job under this request id: attached (same input and type) or taken.
  auto match = [&](const PgRows& rows) -> Status {
    out.id = static_cast<uint64_t>(rows.i64(0, 0));
    const std::span<const uint8_t> stored = rows.bytes(0, 2);
    if (rows.text(0, 1) == job.proof_type &&
        std::equal(stored.begin(), stored.end(), digest.begin(), digest.end())) {
      out.attached = true;
      return ok_status();
    }
    return already_exists(taken_message(job.request_id, rows.i64(0, 0)));
  };
  constexpr const char* kByRequest =
      "SELECT id, proof_type, input_sha256 FROM zk_job WHERE request_id = $1";
  Status s = conn_.transaction("submitting a job", [&]() -> Status {
    if (!job.request_id.empty()) {
      ZKP_ASSIGN_OR_RETURN(PgRows prior, conn_.exec("submitting a job", kByRequest,
                                                    PgParams().text(job.request_id)));
      if (prior.size() > 0) return match(prior);
    }
    // Two daemons inserting one new request id: the second waits for the first to commit and
    // inserts nothing; it then reads the first one's row (a new statement sees it).
    ZKP_ASSIGN_OR_RETURN(
        PgRows inserted,
        conn_.exec("submitting a job",
                   "INSERT INTO zk_job (request_id, proof_type, circuit_id, state, priority, "
                   "deadline_ms, submitted_ms, not_before_ms, input_sha256, input_size, "
                   "partitions) VALUES (NULLIF($1, ''), $2, $3, 'queued', $4, "
                   "CASE WHEN $5 > 0 THEN " ZKP_PG_NOW_MS " + $5 END, " ZKP_PG_NOW_MS
                   ", 0, $6, $7, $8) ON CONFLICT (request_id) DO NOTHING RETURNING id",
                   PgParams()
                       .text(job.request_id)
                       .text(job.proof_type)
                       .text(job.circuit_id)
                       .i64(job.priority)
                       .i64(job.deadline_ms)
                       .bytes(digest)
                       .i64(int64_t(job.input.size()))
                       .i64(job.partitions)));
    if (inserted.size() == 0) {
      ZKP_ASSIGN_OR_RETURN(PgRows raced, conn_.exec("submitting a job", kByRequest,
                                                    PgParams().text(job.request_id)));
      if (raced.size() > 0) return match(raced);
      return unavailable("store " + conn_.describe() + ": request id '" +
                         echo_value(job.request_id) +
                         "' was stored and removed while this submit ran; submit it again");
    }
    out.id = static_cast<uint64_t>(inserted.i64(0, 0));
    return store_input(job.input, digest);
  });
  // YSQL (or a unique index the ON CONFLICT does not name) may still report the race as a
  // unique violation: read the winner's row.
  if (!s.ok() && conn_.last_sqlstate() == "23505" && !job.request_id.empty()) {
    Result<PgRows> raced =
        conn_.exec("submitting a job", kByRequest, PgParams().text(job.request_id));
    if (raced.ok() && raced->size() > 0) s = match(*raced);
  }
  if (!s.ok()) return s;
  return out;
}

Result<std::optional<std::vector<uint8_t>>> PostgresStore::read_input(uint64_t id,
                                                                      const PgRows& job, int row) {
  // job columns: ..., 9 input_sha256, 10 input_size
  const std::span<const uint8_t> digest = job.bytes(row, 9);
  const int64_t size = job.i64(row, 10);
  ZKP_ASSIGN_OR_RETURN(
      PgRows chunks, conn_.exec("reading a claimed job's input",
                                "SELECT chunk, data FROM zk_blob WHERE sha256 = $1 ORDER BY chunk",
                                PgParams().bytes(digest)));
  std::vector<uint8_t> input;
  bool whole = true;
  for (int i = 0; i < chunks.size() && whole; ++i) {
    const std::span<const uint8_t> data = chunks.bytes(i, 1);
    whole = chunks.i64(i, 0) == i && int64_t(input.size() + data.size()) <= size;
    if (whole) input.insert(input.end(), data.begin(), data.end());
  }
  if (whole && int64_t(input.size()) == size) {
    const Digest got = sha256(input);
    if (std::equal(got.begin(), got.end(), digest.begin(), digest.end())) return {std::move(input)};
  }
  const std::string message = "the stored input of job " + std::to_string(id) +
                              " does not match its SHA-256 " + hex(digest) +
                              " (torn or altered); submit it again";
  ZKP_RETURN_IF_ERROR(
      conn_
          .exec("failing a job with a torn input",
                "UPDATE zk_job SET state = 'failed', error_code = $2, error = $3, "
                "lease_until_ms = NULL, ended_ms = " ZKP_PG_NOW_MS " WHERE id = $1",
                PgParams().i64(int64_t(id)).i64(int32_t(Code::kFailedPrecondition)).text(message))
          .status());
  ZKP_RETURN_IF_ERROR(conn_
                          .exec("dropping a torn input", "DELETE FROM zk_blob WHERE sha256 = $1",
                                PgParams().bytes(digest))
                          .status());
  return std::optional<std::vector<uint8_t>>();
}

Result<std::vector<Claimed>> PostgresStore::claim(const std::string& worker,
                                                  const ClaimFilter& filter) {
  std::vector<Claimed> out;
  if (filter.proof_types.empty() || filter.max_jobs == 0) return out;
  std::lock_guard lock(mutex_);
  Status s = conn_.transaction("claiming jobs", [&]() -> Status {
    out.clear();
    PgParams pick;
    pick.text_array(filter.proof_types)
        .text(worker)
        .i64(config_.lease_ms)
        .text_array(filter.hot_circuits)
        .i64(int64_t(filter.max_jobs));
    if (filter.only_id)
      pick.i64(int64_t(*filter.only_id));
    else
      pick.null_i64();
    ZKP_ASSIGN_OR_RETURN(
        PgRows picked,
        conn_.exec("claiming jobs",
                   "SELECT id FROM zk_job WHERE state = 'queued' AND proof_type = ANY($1) "
                   "AND not_before_ms <= " ZKP_PG_NOW_MS " AND (avoid_owner IS NULL OR "
                   "avoid_owner <> $2 OR not_before_ms + $3 <= " ZKP_PG_NOW_MS ") "
                   "AND ($6::bigint IS NULL OR id = $6) "
                   "ORDER BY priority, deadline_ms NULLS LAST, (circuit_id = ANY($4)) DESC, id "
                   "LIMIT $5 FOR UPDATE SKIP LOCKED",
                   pick));
    if (picked.size() == 0) return ok_status();
    std::vector<int64_t> ids;
    for (int i = 0; i < picked.size(); ++i) ids.push_back(picked.i64(i, 0));
    ZKP_ASSIGN_OR_RETURN(
        PgRows rows,
        conn_.exec("claiming jobs",
                   "UPDATE zk_job SET state = 'running', fence = fence + 1, "
                   "attempts = attempts + 1, owner = $2, lease_until_ms = " ZKP_PG_NOW_MS " + $3 "
                   "WHERE id = ANY($1) RETURNING id, fence, attempts, request_id, proof_type, "
                   "circuit_id, priority, deadline_ms - " ZKP_PG_NOW_MS ", partitions, "
                   "input_sha256, input_size",
                   PgParams().i64_array(ids).text(worker).i64(config_.lease_ms)));
    ZKP_ASSIGN_OR_RETURN(PgRows parts,
                         conn_.exec("reading checkpoints",
                                    "SELECT job_id, position, proof FROM zk_partition "
                                    "WHERE job_id = ANY($1)",
                                    PgParams().i64_array(ids)));
    std::map<int64_t, Claimed> by_id;
    for (int r = 0; r < rows.size(); ++r) {
      const uint64_t id = static_cast<uint64_t>(rows.i64(r, 0));
      ZKP_ASSIGN_OR_RETURN(std::optional<std::vector<uint8_t>> input, read_input(id, rows, r));
      if (!input) continue;  // failed: torn
      Claimed c;
      c.id = id;
      c.fence = static_cast<uint64_t>(rows.i64(r, 1));
      c.attempt = static_cast<uint32_t>(rows.i64(r, 2));
      c.request_id = rows.text(r, 3);
      c.proof_type = rows.text(r, 4);
      c.circuit_id = rows.text(r, 5);
      c.priority = static_cast<uint8_t>(rows.i64(r, 6));
      if (!rows.is_null(r, 7)) c.deadline_left_ms = rows.i64(r, 7);
      c.partitions = static_cast<uint32_t>(rows.i64(r, 8));
      c.input = std::move(*input);
      by_id.emplace(rows.i64(r, 0), std::move(c));
    }
    for (int r = 0; r < parts.size(); ++r) {
      auto it = by_id.find(parts.i64(r, 0));
      if (it == by_id.end()) continue;
      const std::span<const uint8_t> proof = parts.bytes(r, 2);
      it->second.checkpoints.emplace(static_cast<uint32_t>(parts.i64(r, 1)),
                                     std::vector<uint8_t>(proof.begin(), proof.end()));
    }
    for (int64_t id : ids) {  // in the claim order
      auto it = by_id.find(id);
      if (it != by_id.end()) out.push_back(std::move(it->second));
    }
    return ok_status();
  });
  if (!s.ok()) return s;
  return out;
}

Result<HeartbeatReply> PostgresStore::heartbeat(
    const WorkerInfo& worker, const std::vector<std::pair<uint64_t, uint64_t>>& held) {
  std::lock_guard lock(mutex_);
  HeartbeatReply reply;
  Status s = conn_.transaction("heartbeat", [&]() -> Status {
    reply = {};
    ZKP_RETURN_IF_ERROR(
        conn_
            .exec("heartbeat",
                  "INSERT INTO zk_worker (name, host, devices, hot_circuits, running, started_ms, "
                  "last_seen_ms) VALUES ($1, $2, $3, $4, $5, CASE WHEN $6 > 0 THEN $6 "
                  "ELSE " ZKP_PG_NOW_MS " END, " ZKP_PG_NOW_MS ") ON CONFLICT (name) DO UPDATE SET "
                  "host = excluded.host, devices = excluded.devices, "
                  "hot_circuits = excluded.hot_circuits, running = excluded.running, "
                  "started_ms = CASE WHEN $6 > 0 THEN $6 ELSE zk_worker.started_ms END, "
                  "last_seen_ms = excluded.last_seen_ms",
                  PgParams()
                      .text(worker.name)
                      .text(worker.host)
                      .text(worker.devices)
                      .text(join_commas(worker.hot_circuits))
                      .i64(worker.running)
                      .i64(worker.started_unix_ms))
            .status());
    if (held.empty()) return ok_status();
    std::vector<int64_t> ids, fences;
    for (const auto& [id, fence] : held) {
      ids.push_back(int64_t(id));
      fences.push_back(int64_t(fence));
    }
    ZKP_ASSIGN_OR_RETURN(
        PgRows renewed,
        conn_.exec(
            "heartbeat",
            "UPDATE zk_job j SET lease_until_ms = " ZKP_PG_NOW_MS " + $4 "
            "FROM unnest($1::bigint[], $2::bigint[]) AS h(id, fence) "
            "WHERE j.id = h.id AND j.fence = h.fence AND j.state = 'running' "
            "AND j.owner = $3 RETURNING j.id, j.cancel_requested",
            PgParams().i64_array(ids).i64_array(fences).text(worker.name).i64(config_.lease_ms)));
    std::map<int64_t, bool> kept;
    for (int r = 0; r < renewed.size(); ++r) kept[renewed.i64(r, 0)] = renewed.boolean(r, 1);
    for (const auto& [id, fence] : held) {
      auto it = kept.find(int64_t(id));
      if (it == kept.end())
        reply.lost.push_back(id);
      else if (it->second)
        reply.cancel_requested.push_back(id);
    }
    return ok_status();
  });
  if (!s.ok()) return s;
  return reply;
}

}  // namespace zkpipe::store
