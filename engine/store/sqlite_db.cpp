// sqlite_db.cpp: see sqlite_db.h.
#include "sqlite_db.h"

namespace zkpipe::store {
namespace {

// What a caller can do about a failure decides its code: busy or out of disk is the machine's
// state; a damaged or foreign file is a precondition; the rest is unexpected.
Code code_of(int rc) {
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_IOERR:
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
      return Code::kUnavailable;
    case SQLITE_FULL:
    case SQLITE_NOMEM:
      return Code::kResourceExhausted;
    case SQLITE_NOTADB:
    case SQLITE_CORRUPT:
    case SQLITE_SCHEMA:
      return Code::kFailedPrecondition;
    case SQLITE_TOOBIG:
    case SQLITE_RANGE:
    case SQLITE_MISMATCH:
    case SQLITE_CONSTRAINT:
      return Code::kInvalidArgument;
    default:
      return Code::kInternal;
  }
}

}  // namespace

Status SqliteDb::error(std::string_view op, int rc) const {
  std::string message = "store sqlite " + path_ + ": " + std::string(op) + ": ";
  const char* text = db_ ? sqlite3_errmsg(db_) : nullptr;
  // errmsg may describe a later call than rc's; name rc's own text when they differ.
  if (text != nullptr && db_ != nullptr && sqlite3_extended_errcode(db_) == rc) {
    message += text;
  } else {
    message += sqlite3_errstr(rc);
  }
  return Status(code_of(rc), std::move(message));
}

Status SqliteDb::exec(std::string_view op, const char* sql) {
  const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return error(op, rc);
  return ok_status();
}

Result<int64_t> SqliteDb::now_ms(std::string_view op) {
  Stmt now(*this, op, "SELECT CAST(ROUND((julianday('now') - 2440587.5) * 86400000) AS INTEGER)");
  ZKP_ASSIGN_OR_RETURN(bool row, now.step());
  if (!row) return internal_error("store sqlite " + path_ + ": " + std::string(op) + ": no clock");
  return now.i64(0) + (clock_ ? clock_->offset_ms() : 0);
}

Stmt::Stmt(SqliteDb& db, std::string_view op, std::string_view sql) : db_(db), op_(op) {
  note(sqlite3_prepare_v2(db_.handle(), sql.data(), static_cast<int>(sql.size()), &stmt_, nullptr));
}

void Stmt::note(int rc) {
  if (rc != SQLITE_OK && first_error_ == SQLITE_OK) first_error_ = rc;
}

Stmt& Stmt::bind(int i, int64_t value) {
  if (stmt_) note(sqlite3_bind_int64(stmt_, i, value));
  return *this;
}

Stmt& Stmt::bind(int i, std::string_view text) {
  if (stmt_) {
    note(sqlite3_bind_text64(stmt_, i, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8));
  }
  return *this;
}

Stmt& Stmt::bind_blob(int i, std::span<const uint8_t> bytes) {
  // A zero-length blob, not NULL, for an empty input: a non-null pointer is what tells them apart.
  static const uint8_t kEmpty = 0;
  const void* data = bytes.empty() ? &kEmpty : bytes.data();
  if (stmt_) note(sqlite3_bind_blob64(stmt_, i, data, bytes.size(), SQLITE_TRANSIENT));
  return *this;
}

Stmt& Stmt::bind_null(int i) {
  if (stmt_) note(sqlite3_bind_null(stmt_, i));
  return *this;
}

Stmt& Stmt::bind_text_or_null(int i, std::string_view text) {
  return text.empty() ? bind_null(i) : bind(i, text);
}

Stmt& Stmt::bind_i64_or_null(int i, std::optional<int64_t> value) {
  return value ? bind(i, *value) : bind_null(i);
}

Result<bool> Stmt::step() {
  if (first_error_ != SQLITE_OK) return db_.error(op_, first_error_);
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  first_error_ = rc;
  return db_.error(op_, rc);
}

Status Stmt::run() {
  for (;;) {
    ZKP_ASSIGN_OR_RETURN(bool row, step());
    if (!row) return ok_status();
  }
}

void Stmt::reset() {
  if (stmt_ == nullptr) return;
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  first_error_ = SQLITE_OK;
}

std::optional<int64_t> Stmt::i64_or_null(int col) const {
  if (is_null(col)) return std::nullopt;
  return i64(col);
}

std::string Stmt::text(int col) const {
  const auto* p = sqlite3_column_text(stmt_, col);
  if (p == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(p),
                     static_cast<size_t>(sqlite3_column_bytes(stmt_, col)));
}

std::vector<uint8_t> Stmt::blob(int col) const {
  const auto* p = static_cast<const uint8_t*>(sqlite3_column_blob(stmt_, col));
  const int n = sqlite3_column_bytes(stmt_, col);
  if (p == nullptr || n <= 0) return {};
  return {p, p + n};
}

Transaction::~Transaction() {
  if (open_) sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

Status Transaction::begin(std::string_view op) {
  ZKP_RETURN_IF_ERROR(db_.exec(op, "BEGIN IMMEDIATE"));
  open_ = true;
  return ok_status();
}

Status Transaction::commit(std::string_view op) {
  ZKP_RETURN_IF_ERROR(db_.exec(op, "COMMIT"));
  open_ = false;
  return ok_status();
}

}  // namespace zkpipe::store
