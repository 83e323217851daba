// tests/pipeline/memory_model_test.cpp: the memory model's arithmetic (predict_memory: partitions
// in flight from the queues and the budget, the budget for one and for all, the resident peak,
// smaller budgets, warnings) on a made-up circuit with round sizes, the bound without params,
// and MemoryBudget::reserve_keeping (a queued job's request never waits and leaves room for a
// partition).
#include <catch2/catch.hpp>

#include <chrono>
#include <thread>

#include "zkpipe/pipeline/budget.h"
#include "zkpipe/pipeline/memory_model.h"

using namespace zkpipe;
using namespace zkpipe::pipeline;
using namespace std::chrono_literals;
using Catch::Matchers::Contains;

namespace {

constexpr uint64_t kMiB = 1024 * 1024;
constexpr uint64_t kGiB = 1024 * kMiB;

CircuitMemory made_up() {
  CircuitMemory c;
  c.circuit_id = "made-up";
  c.params = 160 * kMiB;
  c.params_used = 140 * kMiB;
  c.r1cs = 80 * kMiB;
  c.verifying_key = 1 * kMiB;
  c.ntt_tables = 32 * kMiB;
  c.start_one = c.start_scratch = 100 * kMiB;   // one compute worker
  c.finish_one = c.finish_scratch = 60 * kMiB;  // one finalizer
  c.abc = c.abc_used = 48 * kMiB;
  c.witness = 12 * kMiB;
  c.witness_used = 10 * kMiB;
  c.pending = 8 * kMiB;
  return c;
}

SystemInfo roomy() {
  SystemInfo info;
  info.ram_bytes = info.available_bytes = 64 * kGiB;
  return info;
}

PipelineShape one_of_each() {
  PipelineShape s;
  s.synthesis_workers = s.compute_workers = s.finalizers = 1;
  s.ready_depth = 2;
  return s;
}

}  // namespace

TEST_CASE("Memory model: the queues bound what is in flight, the peak is the worst moment",
          "[pipeline]") {
  const CircuitMemory c = made_up();
  const uint64_t resident = 160 + 80 + 1 + 32 + 100 + 60;  // MiB
  REQUIRE(c.resident() == resident * kMiB);
  // 3 jobs of 2 partitions: a/b/c for 1 proving + 2 ready; the rest for them + 1 finishing.
  const MemoryPrediction p =
      predict_memory({c, 3, 2, 1 * kMiB}, one_of_each(), 8 * kGiB, 10 * kMiB, false, roomy());
  CHECK(p.abc_in_flight == 3);
  CHECK(p.rest_in_flight == 4);
  CHECK(p.budget_for_all == (3 + resident + 3 * 48 + 4 * 20) * kMiB);
  CHECK(p.budget_for_one == (3 + resident + 48 + 20) * kMiB);
  CHECK(p.reserved_peak == p.budget_for_all);
  // Worst moment: 3 holding a/b/c (one proving) while one is finished: 3 x 48 + 100 + 60.
  const uint64_t moving = 3 * 48 + 100 + 60;
  CHECK(p.peak_host == (10 + 3 + 140 + 80 + 1 + 32 + 4 * 18 + moving) * kMiB);
  CHECK(p.peak_pinned == 0);
  CHECK(p.breakdown.front().first == "3 x a/b/c");  // the largest first
  CHECK(p.warnings.empty());
  // Smaller budgets: 1 and 2 partitions in flight, each with its budget and a lower peak.
  REQUIRE(p.steps.size() == 2);
  CHECK(p.steps[0].budget == p.budget_for_one);
  CHECK(p.steps[1].budget == p.budget_for_one + 68 * kMiB);
  CHECK(p.steps[0].peak_host < p.steps[1].peak_host);
  CHECK(p.steps[1].peak_host < p.peak_host);
  CHECK_THAT(p.steps[0].cost, Contains("synthesized ahead"));
  // Page-locked buffers: the params copy, a/b/c and witnesses at their size classes.
  const MemoryPrediction pinned =
      predict_memory({c, 3, 2, 1 * kMiB}, one_of_each(), 8 * kGiB, 10 * kMiB, true, roomy());
  CHECK(pinned.peak_pinned == (160 + 3 * 48 + 4 * 12) * kMiB);
}

TEST_CASE("Memory model: one partition, a tight budget, one too small, and a small machine",
          "[pipeline]") {
  const CircuitMemory c = made_up();
  // One partition: no other one is finished beside it.
  const MemoryPrediction one =
      predict_memory({c, 1, 1, 1 * kMiB}, one_of_each(), 8 * kGiB, 0, false, roomy());
  CHECK(one.abc_in_flight == 1);
  CHECK(one.rest_in_flight == 1);
  CHECK(one.peak_host == (1 + 140 + 80 + 1 + 32 + 18 + 48 + 100) * kMiB);
  // A budget for exactly 2 of the 3 partitions that would be in flight.
  const MemoryPrediction all =
      predict_memory({c, 3, 2, 1 * kMiB}, one_of_each(), 8 * kGiB, 0, false, roomy());
  const MemoryPrediction tight = predict_memory({c, 3, 2, 1 * kMiB}, one_of_each(),
                                                all.budget_for_one + 68 * kMiB, 0, false, roomy());
  CHECK(tight.abc_in_flight == 2);
  CHECK(tight.reserved_peak <= tight.budget);
  // Too small for one partition: nothing in flight and a warning with the bytes needed.
  const uint64_t need =
      predict_memory({c, 1, 2, 1 * kMiB}, one_of_each(), 8 * kGiB, 0, false, roomy())
          .budget_for_one;
  const MemoryPrediction small =
      predict_memory({c, 1, 2, 1 * kMiB}, one_of_each(), need - 1, 0, false, roomy());
  CHECK(small.abc_in_flight == 0);
  REQUIRE(!small.warnings.empty());
  CHECK_THAT(small.warnings.front(), Contains("too small for one partition"));
  // A machine smaller than the peak, and pinned memory over RLIMIT_MEMLOCK: named, with the key.
  SystemInfo tiny = roomy();
  tiny.ram_bytes = 256 * kMiB;
  tiny.memlock_soft_bytes = 8 * kMiB;
  const MemoryPrediction over =
      predict_memory({c, 1, 2, 1 * kMiB}, one_of_each(), 8 * kGiB, 0, true, tiny);
  REQUIRE(over.warnings.size() == 2);
  CHECK_THAT(over.warnings[0], Contains("exceeds the RAM") && Contains("pipeline.budget"));
  CHECK_THAT(over.warnings[1], Contains("RLIMIT_MEMLOCK") && Contains("memory.cap"));
}

// Issue 34 #9: `zkpipe plan --jobs 2^64-1` predicted less than one job (a plain sum of the
// saturated request bytes wrapped); more jobs never predict less.
TEST_CASE("Memory model: absurd job counts saturate, never wrap", "[pipeline]") {
  const CircuitMemory c = made_up();
  const MemoryPrediction one =
      predict_memory({c, 1, 2, 1 * kMiB}, one_of_each(), 8 * kGiB, 0, false, roomy());
  for (const uint64_t jobs : {uint64_t{1} << 32, UINT64_MAX / 2, UINT64_MAX - 1, UINT64_MAX}) {
    INFO(jobs);
    const MemoryPrediction many =
        predict_memory({c, jobs, 2, 1 * kMiB}, one_of_each(), 8 * kGiB, 0, false, roomy());
    CHECK(many.budget_for_one >= one.budget_for_one);
    CHECK(many.budget_for_all >= one.budget_for_all);
    CHECK(many.peak_host >= one.peak_host);
    if (jobs > (UINT64_MAX >> 20)) CHECK(many.peak_host == UINT64_MAX);  // requests > 2^64 B
  }
}

TEST_CASE("Memory model: without params every wire is assumed dense, and it says so",
          "[pipeline]") {
  PipelineShape s = one_of_each();
  const CircuitMemory bound = circuit_memory_bound("c", 1000, 3, 997, 1 * kMiB, s);
  CHECK_FALSE(bound.exact);
  CHECK(bound.abc_used == 3 * 1024 * 32);  // domain: 1000 + 3 rounded up to 1024
  CHECK(bound.witness_used == 1000 * 32);
  CHECK(bound.pending >= 1000 * 32);  // a B scalar for every wire
  const MemoryPrediction p = predict_memory({bound, 1, 1, 0}, s, 8 * kGiB, 0, false, roomy());
  REQUIRE(!p.warnings.empty());
  CHECK_THAT(p.warnings.back(), Contains("upper bound"));
  CHECK(abc_bytes(1024, 4096) == 96 * 1024);  // already a size class
  CHECK(witness_bytes(70000, 4096) >= 70000 * 32);
}

TEST_CASE("MemoryBudget: reserve_keeping grants at once, past waiters, or refuses", "[pipeline]") {
  MemoryBudget budget(100 * kMiB);
  auto work = budget.reserve(40 * kMiB, {});
  REQUIRE(work.ok());
  // Held reservations together may take at most total - keep_free = 40 MiB.
  Result<Reservation> first = budget.reserve_keeping(10 * kMiB, 60 * kMiB, "request 1");
  REQUIRE(first.ok());
  Result<Reservation> refused = budget.reserve_keeping(35 * kMiB, 60 * kMiB, "request 2");
  CHECK(refused.status().code() == Code::kResourceExhausted);
  CHECK_THAT(refused.status().message(),
             Contains("queued jobs already hold") && Contains("pipeline.budget"));
  // A waiter for 70 MiB (50 reserved) does not hold up a request that fits now...
  std::thread waiter([&] {
    ReserveOptions o;
    o.what = "a partition";
    o.deadline = std::chrono::steady_clock::now() + 10s;
    (void)budget.reserve(70 * kMiB, o);
  });
  const auto give_up = std::chrono::steady_clock::now() + 5s;
  while (budget.stats().waiting == 0 && std::chrono::steady_clock::now() < give_up) {
    std::this_thread::yield();
  }
  CHECK(budget.stats().waiting == 1);
  Result<Reservation> past = budget.reserve_keeping(20 * kMiB, 60 * kMiB, "request 3");
  CHECK(past.ok());
  // ...and held requests leave the waiter its room: it is served when the work goes.
  work->release();
  waiter.join();
  CHECK(budget.stats().grants == 4);
  first->release();
  past->release();
  CHECK(budget.stats().reserved == 0);
  // Not fitting now is refused too (it never waits).
  auto full = budget.reserve(98 * kMiB, {});
  REQUIRE(full.ok());
  Result<Reservation> now = budget.reserve_keeping(5 * kMiB, 0, "request 4");
  CHECK_THAT(now.status().message(), Contains("does not fit now"));
  // The held share is given back: with the work gone, 40 MiB of requests fit again.
  full->release();
  Result<Reservation> again = budget.reserve_keeping(40 * kMiB, 60 * kMiB, "request 5");
  CHECK(again.ok());
  again->release();
  budget.close();
  CHECK(budget.reserve_keeping(1, 0, "late").status().code() == Code::kAborted);
}
