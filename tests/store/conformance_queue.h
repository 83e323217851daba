// tests/store/conformance_queue.h: conformance checks of submitting and claiming: durable
// submits and request ids, the claim order, fences and attempts, counts, lists, chunked inputs.
// Thread-safety: call from the Catch2 test thread.
#pragma once

#include "store/conformance_support.h"

namespace zkpipe::store::conformance {

// A job submitted is kept (reopening the store finds it), its request id attaches the same
// input and type, and is refused for another input or type.
inline void check_submit_durable_and_request_ids(const StoreUnderTest& sut) {
  const StoreConfig config = sut.fresh();
  auto store = open_ok(sut, config);
  NewJob job = new_job("input one", 2, "c-1", 0, "req-1");
  job.partitions = 7;
  const uint64_t id = submit_ok(*store, job);
  CHECK(id > 0);

  Result<Submitted> again = store->submit(job);
  REQUIRE(again.ok());
  CHECK(again->attached);
  CHECK(again->id == id);

  NewJob other_input = job;
  other_input.input = bytes_of("input two");
  Result<Submitted> refused = store->submit(other_input);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status().code() == Code::kAlreadyExists);
  CHECK_THAT(refused.status().message(), Catch::Contains("request id 'req-1' is taken"));

  NewJob other_type = job;
  other_type.proof_type = "store-test-other";
  refused = store->submit(other_type);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.status().code() == Code::kAlreadyExists);

  // Without a request id, the same input is another job.
  const uint64_t a = submit_ok(*store, new_job("same"));
  const uint64_t b = submit_ok(*store, new_job("same"));
  CHECK(a != b);

  store.reset();
  store = open_ok(sut, config);
  const JobRecord r = get_ok(*store, id);
  CHECK(r.id == id);
  CHECK(r.request_id == "req-1");
  CHECK(r.proof_type == kType);
  CHECK(r.circuit_id == "c-1");
  CHECK(r.state == JobState::kQueued);
  CHECK(r.priority == 2);
  CHECK(r.partitions == 7);
  CHECK(r.attempts == 0);
  CHECK(r.checkpointed == 0);
  CHECK(r.completions == 0);
  CHECK(r.ended_unix_ms == 0);
  // The database's clock is unix milliseconds.
  CHECK(std::abs(r.submitted_unix_ms - unix_now_ms()) < 60'000);

  Result<std::optional<JobRecord>> found = store->find_request("req-1", false);
  REQUIRE(found.ok());
  REQUIRE(found->has_value());
  CHECK((*found)->id == id);
  Result<std::optional<JobRecord>> none = store->find_request("req-none", false);
  REQUIRE(none.ok());
  CHECK_FALSE(none->has_value());
  Result<std::optional<JobRecord>> unknown = store->get(id + 1000, false);
  REQUIRE(unknown.ok());
  CHECK_FALSE(unknown->has_value());
}

// Claims go by priority, then earliest deadline (none last), then hot params, then age; only the
// filter's proof types; an empty filter claims nothing; only_id claims that job only.
inline void check_claim_order(const StoreUnderTest& sut) {
  auto store = open_ok(sut, sut.fresh());
  const uint64_t a = submit_ok(*store, new_job("a", 3, "c-cold"));
  const uint64_t b = submit_ok(*store, new_job("b", 3, "c-hot"));
  const uint64_t c = submit_ok(*store, new_job("c", 3, "c-cold", 600'000));
  const uint64_t d = submit_ok(*store, new_job("d", 3, "c-cold", 300'000));
  const uint64_t e = submit_ok(*store, new_job("e", 1, "c-cold"));
  const uint64_t f = submit_ok(*store, new_job("f", 4, "c-hot", 1'000));
  const uint64_t g = submit_ok(*store, new_job("g", 3, "c-cold"));
  NewJob foreign = new_job("h", 1);
  foreign.proof_type = "store-test-other";
  const uint64_t h = submit_ok(*store, foreign);

  ClaimFilter none = filter(10);
  none.proof_types.clear();
  CHECK(claim_ok(*store, "w1", none).empty());

  ClaimFilter only = filter(10, {"c-hot"});
  only.only_id = g;
  std::vector<Claimed> just_g = claim_ok(*store, "w1", only);
  REQUIRE(just_g.size() == 1);
  CHECK(just_g[0].id == g);
  CHECK(just_g[0].input == bytes_of("g"));

  std::vector<uint64_t> order;
  for (int i = 0; i < 10; ++i) {
    std::vector<Claimed> one = claim_ok(*store, "w1", filter(1, {"c-hot"}));
    if (one.empty()) break;
    order.push_back(one[0].id);
    CHECK(one[0].input.size() == 1);
  }
  CHECK(order == std::vector<uint64_t>{e, d, c, b, a, f});
  CHECK(get_ok(*store, h).state == JobState::kQueued);

  // Several at once, in the same order.
  auto store2 = open_ok(sut, sut.fresh());
  const uint64_t x = submit_ok(*store2, new_job("x", 4));
  const uint64_t y = submit_ok(*store2, new_job("y", 2));
  const uint64_t z = submit_ok(*store2, new_job("z", 3));
  std::vector<Claimed> two = claim_ok(*store2, "w1", filter(2));
  REQUIRE(two.size() == 2);
  CHECK(two[0].id == y);
  CHECK(two[1].id == z);
  CHECK(claim_ok(*store2, "w1", filter(5)).size() == 1);
  CHECK(get_ok(*store2, x).state == JobState::kRunning);
}

// A claim bumps the fence, counts an attempt, names its owner and carries the job's fields.
inline void check_claim_fence_and_attempt(const StoreUnderTest& sut) {
  StoreConfig config = sut.fresh();
  config.retry_backoff_ms = 1'000;
  const auto clock = test_clock(config);
  auto store = open_ok(sut, config);
  const uint64_t id = submit_ok(*store, new_job("payload", 2, "c-1", 120'000, "req-f"));
  const Claimed first = claim_one(*store, "w1");
  CHECK(first.id == id);
  CHECK(first.attempt == 1);
  CHECK(first.fence > 0);
  CHECK(first.request_id == "req-f");
  CHECK(first.proof_type == kType);
  CHECK(first.circuit_id == "c-1");
  CHECK(first.input == bytes_of("payload"));
  CHECK(first.priority == 2);
  CHECK(first.partitions == 2);
  CHECK(first.checkpoints.empty());
  REQUIRE(first.deadline_left_ms.has_value());
  CHECK(*first.deadline_left_ms <= 120'000);
  CHECK(*first.deadline_left_ms > 60'000);
  JobRecord r = get_ok(*store, id);
  CHECK(r.state == JobState::kRunning);
  CHECK(r.owner == "w1");
  CHECK(r.attempts == 1);
  CHECK(claim_ok(*store, "w2").empty());

  REQUIRE(fenced_ok(store->fail(id, first.fence, Code::kInternal, "boom", true)));
  CHECK(claim_ok(*store, "w2").empty());  // in its 1 s back-off
  clock->advance(1'001);
  const Claimed second = claim_one(*store, "w2");
  CHECK(second.fence > first.fence);
  CHECK(second.attempt == 2);
  REQUIRE(second.deadline_left_ms.has_value());  // the deadline is on the store's clock too
  CHECK(*second.deadline_left_ms <= *first.deadline_left_ms - 1'000);
  CHECK(get_ok(*store, id).owner == "w2");

  const uint64_t none = submit_ok(*store, new_job("no deadline"));
  const Claimed no_deadline = claim_one(*store, "w2");
  CHECK(no_deadline.id == none);
  CHECK_FALSE(no_deadline.deadline_left_ms.has_value());
}

// Queued jobs are counted by priority, the others by state.
inline void check_counts(const StoreUnderTest& sut) {
  auto store = open_ok(sut, sut.fresh());
  Result<QueueCounts> empty = store->counts();
  REQUIRE(empty.ok());
  CHECK(empty->queued.empty());
  CHECK(empty->running + empty->done + empty->failed + empty->cancelled == 0);

  const uint64_t a = submit_ok(*store, new_job("a", 1));
  submit_ok(*store, new_job("b", 1));
  submit_ok(*store, new_job("c", 3));
  const uint64_t d = submit_ok(*store, new_job("d", 4));
  submit_ok(*store, new_job("e", 3));
  const Claimed ca = claim_one(*store, "w1");
  REQUIRE(ca.id == a);
  const Claimed cb = claim_one(*store, "w1");
  REQUIRE(fenced_ok(store->complete(cb.id, cb.fence, bytes_of("proof"))));
  REQUIRE(store->cancel(d).ok());

  Result<QueueCounts> n = store->counts();
  REQUIRE(n.ok());
  auto queued = [&](uint8_t p) { return n->queued.count(p) ? n->queued.at(p) : 0u; };
  CHECK(queued(1) == 0);
  CHECK(queued(3) == 2);
  CHECK(queued(4) == 0);
  CHECK(n->running == 1);
  CHECK(n->done == 1);
  CHECK(n->failed == 0);
  CHECK(n->cancelled == 1);

  REQUIRE(fenced_ok(store->fail(ca.id, ca.fence, Code::kInvalidArgument, "bad input", false)));
  n = store->counts();
  REQUIRE(n.ok());
  CHECK(n->running == 0);
  CHECK(n->failed == 1);
}

// Newest first, all or one state, at most `limit`; results only through get(with_result).
inline void check_list(const StoreUnderTest& sut) {
  auto store = open_ok(sut, sut.fresh());
  const uint64_t a = submit_ok(*store, new_job("a"));
  const uint64_t b = submit_ok(*store, new_job("b"));
  const uint64_t c = submit_ok(*store, new_job("c"));
  const Claimed ca = claim_one(*store, "w1");
  REQUIRE(ca.id == a);
  REQUIRE(fenced_ok(store->complete(a, ca.fence, bytes_of("result-a"))));

  auto ids = [](const std::vector<JobRecord>& records) {
    std::vector<uint64_t> out;
    for (const auto& r : records) out.push_back(r.id);
    return out;
  };
  Result<std::vector<JobRecord>> all = store->list(std::nullopt, 100);
  REQUIRE(all.ok());
  CHECK(ids(*all) == std::vector<uint64_t>{c, b, a});
  Result<std::vector<JobRecord>> two = store->list(std::nullopt, 2);
  REQUIRE(two.ok());
  CHECK(ids(*two) == std::vector<uint64_t>{c, b});
  Result<std::vector<JobRecord>> queued = store->list(JobState::kQueued, 100);
  REQUIRE(queued.ok());
  CHECK(ids(*queued) == std::vector<uint64_t>{c, b});
  Result<std::vector<JobRecord>> done = store->list(JobState::kDone, 100);
  REQUIRE(done.ok());
  REQUIRE(ids(*done) == std::vector<uint64_t>{a});
  CHECK((*done)[0].completions == 1);
  CHECK((*done)[0].owner == "w1");
  Result<std::vector<JobRecord>> failed = store->list(JobState::kFailed, 100);
  REQUIRE(failed.ok());
  CHECK(failed->empty());

  CHECK(get_ok(*store, a, false).result.empty());
  CHECK(get_ok(*store, a, true).result == bytes_of("result-a"));
  Result<std::optional<JobRecord>> by_request = store->find_request("nope", true);
  REQUIRE(by_request.ok());
  CHECK_FALSE(by_request->has_value());
}

// Inputs are kept in chunks of store.chunk_bytes: one of several chunks, one of exactly two and
// an empty one come back byte for byte; two jobs of one input share it.
inline void check_large_input_round_trips(const StoreUnderTest& sut) {
  StoreConfig config = sut.fresh();
  config.chunk_bytes = 4096;
  auto store = open_ok(sut, config);
  const std::vector<std::vector<uint8_t>> inputs = {
      random_bytes(50'000, 1), random_bytes(8192, 2), {}, random_bytes(50'000, 1)};
  std::vector<uint64_t> ids;
  for (size_t i = 0; i < inputs.size(); ++i) {
    NewJob job = new_job("");
    job.input = inputs[i];
    job.request_id = "big-" + std::to_string(i);
    ids.push_back(submit_ok(*store, job));
  }
  // Attaching compares the whole input, not a prefix or a chunk.
  NewJob changed = new_job("");
  changed.input = inputs[0];
  changed.input.back() ^= 1;
  changed.request_id = "big-0";
  CHECK_FALSE(store->submit(changed).ok());

  std::vector<Claimed> claimed = claim_ok(*store, "w1", filter(10));
  REQUIRE(claimed.size() == inputs.size());
  for (size_t i = 0; i < inputs.size(); ++i) {
    INFO("input " << i);
    CHECK(claimed[i].id == ids[i]);
    CHECK(claimed[i].input.size() == inputs[i].size());
    CHECK(claimed[i].input == inputs[i]);
  }
}

}  // namespace zkpipe::store::conformance
