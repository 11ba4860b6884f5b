// Status and Result<T>: how every ctxkit call reports success or failure.
//
// No exception crosses the public API. A function that can fail returns a
// Status (nothing else to return) or a Result<T> (a value or a Status).
// The OK path is cheap: an OK Status holds no allocation.
//
// Thread safety: Status and Result are values; distinct objects may be used
// from distinct threads freely; one object needs external synchronization
// like any standard-library value.

#ifndef CTXKIT_STATUS_H_
#define CTXKIT_STATUS_H_

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace ctxkit {

// The failure classes a caller can act on. The CLI maps them to exit codes
// (see `ctxkit --help`).
enum class StatusCode {
  kOk = 0,
  kNotFound,          // No such key, version, ref or file.
  kInvalidArgument,   // Bad key, JSON, ref string, option or argument.
  kPermissionDenied,  // The view may not see that scope; the OS denied access.
  kAlreadyExists,     // The target of a create or promote is taken.
  kFailedPrecondition,  // The operation does not apply to this object now.
  kResourceExhausted,   // A configured limit was reached; the disk is full.
  kIoError,             // The operating system or database failed.
  kCorruption,          // Stored data failed an integrity check.
  kUnavailable,         // The value lives in another process or session.
  kInternal,            // A bug in ctxkit.
};

// Returns a stable lower-case name such as "not_found".
std::string_view StatusCodeName(StatusCode code);

// [[nodiscard]]: a Status that is dropped is a failure nobody saw; callers
// that really do not care say so with `(void)` or `.IgnoreError()`.
class [[nodiscard]] Status {
 public:
  // Creates an OK status.
  Status() noexcept = default;
  Status(const Status& other);
  Status& operator=(const Status& other);
  Status(Status&&) noexcept = default;
  Status& operator=(Status&&) noexcept = default;
  ~Status() = default;

  static Status Ok() { return Status(); }
  static Status NotFound(std::string_view msg);
  static Status InvalidArgument(std::string_view msg);
  static Status PermissionDenied(std::string_view msg);
  static Status AlreadyExists(std::string_view msg);
  static Status FailedPrecondition(std::string_view msg);
  static Status ResourceExhausted(std::string_view msg);
  static Status IoError(std::string_view msg);
  static Status Corruption(std::string_view msg);
  static Status Unavailable(std::string_view msg);
  static Status Internal(std::string_view msg);

  bool ok() const { return rep_ == nullptr; }
  StatusCode code() const { return rep_ ? rep_->code : StatusCode::kOk; }
  // The human-readable message; empty when ok().
  const std::string& message() const;

  bool IsNotFound() const { return code() == StatusCode::kNotFound; }
  bool IsInvalidArgument() const {
    return code() == StatusCode::kInvalidArgument;
  }
  bool IsPermissionDenied() const {
    return code() == StatusCode::kPermissionDenied;
  }

  // "OK" or "<code name>: <message>".
  std::string ToString() const;

  // Returns a copy whose message is "<prefix>: <message>"; OK stays OK.
  Status WithContext(std::string_view prefix) const;

  // Drops the status on purpose (best-effort clean-up, a failure that a
  // later call reports anyway). Prefer handling it.
  void IgnoreError() const {}

 private:
  struct Rep {
    StatusCode code;
    std::string message;
  };
  Status(StatusCode code, std::string_view msg);

  std::unique_ptr<Rep> rep_;  // Null means OK.
};

namespace internal {
// Prints `status` and the misuse to stderr and aborts the process. Never
// throws: no exception crosses the API, even on a caller's bug.
[[noreturn]] void DieOnValueOfError(const Status& status);
}  // namespace internal

// A value of type T or a non-OK Status.
//
// REQUIRES: a Result is never built from an OK Status (that is a bug; it is
// turned into an Internal error so the caller still sees a failure).
//
// value(), operator* and operator-> REQUIRE ok(). Calling them on an error
// is a bug in the caller; it aborts the process with the status printed (it
// never throws). Check ok() first, or use value_or().
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : data_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status)                         // NOLINT: implicit by design
      : data_(status.ok() ? Status::Internal("Result built from OK status")
                          : std::move(status)) {}

  bool ok() const { return std::holds_alternative<T>(data_); }

  // The error; an OK Status when ok().
  Status status() const {
    return ok() ? Status::Ok() : std::get<Status>(data_);
  }

  // REQUIRES: ok().
  T& value() & { return *Checked(); }
  const T& value() const& { return *Checked(); }
  T&& value() && { return std::move(*Checked()); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  // The value, or `fallback` when !ok().
  T value_or(T fallback) const& { return ok() ? value() : fallback; }

 private:
  T* Checked() {
    T* v = std::get_if<T>(&data_);
    if (v == nullptr) internal::DieOnValueOfError(*std::get_if<Status>(&data_));
    return v;
  }
  const T* Checked() const {
    const T* v = std::get_if<T>(&data_);
    if (v == nullptr) internal::DieOnValueOfError(*std::get_if<Status>(&data_));
    return v;
  }

  std::variant<Status, T> data_;
};

}  // namespace ctxkit

#endif  // CTXKIT_STATUS_H_
