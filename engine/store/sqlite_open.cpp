// sqlite_open.cpp: open_sqlite_store (stores.h): the parent directory (0750) and the file
// (0600), the exclusive flock of the database file (our pid in "<path>.lock"), a check that the
// file is an SQLite database, WAL with synchronous=FULL, the schema (sqlite_schema.cpp) and the
// recovery of jobs a stopped daemon left running.
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>

#include "sqlite_schema.h"
#include "sqlite_store.h"
#include "stores.h"

namespace zkpipe::store {

// The pid the holder wrote into "<path>.lock"; "unknown" while it has not yet (or it is gone).
std::string holder_pid(const std::string& pid_path) {
  char buf[32] = {};
  const int fd = ::open(pid_path.c_str(), O_RDONLY | O_CLOEXEC);
  const ssize_t n = fd < 0 ? 0 : ::pread(fd, buf, sizeof(buf) - 1, 0);
  if (fd >= 0) ::close(fd);
  std::string pid;
  for (ssize_t i = 0; i < n && buf[i] >= '0' && buf[i] <= '9'; ++i) pid.push_back(buf[i]);
  return pid.empty() ? "unknown" : pid;
}

namespace {

constexpr int kBusyTimeoutMs = 10'000;

Status make_parent_dirs(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (parent.empty()) return ok_status();
  std::filesystem::path partial;
  for (const auto& part : parent) {
    partial /= part;
    if (::mkdir(partial.c_str(), 0750) == 0 || errno == EEXIST) continue;
    return unavailable("store " + path + ": cannot create the directory " + partial.string() +
                       ": " + errno_message(errno));
  }
  return ok_status();
}

// The lock is an exclusive flock of the database file itself (created here 0600, as SQLite would
// make it 0644; its -wal and -shm files take the mode from it), held until the store closes:
// deleting or replacing another file cannot let a second daemon in (issue 34 #12; it used to be
// the flock of a separate "<path>.lock"). flock and SQLite's own fcntl locks are independent;
// the store closes SQLite before this fd (SqliteStore's member order), so closing it drops none
// of SQLite's locks. "<path>.lock" only tells the holder's pid, for a refused daemon's message.
Result<std::unique_ptr<LockFile>> take_lock(const std::string& path) {
  const std::string pid_path = path + ".lock";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) {
    return unavailable("store " + path + ": cannot open for writing: " + errno_message(errno));
  }
  auto lock = std::make_unique<LockFile>(fd);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    if (err == EWOULDBLOCK) {
      return failed_precondition("store " + path + " is in use by another zkpipe serve (pid " +
                                 holder_pid(pid_path) +
                                 ", which holds the file's lock); one daemon per SQLite store "
                                 "(use store.backend: postgres for several)");
    }
    return unavailable("store " + path + ": cannot lock it: " + errno_message(err));
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  const int pid_fd = ::open(pid_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (pid_fd < 0 || ::write(pid_fd, pid.data(), pid.size()) != static_cast<ssize_t>(pid.size())) {
    const int err = errno;
    if (pid_fd >= 0) ::close(pid_fd);
    return unavailable("store " + path + ": cannot write our pid into " + pid_path + ": " +
                       errno_message(err));
  }
  ::close(pid_fd);
  return lock;
}

// The first read of the header tells an SQLite file from anything else.
Status check_is_sqlite(SqliteDb& db) {
  Stmt probe(db, "open", "SELECT count(*) FROM sqlite_master");
  Result<bool> row = probe.step();
  if (row.ok()) return ok_status();
  const int rc = sqlite3_extended_errcode(db.handle());
  if ((rc & 0xff) == SQLITE_NOTADB) {
    return failed_precondition("store " + db.path() +
                               " is not an SQLite database (its header is not SQLite's); move "
                               "it away or set store.sqlite.path to another file");
  }
  if ((rc & 0xff) == SQLITE_CORRUPT) {
    return failed_precondition("store " + db.path() +
                               " is a damaged SQLite database: " + row.status().message());
  }
  return row.status();
}

Status configure(SqliteDb& db) {
  Stmt wal(db, "open: journal_mode", "PRAGMA journal_mode=WAL");
  ZKP_ASSIGN_OR_RETURN(bool row, wal.step());
  const std::string mode = row ? wal.text(0) : std::string();
  if (mode != "wal") {
    return failed_precondition("store " + db.path() +
                               ": cannot use write-ahead logging (journal "
                               "mode stays '" +
                               mode + "'); is it on a network file system?");
  }
  return db.exec("open: pragmas", "PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;");
}

}  // namespace

LockFile::~LockFile() {
  ::flock(fd_, LOCK_UN);
  ::close(fd_);
}

SqliteStore::~SqliteStore() = default;

Result<size_t> SqliteStore::recover_orphans() {
  std::lock_guard<std::mutex> lock(mu_);
  constexpr std::string_view op = "open: recover running jobs";
  Transaction txn(*db_);
  ZKP_RETURN_IF_ERROR(txn.begin(op));
  ZKP_ASSIGN_OR_RETURN(int64_t now, db_->now_ms(op));
  Stmt cancelled(*db_, op,
                 "UPDATE zk_job SET state = 'cancelled', ended_ms = ?1, lease_until_ms = NULL, "
                 "error_code = 8, error = 'cancelled by a client' "
                 "WHERE state = 'running' AND cancel_requested != 0");
  ZKP_RETURN_IF_ERROR(cancelled.bind(1, now).run());
  const int64_t n_cancelled = db_->changes();
  Stmt failed(*db_, op,
              "UPDATE zk_job SET state = 'failed', ended_ms = ?1, lease_until_ms = NULL, "
              "error_code = 3, error = 'the daemon stopped while it ran (crash or kill); attempt ' "
              "|| attempts || ' of ' || ?2 || ', none left' "
              "WHERE state = 'running' AND attempts >= ?2");
  ZKP_RETURN_IF_ERROR(failed.bind(1, now).bind(2, config_.max_attempts).run());
  const int64_t n_failed = db_->changes();
  Stmt queued(*db_, op,
              "UPDATE zk_job SET state = 'queued', owner = NULL, lease_until_ms = NULL, "
              "not_before_ms = ?1, error_code = 3, error = 'the daemon stopped while it ran "
              "(crash or kill); re-queued at start' WHERE state = 'running'");
  ZKP_RETURN_IF_ERROR(queued.bind(1, now).run());
  const int64_t n_queued = db_->changes();
  ZKP_RETURN_IF_ERROR(txn.commit(op));
  const auto total = static_cast<size_t>(n_cancelled + n_failed + n_queued);
  if (total > 0) {
    spdlog::warn(
        "store sqlite {}: {} job(s) were left running by a daemon that stopped: {} re-queued, "
        "{} failed (out of attempts), {} cancelled (a client had asked)",
        config_.sqlite_path, total, n_queued, n_failed, n_cancelled);
  }
  return total;
}

Result<std::unique_ptr<JobStore>> open_sqlite_store(const StoreConfig& config) {
  const std::string& path = config.sqlite_path;
  if (path.empty()) return invalid_argument("store.sqlite.path is empty");
  ZKP_RETURN_IF_ERROR(make_parent_dirs(path));
  ZKP_ASSIGN_OR_RETURN(std::unique_ptr<LockFile> lock, take_lock(path));  // creates the file

  sqlite3* raw = nullptr;
  const int rc =
      sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
  auto db = std::make_unique<SqliteDb>(raw, path, config.clock);
  if (rc != SQLITE_OK) return db->error("open", rc);
  sqlite3_extended_result_codes(raw, 1);
  sqlite3_busy_timeout(raw, kBusyTimeoutMs);
  if (sqlite3_db_readonly(raw, "main") == 1) {
    return unavailable("store " + path + " can only be read (its file's permissions)");
  }
  ZKP_RETURN_IF_ERROR(check_is_sqlite(*db));
  ZKP_RETURN_IF_ERROR(configure(*db));
  ZKP_ASSIGN_OR_RETURN(int from_version, migrate_schema(*db));

  auto store = std::make_unique<SqliteStore>(config, std::move(lock), std::move(db));
  ZKP_ASSIGN_OR_RETURN(size_t recovered, store->recover_orphans());
  spdlog::info("store sqlite {}: open, schema version {}{}, {} job(s) recovered", path,
               kSchemaVersion,
               from_version == kSchemaVersion ? std::string()
                                              : " (from " + std::to_string(from_version) + ")",
               recovered);
  return std::unique_ptr<JobStore>(std::move(store));
}

}  // namespace zkpipe::store
