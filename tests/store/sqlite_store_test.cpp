// tests/store/sqlite_store_test.cpp: the SQLite job store: the conformance checks every store
// passes (conformance.h), each on a new file, and what only SQLite has: one daemon per file (the
// flock), files that are not stores, a newer schema, jobs a killed daemon left running, inputs
// torn in the file, chunking, file modes, many threads on one store.
#include <fcntl.h>
#include <openssl/evp.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <atomic>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>

#include "store/conformance.h"
#include "temp_dir.h"

namespace zkpipe::store {
namespace {

using conformance::StoreUnderTest;
using testing::TempDir;

// Each store on a new file of one directory per test case.
struct SqliteFixture {
  TempDir dir{"zkpipe_sqlite_store"};
  int files = 0;

  StoreConfig config_for(const std::string& path) const {
    StoreConfig config;
    config.backend = "sqlite";
    config.sqlite_path = path;
    return config;
  }
  StoreUnderTest sut() {
    StoreUnderTest s;
    s.fresh = [this] { return config_for(dir.file("jobs" + std::to_string(++files) + ".db")); };
    return s;
  }
};

// A second, raw connection to a store's file, as an operator's sqlite3 shell would be.
struct RawDb {
  sqlite3* db = nullptr;
  explicit RawDb(const std::string& path) {
    REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    sqlite3_busy_timeout(db, 5'000);
  }
  ~RawDb() { sqlite3_close(db); }
  void exec(const std::string& sql) {
    char* error = nullptr;
    const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &error);
    INFO(sql << ": " << (error ? error : ""));
    sqlite3_free(error);
    REQUIRE(rc == SQLITE_OK);
  }
  int64_t number(const std::string& sql) {
    sqlite3_stmt* s = nullptr;
    REQUIRE(sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK);
    REQUIRE(sqlite3_step(s) == SQLITE_ROW);
    const int64_t n = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return n;
  }
};

std::string sha256_hex(const std::vector<uint8_t>& bytes) {
  unsigned char digest[32];
  unsigned int n = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest, &n, EVP_sha256(), nullptr);
  std::string out;
  for (unsigned i = 0; i < n; ++i) out += fmt::format("{:02x}", digest[i]);
  return out;
}

#define ZKP_SQLITE_CONFORMANCE(behaviour, check)     \
  TEST_CASE("SqliteStore: " behaviour, "[sqlite]") { \
    SqliteFixture fixture;                           \
    conformance::check(fixture.sut());               \
  }

ZKP_SQLITE_CONFORMANCE("a submit is durable; request ids attach or are refused",
                       check_submit_durable_and_request_ids)
ZKP_SQLITE_CONFORMANCE("claims go by priority, deadline, hot params, then age", check_claim_order)
ZKP_SQLITE_CONFORMANCE("a claim bumps the fence and counts an attempt",
                       check_claim_fence_and_attempt)
ZKP_SQLITE_CONFORMANCE("queued jobs are counted by priority, others by state", check_counts)
ZKP_SQLITE_CONFORMANCE("jobs are listed newest first, by state", check_list)
ZKP_SQLITE_CONFORMANCE("an input of many chunks comes back byte for byte",
                       check_large_input_round_trips)
ZKP_SQLITE_CONFORMANCE("heartbeats renew leases and report lost claims", check_heartbeat)
ZKP_SQLITE_CONFORMANCE("checkpoints are fenced and keep the first proof", check_checkpoint_fenced)
ZKP_SQLITE_CONFORMANCE("complete is fenced and counts one completion", check_complete_fenced)
ZKP_SQLITE_CONFORMANCE("a retryable failure queues the job again after a back-off",
                       check_fail_retryable)
ZKP_SQLITE_CONFORMANCE("a job out of attempts fails with its error kept",
                       check_fail_out_of_attempts)
ZKP_SQLITE_CONFORMANCE("expired leases are reaped; the old owner is avoided for a lease",
                       check_reap)
ZKP_SQLITE_CONFORMANCE("cancel ends queued jobs and flags running ones", check_cancel)
ZKP_SQLITE_CONFORMANCE("a release does not count as an attempt", check_release)
ZKP_SQLITE_CONFORMANCE("finished jobs are forgotten after store.retain", check_expire)
ZKP_SQLITE_CONFORMANCE("heartbeats record the workers, latest first", check_workers)

TEST_CASE("SqliteStore: a second daemon on the same file is refused", "[sqlite]") {
  SqliteFixture fixture;
  const StoreConfig config = fixture.sut().fresh();
  const std::string& path = config.sqlite_path;
  auto first = open_store(config);
  REQUIRE(first.ok());
  CHECK((*first)->describe() == "sqlite " + path);

  // Another store of this process: a new open file description of the lock conflicts.
  Result<std::unique_ptr<JobStore>> second = open_store(config);
  REQUIRE_FALSE(second.ok());
  CHECK(second.status().code() == Code::kFailedPrecondition);
  CHECK(second.status().message() ==
        "store " + path + " is in use by another zkpipe serve (pid " + std::to_string(::getpid()) +
            ", which holds the file's lock); one daemon per SQLite store (use store.backend: "
            "postgres for several)");
  // Issue 34 #12: the lock is the database file's own, so deleting "<path>.lock" (it only tells
  // the pid) lets no second daemon in.
  REQUIRE(std::filesystem::remove(path + ".lock"));
  second = open_store(config);
  REQUIRE_FALSE(second.ok());
  CHECK(second.status().code() == Code::kFailedPrecondition);
  CHECK(second.status().message().find("in use by another zkpipe serve (pid unknown") !=
        std::string::npos);

  // Another process holding it: its pid is named; once it exits, the file opens.
  first->reset();
  int ready[2], done[2];
  REQUIRE(::pipe(ready) == 0);
  REQUIRE(::pipe(done) == 0);
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    ::close(ready[0]);
    ::close(done[1]);  // else its read below never sees the parent's close
    auto held = open_store(config);
    const char ok = held.ok() ? 'y' : 'n';
    if (::write(ready[1], &ok, 1) != 1) ::_exit(2);
    char wait_for_parent;
    (void)::read(done[0], &wait_for_parent, 1);
    ::_exit(0);
  }
  ::close(ready[1]);
  ::close(done[0]);
  char ok = 0;
  REQUIRE(::read(ready[0], &ok, 1) == 1);
  CHECK(ok == 'y');
  Result<std::unique_ptr<JobStore>> busy = open_store(config);
  REQUIRE_FALSE(busy.ok());
  CHECK_THAT(busy.status().message(), Catch::Contains("(pid " + std::to_string(child) + ","));
  ::close(done[1]);
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  ::close(ready[0]);
  CHECK(open_store(config).ok());
}

TEST_CASE("SqliteStore: a file that is not SQLite is refused, naming it, and left as it was",
          "[sqlite]") {
  SqliteFixture fixture;
  const std::vector<std::pair<std::string, std::vector<uint8_t>>> files = {
      {"random.db", conformance::random_bytes(10'000, 7)},
      {"notes.txt", conformance::bytes_of("these are my notes, not a job store\n")},
  };
  for (const auto& [name, bytes] : files) {
    INFO(name);
    const std::string path = fixture.dir.file(name);
    testing::write_bytes(path, bytes);
    Result<std::unique_ptr<JobStore>> store = open_store(fixture.config_for(path));
    REQUIRE_FALSE(store.ok());
    CHECK(store.status().code() == Code::kFailedPrecondition);
    CHECK_THAT(store.status().message(),
               Catch::Contains("store " + path + " is not an SQLite database"));
    CHECK(testing::read_bytes(path) == bytes);
  }
  // An SQLite database of something else is not taken over either.
  const std::string other = fixture.dir.file("other.db");
  RawDb(other).exec("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL)");
  Result<std::unique_ptr<JobStore>> store = open_store(fixture.config_for(other));
  REQUIRE_FALSE(store.ok());
  CHECK(store.status().code() == Code::kFailedPrecondition);
  CHECK_THAT(store.status().message(), Catch::Contains(other) && Catch::Contains("invoices"));
}

TEST_CASE("SqliteStore: a newer schema version is refused, naming both versions", "[sqlite]") {
  SqliteFixture fixture;
  const StoreConfig config = fixture.sut().fresh();
  REQUIRE(open_store(config).ok());
  {
    RawDb raw(config.sqlite_path);
    CHECK(raw.number("SELECT value FROM zk_meta WHERE key = 'schema_version'") == kSchemaVersion);
    raw.exec("UPDATE zk_meta SET value = '99' WHERE key = 'schema_version'");
  }
  Result<std::unique_ptr<JobStore>> store = open_store(config);
  REQUIRE_FALSE(store.ok());
  CHECK(store.status().code() == Code::kFailedPrecondition);
  CHECK(store.status().message() == "store " + config.sqlite_path +
                                        " has schema version 99; this zkpipe knows up to 1 "
                                        "(upgrade zkpipe or use another store file)");
}

TEST_CASE("SqliteStore: jobs a killed daemon left running are queued again at open", "[sqlite]") {
  SqliteFixture fixture;
  StoreConfig config = fixture.sut().fresh();
  config.max_attempts = 2;
  config.retry_backoff_ms = 1'000;
  const auto clock = conformance::test_clock(config);  // the child's own copy after fork
  // The child submits and claims, then dies without closing anything.
  const pid_t child = ::fork();
  REQUIRE(child >= 0);
  if (child == 0) {
    auto store = open_store(config);
    if (!store.ok()) ::_exit(1);
    JobStore& s = **store;
    bool ok = true;
    for (const char* input : {"a", "b", "c"}) ok = ok && s.submit(conformance::new_job(input)).ok();
    ClaimFilter only = conformance::filter();
    only.only_id = 2;
    auto b1 = s.claim("w1", only);
    ok = ok && b1.ok() && b1->size() == 1;
    if (ok) {
      Result<bool> failed = s.fail(2, (*b1)[0].fence, Code::kInternal, "x", true);
      ok = failed.ok() && *failed;
    }
    clock->advance(1'001);  // past the back-off
    auto b2 = s.claim("w2", only);
    ok = ok && b2.ok() && b2->size() == 1;
    auto rest = s.claim("w1", conformance::filter(2));
    ok = ok && rest.ok() && rest->size() == 2 && s.cancel(3).ok();
    ::_exit(ok ? 0 : 3);
  }
  int status = 0;
  REQUIRE(::waitpid(child, &status, 0) == child);
  REQUIRE(WIFEXITED(status));
  REQUIRE(WEXITSTATUS(status) == 0);

  auto store = conformance::open_ok(StoreUnderTest{}, config);
  const JobRecord a = conformance::get_ok(*store, 1);
  CHECK(a.state == JobState::kQueued);
  CHECK(a.attempts == 1);
  CHECK_THAT(a.error, Catch::Contains("the daemon stopped while it ran"));
  const JobRecord b = conformance::get_ok(*store, 2);
  CHECK(b.state == JobState::kFailed);
  CHECK(b.attempts == 2);
  CHECK_THAT(b.error, Catch::Contains("the daemon stopped while it ran"));
  CHECK(b.ended_unix_ms > 0);
  const JobRecord c = conformance::get_ok(*store, 3);
  CHECK(c.state == JobState::kCancelled);
  CHECK(c.error_code == static_cast<int32_t>(Code::kAborted));
  const Claimed again = conformance::claim_one(*store, "w1");
  CHECK(again.id == 1);
  CHECK(again.attempt == 2);
}

TEST_CASE("SqliteStore: a torn input is found at claim; that job fails, the next is claimed",
          "[sqlite]") {
  SqliteFixture fixture;
  StoreConfig config = fixture.sut().fresh();
  config.chunk_bytes = 4096;
  auto store = conformance::open_ok(StoreUnderTest{}, config);
  NewJob torn = conformance::new_job("");
  torn.input = conformance::random_bytes(20'000, 3);
  const uint64_t torn_id = conformance::submit_ok(*store, torn);
  const uint64_t intact_id = conformance::submit_ok(*store, conformance::new_job("intact"));
  RawDb(config.sqlite_path)
      .exec(
          "UPDATE zk_blob SET data = substr(data, 1, 100) WHERE chunk = 2 AND length(data) = "
          "4096");

  const std::vector<Claimed> claimed = conformance::claim_ok(*store, "w1");
  REQUIRE(claimed.size() == 1);
  CHECK(claimed[0].id == intact_id);
  const JobRecord r = conformance::get_ok(*store, torn_id);
  CHECK(r.state == JobState::kFailed);
  CHECK(r.error_code == static_cast<int32_t>(Code::kFailedPrecondition));
  CHECK(r.error == "the stored input of job " + std::to_string(torn_id) +
                       " does not match its SHA-256 " + sha256_hex(torn.input) +
                       " (torn or altered store file " + config.sqlite_path + "); submit it again");
  CHECK(r.ended_unix_ms > 0);
  CHECK(conformance::claim_ok(*store, "w1").empty());

  // Submitted again, the input is stored whole again.
  const uint64_t again = conformance::submit_ok(*store, torn);
  const Claimed c = conformance::claim_one(*store, "w1");
  CHECK(c.id == again);
  CHECK(c.input == torn.input);
}

TEST_CASE("SqliteStore: inputs are kept in chunks, addressed by SHA-256, freed on expiry",
          "[sqlite]") {
  SqliteFixture fixture;
  StoreConfig config = fixture.sut().fresh();
  config.chunk_bytes = 4096;
  config.retain_ms = 0;
  const auto clock = conformance::test_clock(config);
  auto store = conformance::open_ok(StoreUnderTest{}, config);
  NewJob job = conformance::new_job("");
  job.input = conformance::random_bytes(50'000, 9);
  const uint64_t a = conformance::submit_ok(*store, job);
  const uint64_t b = conformance::submit_ok(*store, job);
  RawDb raw(config.sqlite_path);
  CHECK(raw.number("SELECT count(*) FROM zk_blob") == 13);
  CHECK(raw.number("SELECT max(length(data)) FROM zk_blob") == 4096);
  CHECK(raw.number("SELECT sum(length(data)) FROM zk_blob") == 50'000);
  CHECK(raw.number("SELECT count(*) FROM zk_job WHERE lower(hex(input_sha256)) = '" +
                   sha256_hex(job.input) + "' AND input_size = 50000") == 2);

  auto expired_one = [&] {
    Result<size_t> n = store->expire();
    REQUIRE(n.ok());
    return *n == 1;
  };
  REQUIRE(store->cancel(a).ok());
  clock->advance(1);
  CHECK(expired_one());
  CHECK(raw.number("SELECT count(*) FROM zk_blob") == 13);  // b still needs it
  REQUIRE(store->cancel(b).ok());
  clock->advance(1);
  CHECK(expired_one());
  CHECK(raw.number("SELECT count(*) FROM zk_job") == 0);
  CHECK(raw.number("SELECT count(*) FROM zk_blob") == 0);
}

TEST_CASE("SqliteStore: the file is created 0600 in new 0750 directories, in WAL mode",
          "[sqlite]") {
  SqliteFixture fixture;
  const std::string dir = fixture.dir.file("var/lib/zkpipe");
  const StoreConfig config = fixture.config_for(dir + "/jobs.db");
  auto store = conformance::open_ok(StoreUnderTest{}, config);
  conformance::submit_ok(*store, conformance::new_job("x"));
  struct stat st {};
  REQUIRE(::stat(config.sqlite_path.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  REQUIRE(::stat((config.sqlite_path + "-wal").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  const mode_t umask = ::umask(0);
  ::umask(umask);
  for (const std::string& d : {dir, fixture.dir.file("var/lib"), fixture.dir.file("var")}) {
    REQUIRE(::stat(d.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == (0750 & ~umask));
  }
  RawDb raw(config.sqlite_path);
  CHECK(raw.number("SELECT count(*) FROM pragma_journal_mode WHERE journal_mode = 'wal'") == 1);
}

TEST_CASE("SqliteStore: open_store refuses an empty path and an unknown backend", "[sqlite]") {
  StoreConfig config;
  config.backend = "sqlite";
  Result<std::unique_ptr<JobStore>> empty = open_store(config);
  REQUIRE_FALSE(empty.ok());
  CHECK(empty.status().code() == Code::kInvalidArgument);
  CHECK_THAT(empty.status().message(), Catch::Contains("store.sqlite.path"));
  config.backend = "mysql";
  Result<std::unique_ptr<JobStore>> unknown = open_store(config);
  REQUIRE_FALSE(unknown.ok());
  CHECK_THAT(unknown.status().message(), Catch::Contains("'mysql'"));
}

TEST_CASE("SqliteStore: many threads submit and claim on one store, each job once", "[sqlite]") {
  SqliteFixture fixture;
  auto store = conformance::open_ok(fixture.sut(), fixture.sut().fresh());
  constexpr int kThreads = 8, kJobs = 40;
  std::mutex mu;
  std::set<uint64_t> submitted, claimed;
  std::atomic<int> errors{0}, twice{0};  // Catch2's CHECK is not for other threads
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int j = 0; j < kJobs; ++j) {
        auto s =
            store->submit(conformance::new_job("t" + std::to_string(t) + "j" + std::to_string(j)));
        auto c = store->claim("w" + std::to_string(t), conformance::filter());
        if (!s.ok() || !c.ok()) {
          ++errors;
          continue;
        }
        std::lock_guard<std::mutex> lock(mu);
        submitted.insert(s->id);
        for (const auto& one : *c) {
          if (!claimed.insert(one.id).second) ++twice;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  CHECK(errors == 0);
  CHECK(twice == 0);
  CHECK(submitted.size() == kThreads * kJobs);
  CHECK(claimed.size() == kThreads * kJobs);
  Result<QueueCounts> n = store->counts();
  REQUIRE(n.ok());
  CHECK(n->running == kThreads * kJobs);
}

}  // namespace
}  // namespace zkpipe::store
