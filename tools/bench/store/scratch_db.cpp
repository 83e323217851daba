// scratch_db.cpp: see scratch_db.h. Plain libpq: the statements here have no parameters, and the
// database name is made of digits and [a-z_] only.
#include "scratch_db.h"

#include <fmt/core.h>
#include <libpq-fe.h>
#include <unistd.h>

#include <string_view>

namespace zkpipe::bench {
namespace {

struct Finish {
  void operator()(PGconn* conn) const { PQfinish(conn); }
};
using Conn = std::unique_ptr<PGconn, Finish>;

std::string trimmed(const char* message) {
  std::string out = message ? message : "";
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return out;
}

void ignore_notice(void*, const char*) {}  // "database ... does not exist, skipping"

Result<Conn> connect(const std::string& conninfo) {
  Conn conn(PQconnectdb(conninfo.c_str()));
  if (!conn) return unavailable("postgres: out of memory connecting");
  if (PQstatus(conn.get()) != CONNECTION_OK) {
    return unavailable("postgres: cannot connect (" + trimmed(PQerrorMessage(conn.get())) +
                       "); give --conninfo or PG* (tests/store/with_postgres.sh starts a "
                       "throw-away server)");
  }
  PQsetNoticeProcessor(conn.get(), ignore_notice, nullptr);
  return conn;
}

Status exec(PGconn* conn, const std::string& sql) {
  PGresult* result = PQexec(conn, sql.c_str());
  const bool ok = result && PQresultStatus(result) == PGRES_COMMAND_OK;
  const std::string why = result ? trimmed(PQresultErrorMessage(result)) : "out of memory";
  PQclear(result);
  return ok ? ok_status() : unavailable("postgres: " + sql + ": " + why);
}

// A server setting as SHOW prints it ("on"); "?" when it cannot be read.
std::string show(PGconn* conn, const std::string& setting) {
  PGresult* result = PQexec(conn, ("SHOW " + setting).c_str());
  const bool ok = result && PQresultStatus(result) == PGRES_TUPLES_OK && PQntuples(result) == 1;
  std::string value = ok ? PQgetvalue(result, 0, 0) : "?";
  PQclear(result);
  return value;
}

// A conninfo value in single quotes (libpq: backslash escapes ' and \).
std::string quoted(std::string_view value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

// `conninfo` (key=value or URI) as key=value with dbname replaced.
Result<std::string> with_dbname(const std::string& conninfo, const std::string& name) {
  char* err = nullptr;
  PQconninfoOption* options = PQconninfoParse(conninfo.c_str(), &err);
  if (!options) {
    const bool secret =
        conninfo.find("password") != std::string::npos || conninfo.find('@') != std::string::npos;
    const std::string why = err && !secret ? trimmed(err) : "its text is not repeated here";
    if (err) PQfreemem(err);
    return invalid_argument("--conninfo is not a libpq connection string (" + why + ")");
  }
  std::string out;
  for (const PQconninfoOption* o = options; o->keyword; ++o) {
    if (!o->val || std::string_view(o->keyword) == "dbname") continue;
    out += std::string(o->keyword) + "=" + quoted(o->val) + " ";
  }
  PQconninfoFree(options);
  return out + "dbname=" + quoted(name);
}

}  // namespace

Result<std::unique_ptr<ScratchDatabase>> ScratchDatabase::create(const std::string& conninfo) {
  const std::string name = "zkpipe_bench_" + std::to_string(::getpid());
  ZKP_ASSIGN_OR_RETURN(std::string bench_conninfo, with_dbname(conninfo, name));
  ZKP_ASSIGN_OR_RETURN(Conn admin, connect(conninfo));
  const std::string server = "server " + trimmed(PQparameterStatus(admin.get(), "server_version")) +
                             ", fsync " + show(admin.get(), "fsync") + ", synchronous_commit " +
                             show(admin.get(), "synchronous_commit");
  ZKP_RETURN_IF_ERROR(exec(admin.get(), "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"));
  ZKP_RETURN_IF_ERROR(exec(admin.get(), "CREATE DATABASE " + name));
  return std::unique_ptr<ScratchDatabase>(
      new ScratchDatabase(conninfo, name, std::move(bench_conninfo), server));
}

ScratchDatabase::~ScratchDatabase() {
  Result<Conn> admin = connect(admin_conninfo_);
  Status dropped = admin.ok()
                       ? exec(admin->get(), "DROP DATABASE IF EXISTS " + name_ + " WITH (FORCE)")
                       : admin.status();
  if (!dropped.ok()) {
    fmt::print(stderr, "zkpipe-bench-store: database {} was not dropped: {}\n", name_,
               dropped.to_string());
  }
}

}  // namespace zkpipe::bench
