// tests/store/postgres_store_test.cpp: the PostgreSQL job store against a real server
// (tests/store/with_postgres.sh starts one with pg_virtualenv): the shared conformance checks,
// then what only a shared server has: workers claiming at once, fences across daemons, a
// connection killed by the server, refused logins, schema versions and concurrent migrations.
// Every case is tagged [postgres] and fails (never skips) without a server.
#include <atomic>
#include <latch>
#include <set>
#include <thread>

#include "store/conformance.h"
#include "store/postgres_fixture.h"

namespace zkpipe::store {
namespace {

using namespace conformance;  // NOLINT: the checks and their helpers
using pgtest::Databases;
using pgtest::Sql;

#define ZKP_PG_CONFORMANCE(name, check)             \
  TEST_CASE("PostgresStore: " name, "[postgres]") { \
    Databases dbs;                                  \
    check(dbs.under_test());                        \
  }

ZKP_PG_CONFORMANCE("submits are durable; request ids attach or are taken",
                   check_submit_durable_and_request_ids)
ZKP_PG_CONFORMANCE("claims go by priority, deadline, hot params, age", check_claim_order)
ZKP_PG_CONFORMANCE("a claim bumps the fence and counts an attempt", check_claim_fence_and_attempt)
ZKP_PG_CONFORMANCE("counts queued by priority and the rest by state", check_counts)
ZKP_PG_CONFORMANCE("lists newest first, by state, with a limit", check_list)
ZKP_PG_CONFORMANCE("chunked inputs round-trip byte for byte", check_large_input_round_trips)
ZKP_PG_CONFORMANCE("heartbeats renew leases and report lost fences", check_heartbeat)
ZKP_PG_CONFORMANCE("checkpoints are fenced and come with the next claim", check_checkpoint_fenced)
ZKP_PG_CONFORMANCE("complete is fenced and counted once", check_complete_fenced)
ZKP_PG_CONFORMANCE("a retryable failure backs off and avoids its worker", check_fail_retryable)
ZKP_PG_CONFORMANCE("out of attempts or not retryable: failed", check_fail_out_of_attempts)
ZKP_PG_CONFORMANCE("expired leases are reaped, then failed out of attempts", check_reap)
ZKP_PG_CONFORMANCE("cancels end queued jobs and flag running ones", check_cancel)
ZKP_PG_CONFORMANCE("a release gives the job back without an attempt", check_release)
ZKP_PG_CONFORMANCE("finished jobs expire after retain; shared inputs stay", check_expire)
ZKP_PG_CONFORMANCE("heartbeats record workers, latest first", check_workers)

TEST_CASE("PostgresStore: three workers claim 200 jobs at once, each exactly once", "[postgres]") {
  Databases dbs;
  const StoreConfig config = dbs.fresh();
  auto seed = open_ok({}, config);
  constexpr int kJobs = 200;
  for (int i = 0; i < kJobs; ++i) submit_ok(*seed, new_job("job " + std::to_string(i)));

  constexpr int kWorkers = 3;
  std::vector<std::unique_ptr<JobStore>> stores;
  for (int w = 0; w < kWorkers; ++w) stores.push_back(open_ok({}, config));
  struct Tally {
    std::vector<uint64_t> claimed;
    std::vector<std::string> errors;
  };
  std::vector<Tally> tallies(kWorkers);
  std::latch start(kWorkers);
  std::vector<std::thread> threads;
  for (int w = 0; w < kWorkers; ++w) {
    threads.emplace_back([&, w] {
      JobStore& store = *stores[w];
      Tally& tally = tallies[w];
      const std::string name = "w" + std::to_string(w);
      const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(60);
      start.arrive_and_wait();
      for (int round = 0; round < kJobs && std::chrono::steady_clock::now() < end; ++round) {
        Result<std::vector<Claimed>> got = store.claim(name, filter(1 + w));
        if (!got.ok()) {
          tally.errors.push_back("claim: " + got.status().to_string());
          continue;
        }
        if (got->empty()) break;  // all queued rows are taken (locked ones by the others)
        for (const Claimed& c : *got) {
          tally.claimed.push_back(c.id);
          Result<bool> done = store.complete(c.id, c.fence, bytes_of("proof by " + name));
          if (!done.ok() || !*done) {
            tally.errors.push_back("complete " + std::to_string(c.id) + ": " +
                                   (done.ok() ? "fence lost" : done.status().to_string()));
          }
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();

  std::multiset<uint64_t> all;
  for (int w = 0; w < kWorkers; ++w) {
    for (const std::string& e : tallies[w].errors) FAIL_CHECK("w" << w << ": " << e);
    INFO("w" << w << " claimed " << tallies[w].claimed.size());
    CHECK_FALSE(tallies[w].claimed.empty());
    all.insert(tallies[w].claimed.begin(), tallies[w].claimed.end());
  }
  CHECK(all.size() == kJobs);
  CHECK(std::set<uint64_t>(all.begin(), all.end()).size() == kJobs);
  Result<std::vector<JobRecord>> jobs = seed->list(std::nullopt, 1000);
  REQUIRE(jobs.ok());
  REQUIRE(jobs->size() == kJobs);
  for (const JobRecord& r : *jobs) {
    INFO("job " << r.id);
    CHECK(r.state == JobState::kDone);
    CHECK(r.completions == 1);
    CHECK(r.attempts == 1);
    CHECK(all.count(r.id) == 1);
  }
}

TEST_CASE("PostgresStore: a reaped worker's late completion loses to the next owner's",
          "[postgres]") {
  Databases dbs;
  StoreConfig config = dbs.fresh();
  config.lease_ms = 60'000;
  config.retry_backoff_ms = 1'000;
  const auto clock = test_clock(config);  // one clock: the two daemons share the database's
  auto a = open_ok({}, config);
  auto b = open_ok({}, config);
  const uint64_t id = submit_ok(*a, new_job("contested"));
  const Claimed first = claim_one(*a, "worker-a");
  // A stops renewing; any daemon's reaper queues the job again once the lease ran out.
  clock->advance(60'001);
  Result<size_t> reaped = b->reap();
  REQUIRE(reaped.ok());
  CHECK(*reaped == 1);
  clock->advance(1'001);  // its back-off
  const Claimed second = claim_one(*b, "worker-b");
  CHECK(second.id == id);
  CHECK(second.fence > first.fence);
  CHECK(second.attempt == 2);
  REQUIRE(fenced_ok(b->complete(id, second.fence, bytes_of("proof of b"))));

  CHECK_FALSE(fenced_ok(a->complete(id, first.fence, bytes_of("proof of a"))));
  const JobRecord r = get_ok(*a, id, true);
  CHECK(r.state == JobState::kDone);
  CHECK(r.result == bytes_of("proof of b"));
  CHECK(r.completions == 1);
  CHECK(r.owner == "worker-b");
  WorkerInfo wa;
  wa.name = "worker-a";
  Result<HeartbeatReply> beat = a->heartbeat(wa, {{id, first.fence}});
  REQUIRE(beat.ok());
  CHECK(beat->lost == std::vector<uint64_t>{id});
}

TEST_CASE("PostgresStore: a connection the server kills is UNAVAILABLE once, then reconnected",
          "[postgres]") {
  Databases dbs;
  StoreConfig config = dbs.fresh();
  const std::string db = config.postgres_conninfo;
  config.postgres_conninfo += " application_name=zkpipe-victim";
  auto store = open_ok({}, config);
  for (const char* input : {"k1", "k2", "k3"}) submit_ok(*store, new_job(input));
  const Claimed held = claim_one(*store, "w1");

  Sql admin(db);
  PgRows killed = admin.run(
      "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE application_name = $1",
      PgParams().text("zkpipe-victim"));
  REQUIRE(killed.size() == 1);
  REQUIRE(killed.boolean(0, 0));

  // The next call (a transaction) finds the connection gone; it neither crashes nor hangs.
  Result<std::vector<Claimed>> lost = store->claim("w1", filter());
  REQUIRE_FALSE(lost.ok());
  CHECK(lost.status().code() == Code::kUnavailable);
  CHECK_THAT(lost.status().message(), Catch::Contains("store " + store->describe()));
  CHECK_THAT(lost.status().message(), Catch::Contains("connection lost"));
  CHECK_THAT(lost.status().message(), Catch::Contains("reconnecting"));

  // A later call reconnects; nothing was lost, and the claim's fence still holds.
  CHECK(eventually([&] { return store->counts().ok(); }, 10'000));
  Result<QueueCounts> n = store->counts();
  REQUIRE(n.ok());
  CHECK(n->running == 1);
  CHECK(n->queued[3] == 2);
  CHECK(fenced_ok(store->complete(held.id, held.fence, bytes_of("proof"))));
  std::vector<Claimed> rest = claim_ok(*store, "w1", filter(5));
  CHECK(rest.size() == 2);
  for (const Claimed& c : rest) CHECK(fenced_ok(store->complete(c.id, c.fence, bytes_of("p"))));
  n = store->counts();
  REQUIRE(n.ok());
  CHECK(n->done == 3);
}

TEST_CASE("PostgresStore: the test clock's offset outlives a reconnect", "[postgres]") {
  Databases dbs;
  StoreConfig config = dbs.fresh();
  const std::string db = config.postgres_conninfo;
  config.postgres_conninfo += " application_name=zkpipe-clock-victim";
  config.lease_ms = 60'000;
  const auto clock = test_clock(config);
  auto store = open_ok({}, config);
  const uint64_t id = submit_ok(*store, new_job("lapses"));
  const Claimed held = claim_one(*store, "w1");
  clock->advance(61'000);
  REQUIRE(store->counts().ok());  // the session takes the offset

  Sql admin(db);
  PgRows killed = admin.run(
      "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE application_name = $1",
      PgParams().text("zkpipe-clock-victim"));
  REQUIRE(killed.size() == 1);
  CHECK_FALSE(store->counts().ok());
  CHECK(eventually([&] { return store->counts().ok(); }, 10'000));
  // The new session has the offset again: on the store's clock the lease ran out 1 s ago.
  Result<size_t> reaped = store->reap();
  REQUIRE(reaped.ok());
  CHECK(*reaped == 1);
  CHECK(get_ok(*store, id).state == JobState::kQueued);
  CHECK_FALSE(fenced_ok(store->complete(id, held.fence, bytes_of("late"))));
}

TEST_CASE("PostgresStore: a refused or unreachable server is UNAVAILABLE without the password",
          "[postgres]") {
  pgtest::require_server();
  StoreConfig config;
  config.backend = "postgres";
  config.postgres_conninfo = "password=wrong-secret-4711";
  Result<std::unique_ptr<JobStore>> refused = open_store(config);
  REQUIRE_FALSE(refused.ok());
  INFO(refused.status().to_string());
  CHECK(refused.status().code() == Code::kUnavailable);
  CHECK_THAT(refused.status().message(), Catch::Contains("password authentication failed"));
  CHECK_THAT(refused.status().message(), Catch::Contains("PGPASSWORD or ~/.pgpass"));
  CHECK_THAT(refused.status().message(), !Catch::Contains("wrong-secret-4711"));
  const char* password = std::getenv("PGPASSWORD");
  REQUIRE(password != nullptr);
  CHECK_THAT(refused.status().message(), !Catch::Contains(password));

  config.postgres_conninfo = "host=127.0.0.1 port=1";
  Result<std::unique_ptr<JobStore>> unreachable = open_store(config);
  REQUIRE_FALSE(unreachable.ok());
  INFO(unreachable.status().to_string());
  CHECK(unreachable.status().code() == Code::kUnavailable);
  CHECK_THAT(unreachable.status().message(),
             Catch::StartsWith("store postgres host=127.0.0.1 port=1: cannot connect"));

  config.postgres_conninfo = "postgresql://zk:uri-secret-0815@127.0.0.1:1/zk";
  Result<std::unique_ptr<JobStore>> uri = open_store(config);
  REQUIRE_FALSE(uri.ok());
  INFO(uri.status().to_string());
  CHECK(uri.status().code() == Code::kUnavailable);
  CHECK_THAT(uri.status().message(), Catch::Contains("postgresql://zk@127.0.0.1:1/zk"));
  CHECK_THAT(uri.status().message(), !Catch::Contains("uri-secret-0815"));
}

TEST_CASE("PostgresStore: describe names the connection without its password", "[postgres]") {
  Databases dbs;
  StoreConfig config = dbs.fresh();
  const std::string db = config.postgres_conninfo;
  const char* password = std::getenv("PGPASSWORD");
  REQUIRE(password != nullptr);
  config.postgres_conninfo += std::string(" password=") + password;
  auto store = open_ok({}, config);
  CHECK(store->describe() == "postgres " + db);
}

TEST_CASE("PostgresStore: sessions get a statement timeout and name their worker", "[postgres]") {
  Databases dbs;
  StoreConfig config = dbs.fresh();
  const std::string db = config.postgres_conninfo;
  CHECK(Sql(db).run("SHOW statement_timeout").text(0, 0) == "30s");
  // Unless the conninfo (or the server, role, database) sets one.
  CHECK(Sql(db + " options='-c statement_timeout=5s'").run("SHOW statement_timeout").text(0, 0) ==
        "5s");
  config.worker = "gpu-node-3";
  auto store = open_ok({}, config);
  PgRows named = Sql(db).run("SELECT count(*) FROM pg_stat_activity WHERE application_name = $1",
                             PgParams().text("zkpipe gpu-node-3"));
  CHECK(named.i64(0, 0) == 1);
}

TEST_CASE("PostgresStore: a job a client cancelled is not tried again", "[postgres]") {
  Databases dbs;
  StoreConfig config = dbs.fresh();
  config.lease_ms = 60'000;
  const auto clock = test_clock(config);
  auto store = open_ok({}, config);
  const uint64_t failing = submit_ok(*store, new_job("fails"));
  const uint64_t lapsing = submit_ok(*store, new_job("lapses"));
  std::vector<Claimed> held = claim_ok(*store, "w1", filter(2));
  REQUIRE(held.size() == 2);
  REQUIRE(store->cancel(failing).ok());
  REQUIRE(store->cancel(lapsing).ok());

  REQUIRE(fenced_ok(store->fail(failing, held[0].fence, Code::kUnavailable, "device lost", true)));
  JobRecord r = get_ok(*store, failing);
  CHECK(r.state == JobState::kCancelled);
  CHECK(r.error_code == static_cast<int32_t>(Code::kAborted));
  CHECK_THAT(r.error, Catch::Contains("device lost"));

  clock->advance(60'001);
  Result<size_t> reaped = store->reap();
  REQUIRE(reaped.ok());
  CHECK(*reaped == 1);
  r = get_ok(*store, lapsing);
  CHECK(r.state == JobState::kCancelled);
  CHECK(r.error_code == static_cast<int32_t>(Code::kAborted));
  CHECK(r.ended_unix_ms > 0);
  CHECK(claim_ok(*store, "w2", filter(2)).empty());
}

TEST_CASE("PostgresStore: a newer schema version is refused", "[postgres]") {
  Databases dbs;
  const StoreConfig config = dbs.fresh();
  open_ok({}, config).reset();
  Sql(config.postgres_conninfo)
      .run("UPDATE zk_meta SET value = $1 WHERE key = 'schema_version'", PgParams().text("2"));
  Result<std::unique_ptr<JobStore>> newer = open_store(config);
  REQUIRE_FALSE(newer.ok());
  CHECK(newer.status().code() == Code::kFailedPrecondition);
  CHECK_THAT(newer.status().message(),
             Catch::Contains("store postgres " + config.postgres_conninfo +
                             " has schema version 2; this zkpipe knows up to 1"));
}

TEST_CASE("PostgresStore: daemons opening a new database at once all migrate it", "[postgres]") {
  Databases dbs;
  for (int round = 0; round < 3; ++round) {
    const StoreConfig config = dbs.fresh();
    constexpr int kDaemons = 4;
    std::vector<Status> opened(kDaemons);
    std::latch start(kDaemons);
    std::vector<std::thread> threads;
    for (int d = 0; d < kDaemons; ++d) {
      threads.emplace_back([&, d] {
        start.arrive_and_wait();
        opened[d] = open_store(config).status();
      });
    }
    for (std::thread& t : threads) t.join();
    for (const Status& s : opened) CHECK(s.to_string() == "OK");
    Sql db(config.postgres_conninfo);
    PgRows version = db.run("SELECT value FROM zk_meta WHERE key = 'schema_version'");
    REQUIRE(version.size() == 1);
    CHECK(version.text(0, 0) == "1");
    PgRows tables = db.run(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = ANY($1)",
        PgParams().text_array({"zk_meta", "zk_job", "zk_partition", "zk_blob", "zk_worker"}));
    CHECK(tables.i64(0, 0) == 5);
  }
}

TEST_CASE("PostgresStore: two daemons submitting one new request id store one job", "[postgres]") {
  Databases dbs;
  const StoreConfig config = dbs.fresh();
  auto a = open_ok({}, config);
  auto b = open_ok({}, config);
  for (int round = 0; round < 20; ++round) {
    const NewJob job = new_job("same input", 3, "c", 0, "race-" + std::to_string(round));
    Result<Submitted> ra = Status(), rb = Status();
    std::latch start(2);
    std::thread ta([&] {
      start.arrive_and_wait();
      ra = a->submit(job);
    });
    std::thread tb([&] {
      start.arrive_and_wait();
      rb = b->submit(job);
    });
    ta.join();
    tb.join();
    INFO("round " << round << ": " << ra.status().to_string() << " / " << rb.status().to_string());
    REQUIRE(ra.ok());
    REQUIRE(rb.ok());
    CHECK(ra->id == rb->id);
    CHECK(ra->attached != rb->attached);
  }
  Result<QueueCounts> n = a->counts();
  REQUIRE(n.ok());
  CHECK(n->queued[3] == 20);
}

TEST_CASE("PostgresStore: a torn input fails its job at claim; submitting again stores it anew",
          "[postgres]") {
  Databases dbs;
  StoreConfig config = dbs.fresh();
  config.chunk_bytes = 16;
  auto store = open_ok({}, config);
  const std::vector<uint8_t> input = random_bytes(100, 7);
  NewJob job = new_job("");
  job.input = input;
  job.request_id = "torn-1";
  const uint64_t id = submit_ok(*store, job);
  Sql db(config.postgres_conninfo);
  CHECK(db.run("SELECT chunk FROM zk_blob").size() == 7);
  db.run("UPDATE zk_blob SET data = $1 WHERE chunk = 3", PgParams().bytes(bytes_of("xx")));

  CHECK(claim_ok(*store, "w1").empty());
  const JobRecord r = get_ok(*store, id);
  CHECK(r.state == JobState::kFailed);
  CHECK(r.error_code == static_cast<int32_t>(Code::kFailedPrecondition));
  CHECK_THAT(r.error, Catch::Contains("does not match its SHA-256"));
  CHECK_THAT(r.error, Catch::Contains("submit it again"));

  job.request_id = "torn-2";
  const uint64_t again = submit_ok(*store, job);
  const Claimed c = claim_one(*store, "w1");
  CHECK(c.id == again);
  CHECK(c.input == input);
}

}  // namespace
}  // namespace zkpipe::store
