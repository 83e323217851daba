// sqlite_store.cpp: the SQLite store's submit (the input in content-addressed chunks) and claim
// (in the claim order, each input checked against its SHA-256). Each call is one BEGIN IMMEDIATE
// transaction; its time is read once from the database's clock inside it.
#include <spdlog/spdlog.h>

#include <algorithm>

#include "sqlite_store.h"
#include "store_common.h"

namespace zkpipe::store {
namespace {

// "?5, ?6, ?7" for n parameters from `first`; "NULL" for none (an IN list that matches nothing).
std::string placeholders(int first, size_t n) {
  if (n == 0) return "NULL";
  std::string out;
  for (size_t i = 0; i < n; ++i) {
    if (i > 0) out += ", ";
    out += "?" + std::to_string(first + static_cast<int>(i));
  }
  return out;
}

}  // namespace

Status SqliteStore::store_input(std::span<const uint8_t> input, std::span<const uint8_t> digest) {
  constexpr std::string_view op = "submit: store the input";
  // A copy that checks out is shared; a torn or altered one is replaced.
  Stmt have(*db_, op, "SELECT 1 FROM zk_blob WHERE sha256 = ?1 LIMIT 1");
  ZKP_ASSIGN_OR_RETURN(bool stored, have.bind_blob(1, digest).step());
  if (stored) {
    ZKP_ASSIGN_OR_RETURN(auto copy, load_input(digest, static_cast<int64_t>(input.size())));
    if (copy) return ok_status();
    spdlog::warn(
        "store sqlite {}: the stored copy of input {} does not match its SHA-256; "
        "storing it again",
        config_.sqlite_path, hex(digest));
    Stmt drop(*db_, op, "DELETE FROM zk_blob WHERE sha256 = ?1");
    ZKP_RETURN_IF_ERROR(drop.bind_blob(1, digest).run());
  }
  const size_t chunk = std::max<uint64_t>(config_.chunk_bytes, 1);
  Stmt put(*db_, op, "INSERT INTO zk_blob (sha256, chunk, data) VALUES (?1, ?2, ?3)");
  for (size_t offset = 0, index = 0; offset < input.size(); offset += chunk, ++index) {
    put.reset();
    put.bind_blob(1, digest).bind(2, static_cast<int64_t>(index));
    put.bind_blob(3, input.subspan(offset, std::min(chunk, input.size() - offset)));
    ZKP_RETURN_IF_ERROR(put.run());
  }
  return ok_status();
}

Result<Submitted> SqliteStore::submit(const NewJob& job) {
  constexpr std::string_view op = "submit";
  const Digest digest = sha256(job.input);
  std::lock_guard<std::mutex> lock(mu_);
  Transaction txn(*db_);
  ZKP_RETURN_IF_ERROR(txn.begin(op));
  if (!job.request_id.empty()) {
    Stmt same(*db_, op, "SELECT id, proof_type, input_sha256 FROM zk_job WHERE request_id = ?1");
    ZKP_ASSIGN_OR_RETURN(bool found, same.bind(1, job.request_id).step());
    if (found) {
      const std::vector<uint8_t> stored = same.blob(2);
      if (same.text(1) == job.proof_type &&
          std::equal(stored.begin(), stored.end(), digest.begin(), digest.end())) {
        return Submitted{static_cast<uint64_t>(same.i64(0)), true};
      }
      return already_exists("request id '" + echo_value(job.request_id) + "' is taken by job " +
                            std::to_string(same.i64(0)) + " with another input or proof type");
    }
  }
  ZKP_ASSIGN_OR_RETURN(int64_t now, db_->now_ms(op));
  ZKP_RETURN_IF_ERROR(store_input(job.input, digest));
  Stmt insert(*db_, op,
              "INSERT INTO zk_job (request_id, proof_type, circuit_id, state, priority, "
              "deadline_ms, submitted_ms, not_before_ms, input_sha256, input_size, partitions) "
              "VALUES (?1, ?2, ?3, 'queued', ?4, ?5, ?6, ?6, ?7, ?8, ?9)");
  insert.bind_text_or_null(1, job.request_id).bind(2, job.proof_type).bind(3, job.circuit_id);
  insert.bind(4, int64_t{job.priority});
  insert.bind_i64_or_null(
      5, job.deadline_ms != 0 ? std::optional(now + job.deadline_ms) : std::nullopt);
  insert.bind(6, now).bind_blob(7, digest).bind(8, static_cast<int64_t>(job.input.size()));
  insert.bind(9, int64_t{job.partitions});
  ZKP_RETURN_IF_ERROR(insert.run());
  const auto id = static_cast<uint64_t>(sqlite3_last_insert_rowid(db_->handle()));
  ZKP_RETURN_IF_ERROR(txn.commit(op));
  return Submitted{id, false};
}

Result<std::optional<std::vector<uint8_t>>> SqliteStore::load_input(std::span<const uint8_t> digest,
                                                                    int64_t size) {
  using Torn = std::optional<std::vector<uint8_t>>;
  Stmt chunks(*db_, "read an input", "SELECT data FROM zk_blob WHERE sha256 = ?1 ORDER BY chunk");
  chunks.bind_blob(1, digest);
  std::vector<uint8_t> input;
  input.reserve(static_cast<size_t>(std::max<int64_t>(size, 0)));
  for (;;) {
    ZKP_ASSIGN_OR_RETURN(bool row, chunks.step());
    if (!row) break;
    const std::vector<uint8_t> data = chunks.blob(0);
    if (input.size() + data.size() > static_cast<size_t>(size)) return Torn();
    input.insert(input.end(), data.begin(), data.end());
  }
  const Digest actual = sha256(input);
  if (input.size() != static_cast<size_t>(size) ||
      !std::equal(actual.begin(), actual.end(), digest.begin(), digest.end())) {
    return Torn();
  }
  return std::optional(std::move(input));
}

Result<size_t> SqliteStore::claim_pass(const std::string& worker, const ClaimFilter& filter,
                                       size_t room, int64_t now, std::vector<Claimed>& out) {
  constexpr std::string_view op = "claim";
  const size_t n_types = filter.proof_types.size();
  const std::string sql =
      "SELECT id, request_id, proof_type, circuit_id, priority, deadline_ms, partitions, "
      "input_sha256, input_size, fence, attempts FROM zk_job "
      "WHERE state = 'queued' AND not_before_ms <= ?1 AND proof_type IN (" +
      placeholders(6, n_types) +
      ") AND (avoid_owner IS NULL OR avoid_owner != ?2 OR not_before_ms + ?3 <= ?1) "
      "AND (?4 IS NULL OR id = ?4) "
      "ORDER BY priority ASC, deadline_ms IS NULL, deadline_ms, circuit_id IN (" +
      placeholders(6 + static_cast<int>(n_types), filter.hot_circuits.size()) +
      ") DESC, id ASC LIMIT ?5";
  Stmt pick(*db_, op, sql);
  pick.bind(1, now).bind(2, worker).bind(3, config_.lease_ms);
  pick.bind_i64_or_null(
      4, filter.only_id ? std::optional(static_cast<int64_t>(*filter.only_id)) : std::nullopt);
  pick.bind(5, static_cast<int64_t>(room));
  int index = 6;
  for (const auto& t : filter.proof_types) pick.bind(index++, t);
  for (const auto& c : filter.hot_circuits) pick.bind(index++, c);

  struct Row {
    Claimed claimed;
    std::vector<uint8_t> digest;
    int64_t size = 0;
  };
  std::vector<Row> rows;
  for (;;) {
    ZKP_ASSIGN_OR_RETURN(bool more, pick.step());
    if (!more) break;
    Row r;
    r.claimed.id = static_cast<uint64_t>(pick.i64(0));
    r.claimed.request_id = pick.text(1);
    r.claimed.proof_type = pick.text(2);
    r.claimed.circuit_id = pick.text(3);
    r.claimed.priority = static_cast<uint8_t>(pick.i64(4));
    if (auto deadline = pick.i64_or_null(5)) r.claimed.deadline_left_ms = *deadline - now;
    r.claimed.partitions = static_cast<uint32_t>(pick.i64(6));
    r.digest = pick.blob(7);
    r.size = pick.i64(8);
    r.claimed.fence = static_cast<uint64_t>(pick.i64(9)) + 1;
    r.claimed.attempt = static_cast<uint32_t>(pick.i64(10)) + 1;
    rows.push_back(std::move(r));
  }

  Stmt torn(*db_, op,
            "UPDATE zk_job SET state = 'failed', error_code = 6, error = ?2, ended_ms = ?3, "
            "lease_until_ms = NULL WHERE id = ?1");
  Stmt take(*db_, op,
            "UPDATE zk_job SET state = 'running', owner = ?2, fence = fence + 1, "
            "attempts = attempts + 1, lease_until_ms = ?3 WHERE id = ?1");
  Stmt parts(*db_, op,
             "SELECT position, proof FROM zk_partition WHERE job_id = ?1 ORDER BY position");
  for (Row& r : rows) {
    ZKP_ASSIGN_OR_RETURN(std::optional<std::vector<uint8_t>> input, load_input(r.digest, r.size));
    const auto id = static_cast<int64_t>(r.claimed.id);
    if (!input) {
      const std::string message = "the stored input of job " + std::to_string(id) +
                                  " does not match its SHA-256 " + hex(r.digest) +
                                  " (torn or altered store file " + config_.sqlite_path +
                                  "); submit it again";
      spdlog::warn("store sqlite {}: claim: {}", config_.sqlite_path, message);
      torn.reset();
      ZKP_RETURN_IF_ERROR(torn.bind(1, id).bind(2, message).bind(3, now).run());
      continue;
    }
    take.reset();
    ZKP_RETURN_IF_ERROR(take.bind(1, id).bind(2, worker).bind(3, now + config_.lease_ms).run());
    parts.reset();
    parts.bind(1, id);
    for (;;) {
      ZKP_ASSIGN_OR_RETURN(bool more, parts.step());
      if (!more) break;
      r.claimed.checkpoints[static_cast<uint32_t>(parts.i64(0))] = parts.blob(1);
    }
    r.claimed.input = std::move(*input);
    out.push_back(std::move(r.claimed));
  }
  return rows.size();
}

Result<std::vector<Claimed>> SqliteStore::claim(const std::string& worker,
                                                const ClaimFilter& filter) {
  constexpr std::string_view op = "claim";
  std::vector<Claimed> out;
  if (filter.proof_types.empty() || filter.max_jobs == 0) return out;
  std::lock_guard<std::mutex> lock(mu_);
  Transaction txn(*db_);
  ZKP_RETURN_IF_ERROR(txn.begin(op));
  ZKP_ASSIGN_OR_RETURN(int64_t now, db_->now_ms(op));
  // A pass that met torn inputs (failed, not returned) leaves room: look again.
  while (out.size() < filter.max_jobs) {
    const size_t room = filter.max_jobs - out.size();
    const size_t before = out.size();
    ZKP_ASSIGN_OR_RETURN(size_t seen, claim_pass(worker, filter, room, now, out));
    if (seen < room || out.size() - before == seen) break;
  }
  ZKP_RETURN_IF_ERROR(txn.commit(op));
  return out;
}

}  // namespace zkpipe::store
