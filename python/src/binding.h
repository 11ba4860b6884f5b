// Shared pieces of the ctxkit Python extension (ctxkit._ctxkit): turning a
// Status into the matching ctxkit.Error subclass, running a call with the
// GIL released, and the argument forms every binding accepts.
//
// Contract for every binding in python/src/:
//   - Arguments are converted (and validated by pybind11) with the GIL held;
//     the C++ call that does I/O or scanning runs inside WithoutGil; its
//     Result is unwrapped, and Python objects built, with the GIL held again.
//   - A non-OK Status becomes a StatusError, which the translator installed
//     by RegisterErrors raises as ctxkit.<Code>Error with `.code` set to
//     StatusCodeName (python/ctxkit/_errors.py defines the classes).
#ifndef CTXKIT_PYTHON_BINDING_H_
#define CTXKIT_PYTHON_BINDING_H_

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>

#include "core/mutex.h"
#include "ctxkit/ref.h"
#include "ctxkit/status.h"
#include "ctxkit/store.h"

namespace ctxkit::python {

namespace py = pybind11;

// A failed Status on its way to Python (never escapes the extension).
class StatusError : public std::exception {
 public:
  explicit StatusError(Status status) : status_(std::move(status)) {}
  const Status& status() const { return status_; }
  const char* what() const noexcept override {
    return status_.message().c_str();
  }

 private:
  Status status_;
};

inline void Check(const Status& status) {
  if (!status.ok()) throw StatusError(status);
}

template <typename T>
T Unwrap(Result<T>&& result) {
  if (!result.ok()) throw StatusError(result.status());
  return std::move(result).value();
}

// Runs fn() with the GIL released; fn must not touch Python objects.
template <typename Fn>
auto WithoutGil(Fn&& fn) -> decltype(fn()) {
  py::gil_scoped_release release;
  return fn();
}

// Runs fn() without the GIL and unwraps its Result (or checks its Status).
template <typename Fn>
auto Call(Fn&& fn) {
  using R = decltype(fn());
  if constexpr (std::is_same_v<R, Status>) {
    Check(WithoutGil(std::forward<Fn>(fn)));
  } else {
    return Unwrap(WithoutGil(std::forward<Fn>(fn)));
  }
}

// Raises ctxkit.InvalidArgumentError from inside a binding.
[[noreturn]] inline void InvalidArgument(const std::string& message) {
  throw StatusError(Status::InvalidArgument(message));
}

// A C++ object that is not thread-safe (Session, Notebook,
// ToolOutputCapture), shared by Python threads: Run(fn) calls fn(object)
// without the GIL, one call at a time, and unwraps its Result/Status.
template <typename T>
class Serialized {
 public:
  explicit Serialized(std::unique_ptr<T> object) : object_(std::move(object)) {}
  Serialized(const Serialized&) = delete;
  Serialized& operator=(const Serialized&) = delete;

  template <typename Fn>
  auto Run(Fn&& fn) EXCLUDES(mu_) {
    return Call([&] {
      core::MutexLock lock(&mu_);
      return fn(*object_);
    });
  }
  // For accessors of immutable state (ids, roots): no lock needed.
  const T& get() const NO_THREAD_SAFETY_ANALYSIS { return *object_; }

 private:
  core::Mutex mu_;
  const std::unique_ptr<T> object_ PT_GUARDED_BY(mu_);
};

// The progress= argument of a long call: a callable taking one
// ctxkit.Progress, called (with the GIL taken for it) on the thread doing
// the work, at most every $CTXKIT_PROGRESS_INTERVAL_MS (ctxkit/progress.h).
// An exception it raises stops its reports and is raised again by
// RaiseIfFailed, once the call has returned (the work is not interrupted).
// Hold it, with the GIL, for the whole call.
class ProgressArg {
 public:
  explicit ProgressArg(std::optional<py::function> fn);
  ProgressArg(const ProgressArg&) = delete;
  ProgressArg& operator=(const ProgressArg&) = delete;

  const ProgressOptions& options() const { return options_; }
  // With the GIL held.
  void RaiseIfFailed();

 private:
  struct Shared;
  std::shared_ptr<Shared> shared_;
  ProgressOptions options_;
};

// The LookupOptions of the `version=` and `scope=` keyword arguments.
inline LookupOptions Lookup(uint64_t version, const std::string& scope) {
  return LookupOptions{.scope = scope, .version = version};
}

// A value argument: str (its UTF-8), bytes, or any buffer (bytearray,
// memoryview, ...). str and bytes are immutable and outlive the call, so
// they are viewed in place; a buffer could be resized by another thread
// while the GIL is released, so it is copied.
class BytesArg {
 public:
  explicit BytesArg(const py::object& value);
  std::string_view view() const { return view_; }

 private:
  std::string owned_;
  std::string_view view_;
};

// UTF-8 text from C++ as a Python str; bytes that are not UTF-8 (a value
// cut inside a character, binary content) become U+FFFD, never an error.
py::str Text(std::string_view text);
py::list TextList(const std::vector<std::string>& texts);

// JSON text for a value given as str/bytes (used as is) or as Python
// objects (json.dumps); and JSON text parsed into Python objects.
std::string JsonText(const py::object& value);
py::object ParseJson(const std::string& text);

// A key (str) or a Ref: the first argument of most reading calls. A str is
// always a key (one that starts with "ck:" too: Python has Ref for refs).
// str first: pybind11 tries the alternatives in order, and a str that
// fails as a Ref first costs a search of every module's types (~0.7 us).
using KeyOrRef = std::variant<std::string, Ref>;

// The Target a KeyOrRef names: a Ref as given (`lookup` ignored: a ref
// names its own scope and version), a key looked up with `lookup`.
Target TargetOf(const KeyOrRef& target, LookupOptions lookup);

// The Ref a KeyOrRef names: a Ref as given, a key through View::RefOf.
Ref RefFor(View& view, const KeyOrRef& target, const LookupOptions& lookup);

// The "key or wire ref" string the summary and chunk layers take: a Ref's
// wire form, or for a key the wire form of its pinned version (so a key
// that starts with "ck:" is still a key).
std::string KeyOrRefText(View& view, const KeyOrRef& target,
                         const std::string& scope);

ValueType ParseTypeArg(const std::string& name);
std::optional<ValueType> ParseOptionalType(
    const std::optional<std::string>& name);

// Registration, one per source file (module.cc calls them in order).
void RegisterErrors(py::module_& m);
void BindRef(py::module_& m);
void BindStore(py::module_& m, py::class_<View>& view);
void BindExplore(py::module_& m, py::class_<View>& view);
void BindSummary(py::module_& m, py::class_<View>& view);
void BindIndex(py::module_& m, py::class_<View>& view);
void BindSession(py::module_& m);
void BindExternalize(py::module_& m);
void BindNotes(py::module_& m);
void BindCapture(py::module_& m);
void BindProgress(py::module_& m);
void BindSpawn(py::module_& m);

}  // namespace ctxkit::python

#endif  // CTXKIT_PYTHON_BINDING_H_
