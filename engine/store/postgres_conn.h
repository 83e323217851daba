// postgres_conn.h: private to engine/store. One libpq connection of the PostgreSQL job store:
// connect (with a connect, statement and TCP timeout unless the conninfo sets them), reconnect
// a lost session at most once per call (with back-off between failed tries), parameterized
// statements only (values never enter the SQL text), binary results, and transactions that a
// failure always rolls back. Every message names "store postgres <conninfo>" without a password.
// Thread-safety: none; the store serializes its connection with a mutex.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "zkpipe/sdk/status.h"
#include "zkpipe/store/store_clock.h"

struct pg_conn;
struct pg_result;

namespace zkpipe::store {

// The values of one statement's $1, $2, ... in order, typed: text, bigint, boolean and arrays as
// text; bytea in binary. Bytes are referenced, not copied: keep them alive until the statement ran.
class PgParams {
 public:
  PgParams& text(std::string_view value);
  PgParams& i64(int64_t value);
  PgParams& boolean(bool value);
  PgParams& bytes(std::span<const uint8_t> value);
  PgParams& null_i64();
  PgParams& text_array(const std::vector<std::string>& values);
  PgParams& i64_array(const std::vector<int64_t>& values);
  PgParams& bytes_array(const std::vector<std::vector<uint8_t>>& values);  // as hex text

  int size() const { return static_cast<int>(values_.size()); }
  const uint32_t* types() const { return types_.data(); }
  const char* const* values() const { return values_.data(); }
  const int* lengths() const { return lengths_.data(); }
  const int* formats() const { return formats_.data(); }

 private:
  PgParams& add(uint32_t type, std::string text);
  std::deque<std::string> storage_;  // stable addresses for values_
  std::vector<uint32_t> types_;
  std::vector<const char*> values_;
  std::vector<int> lengths_, formats_;
};

// A statement's rows, in binary: integers are read whatever their width (cast counts and
// expressions to bigint or int in SQL); a NULL reads as 0, false or empty.
class PgRows {
 public:
  explicit PgRows(pg_result* result);
  int size() const;
  int64_t affected() const;  // rows an INSERT/UPDATE/DELETE changed
  bool is_null(int row, int col) const;
  int64_t i64(int row, int col) const;
  bool boolean(int row, int col) const;
  std::string text(int row, int col) const;
  std::span<const uint8_t> bytes(int row, int col) const;

 private:
  std::shared_ptr<pg_result> result_;
};

class PgConn {
 public:
  // `application_name`: how pg_stat_activity names the session unless the conninfo or
  // PGAPPNAME does ("zkpipe gpu-node-3"). `clock`: the test clock seam (null in production);
  // its offset is kept in the session's zkpipe.clock_offset_ms, which ZKP_PG_NOW_MS adds.
  explicit PgConn(std::string conninfo, std::string application_name = "zkpipe",
                  std::shared_ptr<const StoreClock> clock = nullptr);
  ~PgConn();
  PgConn(const PgConn&) = delete;
  PgConn& operator=(const PgConn&) = delete;

  // "postgres host=db1 dbname=zkpipe" (never a password).
  const std::string& describe() const { return describe_; }

  // The first connection (at open): UNAVAILABLE naming the conninfo, libpq's reason and what to
  // check; INVALID_ARGUMENT for a conninfo libpq cannot parse.
  Status connect();

  // One statement outside or inside a transaction. A lost connection is UNAVAILABLE
  // "connection lost (...); reconnecting" (the next call reconnects); `what` names the step.
  Result<PgRows> exec(std::string_view what, const char* sql, const PgParams& params = {});
  // The SQLSTATE of the last failed statement ("23505"), empty when it had none.
  const std::string& last_sqlstate() const { return last_sqlstate_; }

  // Runs `body` in one READ COMMITTED transaction: committed when it returns OK, else rolled
  // back (also when the connection dropped: then on the next use). Reconnects first if needed.
  Status transaction(std::string_view what, const std::function<Status()>& body);

 private:
  // Makes the session usable: reconnects a lost one (at most once per call; failed tries back
  // off up to 5 s), rolls back a transaction a failure left open.
  Status ready();
  Status setup_session();
  // Sets the session's zkpipe.clock_offset_ms to the test clock's offset when it moved.
  Status sync_clock();
  Status failure(std::string_view what, pg_result* result);
  std::string libpq_message(std::string_view text) const;
  Status lost(const std::string& reason) const;

  std::string conninfo_, application_name_, describe_, password_;
  pg_conn* conn_ = nullptr;
  std::string last_sqlstate_, last_loss_;
  std::chrono::steady_clock::time_point next_reconnect_{};
  int64_t reconnect_delay_ms_ = 0;
  bool in_transaction_ = false;
  std::shared_ptr<const StoreClock> clock_;
  int64_t session_offset_ms_ = 0;  // what this session's zkpipe.clock_offset_ms says
};

}  // namespace zkpipe::store
