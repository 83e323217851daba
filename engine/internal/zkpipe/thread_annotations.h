// zkpipe/thread_annotations.h: clang's thread-safety annotations as ZKP_ macros, and the
// annotated mutex and locks the pipeline uses (libstdc++'s std::mutex carries no annotations).
// Contract: a member marked ZKP_GUARDED_BY(mu) is read and written only with mu held; a function
// marked ZKP_REQUIRES(mu) is called with mu held, one marked ZKP_EXCLUDES(mu) without it.
// scripts/check-thread-safety checks it with clang -Wthread-safety; under other compilers (the
// GCC build) the macros expand to nothing and the types are thin wrappers of std::mutex.
#pragma once

#include <mutex>

#if defined(__clang__)
#define ZKP_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define ZKP_THREAD_ANNOTATION(x)
#endif

#define ZKP_CAPABILITY(x) ZKP_THREAD_ANNOTATION(capability(x))
#define ZKP_SCOPED_CAPABILITY ZKP_THREAD_ANNOTATION(scoped_lockable)
#define ZKP_GUARDED_BY(x) ZKP_THREAD_ANNOTATION(guarded_by(x))
#define ZKP_PT_GUARDED_BY(x) ZKP_THREAD_ANNOTATION(pt_guarded_by(x))
#define ZKP_REQUIRES(...) ZKP_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define ZKP_REQUIRES_SHARED(...) ZKP_THREAD_ANNOTATION(requires_shared_capability(__VA_ARGS__))
#define ZKP_EXCLUDES(...) ZKP_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
#define ZKP_ACQUIRE(...) ZKP_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define ZKP_RELEASE(...) ZKP_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define ZKP_TRY_ACQUIRE(...) ZKP_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))
#define ZKP_RETURN_CAPABILITY(x) ZKP_THREAD_ANNOTATION(lock_returned(x))
#define ZKP_NO_THREAD_SAFETY_ANALYSIS ZKP_THREAD_ANNOTATION(no_thread_safety_analysis)

namespace zkpipe {

// A std::mutex the analysis knows as a capability.
class ZKP_CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void lock() ZKP_ACQUIRE() { mu_.lock(); }
  void unlock() ZKP_RELEASE() { mu_.unlock(); }
  bool try_lock() ZKP_TRY_ACQUIRE(true) { return mu_.try_lock(); }
  // The wrapped mutex, for what needs a std::mutex (UniqueLock's std::unique_lock); locking it
  // directly bypasses the analysis.
  std::mutex& native() { return mu_; }

 private:
  std::mutex mu_;
};

// std::lock_guard for a Mutex: held from construction to destruction.
class ZKP_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex& mu) ZKP_ACQUIRE(mu) : mu_(mu) { mu_.lock(); }
  ~MutexLock() ZKP_RELEASE() { mu_.unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex& mu_;
};

// std::unique_lock for a Mutex: locked at construction, may be unlocked and locked again, and
// released at destruction when held. native() is what std::condition_variable waits take
// (`cv.wait(lock.native(), pred)`): the analysis counts the mutex as held across the wait, so a
// predicate that reads guarded members is a lambda marked ZKP_REQUIRES(mu).
class ZKP_SCOPED_CAPABILITY UniqueLock {
 public:
  explicit UniqueLock(Mutex& mu) ZKP_ACQUIRE(mu) : lock_(mu.native()) {}
  ~UniqueLock() ZKP_RELEASE() = default;
  UniqueLock(const UniqueLock&) = delete;
  UniqueLock& operator=(const UniqueLock&) = delete;

  void lock() ZKP_ACQUIRE() { lock_.lock(); }
  void unlock() ZKP_RELEASE() { lock_.unlock(); }
  std::unique_lock<std::mutex>& native() { return lock_; }

 private:
  std::unique_lock<std::mutex> lock_;
};

}  // namespace zkpipe
