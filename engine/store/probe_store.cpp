// probe_store.cpp: probe_store of zkpipe/store/job_store.h: a store looked at as `zkpipe serve`
// would open it, for `zkpipe-tool validate`, without writing, creating or locking anything
// (a shared flock taken and dropped at once only tells whether a daemon holds the file).
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

#include <fmt/core.h>

#include "postgres_conn.h"
#include "stores.h"

namespace zkpipe::store {
namespace {

namespace fs = std::filesystem;

// The nearest directory of `path` that exists (serve makes the missing ones below it).
fs::path existing_ancestor(const fs::path& path) {
  std::error_code ec;
  fs::path dir = path.parent_path();
  while (!dir.empty() && !fs::exists(dir, ec)) dir = dir.parent_path();
  return dir.empty() ? fs::path(".") : dir;
}

Result<int> schema_version(const std::string& path) {
  sqlite3* raw = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
  struct Closer {
    sqlite3* db;
    ~Closer() { sqlite3_close_v2(db); }
  } closer{raw};
  if (rc != SQLITE_OK) {
    return unavailable("store " + path + ": cannot open it: " + sqlite3_errstr(rc));
  }
  sqlite3_busy_timeout(raw, 5000);
  auto scalar = [&](const char* sql, std::string& out) -> Status {
    sqlite3_stmt* st = nullptr;
    int r = sqlite3_prepare_v2(raw, sql, -1, &st, nullptr);
    if (r == SQLITE_OK) r = sqlite3_step(st);
    if (r == SQLITE_ROW) {
      const unsigned char* v = sqlite3_column_text(st, 0);
      out = v ? reinterpret_cast<const char*>(v) : "";
      r = SQLITE_DONE;
    }
    sqlite3_finalize(st);
    if (r != SQLITE_DONE) {
      return failed_precondition("store " + path + ": not an SQLite database it can read (" +
                                 sqlite3_errmsg(raw) + ")");
    }
    return ok_status();
  };
  std::string tables, meta;
  ZKP_RETURN_IF_ERROR(scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table'", tables));
  if (tables == "0") return 0;
  ZKP_RETURN_IF_ERROR(
      scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'zk_meta'", meta));
  if (meta != "1") {
    return failed_precondition("store " + path +
                               ": a database of something else (tables, no zk_meta); set "
                               "store.sqlite.path to another file");
  }
  std::string version;
  ZKP_RETURN_IF_ERROR(scalar("SELECT value FROM zk_meta WHERE key = 'schema_version'", version));
  return std::atoi(version.c_str());
}

Result<std::string> probe_sqlite(const std::string& path) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (!fs::exists(st)) {
    const fs::path dir = existing_ancestor(path);
    if (::access(dir.c_str(), W_OK | X_OK) != 0) {
      return unavailable(
          fmt::format("store {}: not there yet, and serve cannot create it: {} is "
                      "not writable by this user ({})",
                      path, dir.string(), std::strerror(errno)));
    }
    return "sqlite " + path + ": not there yet; serve creates it (" + dir.string() +
           " is writable)";
  }
  if (!fs::is_regular_file(st)) return failed_precondition("store " + path + ": not a file");
  if (::access(path.c_str(), R_OK | W_OK) != 0) {
    return unavailable(fmt::format("store {}: not readable and writable by this user ({})", path,
                                   std::strerror(errno)));
  }
  std::string holder;
  if (const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC); fd >= 0) {
    if (::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
      holder = holder_pid(path + ".lock");
    } else {
      ::flock(fd, LOCK_UN);
    }
    ::close(fd);
  }
  ZKP_ASSIGN_OR_RETURN(const int version, schema_version(path));
  if (version > kSchemaVersion) {
    return failed_precondition(fmt::format(
        "store {}: schema version {} is newer than this build's ({}); use a newer zkpipe", path,
        version, kSchemaVersion));
  }
  std::string out = version == 0 ? fmt::format("sqlite {}: empty; serve makes the schema", path)
                                 : fmt::format("sqlite {}: schema version {}", path, version);
  if (!holder.empty()) out += "; in use by pid " + holder + " (a running daemon)";
  return out;
}

Result<std::string> probe_postgres(const StoreConfig& config) {
  PgConn conn(config.postgres_conninfo, "zkpipe validate");
  ZKP_RETURN_IF_ERROR(conn.connect());
  ZKP_ASSIGN_OR_RETURN(PgRows has,
                       conn.exec("validate: schema", "SELECT to_regclass('zk_meta') IS NOT NULL"));
  if (has.size() == 0 || !has.boolean(0, 0)) {
    return conn.describe() + ": connected; no zkpipe schema yet (serve makes it)";
  }
  ZKP_ASSIGN_OR_RETURN(PgRows v, conn.exec("validate: schema version",
                                           "SELECT value FROM zk_meta WHERE key = "
                                           "'schema_version'"));
  const int version = v.size() == 0 ? 0 : std::atoi(v.text(0, 0).c_str());
  if (version > kSchemaVersion) {
    return failed_precondition(fmt::format(
        "store {}: schema version {} is newer than this build's ({}); use a newer zkpipe",
        conn.describe(), version, kSchemaVersion));
  }
  return fmt::format("{}: connected; schema version {}", conn.describe(), version);
}

}  // namespace

Result<std::string> probe_store(const StoreConfig& config) {
  if (config.backend == "sqlite") {
    if (config.sqlite_path.empty()) {
      return invalid_argument("store.sqlite.path is empty (the caller resolves the default)");
    }
    return probe_sqlite(config.sqlite_path);
  }
  if (config.backend == "postgres") return probe_postgres(config);
  return invalid_argument("store.backend '" + echo_value(config.backend) +
                          "' is not one of: sqlite, postgres");
}

}  // namespace zkpipe::store
