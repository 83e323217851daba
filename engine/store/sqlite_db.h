// sqlite_db.h: private to engine/store. A thin RAII layer over Debian's SQLite 3 C API for the
// SQLite job store: one connection (SqliteDb), prepared statements (Stmt) whose bind errors
// surface at step, and a BEGIN IMMEDIATE transaction that rolls back unless committed. Every
// error is a Status "store sqlite <path>: <operation>: <sqlite message>".
// Thread-safety: none; the store serializes its connection under its own mutex.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "zkpipe/sdk/status.h"
#include "zkpipe/store/store_clock.h"

namespace zkpipe::store {

class SqliteDb {
 public:
  // `clock`: the test clock seam (null in production), added to every now_ms().
  SqliteDb(sqlite3* db, std::string path, std::shared_ptr<const StoreClock> clock = nullptr)
      : db_(db), path_(std::move(path)), clock_(std::move(clock)) {}
  ~SqliteDb() { sqlite3_close_v2(db_); }
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  sqlite3* handle() const { return db_; }
  const std::string& path() const { return path_; }

  // The connection's last error for SQLite result `rc`, as a Status naming path and operation.
  Status error(std::string_view op, int rc) const;
  // Runs SQL text of one or more statements without results.
  Status exec(std::string_view op, const char* sql);
  // The database's clock: unix milliseconds (plus the test clock's offset when there is one).
  Result<int64_t> now_ms(std::string_view op);
  int64_t changes() const { return sqlite3_changes64(db_); }

 private:
  sqlite3* db_;
  std::string path_;
  std::shared_ptr<const StoreClock> clock_;
};

// A prepared statement; bind with 1-based indexes, then step() or run().
class Stmt {
 public:
  Stmt(SqliteDb& db, std::string_view op, std::string_view sql);
  ~Stmt() { sqlite3_finalize(stmt_); }
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  Stmt& bind(int i, int64_t value);
  Stmt& bind(int i, std::string_view text);
  Stmt& bind_blob(int i, std::span<const uint8_t> bytes);
  Stmt& bind_null(int i);
  // NULL for an empty string (request ids, owners).
  Stmt& bind_text_or_null(int i, std::string_view text);
  Stmt& bind_i64_or_null(int i, std::optional<int64_t> value);

  // True: a row is ready; false: done.
  Result<bool> step();
  // Steps to the end (a statement without rows).
  Status run();
  // Ready for another run with new bindings.
  void reset();

  int64_t i64(int col) const { return sqlite3_column_int64(stmt_, col); }
  bool is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  std::optional<int64_t> i64_or_null(int col) const;
  std::string text(int col) const;
  std::vector<uint8_t> blob(int col) const;

 private:
  void note(int rc);

  SqliteDb& db_;
  std::string op_;
  sqlite3_stmt* stmt_ = nullptr;
  int first_error_ = SQLITE_OK;
};

// BEGIN IMMEDIATE (the write lock now, so no transaction upgrades and deadlocks later); rolls
// back when destroyed uncommitted.
class Transaction {
 public:
  explicit Transaction(SqliteDb& db) : db_(db) {}
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  Status begin(std::string_view op);
  Status commit(std::string_view op);

 private:
  SqliteDb& db_;
  bool open_ = false;
};

}  // namespace zkpipe::store
