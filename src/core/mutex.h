// core::Mutex, core::MutexLock and core::CondVar: std::mutex and
// std::condition_variable with Clang thread-safety annotations
// (core/thread_annotations.h), so `clang -Wthread-safety` checks that every
// GUARDED_BY field is touched only with its mutex held. Use these instead
// of std::mutex / std::lock_guard / std::unique_lock in src/.
//
//   core::Mutex mu_;
//   core::CondVar cv_;
//   bool ready_ GUARDED_BY(mu_) = false;
//
//   void WaitReady() EXCLUDES(mu_) {
//     core::MutexLock lock(&mu_);
//     while (!ready_) cv_.Wait(&mu_);
//   }
//
// Wait with explicit loops as above rather than with predicates: a lambda
// is analysed on its own, without knowing that its caller holds the mutex.
//
// Thread safety: as std::mutex and std::condition_variable.

#ifndef CTXKIT_CORE_MUTEX_H_
#define CTXKIT_CORE_MUTEX_H_

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "core/thread_annotations.h"

namespace ctxkit::core {

class CondVar;

// An exclusive lock; not recursive.
class CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ACQUIRE() { mu_.lock(); }
  void Unlock() RELEASE() { mu_.unlock(); }
  bool TryLock() TRY_ACQUIRE(true) { return mu_.try_lock(); }

  // Tells the analysis the mutex is held where it cannot see it (no check
  // at run time): for code called back under a lock taken elsewhere.
  void AssertHeld() const ASSERT_CAPABILITY(this) {}

 private:
  // The escape hatch to the native mutex: only CondVar uses it, to hand
  // the held std::mutex to std::condition_variable for one wait.
  friend class CondVar;
  std::mutex mu_;
};

// Holds a Mutex for its scope.
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ACQUIRE(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() RELEASE() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

// A condition variable waited on with a held core::Mutex.
class CondVar {
 public:
  CondVar() = default;
  CondVar(const CondVar&) = delete;
  CondVar& operator=(const CondVar&) = delete;

  // Releases *mu, blocks until notified (or woken spuriously: wait in a
  // loop that checks the condition), and takes *mu again.
  void Wait(Mutex* mu) REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    cv_.wait(lock);
    lock.release();  // Still held: the caller's to release.
  }

  // As Wait, but gives up at `deadline`: false when it passed.
  bool WaitUntil(Mutex* mu, std::chrono::steady_clock::time_point deadline)
      REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    const bool woken =
        cv_.wait_until(lock, deadline) == std::cv_status::no_timeout;
    lock.release();
    return woken;
  }

  void Signal() { cv_.notify_one(); }
  void SignalAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

}  // namespace ctxkit::core

#endif  // CTXKIT_CORE_MUTEX_H_
