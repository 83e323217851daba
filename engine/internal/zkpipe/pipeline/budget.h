// zkpipe/pipeline/budget.h: the engine's memory budget. Every large allocation of the pipeline
// (witness, a/b/c, working sets, cached SRS) is first reserved here; waiters are served strictly
// in (priority, arrival) order, with timeouts, cancellation and an optional reclaimer. Also the
// start-up memory plan: the `auto` budget and the check against RAM, cgroup and RLIMIT_MEMLOCK.
// Thread-safety: MemoryBudget is safe from any number of threads. A Reservation is a value owned
// by one thread at a time (move it to hand it over); different Reservations may be used freely.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "zkpipe/pipeline/priority.h"
#include "zkpipe/sdk/status.h"
#include "zkpipe/system.h"
#include "zkpipe/thread_annotations.h"

namespace zkpipe::pipeline {

struct BudgetStats {
  uint64_t total = 0, reserved = 0, peak = 0;       // bytes; peak is the highest `reserved` seen
  size_t waiting = 0;                               // reserve() calls queued now
  uint64_t grants = 0, refusals = 0, timeouts = 0;  // refusals: oversize and try_reserve misses
};

class MemoryBudget;

// RAII: a number of bytes held in a budget; move-only; released on destruction. The budget must
// outlive it.
class Reservation {
 public:
  Reservation() = default;  // holds nothing
  Reservation(Reservation&& other) noexcept;
  Reservation& operator=(Reservation&& other) noexcept;  // releases what *this held first
  Reservation(const Reservation&) = delete;
  Reservation& operator=(const Reservation&) = delete;
  ~Reservation() { release(); }

  uint64_t bytes() const { return bytes_; }
  // bytes() > 0 and attached to a budget.
  explicit operator bool() const { return budget_ != nullptr && bytes_ > 0; }

  // Two-phase release: moves `bytes` out of this reservation into a new one of the same budget,
  // without touching the budget (no wakeups, cannot fail). When bytes > this->bytes() (or is 0,
  // or *this is empty) it returns an empty Reservation and leaves *this unchanged; it does not
  // clamp. Typical use: reserve a/b/c + rest at once, split off the a/b/c part, release it after
  // prove_start, the rest after finish.
  Reservation split(uint64_t bytes);

  // Gives the bytes back and wakes the waiters that now fit; idempotent.
  void release();

 private:
  friend class MemoryBudget;
  Reservation(MemoryBudget* budget, uint64_t bytes, bool held = false)
      : budget_(budget), bytes_(bytes), held_(held) {}

  MemoryBudget* budget_ = nullptr;
  uint64_t bytes_ = 0;
  bool held_ = false;  // from reserve_keeping
};

struct ReserveOptions {
  Priority priority = Priority::kNormal;
  std::string what;  // named in messages, e.g. "job 7 partition 2 working set"
  std::optional<std::chrono::steady_clock::time_point> deadline;  // nullopt: wait forever
  // When it becomes true the wait ends with ABORTED (after notify()).
  const std::atomic<bool>* cancelled = nullptr;
};

class MemoryBudget {
 public:
  // `critical_reserve` of the total only CRITICAL reservations may take (pipeline.reserve):
  // other priorities see total - critical_reserve, so a backlog of them leaves that much free.
  explicit MemoryBudget(uint64_t total_bytes, uint64_t critical_reserve = 0);
  ~MemoryBudget();  // all reservations and waiters must be gone by then (asserted in debug)
  MemoryBudget(const MemoryBudget&) = delete;
  MemoryBudget& operator=(const MemoryBudget&) = delete;

  // Blocks until `bytes` can be reserved. Waiters are served strictly in (priority, then
  // arrival) order: while an earlier or higher waiter does not fit, later ones wait too, even if
  // they would fit (no starvation of large requests). Every release, notify(), close(), a
  // waiter leaving and the reclaimer re-examine the queue; one release may grant many waiters.
  // bytes == 0 returns an empty reservation at once. Errors:
  //   RESOURCE_EXHAUSTED at once when bytes > total (names what, the size and the total);
  //   DEADLINE_EXCEEDED when the deadline passes (names what, the size, how long it waited and
  //     reserved/total at that time); the waiter leaves the queue;
  //   ABORTED when `cancelled` is set (seen at the next notify() or wakeup) or the budget is
  //     closed ("memory budget closed");
  //   INTERNAL when the reclaimer throws.
  // A grant that races with a deadline, a cancel or close() wins: the reservation is returned.
  Result<Reservation> reserve(uint64_t bytes, const ReserveOptions& options);

  // Non-blocking: a reservation if it fits now AND no one is waiting (does not jump the queue;
  // it counts as NORMAL, so it never takes the critical reserve);
  // else RESOURCE_EXHAUSTED. ABORTED when closed. bytes == 0 gives an empty reservation.
  Result<Reservation> try_reserve(uint64_t bytes, std::string_view what);

  // For what a queued job holds while it waits (its parsed request). Non-blocking and past any
  // waiters: granted when it fits now and all such holdings together leave at least
  // `keep_free` of the total to other reservations; else RESOURCE_EXHAUSTED naming the sizes
  // (ABORTED when closed). Such holdings never wait, so they cannot hold up the work ahead of
  // them, and never take the room of the largest piece of work (keep_free), so it proceeds.
  Result<Reservation> reserve_keeping(uint64_t bytes, uint64_t keep_free, std::string_view what,
                                      Priority priority = Priority::kNormal);

  // Called (without the budget's lock held, by the head waiter's thread, one call at a time)
  // when the head waiter does not fit; it may release other reservations (e.g. evict cached
  // SRS) and returns how many bytes it freed. Its argument is how many more bytes the head needs.
  // It is called again only after the queue changes (a release, or a new head). Set once before
  // use; may be empty.
  void set_reclaimer(std::function<uint64_t(uint64_t bytes_needed)> reclaimer);

  void notify();  // wakes every waiter to recheck its cancel flag
  void close();   // every current and future reserve()/try_reserve() fails with ABORTED

  BudgetStats stats() const;
  uint64_t total() const { return total_; }
  uint64_t critical_reserve() const { return critical_reserve_; }

 private:
  friend class Reservation;
  struct Waiter {
    uint64_t bytes = 0;
    Priority priority = Priority::kNormal;
    std::condition_variable cv;
    bool granted = false;
    bool reclaim_pending = true;  // may call the reclaimer when it is the head and does not fit
  };
  using Key = std::pair<Priority, uint64_t>;  // (priority, arrival sequence)

  void release_bytes(uint64_t bytes, bool held) ZKP_EXCLUDES(mu_);
  // What a reservation of this priority may still take: the free bytes, less the critical
  // reserve unless it is CRITICAL.
  uint64_t available_locked(Priority priority) const ZKP_REQUIRES(mu_) {
    const uint64_t free = total_ - reserved_;
    if (priority == Priority::kCritical) return free;
    return free > critical_reserve_ ? free - critical_reserve_ : 0;
  }
  bool fits_locked(uint64_t bytes, Priority priority) const ZKP_REQUIRES(mu_) {
    return bytes <= available_locked(priority);
  }
  void grant_locked(uint64_t bytes) ZKP_REQUIRES(mu_);
  // Grants the head while it fits; then, when `nudge` and a reclaimer is set, wakes a head that
  // does not fit so that it may call the reclaimer.
  void pump_locked(bool nudge) ZKP_REQUIRES(mu_);

  const uint64_t total_;
  const uint64_t critical_reserve_;
  mutable Mutex mu_;
  uint64_t reserved_ ZKP_GUARDED_BY(mu_) = 0;
  uint64_t held_ ZKP_GUARDED_BY(mu_) = 0;  // of reserved_: granted by reserve_keeping
  uint64_t peak_ ZKP_GUARDED_BY(mu_) = 0;
  uint64_t grants_ ZKP_GUARDED_BY(mu_) = 0;
  uint64_t refusals_ ZKP_GUARDED_BY(mu_) = 0;
  uint64_t timeouts_ ZKP_GUARDED_BY(mu_) = 0;
  uint64_t next_seq_ ZKP_GUARDED_BY(mu_) = 0;
  bool closed_ ZKP_GUARDED_BY(mu_) = false;
  bool reclaiming_ ZKP_GUARDED_BY(mu_) = false;
  // The waiters; a Waiter's fields are guarded by mu_ too (not annotated: it cannot name it).
  std::map<Key, Waiter*> queue_ ZKP_GUARDED_BY(mu_);
  // Set once before use (set_reclaimer, under mu_), then only read: called without mu_ by the
  // one reclaiming waiter (reclaiming_), so not ZKP_GUARDED_BY.
  std::function<uint64_t(uint64_t)> reclaimer_;
};

// Start-up planning.
struct MemoryPlan {
  uint64_t budget_bytes = 0;  // the engine's budget (everything large is inside it)
  uint64_t pinned_bytes = 0;  // page-locked bytes the memory backend may hold at most (0: pageable)
  uint64_t overhead_bytes = 0;  // fixed process overhead outside the budget (code, stacks, heap)
};

// The cap: RAM = budget + overhead; pinned = pinned_bytes. FAILED_PRECONDITION when the
// RAM peak exceeds usable_memory_bytes(info) (the message says whether RAM or the cgroup limit
// binds), or when pinned exceeds a finite RLIMIT_MEMLOCK soft limit (names RLIMIT_MEMLOCK, both
// numbers, and the fix: `ulimit -l` or a smaller memory.cap).
Status check_memory_plan(const MemoryPlan& plan, const SystemInfo& info);

// "cap: RAM 12.00 GiB of 23.40 GiB usable (budget 11.50 GiB + overhead 512 MiB),
// pinned 8.00 GiB (RLIMIT_MEMLOCK unlimited)"
std::string describe_memory_plan(const MemoryPlan& plan, const SystemInfo& info);

// The `auto` budget: usable_memory_bytes(info) minus max(10%, 1 GiB), at least 64 MiB.
uint64_t auto_budget_bytes(const SystemInfo& info);

}  // namespace zkpipe::pipeline
