// Clang thread-safety annotations: which mutex guards a field, which a
// function needs held, takes or gives back. `clang -Wthread-safety` checks
// them at compile time (scripts/thread_safety_check.sh runs it over src/);
// other compilers see no-ops. Use them with core::Mutex (core/mutex.h):
//
//   class Counter {
//    public:
//     void Add() EXCLUDES(mu_) {
//       core::MutexLock lock(&mu_);
//       AddLocked();
//     }
//    private:
//     void AddLocked() REQUIRES(mu_) { ++n_; }
//     core::Mutex mu_;
//     int n_ GUARDED_BY(mu_) = 0;
//   };
//
// See https://clang.llvm.org/docs/ThreadSafetyAnalysis.html.

#ifndef CTXKIT_CORE_THREAD_ANNOTATIONS_H_
#define CTXKIT_CORE_THREAD_ANNOTATIONS_H_

#if defined(__clang__)
#define CTXKIT_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define CTXKIT_THREAD_ANNOTATION(x)  // GCC and others: no analysis.
#endif

// A type that is a capability (a mutex); `name` appears in diagnostics.
#define CAPABILITY(name) CTXKIT_THREAD_ANNOTATION(capability(name))

// An RAII type that holds a capability for its lifetime.
#define SCOPED_CAPABILITY CTXKIT_THREAD_ANNOTATION(scoped_lockable)

// The field is read and written only with `mu` held.
#define GUARDED_BY(mu) CTXKIT_THREAD_ANNOTATION(guarded_by(mu))

// What the pointer field points to is accessed only with `mu` held.
#define PT_GUARDED_BY(mu) CTXKIT_THREAD_ANNOTATION(pt_guarded_by(mu))

// The function must be called with the capabilities held (exclusively, or
// at least shared), and returns with them still held.
#define REQUIRES(...) CTXKIT_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
#define REQUIRES_SHARED(...) \
  CTXKIT_THREAD_ANNOTATION(requires_shared_capability(__VA_ARGS__))

// The function must be called without the capabilities held (it takes
// them itself; holding one would deadlock).
#define EXCLUDES(...) CTXKIT_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))

// The function takes (ACQUIRE) or gives back (RELEASE) the capabilities;
// without arguments, the object it is called on.
#define ACQUIRE(...) CTXKIT_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define ACQUIRE_SHARED(...) \
  CTXKIT_THREAD_ANNOTATION(acquire_shared_capability(__VA_ARGS__))
#define RELEASE(...) CTXKIT_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
#define RELEASE_SHARED(...) \
  CTXKIT_THREAD_ANNOTATION(release_shared_capability(__VA_ARGS__))

// The function tries to take the capability; it holds it when the
// function returns `success` (the first argument).
#define TRY_ACQUIRE(...) \
  CTXKIT_THREAD_ANNOTATION(try_acquire_capability(__VA_ARGS__))

// Tells the analysis the capability is held (checked at run time, if at
// all, by the function).
#define ASSERT_CAPABILITY(x) CTXKIT_THREAD_ANNOTATION(assert_capability(x))

// The function returns a reference to the capability `x`.
#define RETURN_CAPABILITY(x) CTXKIT_THREAD_ANNOTATION(lock_returned(x))

// Turns the analysis off for one function. Say why wherever it is used.
#define NO_THREAD_SAFETY_ANALYSIS \
  CTXKIT_THREAD_ANNOTATION(no_thread_safety_analysis)

#endif  // CTXKIT_CORE_THREAD_ANNOTATIONS_H_
