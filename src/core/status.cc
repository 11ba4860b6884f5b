#include "ctxkit/status.h"

#include <cstdio>
#include <cstdlib>

namespace ctxkit {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk:
      return "ok";
    case StatusCode::kNotFound:
      return "not_found";
    case StatusCode::kInvalidArgument:
      return "invalid_argument";
    case StatusCode::kPermissionDenied:
      return "permission_denied";
    case StatusCode::kAlreadyExists:
      return "already_exists";
    case StatusCode::kFailedPrecondition:
      return "failed_precondition";
    case StatusCode::kResourceExhausted:
      return "resource_exhausted";
    case StatusCode::kIoError:
      return "io_error";
    case StatusCode::kCorruption:
      return "corruption";
    case StatusCode::kUnavailable:
      return "unavailable";
    case StatusCode::kInternal:
      return "internal";
  }
  return "unknown";
}

Status::Status(StatusCode code, std::string_view msg)
    : rep_(std::make_unique<Rep>(Rep{code, std::string(msg)})) {}

Status::Status(const Status& other)
    : rep_(other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr) {}

Status& Status::operator=(const Status& other) {
  if (this != &other) {
    rep_ = other.rep_ ? std::make_unique<Rep>(*other.rep_) : nullptr;
  }
  return *this;
}

Status Status::NotFound(std::string_view msg) {
  return Status(StatusCode::kNotFound, msg);
}
Status Status::InvalidArgument(std::string_view msg) {
  return Status(StatusCode::kInvalidArgument, msg);
}
Status Status::PermissionDenied(std::string_view msg) {
  return Status(StatusCode::kPermissionDenied, msg);
}
Status Status::AlreadyExists(std::string_view msg) {
  return Status(StatusCode::kAlreadyExists, msg);
}
Status Status::FailedPrecondition(std::string_view msg) {
  return Status(StatusCode::kFailedPrecondition, msg);
}
Status Status::ResourceExhausted(std::string_view msg) {
  return Status(StatusCode::kResourceExhausted, msg);
}
Status Status::IoError(std::string_view msg) {
  return Status(StatusCode::kIoError, msg);
}
Status Status::Corruption(std::string_view msg) {
  return Status(StatusCode::kCorruption, msg);
}
Status Status::Unavailable(std::string_view msg) {
  return Status(StatusCode::kUnavailable, msg);
}
Status Status::Internal(std::string_view msg) {
  return Status(StatusCode::kInternal, msg);
}

const std::string& Status::message() const {
  static const std::string kEmpty;
  return rep_ ? rep_->message : kEmpty;
}

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out(StatusCodeName(rep_->code));
  out += ": ";
  out += rep_->message;
  return out;
}

Status Status::WithContext(std::string_view prefix) const {
  if (ok()) return Status();
  std::string msg(prefix);
  msg += ": ";
  msg += rep_->message;
  return Status(rep_->code, msg);
}

namespace internal {

void DieOnValueOfError(const Status& status) {
  std::fprintf(stderr,
               "ctxkit: Result::value() called on an error (a bug in the "
               "caller; check ok() first): %s\n",
               status.ToString().c_str());
  std::abort();
}

}  // namespace internal

}  // namespace ctxkit
