// tests/pipeline/budget_test.cpp: MemoryBudget (accounting, split, oversize, deadlines, priority
// and FIFO order, head-of-line blocking, cancel, close, the reclaimer, an 8-thread stress run) and
// the start-up plan. Thread-safety: each test owns its budget and joins its threads; Catch2
// assertions stay on the main thread; every wait has a deadline, so a bug fails, not hangs.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "zkpipe/pipeline/budget.h"

using namespace zkpipe;
using namespace zkpipe::pipeline;
using namespace std::chrono_literals;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = 1024 * kKiB;
constexpr uint64_t kGiB = 1024 * kMiB;

ReserveOptions opts(std::string what, Priority priority = Priority::kNormal,
                    std::chrono::milliseconds timeout = 10s) {
  ReserveOptions o;
  o.what = std::move(what);
  o.priority = priority;
  o.deadline = std::chrono::steady_clock::now() + timeout;
  return o;
}

Reservation must_reserve(MemoryBudget& budget, uint64_t bytes, const ReserveOptions& o) {
  auto got = budget.reserve(bytes, o);
  INFO(got.status().to_string());
  REQUIRE(got.ok());
  return std::move(got).value();
}

// Polls until `n` reserve() calls are queued; false after 10 s.
bool wait_for_waiting(const MemoryBudget& budget, size_t n) {
  const auto until = std::chrono::steady_clock::now() + 10s;
  while (budget.stats().waiting != n && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(1ms);
  }
  return budget.stats().waiting == n;
}

// Runs reserve() on a thread; its outcome lands in *out (OK when granted; the reservation is
// then released at once) and *done turns true. Catch2 assertions stay on the main thread.
std::thread reserve_on_thread(MemoryBudget& budget, uint64_t bytes, ReserveOptions o, Status* out,
                              std::atomic<bool>* done = nullptr) {
  return std::thread([&budget, bytes, o = std::move(o), out, done] {
    auto got = budget.reserve(bytes, o);
    *out = got.status();
    if (done != nullptr) *done = true;
  });
}

// Runs `n` waiters, each queued before the next starts; each takes `bytes`, records its name
// and releases at once. Returns the order in which they got their reservation.
std::vector<std::string> serve_in_order(MemoryBudget& budget, uint64_t bytes,
                                        const std::vector<std::pair<std::string, Priority>>& who) {
  Reservation all = must_reserve(budget, budget.total(), opts("holder"));
  std::mutex mu;
  std::vector<std::string> order;
  std::vector<std::thread> threads;
  for (size_t i = 0; i < who.size(); ++i) {
    threads.emplace_back([&, name = who[i].first, priority = who[i].second] {
      auto got = budget.reserve(bytes, opts(name, priority));
      std::lock_guard<std::mutex> lock(mu);  // a failure shows in the order as "!name"
      order.push_back(got.ok() ? name : "!" + name);
      if (got.ok()) got->release();  // under `mu`: the next one records after this one
    });
    CHECK(wait_for_waiting(budget, i + 1));
  }
  all.release();
  for (auto& t : threads) t.join();
  return order;
}

SystemInfo machine(uint64_t ram, std::optional<uint64_t> cgroup = std::nullopt,
                   std::optional<uint64_t> memlock = std::nullopt) {
  SystemInfo info;
  info.ram_bytes = info.available_bytes = ram;
  info.cgroup_limit_bytes = cgroup;
  info.memlock_soft_bytes = info.memlock_hard_bytes = memlock;
  return info;
}

}  // namespace

TEST_CASE("MemoryBudget: grant and release keep the books and the peak", "[pipeline]") {
  MemoryBudget budget(100 * kMiB);
  Reservation a = must_reserve(budget, 30 * kMiB, opts("a"));
  Reservation b = must_reserve(budget, 50 * kMiB, opts("b"));
  CHECK((a.bytes() == 30 * kMiB && static_cast<bool>(a)));
  CHECK(budget.stats().reserved == 80 * kMiB);
  a.release();
  a.release();  // idempotent
  CHECK((!a && budget.stats().reserved == 50 * kMiB));
  (void)must_reserve(budget, 20 * kMiB, opts("c"));  // a discarded temporary: released at once
  CHECK(budget.stats().reserved == 50 * kMiB);
  Reservation moved(std::move(b));
  CHECK((b.bytes() == 0 && moved.bytes() == 50 * kMiB));
  Reservation d = must_reserve(budget, 10 * kMiB, opts("d"));
  d = std::move(moved);  // move-assign releases d's 10 MiB first
  CHECK(budget.stats().reserved == 50 * kMiB);
  d.release();
  const BudgetStats s = budget.stats();
  CHECK((s.reserved == 0 && s.waiting == 0 && s.total == 100 * kMiB));
  CHECK((s.peak == 80 * kMiB && s.grants == 4));
  auto empty = budget.reserve(0, opts("nothing"));
  CHECK((empty.ok() && !*empty && budget.stats().grants == 4));
}

TEST_CASE("MemoryBudget: split then release both halves", "[pipeline]") {
  MemoryBudget budget(100 * kMiB);
  Reservation whole = must_reserve(budget, 60 * kMiB, opts("abc + rest"));
  Reservation abc = whole.split(25 * kMiB);
  CHECK((abc.bytes() == 25 * kMiB && whole.bytes() == 35 * kMiB));
  CHECK(budget.stats().reserved == 60 * kMiB);   // a split does not touch the budget
  Reservation too_big = whole.split(36 * kMiB);  // more than it holds: empty, unchanged
  CHECK((!too_big && whole.bytes() == 35 * kMiB && !Reservation().split(1)));
  abc.release();
  CHECK(budget.stats().reserved == 35 * kMiB);
  whole.release();
  CHECK((budget.stats().reserved == 0 && budget.stats().grants == 1));
}

TEST_CASE("MemoryBudget: oversize fails at once naming what and the sizes", "[pipeline]") {
  MemoryBudget budget(1 * kGiB);
  Reservation hold = must_reserve(budget, 1 * kGiB, opts("holder"));
  const auto start = std::chrono::steady_clock::now();
  ReserveOptions forever;
  forever.what = "job 7 partition 2 working set";
  auto got = budget.reserve(2 * kGiB, forever);  // no deadline: must not wait
  CHECK(std::chrono::steady_clock::now() - start < 1s);
  CHECK(got.status().code() == Code::kResourceExhausted);
  CHECK_THAT(got.status().message(),
             Contains("job 7 partition 2 working set") && Contains("2 GiB") && Contains("1 GiB"));
  CHECK((budget.stats().refusals == 1 && budget.stats().waiting == 0));
}

TEST_CASE("MemoryBudget: try_reserve neither waits nor jumps the queue", "[pipeline]") {
  MemoryBudget budget(100);
  auto a = budget.try_reserve(60, "a");
  REQUIRE(a.ok());
  auto no_room = budget.try_reserve(50, "b");
  CHECK(no_room.status().code() == Code::kResourceExhausted);
  CHECK_THAT(no_room.status().message(), Contains("50 B") && Contains("60 B of 100 B"));

  Status big;
  std::thread waiter = reserve_on_thread(budget, 80, opts("big"), &big);
  CHECK(wait_for_waiting(budget, 1));
  auto would_fit = budget.try_reserve(10, "small");  // fits, but someone is waiting
  CHECK(!would_fit.ok());
  a->release();
  waiter.join();
  CHECK((big.ok() && budget.stats().refusals == 2 && budget.stats().reserved == 0));
}

TEST_CASE("MemoryBudget: deadline expiry removes the waiter and later ones are served",
          "[pipeline]") {
  MemoryBudget budget(100);
  Reservation half = must_reserve(budget, 50, opts("half"));
  // `late` needs everything; `small` would fit but queues behind it until `late` gives up.
  Status late, small;
  const auto start = std::chrono::steady_clock::now();
  std::thread late_thread =
      reserve_on_thread(budget, 100, opts("late request", Priority::kNormal, 300ms), &late);
  CHECK(wait_for_waiting(budget, 1));
  std::thread small_thread = reserve_on_thread(budget, 30, opts("small"), &small);
  CHECK(wait_for_waiting(budget, 2));
  late_thread.join();
  small_thread.join();
  CHECK(std::chrono::steady_clock::now() - start >= 300ms);
  CHECK(late.code() == Code::kDeadlineExceeded);
  CHECK_THAT(late.message(), Contains("late request") && Contains("100 B") && Contains(" ms") &&
                                 Contains("50 B of 100 B reserved"));
  CHECK(small.ok());  // served when `late` left, with no release in between
  CHECK((budget.stats().waiting == 0 && budget.stats().timeouts == 1));
  CHECK(budget.stats().reserved == 50);
}

TEST_CASE("MemoryBudget: waiters are served by priority first", "[pipeline]") {
  MemoryBudget budget(64 * kMiB);
  const auto order = serve_in_order(
      budget, 64 * kMiB,
      {{"low", Priority::kLow}, {"normal", Priority::kNormal}, {"critical", Priority::kCritical}});
  CHECK(order == std::vector<std::string>{"critical", "normal", "low"});
  CHECK(budget.stats().reserved == 0);
}

TEST_CASE("MemoryBudget: waiters of one priority are served in arrival order", "[pipeline]") {
  MemoryBudget budget(64 * kMiB);
  const auto order = serve_in_order(
      budget, 64 * kMiB,
      {{"first", Priority::kHigh}, {"second", Priority::kHigh}, {"third", Priority::kHigh}});
  CHECK(order == std::vector<std::string>{"first", "second", "third"});
}

TEST_CASE("MemoryBudget: a big earlier waiter blocks a small later one", "[pipeline]") {
  MemoryBudget budget(100);
  Reservation held = must_reserve(budget, 60, opts("held"));
  std::atomic<bool> big_done{false}, small_done{false};
  Status big_status, small_status;
  std::thread big = reserve_on_thread(budget, 80, opts("big"), &big_status, &big_done);
  CHECK(wait_for_waiting(budget, 1));
  // 60 + 10 fits, yet it must wait behind `big`.
  std::thread small = reserve_on_thread(budget, 10, opts("small"), &small_status, &small_done);
  CHECK(wait_for_waiting(budget, 2));
  std::this_thread::sleep_for(50ms);
  CHECK((!small_done && !big_done && budget.stats().reserved == 60));
  held.release();  // one release grants both: 80 + 10 <= 100
  big.join();
  small.join();
  CHECK((big_status.ok() && small_status.ok()));
  CHECK((budget.stats().peak == 90 && budget.stats().reserved == 0));
}

TEST_CASE("MemoryBudget: a higher-priority waiter that fits is granted at once", "[pipeline]") {
  MemoryBudget budget(100);
  Reservation held = must_reserve(budget, 60, opts("held"));
  Status big_status;
  std::thread big = reserve_on_thread(budget, 80, opts("big", Priority::kLow), &big_status);
  CHECK(wait_for_waiting(budget, 1));
  CHECK((budget.reserve(30, opts("urgent", Priority::kCritical, 2s)).ok() &&
         budget.stats().waiting == 1 && budget.stats().reserved == 90));
  held.release();
  big.join();
  CHECK(big_status.ok());
}

TEST_CASE("MemoryBudget: the critical reserve is left free by every other priority", "[pipeline]") {
  MemoryBudget budget(100, 30);
  CHECK(budget.critical_reserve() == 30);
  // A NORMAL reservation bigger than the total less the reserve can never be granted.
  auto never = budget.reserve(80, opts("too big", Priority::kHigh));
  REQUIRE_FALSE(never.ok());
  CHECK(never.status().code() == Code::kResourceExhausted);
  CHECK_THAT(never.status().message(), Contains("pipeline.reserve"));
  Reservation backlog = must_reserve(budget, 60, opts("backlog"));
  // 40 are free, but only 10 of them for NORMAL work: try_reserve and reserve_keeping refuse 20.
  CHECK_FALSE(budget.try_reserve(20, "try").ok());
  CHECK_FALSE(budget.reserve_keeping(20, 0, "held request").ok());
  Status normal_status;
  std::thread normal = reserve_on_thread(budget, 20, opts("normal"), &normal_status);
  CHECK(wait_for_waiting(budget, 1));
  // CRITICAL work takes the reserve at once, past the waiting NORMAL reservation; a CRITICAL
  // job's held request may too.
  Reservation urgent = must_reserve(budget, 30, opts("urgent", Priority::kCritical, 2s));
  auto held = budget.reserve_keeping(5, 0, "critical request", Priority::kCritical);
  CHECK(held.ok());
  CHECK(budget.stats().reserved == 95);
  urgent.release();
  held->release();
  CHECK(budget.stats().waiting == 1);  // 40 free, 10 for NORMAL: still waiting
  backlog.release();
  normal.join();
  CHECK(normal_status.ok());
}

TEST_CASE("MemoryBudget: a cancel flag and notify end the wait with ABORTED", "[pipeline]") {
  MemoryBudget budget(100);
  Reservation all = must_reserve(budget, 100, opts("all"));
  std::atomic<bool> cancelled{false};
  ReserveOptions o = opts("job 3 witness");
  o.cancelled = &cancelled;
  Status status;
  std::thread waiter = reserve_on_thread(budget, 10, o, &status);
  CHECK(wait_for_waiting(budget, 1));
  const auto start = std::chrono::steady_clock::now();
  cancelled = true;
  budget.notify();
  waiter.join();
  CHECK(std::chrono::steady_clock::now() - start < 5s);  // woken by notify, not its deadline
  CHECK(status.code() == Code::kAborted);
  CHECK_THAT(status.message(), Contains("job 3 witness") && Contains("cancelled"));
  CHECK((budget.stats().waiting == 0 && budget.stats().reserved == 100));
}

TEST_CASE("MemoryBudget: close aborts waiters and every later call", "[pipeline]") {
  MemoryBudget budget(100);
  Reservation all = must_reserve(budget, 100, opts("all"));
  Status status;
  std::thread waiter = reserve_on_thread(budget, 10, opts("waiter"), &status);
  CHECK(wait_for_waiting(budget, 1));
  budget.close();
  waiter.join();
  CHECK_THAT(status.to_string(), StartsWith("ABORTED: memory budget closed"));
  all.release();  // releases still work after close
  const Status later = budget.reserve(10, opts("later")).status();
  CHECK_THAT(later.to_string(), StartsWith("ABORTED: memory budget closed"));
  CHECK(budget.try_reserve(10, "later").status().code() == Code::kAborted);
  CHECK((budget.stats().waiting == 0 && budget.stats().reserved == 0));
}

TEST_CASE("MemoryBudget: the reclaimer frees room for the head and is not called in a loop",
          "[pipeline]") {
  MemoryBudget budget(100);
  Reservation cache = must_reserve(budget, 80, opts("cached SRS"));
  std::atomic<int> calls{0};
  std::atomic<uint64_t> asked{0};
  budget.set_reclaimer([&](uint64_t needed) -> uint64_t {
    ++calls;
    asked = needed;
    Reservation evicted = std::move(cache);  // released when the reclaimer returns
    return evicted.bytes();
  });
  auto got = budget.reserve(50, opts("working set", Priority::kNormal, 5s));
  REQUIRE(got.ok());
  CHECK((got->bytes() == 50 && budget.stats().reserved == 50));
  CHECK((calls == 1 && asked == 30));
  // Now nothing is left to evict: one call that frees nothing, then a plain wait.
  auto more = budget.reserve(60, opts("second set", Priority::kNormal, 200ms));
  CHECK(more.status().code() == Code::kDeadlineExceeded);
  CHECK((calls == 2 && asked == 10 && budget.stats().waiting == 0));
}

TEST_CASE("MemoryBudget: stress of 8 threads keeps within the total and ends at zero",
          "[pipeline]") {
  constexpr uint64_t kTotal = 1 * kMiB;
  constexpr int kThreads = 8, kOps = 500;
  MemoryBudget budget(kTotal);
  std::atomic<uint64_t> held_sum{0};  // bytes held as the threads see it (a lower bound)
  std::atomic<int> over_total{0}, failures{0}, queued_seen{0};
  std::atomic<bool> go{false};  // starts all threads at once, for contention
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      while (!go) std::this_thread::yield();
      std::mt19937_64 rng(1234 + t);
      std::vector<Reservation> held;
      auto take = [&](Reservation r) {
        if ((held_sum += r.bytes()) > kTotal) ++over_total;
        held.push_back(std::move(r));
      };
      auto drop = [&](size_t i) {
        held_sum -= held[i].bytes();
        held[i].release();
        held.erase(held.begin() + static_cast<std::ptrdiff_t>(i));
      };
      for (int op = 0; op < kOps; ++op) {
        const uint64_t bytes = 1 + rng() % (384 * kKiB);
        const int choice = static_cast<int>(rng() % 4);
        if (held.empty()) {  // only block while holding nothing, so no hold-and-wait deadlock
          auto got =
              budget.reserve(bytes, opts("stress", static_cast<Priority>(rng() % 4 + 1), 30s));
          failures += got.ok() ? 0 : 1;
          if (got.ok()) take(std::move(got).value());
        } else if (choice == 0 && held.size() < 4) {
          auto got = budget.try_reserve(bytes, "stress extra");
          if (got.ok()) take(std::move(got).value());
        } else if (choice == 1 && held.back().bytes() > 1) {
          Reservation part = held.back().split(held.back().bytes() / 2);
          if (part.bytes() == 0) ++failures;
          held.push_back(std::move(part));
        } else {  // drop one or all
          do drop(static_cast<size_t>(rng() % held.size()));
          while (choice == 3 && !held.empty());
        }
        const BudgetStats s = budget.stats();
        over_total += s.reserved > s.total ? 1 : 0;
        queued_seen += s.waiting > 0 ? 1 : 0;
        std::this_thread::sleep_for(std::chrono::microseconds(rng() % 20));
      }
      while (!held.empty()) drop(held.size() - 1);
      // Drain: all ask for the whole budget at once; each grant then waits on a release alone.
      failures += budget.reserve(kTotal, opts("drain", Priority::kLow, 30s)).ok() ? 0 : 1;
    });
  }
  go = true;
  for (auto& t : threads) t.join();
  CHECK((failures == 0 && over_total == 0 && held_sum == 0));
  CHECK(queued_seen > 0);  // the run did make threads wait
  const BudgetStats s = budget.stats();
  CHECK((s.reserved == 0 && s.waiting == 0 && s.peak <= kTotal && s.grants > 100));
}

TEST_CASE("MemoryBudget: check_memory_plan accepts plans that fit, memlock finite or not",
          "[pipeline]") {
  MemoryPlan plan{11 * kGiB + 512 * kMiB, 8 * kGiB, 512 * kMiB};
  const SystemInfo info = machine(24 * kGiB, std::nullopt, 16 * kGiB);
  CHECK(check_memory_plan(plan, info).ok());
  CHECK(describe_memory_plan(plan, info) ==
        "cap: RAM 12 GiB of 24 GiB usable (budget 11.50 GiB + overhead 512 MiB), "
        "pinned 8 GiB (RLIMIT_MEMLOCK 16 GiB)");
  plan.pinned_bytes = 16 * kGiB + 1;  // over 16 GiB, but RLIMIT_MEMLOCK unlimited (nullopt)
  CHECK(check_memory_plan(plan, machine(24 * kGiB)).ok());
  CHECK_THAT(describe_memory_plan(plan, machine(24 * kGiB)),
             Contains("(RLIMIT_MEMLOCK unlimited)"));
}

TEST_CASE("MemoryBudget: check_memory_plan names RAM or the cgroup limit, whichever binds",
          "[pipeline]") {
  const MemoryPlan plan{12 * kGiB, 0, 512 * kMiB};
  const Status ram = check_memory_plan(plan, machine(12 * kGiB, 16 * kGiB));
  CHECK(ram.code() == Code::kFailedPrecondition);
  CHECK_THAT(ram.message(), Contains("RAM of 12 GiB") && Contains("12.50 GiB"));
  CHECK_THAT(ram.message(), !Contains("cgroup"));

  const SystemInfo limited = machine(24 * kGiB, 8 * kGiB);
  const Status cgroup = check_memory_plan(plan, limited);
  CHECK(cgroup.code() == Code::kFailedPrecondition);
  CHECK_THAT(cgroup.message(), Contains("cgroup memory limit of 8 GiB") && Contains("12.50 GiB"));
  CHECK_THAT(describe_memory_plan(plan, limited), Contains("of 8 GiB usable (cgroup limit)"));
}

TEST_CASE("MemoryBudget: check_memory_plan refuses pinned memory over RLIMIT_MEMLOCK",
          "[pipeline]") {
  const MemoryPlan plan{4 * kGiB, 2 * kGiB, 256 * kMiB};
  const Status s = check_memory_plan(plan, machine(24 * kGiB, std::nullopt, 64 * kKiB));
  CHECK(s.code() == Code::kFailedPrecondition);
  CHECK_THAT(s.message(), Contains("RLIMIT_MEMLOCK") && Contains("2 GiB") && Contains("64 KiB") &&
                              Contains("ulimit -l") && Contains("memory.cap"));
}

TEST_CASE("MemoryBudget: auto_budget_bytes keeps a margin and a floor", "[pipeline]") {
  CHECK(auto_budget_bytes(machine(24 * kGiB)) == 24 * kGiB - 24 * kGiB / 10);  // 10% > 1 GiB
  CHECK(auto_budget_bytes(machine(2 * kGiB)) == 1 * kGiB);                     // 1 GiB > 10%
  CHECK(auto_budget_bytes(machine(512 * kMiB)) == 64 * kMiB);                  // the floor
  CHECK(auto_budget_bytes(machine(24 * kGiB, 2 * kGiB)) == 1 * kGiB);          // cgroup counts
}
