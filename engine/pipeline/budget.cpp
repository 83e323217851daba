// engine/pipeline/budget.cpp: MemoryBudget, Reservation and the start-up memory plan of
// zkpipe/pipeline/budget.h. One mutex guards the books and an ordered map of waiters, each with
// its own condition variable; granting happens under the lock, strictly from the head.
// Thread-safety: see budget.h. Nothing is called out of the class under the lock.
#include "zkpipe/pipeline/budget.h"

#include <algorithm>
#include <cassert>
#include <exception>
#include <limits>

#include "zkpipe/sdk/units.h"

namespace zkpipe::pipeline {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;
constexpr uint64_t kGiB = uint64_t{1} << 30;
constexpr uint64_t kMinAutoBudget = 64 * kMiB;

std::string label(std::string_view what) {
  return what.empty() ? std::string("unnamed request") : std::string(what);
}

uint64_t saturating_add(uint64_t a, uint64_t b) {
  return a > std::numeric_limits<uint64_t>::max() - b ? std::numeric_limits<uint64_t>::max()
                                                      : a + b;
}

// True when the cgroup limit, not RAM, decides usable_memory_bytes().
bool cgroup_binds(const SystemInfo& info) {
  return info.cgroup_limit_bytes &&
         (info.ram_bytes == 0 || *info.cgroup_limit_bytes < info.ram_bytes);
}

}  // namespace

// ---- Reservation ----

Reservation::Reservation(Reservation&& other) noexcept
    : budget_(std::exchange(other.budget_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      held_(std::exchange(other.held_, false)) {}

Reservation& Reservation::operator=(Reservation&& other) noexcept {
  if (this != &other) {
    release();
    budget_ = std::exchange(other.budget_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    held_ = std::exchange(other.held_, false);
  }
  return *this;
}

Reservation Reservation::split(uint64_t bytes) {
  if (budget_ == nullptr || bytes == 0 || bytes > bytes_) return Reservation();
  bytes_ -= bytes;
  return Reservation(budget_, bytes, held_);
}

void Reservation::release() {
  MemoryBudget* budget = std::exchange(budget_, nullptr);
  const uint64_t bytes = std::exchange(bytes_, 0);
  const bool held = std::exchange(held_, false);
  if (budget != nullptr && bytes > 0) budget->release_bytes(bytes, held);
}

// ---- MemoryBudget ----

MemoryBudget::MemoryBudget(uint64_t total_bytes, uint64_t critical_reserve)
    : total_(total_bytes), critical_reserve_(std::min(critical_reserve, total_bytes)) {}

MemoryBudget::~MemoryBudget() {
  assert(reserved_ == 0 && "MemoryBudget destroyed while reservations are held");
  assert(queue_.empty() && "MemoryBudget destroyed while reserve() is waiting");
}

void MemoryBudget::grant_locked(uint64_t bytes) {
  reserved_ += bytes;
  peak_ = std::max(peak_, reserved_);
  ++grants_;
}

void MemoryBudget::pump_locked(bool nudge) {
  while (!queue_.empty()) {
    Waiter* head = queue_.begin()->second;
    if (!fits_locked(head->bytes, head->priority)) {
      if (nudge && reclaimer_) {
        head->reclaim_pending = true;
        head->cv.notify_one();
      }
      return;
    }
    queue_.erase(queue_.begin());
    grant_locked(head->bytes);
    head->granted = true;
    head->cv.notify_one();
  }
}

void MemoryBudget::release_bytes(uint64_t bytes, bool held) {
  MutexLock lock(mu_);
  assert(bytes <= reserved_);
  reserved_ -= std::min(bytes, reserved_);
  if (held) held_ -= std::min(bytes, held_);
  pump_locked(/*nudge=*/true);
}

Result<Reservation> MemoryBudget::reserve(uint64_t bytes, const ReserveOptions& options) {
  if (bytes == 0) return Reservation();
  const auto start = std::chrono::steady_clock::now();
  UniqueLock lock(mu_);
  if (closed_) {
    lock.unlock();
    return aborted("memory budget closed (" + label(options.what) + ", " + format_bytes(bytes) +
                   ")");
  }
  if (bytes > total_) {
    ++refusals_;
    lock.unlock();
    return resource_exhausted("memory budget: " + label(options.what) + " needs " +
                              format_bytes(bytes) + " but the whole budget is " +
                              format_bytes(total_) +
                              "; raise pipeline.budget or lower the job size");
  }
  if (options.priority != Priority::kCritical && bytes > total_ - critical_reserve_) {
    ++refusals_;
    lock.unlock();
    return resource_exhausted("memory budget: " + label(options.what) + " needs " +
                              format_bytes(bytes) + " but the budget of " + format_bytes(total_) +
                              " less the " + format_bytes(critical_reserve_) +
                              " kept for CRITICAL work (pipeline.reserve) is " +
                              format_bytes(total_ - critical_reserve_));
  }
  if (queue_.empty() && fits_locked(bytes, options.priority)) {
    grant_locked(bytes);
    return Reservation(this, bytes);
  }

  Waiter waiter;
  waiter.bytes = bytes;
  waiter.priority = options.priority;
  const Key key{options.priority, next_seq_++};
  queue_.emplace(key, &waiter);
  pump_locked(/*nudge=*/false);  // a new head (higher priority) may fit at once

  // Removes the waiter and lets the ones behind it through.
  auto leave = [&]() ZKP_REQUIRES(mu_) {
    const bool was_head = queue_.begin()->first == key;
    queue_.erase(key);
    if (was_head) pump_locked(/*nudge=*/true);
  };

  while (true) {
    if (waiter.granted) return Reservation(this, bytes);
    if (closed_) {
      leave();
      lock.unlock();
      return aborted("memory budget closed (" + label(options.what) + ", " + format_bytes(bytes) +
                     ")");
    }
    if (options.cancelled != nullptr && options.cancelled->load(std::memory_order_acquire)) {
      leave();
      lock.unlock();
      return aborted("memory budget: reserving " + format_bytes(bytes) + " for " +
                     label(options.what) + " cancelled");
    }
    const auto now = std::chrono::steady_clock::now();
    if (options.deadline && now >= *options.deadline) {
      const uint64_t reserved = reserved_;  // as it stood while waiting, before `leave` grants
      leave();
      ++timeouts_;
      lock.unlock();
      const auto waited =
          std::chrono::duration_cast<std::chrono::milliseconds>(now - start).count();
      return deadline_exceeded("memory budget: " + label(options.what) + " waited " +
                               std::to_string(waited) + " ms for " + format_bytes(bytes) +
                               " and timed out; " + format_bytes(reserved) + " of " +
                               format_bytes(total_) + " reserved");
    }
    const bool is_head = queue_.begin()->second == &waiter;
    if (is_head && waiter.reclaim_pending && reclaimer_ && !reclaiming_) {
      // Runs the reclaimer unlocked; its releases (if any) re-arm reclaim_pending via pump.
      waiter.reclaim_pending = false;
      reclaiming_ = true;
      const uint64_t needed = bytes - available_locked(options.priority);
      lock.unlock();
      std::string failure;
      try {
        (void)reclaimer_(needed);  // what it says it freed is informative; releases decide
      } catch (const std::exception& e) {
        failure = e.what();
      } catch (...) {
        failure = "unknown exception";
      }
      lock.lock();
      reclaiming_ = false;
      pump_locked(/*nudge=*/false);
      // A waiter that became head meanwhile skipped the reclaimer because it was busy.
      if (!queue_.empty() && queue_.begin()->second != &waiter && reclaimer_) {
        queue_.begin()->second->reclaim_pending = true;
        queue_.begin()->second->cv.notify_one();
      }
      if (!failure.empty() && !waiter.granted) {  // when granted anyway, the grant wins
        leave();
        lock.unlock();
        return internal_error("memory budget: the reclaimer threw while making room for " +
                              label(options.what) + ": " + failure);
      }
      continue;
    }
    if (options.deadline) {
      waiter.cv.wait_until(lock.native(), *options.deadline);
    } else {
      waiter.cv.wait(lock.native());
    }
  }
}

Result<Reservation> MemoryBudget::reserve_keeping(uint64_t bytes, uint64_t keep_free,
                                                  std::string_view what, Priority priority) {
  if (bytes == 0) return Reservation();
  uint64_t reserved = 0, held = 0;
  {
    MutexLock lock(mu_);
    if (closed_) return aborted("memory budget closed (" + label(what) + ")");
    reserved = reserved_;
    held = held_;
    const bool leaves =
        keep_free <= total_ && held_ <= total_ - keep_free && bytes <= total_ - keep_free - held_;
    if (leaves && fits_locked(bytes, priority)) {
      grant_locked(bytes);
      held_ += bytes;
      return Reservation(this, bytes, /*held=*/true);
    }
    ++refusals_;
  }
  if (held + bytes + keep_free > total_) {
    return resource_exhausted(
        "memory budget: " + label(what) + " (" + format_bytes(bytes) + ") with the " +
        format_bytes(held) + " that queued jobs already hold would leave less than " +
        format_bytes(keep_free) + " of the " + format_bytes(total_) +
        " budget for the work itself; retry when jobs end, or raise pipeline.budget");
  }
  return resource_exhausted("memory budget: " + label(what) + " (" + format_bytes(bytes) +
                            ") does not fit now: " + format_bytes(reserved) + " of " +
                            format_bytes(total_) + " reserved; retry when jobs end");
}

Result<Reservation> MemoryBudget::try_reserve(uint64_t bytes, std::string_view what) {
  if (bytes == 0) return Reservation();
  bool closed = false;
  uint64_t reserved = 0;
  size_t waiting = 0;
  {
    MutexLock lock(mu_);
    closed = closed_;
    reserved = reserved_;
    waiting = queue_.size();
    if (!closed && waiting == 0 && fits_locked(bytes, Priority::kNormal)) {
      grant_locked(bytes);
      return Reservation(this, bytes);
    }
    if (!closed) ++refusals_;
  }
  // Messages are built outside the lock.
  if (closed) return aborted("memory budget closed (" + label(what) + ")");
  if (bytes > total_) {
    return resource_exhausted("memory budget: " + label(what) + " needs " + format_bytes(bytes) +
                              " but the whole budget is " + format_bytes(total_));
  }
  return resource_exhausted("memory budget: " + label(what) + " (" + format_bytes(bytes) +
                            ") does not fit now: " + format_bytes(reserved) + " of " +
                            format_bytes(total_) + " reserved, " + std::to_string(waiting) +
                            " waiting");
}

void MemoryBudget::set_reclaimer(std::function<uint64_t(uint64_t)> reclaimer) {
  MutexLock lock(mu_);
  reclaimer_ = std::move(reclaimer);
}

void MemoryBudget::notify() {
  MutexLock lock(mu_);
  for (auto& [key, waiter] : queue_) waiter->cv.notify_one();
}

void MemoryBudget::close() {
  MutexLock lock(mu_);
  closed_ = true;
  for (auto& [key, waiter] : queue_) waiter->cv.notify_one();
}

BudgetStats MemoryBudget::stats() const {
  MutexLock lock(mu_);
  BudgetStats s;
  s.total = total_;
  s.reserved = reserved_;
  s.peak = peak_;
  s.waiting = queue_.size();
  s.grants = grants_;
  s.refusals = refusals_;
  s.timeouts = timeouts_;
  return s;
}

// ---- Start-up planning ----

Status check_memory_plan(const MemoryPlan& plan, const SystemInfo& info) {
  const uint64_t ram_peak = saturating_add(plan.budget_bytes, plan.overhead_bytes);
  const uint64_t usable = usable_memory_bytes(info);
  if (ram_peak > usable) {
    const std::string limit = cgroup_binds(info)
                                  ? "the cgroup memory limit of " + format_bytes(usable) +
                                        " (RAM " + format_bytes(info.ram_bytes) + ")"
                                  : "RAM of " + format_bytes(usable);
    return failed_precondition("memory plan: planned peak RAM " + format_bytes(ram_peak) +
                               " (budget " + format_bytes(plan.budget_bytes) + " + overhead " +
                               format_bytes(plan.overhead_bytes) + ") exceeds " + limit +
                               "; lower memory.budget");
  }
  if (info.memlock_soft_bytes && plan.pinned_bytes > *info.memlock_soft_bytes) {
    return failed_precondition(
        "memory plan: pinned memory " + format_bytes(plan.pinned_bytes) +
        " exceeds the RLIMIT_MEMLOCK soft limit of " + format_bytes(*info.memlock_soft_bytes) +
        "; raise it (`ulimit -l unlimited`, or LimitMEMLOCK= for a service) or set a smaller "
        "memory.cap");
  }
  return ok_status();
}

std::string describe_memory_plan(const MemoryPlan& plan, const SystemInfo& info) {
  const uint64_t ram_peak = saturating_add(plan.budget_bytes, plan.overhead_bytes);
  const std::string memlock = info.memlock_soft_bytes
                                  ? "RLIMIT_MEMLOCK " + format_bytes(*info.memlock_soft_bytes)
                                  : std::string("RLIMIT_MEMLOCK unlimited");
  return "cap: RAM " + format_bytes(ram_peak) + " of " + format_bytes(usable_memory_bytes(info)) +
         " usable" + (cgroup_binds(info) ? " (cgroup limit)" : "") + " (budget " +
         format_bytes(plan.budget_bytes) + " + overhead " + format_bytes(plan.overhead_bytes) +
         "), pinned " + format_bytes(plan.pinned_bytes) + " (" + memlock + ")";
}

uint64_t auto_budget_bytes(const SystemInfo& info) {
  const uint64_t usable = usable_memory_bytes(info);
  const uint64_t margin = std::max(usable / 10, kGiB);
  const uint64_t budget = usable > margin ? usable - margin : 0;
  return std::max(budget, kMinAutoBudget);
}

}  // namespace zkpipe::pipeline
