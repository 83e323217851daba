// tests/store/conformance_clients.h: conformance checks of what clients and housekeeping do to
// jobs: cancels, releases by a stopping owner, retention (expire), and the workers seen.
// Thread-safety: call from the Catch2 test thread.
#pragma once

#include "store/conformance_support.h"

namespace zkpipe::store::conformance {

// A client's cancel: a queued job ends now; a running one is flagged for its owner, who ends it;
// an ended job and an unknown id are refused.
inline void check_cancel(const StoreUnderTest& sut) {
  auto store = open_ok(sut, sut.fresh());
  const uint64_t queued = submit_ok(*store, new_job("q"));
  Result<CancelReply> c = store->cancel(queued);
  REQUIRE(c.ok());
  CHECK(c->ended);
  CHECK_FALSE(c->was_running);
  JobRecord r = get_ok(*store, queued);
  CHECK(r.state == JobState::kCancelled);
  CHECK(r.error_code == static_cast<int32_t>(Code::kAborted));
  CHECK(r.ended_unix_ms > 0);
  CHECK(claim_ok(*store, "w1").empty());

  Result<CancelReply> twice = store->cancel(queued);
  REQUIRE_FALSE(twice.ok());
  CHECK(twice.status().code() == Code::kFailedPrecondition);
  CHECK_THAT(twice.status().message(), Catch::Contains("cancelled"));
  Result<CancelReply> unknown = store->cancel(queued + 1000);
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.status().code() == Code::kNotFound);

  const uint64_t running = submit_ok(*store, new_job("r"));
  const Claimed held = claim_one(*store, "w1");
  REQUIRE(held.id == running);
  c = store->cancel(running);
  REQUIRE(c.ok());
  CHECK(c->was_running);
  CHECK_FALSE(c->ended);
  r = get_ok(*store, running);
  CHECK(r.state == JobState::kRunning);
  CHECK(r.cancel_requested);
  WorkerInfo w1;
  w1.name = "w1";
  Result<HeartbeatReply> beat = store->heartbeat(w1, {{running, held.fence}});
  REQUIRE(beat.ok());
  CHECK(beat->lost.empty());
  CHECK(beat->cancel_requested == std::vector<uint64_t>{running});
  CHECK_FALSE(fenced_ok(store->cancelled(running, held.fence + 1)));
  CHECK(fenced_ok(store->cancelled(running, held.fence)));
  r = get_ok(*store, running);
  CHECK(r.state == JobState::kCancelled);
  CHECK(r.error_code == static_cast<int32_t>(Code::kAborted));
  CHECK(r.ended_unix_ms > 0);
  CHECK(store->cancel(running).status().code() == Code::kFailedPrecondition);
}

// A release gives the job back at once without counting an attempt, and keeps no owner avoided.
inline void check_release(const StoreUnderTest& sut) {
  auto store = open_ok(sut, sut.fresh());
  const uint64_t id = submit_ok(*store, new_job("rel"));
  const Claimed c1 = claim_one(*store, "w1");
  CHECK(c1.attempt == 1);
  CHECK_FALSE(fenced_ok(store->release(id, c1.fence + 1)));
  REQUIRE(fenced_ok(store->release(id, c1.fence)));
  CHECK_FALSE(fenced_ok(store->release(id, c1.fence)));
  JobRecord r = get_ok(*store, id);
  CHECK(r.state == JobState::kQueued);
  CHECK(r.attempts == 0);
  const Claimed c2 = claim_one(*store, "w1");
  CHECK(c2.id == id);
  CHECK(c2.attempt == 1);
  CHECK(c2.fence > c1.fence);
}

// Finished jobs are forgotten retain_ms after they ended, queued ones never; an input a kept job
// shares stays.
inline void check_expire(const StoreUnderTest& sut) {
  StoreConfig config = sut.fresh();
  config.retain_ms = 3'600'000;
  const auto clock = test_clock(config);
  auto store = open_ok(sut, config);
  const uint64_t done = submit_ok(*store, new_job("shared input", 3, "c", 0, "req-done"));
  const uint64_t cancelled = submit_ok(*store, new_job("cancelled input"));
  const Claimed c = claim_one(*store, "w1");
  REQUIRE(c.id == done);
  REQUIRE(fenced_ok(store->complete(done, c.fence, bytes_of("proof"))));
  REQUIRE(store->cancel(cancelled).ok());
  const uint64_t kept = submit_ok(*store, new_job("shared input"));
  Result<size_t> early = store->expire();
  REQUIRE(early.ok());
  CHECK(*early == 0);

  clock->advance(3'500'000);
  early = store->expire();
  REQUIRE(early.ok());
  CHECK(*early == 0);
  clock->advance(200'000);
  Result<size_t> expired = store->expire();
  REQUIRE(expired.ok());
  CHECK(*expired == 2);
  Result<std::optional<JobRecord>> gone = store->get(done, false);
  REQUIRE(gone.ok());
  CHECK_FALSE(gone->has_value());
  gone = store->get(cancelled, false);
  REQUIRE(gone.ok());
  CHECK_FALSE(gone->has_value());
  Result<std::optional<JobRecord>> request = store->find_request("req-done", false);
  REQUIRE(request.ok());
  CHECK_FALSE(request->has_value());
  CHECK(get_ok(*store, kept).state == JobState::kQueued);
  const Claimed k = claim_one(*store, "w1");
  CHECK(k.id == kept);
  CHECK(k.input == bytes_of("shared input"));
  // The request id is free again: a new job.
  Result<Submitted> fresh = store->submit(new_job("other", 3, "c", 0, "req-done"));
  REQUIRE(fresh.ok());
  CHECK_FALSE(fresh->attached);
}

// Heartbeats record the workers; workers() lists those seen within the window, latest first.
inline void check_workers(const StoreUnderTest& sut) {
  StoreConfig config = sut.fresh();
  const auto clock = test_clock(config);
  auto store = open_ok(sut, config);
  WorkerInfo w1;
  w1.name = "w1";
  w1.host = "host-a";
  w1.devices = "cpu0";
  w1.hot_circuits = {"c-1", "c-2"};
  w1.running = 2;
  w1.started_unix_ms = unix_now_ms() - 5'000;
  WorkerInfo w2;
  w2.name = "w2";
  w2.host = "host-b";
  w2.devices = "cuda0 (NVIDIA H200)";
  w2.started_unix_ms = unix_now_ms();
  REQUIRE(store->heartbeat(w1, {}).ok());
  clock->advance(2'000);
  REQUIRE(store->heartbeat(w2, {}).ok());

  Result<std::vector<WorkerInfo>> seen = store->workers(60'000);
  REQUIRE(seen.ok());
  REQUIRE(seen->size() == 2);
  CHECK((*seen)[0].name == "w2");
  CHECK((*seen)[0].devices == "cuda0 (NVIDIA H200)");
  CHECK((*seen)[0].hot_circuits.empty());
  CHECK((*seen)[0].started_unix_ms == w2.started_unix_ms);
  const WorkerInfo& s1 = (*seen)[1];
  CHECK(s1.name == "w1");
  CHECK(s1.host == "host-a");
  CHECK(s1.devices == "cpu0");
  CHECK(s1.hot_circuits == std::vector<std::string>{"c-1", "c-2"});
  CHECK(s1.running == 2);
  CHECK(s1.started_unix_ms == w1.started_unix_ms);
  CHECK(std::abs(s1.last_seen_unix_ms - unix_now_ms()) < 60'000);

  clock->advance(2'000);
  w1.running = 0;
  w1.hot_circuits = {"c-3"};
  REQUIRE(store->heartbeat(w1, {}).ok());
  seen = store->workers(60'000);
  REQUIRE(seen.ok());
  REQUIRE(seen->size() == 2);
  CHECK((*seen)[0].name == "w1");
  CHECK((*seen)[0].running == 0);
  CHECK((*seen)[0].hot_circuits == std::vector<std::string>{"c-3"});

  // w1 beat last 2 s after w2: a minute on, both are gone, w2 first.
  clock->advance(50'000);
  seen = store->workers(60'000);
  REQUIRE(seen.ok());
  CHECK(seen->size() == 2);
  clock->advance(9'000);
  seen = store->workers(60'000);
  REQUIRE(seen.ok());
  REQUIRE(seen->size() == 1);
  CHECK((*seen)[0].name == "w1");
  clock->advance(2'000);
  seen = store->workers(60'000);
  REQUIRE(seen.ok());
  CHECK(seen->empty());
}

}  // namespace zkpipe::store::conformance
