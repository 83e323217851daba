// tests/store/conformance_support.h: what the store conformance checks (conformance.h) share:
// the StoreUnderTest a store's test hands them, job builders, REQUIRE-ing wrappers of the store's
// calls, the test clock that moves the store's time (leases, back-off, retention) without
// sleeping, and a bounded poll for what is not the clock's (a reconnect).
// Thread-safety: call from the Catch2 test thread.
#pragma once

#include <catch2/catch.hpp>

#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "zkpipe/store/job_store.h"
#include "zkpipe/store/store_clock.h"

namespace zkpipe::store::conformance {

// What a store's test hands the checks.
struct StoreUnderTest {
  // A config naming a new, empty store (a new SQLite file; a new PostgreSQL database), nothing
  // else changed from the defaults. Each check calls it once.
  std::function<StoreConfig()> fresh;
  // Opens (or, after the check dropped its store, reopens) the store `config` names.
  std::function<Result<std::unique_ptr<JobStore>>(const StoreConfig&)> open = open_store;
};

inline constexpr const char* kType = "store-test";

inline std::vector<uint8_t> bytes_of(std::string_view text) {
  return {text.begin(), text.end()};
}

inline std::vector<uint8_t> random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> out(n);
  for (auto& b : out) b = static_cast<uint8_t>(rng());
  return out;
}

inline NewJob new_job(std::string_view input, uint8_t priority = 3, std::string circuit = "c-cold",
                      int64_t deadline_ms = 0, std::string request_id = {}) {
  NewJob job;
  job.request_id = std::move(request_id);
  job.proof_type = kType;
  job.circuit_id = std::move(circuit);
  job.input = bytes_of(input);
  job.priority = priority;
  job.deadline_ms = deadline_ms;
  job.partitions = 2;
  return job;
}

// Gives `config` a test clock and returns it: store->... calls after clock->advance(ms) see
// the database's clock plus the offset, so a test moves past a lease or back-off at once.
inline std::shared_ptr<StoreClock> test_clock(StoreConfig& config) {
  config.clock = std::make_shared<StoreClock>();
  return config.clock;
}

inline std::unique_ptr<JobStore> open_ok(const StoreUnderTest& sut, const StoreConfig& config) {
  Result<std::unique_ptr<JobStore>> store = sut.open(config);
  INFO(store.status().to_string());
  REQUIRE(store.ok());
  return std::move(store).value();
}

inline uint64_t submit_ok(JobStore& store, const NewJob& job) {
  Result<Submitted> s = store.submit(job);
  INFO(s.status().to_string());
  REQUIRE(s.ok());
  CHECK_FALSE(s->attached);
  return s->id;
}

inline ClaimFilter filter(size_t max_jobs = 1, std::vector<std::string> hot = {}) {
  ClaimFilter f;
  f.proof_types = {kType};
  f.hot_circuits = std::move(hot);
  f.max_jobs = max_jobs;
  return f;
}

inline std::vector<Claimed> claim_ok(JobStore& store, const std::string& worker,
                                     const ClaimFilter& f = filter()) {
  Result<std::vector<Claimed>> c = store.claim(worker, f);
  INFO(c.status().to_string());
  REQUIRE(c.ok());
  REQUIRE(c->size() <= f.max_jobs);
  return std::move(c).value();
}

inline Claimed claim_one(JobStore& store, const std::string& worker) {
  std::vector<Claimed> c = claim_ok(store, worker);
  REQUIRE(c.size() == 1);
  return std::move(c[0]);
}

inline JobRecord get_ok(JobStore& store, uint64_t id, bool with_result = false) {
  Result<std::optional<JobRecord>> r = store.get(id, with_result);
  INFO(r.status().to_string());
  REQUIRE(r.ok());
  REQUIRE(r->has_value());
  return **r;
}

inline bool fenced_ok(const Result<bool>& r) {
  INFO(r.status().to_string());
  REQUIRE(r.ok());
  return *r;
}

inline int64_t unix_now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// Polls `done` every 50 ms for at most `limit_ms`; true when it became true. For what the test
// clock does not drive (a connection coming back); time in the store is moved with advance().
inline bool eventually(const std::function<bool()>& done, int64_t limit_ms = 5'000) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(limit_ms);
  while (!done()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return true;
}

}  // namespace zkpipe::store::conformance
