// postgres_conn.cpp: see postgres_conn.h.
#include "postgres_conn.h"

#include <libpq-fe.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>

#include "store_common.h"

namespace zkpipe::store {
namespace {

// PostgreSQL type oids (pg_type.dat) of the parameters we send.
constexpr Oid kBoolOid = 16, kByteaOid = 17, kInt8Oid = 20, kTextOid = 25;
constexpr Oid kByteaArrayOid = 1001, kTextArrayOid = 1009, kInt8ArrayOid = 1016;

// Defaults a conninfo (or the PG* environment) may override; keyword order matters to
// PQconnectdbParams: later ones win, and the conninfo comes last.
struct ConnectDefault {
  const char* keyword;
  const char* value;
  const char* env;  // when this variable is set, libpq's own default applies
};
constexpr ConnectDefault kDefaults[] = {
    {"connect_timeout", "5", "PGCONNECT_TIMEOUT"},
    // A server that vanished from the network (no RST) is noticed within about a minute.
    {"keepalives_idle", "30", nullptr},
    {"keepalives_interval", "10", nullptr},
    {"keepalives_count", "3", nullptr},
    {"tcp_user_timeout", "60000", nullptr},
};

// Per session, unless the server, role, database or PGOPTIONS already chose one.
constexpr const char* kSessionSql =
    "SELECT set_config('statement_timeout', '30s', false) "
    "WHERE current_setting('statement_timeout') = '0'";

void ignore_notice(void*, const char*) {}  // "relation ... already exists, skipping"

std::string array_literal(const std::vector<std::string>& values) {
  std::string out = "{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += ',';
    out += '"';
    for (char c : values[i]) {
      if (c == '"' || c == '\\') out += '\\';
      out += c;
    }
    out += '"';
  }
  return out + "}";
}

Code code_of_sqlstate(const std::string& state) {
  if (state == "57014") return Code::kDeadlineExceeded;                 // statement_timeout
  if (state == "40001" || state == "40P01") return Code::kUnavailable;  // retry the call
  if (state.rfind("53", 0) == 0) return Code::kResourceExhausted;       // disk full, out of memory
  return Code::kInternal;
}

bool is_connection_state(const std::string& state) {
  return state.rfind("08", 0) == 0 || state == "57P01" || state == "57P02" || state == "57P03";
}

}  // namespace

PgParams& PgParams::add(uint32_t type, std::string text) {
  storage_.push_back(std::move(text));
  types_.push_back(type);
  values_.push_back(storage_.back().c_str());
  lengths_.push_back(0);
  formats_.push_back(0);
  return *this;
}

PgParams& PgParams::text(std::string_view value) {
  return add(kTextOid, std::string(value));
}
PgParams& PgParams::i64(int64_t value) {
  return add(kInt8Oid, std::to_string(value));
}
PgParams& PgParams::boolean(bool value) {
  return add(kBoolOid, value ? "t" : "f");
}
PgParams& PgParams::text_array(const std::vector<std::string>& values) {
  return add(kTextArrayOid, array_literal(values));
}
PgParams& PgParams::i64_array(const std::vector<int64_t>& values) {
  std::string out = "{";
  for (size_t i = 0; i < values.size(); ++i) out += (i ? "," : "") + std::to_string(values[i]);
  return add(kInt8ArrayOid, out + "}");
}

PgParams& PgParams::bytes_array(const std::vector<std::vector<uint8_t>>& values) {
  std::vector<std::string> texts;
  for (const auto& v : values) texts.push_back("\\x" + hex(v));
  return add(kByteaArrayOid, array_literal(texts));
}

PgParams& PgParams::bytes(std::span<const uint8_t> value) {
  static const char kEmpty = 0;  // a null pointer would send SQL NULL
  types_.push_back(kByteaOid);
  values_.push_back(value.empty() ? &kEmpty : reinterpret_cast<const char*>(value.data()));
  lengths_.push_back(static_cast<int>(value.size()));
  formats_.push_back(1);
  return *this;
}

PgParams& PgParams::null_i64() {
  types_.push_back(kInt8Oid);
  values_.push_back(nullptr);
  lengths_.push_back(0);
  formats_.push_back(0);
  return *this;
}

PgRows::PgRows(pg_result* result) : result_(result, PQclear) {}

int PgRows::size() const {
  return PQntuples(result_.get());
}
int64_t PgRows::affected() const {
  return std::atoll(PQcmdTuples(result_.get()));
}
bool PgRows::is_null(int row, int col) const {
  return PQgetisnull(result_.get(), row, col) != 0;
}

int64_t PgRows::i64(int row, int col) const {
  if (is_null(row, col)) return 0;
  const auto* p = reinterpret_cast<const uint8_t*>(PQgetvalue(result_.get(), row, col));
  const int n = PQgetlength(result_.get(), row, col);
  uint64_t v = (n > 0 && (p[0] & 0x80)) ? ~uint64_t{0} : 0;  // sign-extend
  for (int i = 0; i < n && i < 8; ++i) v = (v << 8) | p[i];
  return static_cast<int64_t>(v);
}

bool PgRows::boolean(int row, int col) const {
  return !is_null(row, col) && PQgetvalue(result_.get(), row, col)[0] != 0;
}

std::string PgRows::text(int row, int col) const {
  return std::string(PQgetvalue(result_.get(), row, col), PQgetlength(result_.get(), row, col));
}

std::span<const uint8_t> PgRows::bytes(int row, int col) const {
  const auto* p = reinterpret_cast<const uint8_t*>(PQgetvalue(result_.get(), row, col));
  return {p, static_cast<size_t>(PQgetlength(result_.get(), row, col))};
}

PgConn::PgConn(std::string conninfo, std::string application_name,
               std::shared_ptr<const StoreClock> clock)
    : conninfo_(std::move(conninfo)),
      application_name_(std::move(application_name)),
      clock_(std::move(clock)) {
  const std::string shown = conninfo_for_messages(conninfo_);  // "" for "password=..." alone
  describe_ = "postgres " + (shown.empty() ? conninfo_for_messages("") : shown);
}

PgConn::~PgConn() {
  if (conn_) PQfinish(conn_);
}

std::string PgConn::libpq_message(std::string_view text) const {
  // One line: libpq's lines joined by "; ", except an indented one (which continues a
  // sentence); runs of blanks as one space.
  std::string out;
  bool blank = false, line = false;
  for (char c : text) {
    if (c == '\n' || c == '\r') {
      line = !out.empty();
    } else if (c == ' ' || c == '\t') {
      blank = !out.empty();
      line = false;
    } else {
      if (line)
        out += "; ";
      else if (blank)
        out += ' ';
      line = blank = false;
      out += c;
    }
  }
  // libpq quotes parts of a bad conninfo; a password never reaches a message (one of under 4
  // characters is not searched for: it would blank out ordinary words).
  for (size_t at; password_.size() >= 4 && (at = out.find(password_)) != std::string::npos;) {
    out.replace(at, password_.size(), "***");
  }
  return out.empty() ? "no message from libpq" : out;
}

Status PgConn::lost(const std::string& reason) const {
  return unavailable("store " + describe_ + ": connection lost (" + reason + "); reconnecting");
}

Status PgConn::connect() {
  char* err = nullptr;
  PQconninfoOption* parsed = PQconninfoParse(conninfo_.c_str(), &err);
  if (!parsed) {
    const bool secret =
        conninfo_.find("password") != std::string::npos || conninfo_.find('@') != std::string::npos;
    std::string why = err && !secret ? libpq_message(err) : "its text is not repeated here";
    if (err) PQfreemem(err);
    return invalid_argument("store.postgres.conninfo is not a libpq connection string (" + why +
                            "); see 'Connection Strings' in the libpq manual");
  }
  for (PQconninfoOption* o = parsed; o->keyword; ++o) {
    if (std::string_view(o->keyword) == "password" && o->val) password_ = o->val;
  }
  PQconninfoFree(parsed);

  std::vector<const char*> keywords, values;
  if (!std::getenv("PGAPPNAME")) {
    keywords.push_back("application_name");
    values.push_back(application_name_.c_str());
  }
  for (const ConnectDefault& d : kDefaults) {
    if (d.env && std::getenv(d.env)) continue;
    keywords.push_back(d.keyword);
    values.push_back(d.value);
  }
  keywords.push_back("dbname");  // expanded: the conninfo's own settings win
  values.push_back(conninfo_.c_str());
  keywords.push_back(nullptr);
  values.push_back(nullptr);
  conn_ = PQconnectdbParams(keywords.data(), values.data(), 1);
  if (!conn_ || PQstatus(conn_) != CONNECTION_OK) {
    const std::string why = conn_ ? libpq_message(PQerrorMessage(conn_)) : "out of memory";
    if (conn_) PQfinish(conn_);
    conn_ = nullptr;
    return unavailable("store " + describe_ + ": cannot connect (" + why +
                       "); check store.postgres.conninfo, PGPASSWORD or ~/.pgpass, and that "
                       "the server is up and reachable");
  }
  PQsetNoticeProcessor(conn_, ignore_notice, nullptr);
  return setup_session();
}

Status PgConn::setup_session() {
  PGresult* r = PQexec(conn_, kSessionSql);
  const bool ok = r && PQresultStatus(r) == PGRES_TUPLES_OK;
  Status s = ok ? ok_status() : failure("setting the session's statement_timeout", r);
  PQclear(r);
  return s;
}

Status PgConn::sync_clock() {
  if (!clock_) return ok_status();
  const int64_t offset = clock_->offset_ms();
  if (offset == session_offset_ms_) return ok_status();
  const std::string text = std::to_string(offset);
  const char* values[] = {text.c_str()};
  PGresult* r = PQexecParams(conn_, "SELECT set_config('zkpipe.clock_offset_ms', $1, false)", 1,
                             nullptr, values, nullptr, nullptr, 0);
  const bool ok = r && PQresultStatus(r) == PGRES_TUPLES_OK;
  Status s = ok ? ok_status() : failure("moving the session's test clock", r);
  PQclear(r);
  if (ok) session_offset_ms_ = offset;
  return s;
}

Status PgConn::ready() {
  if (!conn_) return lost("never connected");
  if (PQstatus(conn_) == CONNECTION_OK) {
    if (!in_transaction_ && PQtransactionStatus(conn_) != PQTRANS_IDLE) {
      PQclear(PQexec(conn_, "ROLLBACK"));  // left by a failure; harmless when there is none
    }
    if (PQstatus(conn_) == CONNECTION_OK) return sync_clock();
  }
  const auto now = std::chrono::steady_clock::now();
  if (now < next_reconnect_) return lost(last_loss_);
  in_transaction_ = false;
  PQreset(conn_);
  if (PQstatus(conn_) == CONNECTION_OK) {
    reconnect_delay_ms_ = 0;
    next_reconnect_ = {};
    session_offset_ms_ = 0;  // a new session
    spdlog::info("store {}: reconnected", describe_);
    ZKP_RETURN_IF_ERROR(setup_session());
    return sync_clock();
  }
  last_loss_ = libpq_message(PQerrorMessage(conn_));
  reconnect_delay_ms_ = std::clamp<int64_t>(reconnect_delay_ms_ * 2, 250, 5'000);
  next_reconnect_ = now + std::chrono::milliseconds(reconnect_delay_ms_);
  return lost(last_loss_);
}

Status PgConn::failure(std::string_view what, pg_result* result) {
  const char* state = result ? PQresultErrorField(result, PG_DIAG_SQLSTATE) : nullptr;
  last_sqlstate_ = state ? state : "";
  const std::string why =
      libpq_message(result && *PQresultErrorMessage(result) ? PQresultErrorMessage(result)
                                                            : PQerrorMessage(conn_));
  if (PQstatus(conn_) != CONNECTION_OK || is_connection_state(last_sqlstate_)) {
    last_loss_ = why;
    spdlog::warn("store {}: {}: connection lost ({})", describe_, what, why);
    return lost(why);
  }
  return Status(code_of_sqlstate(last_sqlstate_),
                "store " + describe_ + ": " + std::string(what) + ": " + why);
}

Result<PgRows> PgConn::exec(std::string_view what, const char* sql, const PgParams& params) {
  if (!in_transaction_) ZKP_RETURN_IF_ERROR(ready());
  last_sqlstate_.clear();
  PGresult* r = PQexecParams(conn_, sql, params.size(), params.types(), params.values(),
                             params.lengths(), params.formats(), 1);
  const ExecStatusType st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
  if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) return PgRows(r);
  Status s = failure(what, r);
  PQclear(r);
  return s;
}

Status PgConn::transaction(std::string_view what, const std::function<Status()>& body) {
  ZKP_RETURN_IF_ERROR(ready());
  ZKP_RETURN_IF_ERROR(exec(what, "BEGIN ISOLATION LEVEL READ COMMITTED").status());
  in_transaction_ = true;
  Status s = body();
  if (s.ok() && PQtransactionStatus(conn_) == PQTRANS_INERROR) {
    s = internal_error("store " + describe_ + ": " + std::string(what) +
                       ": a statement failed inside the transaction");
  }
  if (s.ok()) s = exec(what, "COMMIT").status();
  in_transaction_ = false;
  if (!s.ok() && PQstatus(conn_) == CONNECTION_OK && PQtransactionStatus(conn_) != PQTRANS_IDLE) {
    PQclear(PQexec(conn_, "ROLLBACK"));
  }
  return s;
}

}  // namespace zkpipe::store
