// postgres_store.h: private to engine/store. The PostgreSQL JobStore: many `zkpipe serve`
// daemons share one queue. Claims take rows with SELECT ... FOR UPDATE SKIP LOCKED, every write
// of an owner names its fence, every time is the database's clock; the SQL stays within what
// YugabyteDB's YSQL runs (READ COMMITTED, plain tables, no LISTEN/NOTIFY, no advisory locks).
// Operations: postgres_store.cpp (open, submit, claim, heartbeat), postgres_owner.cpp (the
// owner's fenced writes, cancel), postgres_queries.cpp (reads, reap, expire, workers),
// postgres_schema.cpp (tables and migration); postgres_conn.{h,cpp} is the libpq connection.
// Thread-safety: every member is thread-safe; one connection per store, serialized by a mutex.
#pragma once

#include <mutex>

#include "postgres_conn.h"
#include "zkpipe/store/job_store.h"

namespace zkpipe::store {

// The store's milliseconds since the unix epoch, from the database's clock, plus the session's
// zkpipe.clock_offset_ms (the test clock seam, zkpipe/store/store_clock.h; unset: 0).
#define ZKP_PG_NOW_MS                                          \
  "((extract(epoch from clock_timestamp()) * 1000)::bigint + " \
  "coalesce(nullif(current_setting('zkpipe.clock_offset_ms', true), ''), '0')::bigint)"

// zk_worker.hot_circuits: the circuit ids joined by commas (as the SQLite store keeps them).
std::string join_commas(const std::vector<std::string>& items);
std::vector<std::string> split_commas(const std::string& text);

// Creates the tables or checks them (one transaction; daemons starting together are fine).
// FAILED_PRECONDITION when the database has a newer schema than kSchemaVersion.
Status migrate_postgres_schema(PgConn& conn);

class PostgresStore final : public JobStore {
 public:
  explicit PostgresStore(const StoreConfig& config);
  Status open();  // connects and migrates

  std::string describe() const override { return conn_.describe(); }
  Result<Submitted> submit(const NewJob& job) override;
  Result<std::vector<Claimed>> claim(const std::string& worker, const ClaimFilter& filter) override;
  Result<HeartbeatReply> heartbeat(const WorkerInfo& worker,
                                   const std::vector<std::pair<uint64_t, uint64_t>>& held) override;
  Status checkpoint(uint64_t id, uint64_t fence, uint32_t position,
                    std::span<const uint8_t> proof) override;
  Result<bool> complete(uint64_t id, uint64_t fence, std::span<const uint8_t> result) override;
  Result<bool> fail(uint64_t id, uint64_t fence, Code code, const std::string& message,
                    bool retryable) override;
  Result<bool> cancelled(uint64_t id, uint64_t fence) override;
  Result<bool> release(uint64_t id, uint64_t fence) override;
  Result<CancelReply> cancel(uint64_t id) override;
  Result<std::optional<JobRecord>> get(uint64_t id, bool with_result) override;
  Result<std::optional<JobRecord>> find_request(const std::string& request_id,
                                                bool with_result) override;
  Result<std::vector<JobRecord>> list(std::optional<JobState> state, size_t limit) override;
  Result<QueueCounts> counts() override;
  Result<size_t> reap() override;
  Result<size_t> expire() override;
  Result<std::vector<WorkerInfo>> workers(int64_t within_ms) override;

 private:
  // Inside a transaction: the job's stored input, read back from its chunks and checked; a torn
  // one fails the job (and drops its chunks, so that a new submit stores them again).
  Result<std::optional<std::vector<uint8_t>>> read_input(uint64_t id, const PgRows& job, int row);
  Status store_input(std::span<const uint8_t> input, std::span<const uint8_t> digest);
  Result<std::vector<JobRecord>> records(const char* where_sql, const PgParams& params,
                                         bool with_result);
  Result<bool> fenced_update(std::string_view what, const char* sql, const PgParams& params);

  const StoreConfig config_;
  std::mutex mutex_;
  PgConn conn_;  // guarded by mutex_
};

}  // namespace zkpipe::store
