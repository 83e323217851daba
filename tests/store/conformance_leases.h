// tests/store/conformance_leases.h: conformance checks of what a claim's owner and the clock do
// to a job: heartbeats, fenced checkpoints and completions, failures and retries, reaping
// expired leases. Time moves on the store's test clock (leases of a minute, advanced at once),
// so the real time a loaded machine takes between two calls changes nothing.
// Thread-safety: call from the Catch2 test thread.
#pragma once

#include "store/conformance_support.h"

namespace zkpipe::store::conformance {

// A heartbeat renews its leases (nothing to reap after two leases' time; a lease after the last
// heartbeat the job is reaped) and reports as lost a job whose fence another claim replaced.
inline void check_heartbeat(const StoreUnderTest& sut) {
  StoreConfig config = sut.fresh();
  config.lease_ms = 60'000;
  const auto clock = test_clock(config);
  auto store = open_ok(sut, config);
  const uint64_t id = submit_ok(*store, new_job("hb"));
  const Claimed c1 = claim_one(*store, "w1");
  WorkerInfo w1;
  w1.name = "w1";
  for (int i = 0; i < 3; ++i) {
    Result<HeartbeatReply> beat = store->heartbeat(w1, {{id, c1.fence}});
    INFO(beat.status().to_string());
    REQUIRE(beat.ok());
    CHECK(beat->lost.empty());
    CHECK(beat->cancel_requested.empty());
    clock->advance(40'000);
  }
  // 120 s after the claim, 40 s after the last heartbeat: the lease still holds.
  Result<size_t> reaped = store->reap();
  REQUIRE(reaped.ok());
  CHECK(*reaped == 0);
  CHECK(get_ok(*store, id).state == JobState::kRunning);

  // A fence that is not the job's is lost.
  Result<HeartbeatReply> wrong = store->heartbeat(w1, {{id, c1.fence + 7}});
  REQUIRE(wrong.ok());
  CHECK(wrong->lost == std::vector<uint64_t>{id});

  // Another claim (after a release) makes w1's fence stale; w2's holds.
  REQUIRE(fenced_ok(store->release(id, c1.fence)));
  const Claimed c2 = claim_one(*store, "w2");
  CHECK(c2.fence > c1.fence);
  Result<HeartbeatReply> lost = store->heartbeat(w1, {{id, c1.fence}});
  REQUIRE(lost.ok());
  CHECK(lost->lost == std::vector<uint64_t>{id});
  WorkerInfo w2;
  w2.name = "w2";
  Result<HeartbeatReply> kept = store->heartbeat(w2, {{id, c2.fence}});
  REQUIRE(kept.ok());
  CHECK(kept->lost.empty());
  // A worker cannot renew another's claim with its fence.
  Result<HeartbeatReply> foreign = store->heartbeat(w1, {{id, c2.fence}});
  REQUIRE(foreign.ok());
  CHECK(foreign->lost == std::vector<uint64_t>{id});

  // w2 stops renewing: just short of a lease the job holds, just past it the job is reaped.
  clock->advance(59'000);
  reaped = store->reap();
  REQUIRE(reaped.ok());
  CHECK(*reaped == 0);
  clock->advance(2'000);
  reaped = store->reap();
  REQUIRE(reaped.ok());
  CHECK(*reaped == 1);
  CHECK(get_ok(*store, id).state == JobState::kQueued);
}

// Checkpoints need the current fence; the first proof of a position stays; they survive a
// release and come with the next claim.
inline void check_checkpoint_fenced(const StoreUnderTest& sut) {
  auto store = open_ok(sut, sut.fresh());
  const uint64_t id = submit_ok(*store, new_job("cp"));
  const Claimed c1 = claim_one(*store, "w1");
  REQUIRE(store->checkpoint(id, c1.fence, 0, bytes_of("p0-first")).ok());
  REQUIRE(store->checkpoint(id, c1.fence, 0, bytes_of("p0-second")).ok());
  REQUIRE(store->checkpoint(id, c1.fence, 1, bytes_of("p1")).ok());
  CHECK(get_ok(*store, id).checkpointed == 2);

  Status stale = store->checkpoint(id, c1.fence + 1, 2, bytes_of("p2"));
  CHECK(stale.code() == Code::kFailedPrecondition);
  CHECK_THAT(stale.message(), Catch::Contains("fence"));
  CHECK(get_ok(*store, id).checkpointed == 2);

  REQUIRE(fenced_ok(store->release(id, c1.fence)));
  // Queued: no fence is current.
  CHECK(store->checkpoint(id, c1.fence, 2, bytes_of("p2")).code() == Code::kFailedPrecondition);
  const Claimed c2 = claim_one(*store, "w2");
  REQUIRE(c2.checkpoints.size() == 2);
  CHECK(c2.checkpoints.at(0) == bytes_of("p0-first"));
  CHECK(c2.checkpoints.at(1) == bytes_of("p1"));
  CHECK(store->checkpoint(id, c1.fence, 2, bytes_of("p2")).code() == Code::kFailedPrecondition);
  CHECK(get_ok(*store, id).checkpointed == 2);
}

// complete() with a stale fence writes nothing; the current one completes once.
inline void check_complete_fenced(const StoreUnderTest& sut) {
  auto store = open_ok(sut, sut.fresh());
  const uint64_t id = submit_ok(*store, new_job("done"));
  const Claimed c1 = claim_one(*store, "w1");
  REQUIRE(fenced_ok(store->release(id, c1.fence)));
  const Claimed c2 = claim_one(*store, "w2");

  CHECK_FALSE(fenced_ok(store->complete(id, c1.fence, bytes_of("stale"))));
  JobRecord r = get_ok(*store, id, true);
  CHECK(r.state == JobState::kRunning);
  CHECK(r.completions == 0);
  CHECK(r.result.empty());

  CHECK(fenced_ok(store->complete(id, c2.fence, bytes_of("the proof"))));
  r = get_ok(*store, id, true);
  CHECK(r.state == JobState::kDone);
  CHECK(r.result == bytes_of("the proof"));
  CHECK(r.completions == 1);
  CHECK(r.owner == "w2");
  CHECK(r.ended_unix_ms >= r.submitted_unix_ms);
  CHECK(std::abs(r.ended_unix_ms - unix_now_ms()) < 60'000);

  CHECK_FALSE(fenced_ok(store->complete(id, c2.fence, bytes_of("again"))));
  CHECK_FALSE(fenced_ok(store->fail(id, c2.fence, Code::kInternal, "late", false)));
  r = get_ok(*store, id, true);
  CHECK(r.state == JobState::kDone);
  CHECK(r.completions == 1);
  CHECK(r.result == bytes_of("the proof"));
}

// A retryable failure with attempts left: queued after the back-off, the failing worker avoided
// for a lease, the error kept, the checkpoints dropped.
inline void check_fail_retryable(const StoreUnderTest& sut) {
  StoreConfig config = sut.fresh();
  config.retry_backoff_ms = 20'000;
  config.lease_ms = 60'000;
  config.max_attempts = 3;
  const auto clock = test_clock(config);
  auto store = open_ok(sut, config);
  const uint64_t id = submit_ok(*store, new_job("retry"));
  const Claimed c1 = claim_one(*store, "w1");
  REQUIRE(store->checkpoint(id, c1.fence, 0, bytes_of("p0")).ok());
  REQUIRE(fenced_ok(store->fail(id, c1.fence, Code::kUnavailable, "the device fell off", true)));
  CHECK_FALSE(fenced_ok(store->fail(id, c1.fence, Code::kUnavailable, "twice", true)));

  JobRecord r = get_ok(*store, id);
  CHECK(r.state == JobState::kQueued);
  CHECK(r.error == "the device fell off");
  CHECK(r.error_code == static_cast<int32_t>(Code::kUnavailable));
  CHECK(r.checkpointed == 0);
  CHECK(r.attempts == 1);
  CHECK(r.ended_unix_ms == 0);

  // In back-off (20 s): nobody takes it; then w2 does, w1 (avoided for a lease) does not.
  CHECK(claim_ok(*store, "w2").empty());
  clock->advance(15'000);
  CHECK(claim_ok(*store, "w2").empty());
  clock->advance(6'000);
  CHECK(claim_ok(*store, "w1").empty());
  const Claimed c2 = claim_one(*store, "w2");
  CHECK(c2.attempt == 2);
  CHECK(c2.checkpoints.empty());

  // The next failure backs off twice as long (40 s); w2, which failed it, may take it again once
  // a lease past that.
  REQUIRE(fenced_ok(store->fail(id, c2.fence, Code::kUnavailable, "again", true)));
  clock->advance(35'000);
  CHECK(claim_ok(*store, "w3").empty());
  clock->advance(6'000);
  CHECK(claim_ok(*store, "w2").empty());  // avoided: it failed last
  clock->advance(60'000);
  const Claimed c3 = claim_one(*store, "w2");
  CHECK(c3.attempt == 3);
}

// Out of attempts, or not retryable: failed, with the error kept.
inline void check_fail_out_of_attempts(const StoreUnderTest& sut) {
  StoreConfig config = sut.fresh();
  config.retry_backoff_ms = 1'000;
  config.max_attempts = 2;
  const auto clock = test_clock(config);
  auto store = open_ok(sut, config);
  const uint64_t id = submit_ok(*store, new_job("twice"));
  const Claimed c1 = claim_one(*store, "w1");
  REQUIRE(fenced_ok(store->fail(id, c1.fence, Code::kUnavailable, "first", true)));
  clock->advance(1'001);
  const Claimed c2 = claim_one(*store, "w2");
  CHECK(c2.attempt == 2);
  REQUIRE(fenced_ok(store->fail(id, c2.fence, Code::kInternal, "second", true)));
  JobRecord r = get_ok(*store, id);
  CHECK(r.state == JobState::kFailed);
  CHECK(r.error == "second");
  CHECK(r.error_code == static_cast<int32_t>(Code::kInternal));
  CHECK(r.attempts == 2);
  CHECK(r.ended_unix_ms > 0);
  CHECK(claim_ok(*store, "w3").empty());

  const uint64_t other = submit_ok(*store, new_job("bad"));
  const Claimed c = claim_one(*store, "w1");
  REQUIRE(c.id == other);
  REQUIRE(fenced_ok(store->fail(other, c.fence, Code::kInvalidArgument, "not a witness", false)));
  r = get_ok(*store, other);
  CHECK(r.state == JobState::kFailed);
  CHECK(r.error == "not a witness");
  CHECK(r.error_code == static_cast<int32_t>(Code::kInvalidArgument));
  CHECK(r.attempts == 1);
}

// Expired leases are reaped (idempotently): queued again, the old owner avoided for a lease while
// another worker takes the job at once; out of attempts, failed (UNAVAILABLE).
inline void check_reap(const StoreUnderTest& sut) {
  StoreConfig config = sut.fresh();
  config.lease_ms = 60'000;
  config.retry_backoff_ms = 1'000;
  config.max_attempts = 2;
  const auto clock = test_clock(config);
  auto store = open_ok(sut, config);
  const uint64_t x = submit_ok(*store, new_job("x"));
  const uint64_t y = submit_ok(*store, new_job("y"));
  std::vector<Claimed> held = claim_ok(*store, "w1", filter(2));
  REQUIRE(held.size() == 2);
  Result<size_t> early = store->reap();
  REQUIRE(early.ok());
  CHECK(*early == 0);
  clock->advance(55'000);
  early = store->reap();
  REQUIRE(early.ok());
  CHECK(*early == 0);

  clock->advance(6'000);
  Result<size_t> reaped = store->reap();
  REQUIRE(reaped.ok());
  CHECK(*reaped == 2);
  Result<size_t> again = store->reap();
  REQUIRE(again.ok());
  CHECK(*again == 0);
  JobRecord r = get_ok(*store, x);
  CHECK(r.state == JobState::kQueued);
  CHECK(r.attempts == 1);
  CHECK_THAT(r.error, Catch::Contains("lease"));

  WorkerInfo w1;
  w1.name = "w1";
  Result<HeartbeatReply> beat = store->heartbeat(w1, {{x, held[0].fence}, {y, held[1].fence}});
  REQUIRE(beat.ok());
  CHECK(beat->lost.size() == 2);

  // In back-off nobody takes them; then w2 takes x at once, w1 (avoided) nothing; w1 gets y
  // back once a lease has passed.
  CHECK(claim_ok(*store, "w2").empty());
  clock->advance(1'001);
  CHECK(claim_ok(*store, "w1").empty());
  const Claimed cx = claim_one(*store, "w2");
  CHECK(cx.id == x);
  CHECK(cx.attempt == 2);
  clock->advance(50'000);
  CHECK(claim_ok(*store, "w1").empty());
  clock->advance(10'001);
  const Claimed cy = claim_one(*store, "w1");
  CHECK(cy.id == y);

  // x's second attempt also stops renewing (60 s after its claim): out of attempts, failed with
  // the lease named.
  reaped = store->reap();
  REQUIRE(reaped.ok());
  CHECK(*reaped == 1);
  r = get_ok(*store, x);
  CHECK(r.state == JobState::kFailed);
  CHECK(r.error_code == static_cast<int32_t>(Code::kUnavailable));
  CHECK_THAT(r.error, Catch::Contains("lease"));
  CHECK(r.ended_unix_ms > 0);
}

}  // namespace zkpipe::store::conformance
