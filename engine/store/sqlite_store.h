// sqlite_store.h: private to engine/store. The SQLite JobStore: one daemon per file (an flock on
// "<path>.lock" proves it), WAL with synchronous=FULL so a commit is on disk when a call returns,
// inputs content-addressed in chunks. Its members live in sqlite_store.cpp (submit, claim),
// sqlite_owner.cpp (heartbeat and the owner's fenced writes), sqlite_queries.cpp (reads, cancel,
// reap, expire) and sqlite_open.cpp (locking, schema, migration, crash recovery).
// Thread-safety: every member is thread-safe: one connection, serialized by mu_.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "sqlite_db.h"
#include "zkpipe/store/job_store.h"

namespace zkpipe::store {

// Holds the flock of the database file until destroyed (after SQLite has closed it).
class LockFile {
 public:
  explicit LockFile(int fd) : fd_(fd) {}
  ~LockFile();
  LockFile(const LockFile&) = delete;
  LockFile& operator=(const LockFile&) = delete;

 private:
  int fd_;
};

class SqliteStore final : public JobStore {
 public:
  SqliteStore(StoreConfig config, std::unique_ptr<LockFile> lock, std::unique_ptr<SqliteDb> db)
      : config_(std::move(config)), lock_(std::move(lock)), db_(std::move(db)) {}
  ~SqliteStore() override;

  std::string describe() const override { return "sqlite " + config_.sqlite_path; }
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

  // At open (the lock held): every 'running' job was left by a daemon that stopped; queued again,
  // failed when out of attempts, cancelled when a client asked. Returns how many.
  Result<size_t> recover_orphans();

 private:
  // Writes the input's chunks unless a whole copy is stored (inside submit's transaction).
  Status store_input(std::span<const uint8_t> input, std::span<const uint8_t> digest);
  // The stored input of a claimed row, checked against its size and SHA-256 (empty: torn).
  Result<std::optional<std::vector<uint8_t>>> load_input(std::span<const uint8_t> digest,
                                                         int64_t size);
  // One claim pass: up to `room` jobs claimed into `out`; returns how many rows it looked at.
  Result<size_t> claim_pass(const std::string& worker, const ClaimFilter& filter, size_t room,
                            int64_t now, std::vector<Claimed>& out);
  // One fenced UPDATE of a running job in its own transaction (?1 id, ?2 fence, ?3 the
  // database's now; `bind` binds from ?4); true when it changed the row.
  Result<bool> fenced_update(std::string_view op, const char* sql, uint64_t id, uint64_t fence,
                             const std::function<void(Stmt&)>& bind = {});
  Result<std::optional<JobRecord>> get_where(std::string_view op, const char* where,
                                             const std::function<void(Stmt&)>& bind,
                                             bool with_result);

  const StoreConfig config_;
  std::unique_ptr<LockFile> lock_;
  std::mutex mu_;
  std::unique_ptr<SqliteDb> db_;  // guarded by mu_
};

}  // namespace zkpipe::store
