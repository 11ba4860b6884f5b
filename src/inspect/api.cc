// The inspector API (api.h): routing, parameters, errors, and the store
// endpoints (/api/store, /api/changes). The other endpoints live in
// api_sessions.cc, api_objects.cc and api_search.cc.

#include "inspect/api.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <string>
#include <utility>

#include "core/mutex.h"
#include "core/status_macros.h"
#include "ctxkit/ref.h"
#include "inspect/api_internal.h"
#include "store/json_forms.h"
#include "store/store_internals.h"
#include "text/json_write.h"

namespace ctxkit::inspect {

Status Params::Only(std::initializer_list<std::string_view> names) const {
  for (size_t i = 0; i < query_.size(); ++i) {
    const std::string& name = query_[i].first;
    bool known = false;
    for (std::string_view n : names) known = known || n == name;
    if (!known) {
      return Status::InvalidArgument("unknown parameter '" + name + "'");
    }
    for (size_t j = 0; j < i; ++j) {
      if (query_[j].first == name) {
        return Status::InvalidArgument("parameter '" + name +
                                       "' given more than once");
      }
    }
  }
  return Status::Ok();
}

std::optional<std::string> Params::Get(std::string_view name) const {
  for (const auto& [n, v] : query_) {
    if (n == name) return v;
  }
  return std::nullopt;
}

Result<std::string> Params::Required(std::string_view name) const {
  std::optional<std::string> v = Get(name);
  if (!v || v->empty()) {
    return Status::InvalidArgument("parameter '" + std::string(name) +
                                   "' is required");
  }
  return *v;
}

Result<uint64_t> Params::Number(std::string_view name, uint64_t fallback,
                                uint64_t min, uint64_t max) const {
  std::optional<std::string> v = Get(name);
  if (!v) return fallback;
  uint64_t n = 0;
  auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
  if (v->empty() || ec != std::errc() || end != v->data() + v->size() ||
      n < min || n > max) {
    return Status::InvalidArgument(
        "parameter '" + std::string(name) + "' must be a number from " +
        std::to_string(min) + " to " + std::to_string(max));
  }
  return n;
}

Result<View> RequestView(const Request& r) {
  return r.store.OpenView(r.params.Get(kAgent).value_or(""),
                          r.params.Get(kSession).value_or(""));
}

Result<Target> RefParam(const std::string& wire) {
  Result<Ref> ref = ParseRef(wire);
  if (!ref.ok()) return ref.status().WithContext("parameter 'ref'");
  return Target(std::move(*ref));
}

Result<Ref> PinRefParam(View& view, const std::string& wire) {
  CTXKIT_ASSIGN_OR_RETURN(Target target, RefParam(wire));
  return view.Pin(target);
}

namespace {

int HttpStatusOf(StatusCode code) {
  switch (code) {
    case StatusCode::kInvalidArgument:
      return 400;
    case StatusCode::kPermissionDenied:
      return 403;
    case StatusCode::kNotFound:
      return 404;
    case StatusCode::kAlreadyExists:
    case StatusCode::kFailedPrecondition:
      return 409;
    case StatusCode::kResourceExhausted:
      return 413;
    case StatusCode::kIoError:
    case StatusCode::kUnavailable:
      return 503;
    default:
      return 500;
  }
}

ApiAnswer ErrorAnswer(const Status& s) {
  json body = {{"error",
                {{"code", std::string(StatusCodeName(s.code()))},
                 {"message", std::string(s.message())}}}};
  return {HttpStatusOf(s.code()), text::DumpJson(body)};
}

// The segments of `path` ("/sessions/s1" -> {"sessions", "s1"}); empty
// segments are dropped, so "/sessions/" is "/sessions".
std::vector<std::string> Segments(std::string_view path) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= path.size()) {
    size_t slash = path.find('/', at);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > at) out.emplace_back(path.substr(at, slash - at));
    at = slash + 1;
  }
  return out;
}

}  // namespace

class Api::Impl {
 public:
  Impl(Store* store, ApiOptions options)
      : store_(store), options_(std::move(options)) {}

  ApiAnswer Handle(std::string_view path, const QueryParams& query) {
    Request r{*store_, options_, Segments(path), Params(query)};
    Result<json> answer = Route(r);
    if (!answer.ok()) return ErrorAnswer(answer.status());
    return {200, text::DumpJson(*answer)};
  }

  void Stop() EXCLUDES(mu_) {
    core::MutexLock lock(&mu_);
    stopped_ = true;
    cv_.SignalAll();
  }

 private:
  Result<json> Route(const Request& r) {
    const std::vector<std::string>& p = r.path;
    const size_t n = p.size();
    if (n == 1 && p[0] == "store") return StoreInfo(r);
    if (n == 1 && p[0] == "changes") return Changes(r);
    if (n >= 1 && p[0] == "sessions") {
      if (n == 1) return SessionList(r);
      if (n == 2) return SessionShow(r, p[1]);
      if (n == 3 && p[2] == "renders") return SessionRenders(r, p[1]);
      if (n == 4 && p[2] == "renders") return SessionRender(r, p[1], p[3]);
      if (n == 3 && p[2] == "diff") return SessionDiff(r, p[1]);
      if (n == 3 && p[2] == "expand") return SessionExpand(r, p[1]);
      if (n == 3 && p[2] == "tool-outputs") return SessionToolOutputs(r, p[1]);
    }
    if (n == 1 && p[0] == "objects") return ObjectList(r);
    if (n == 1 && p[0] == "object") return ObjectShow(r);
    if (n == 1 && p[0] == "content") return ContentRange(r);
    if (n == 1 && p[0] == "diff") return VersionDiff(r);
    if (n == 1 && p[0] == "search") return SearchValues(r);
    if (n == 1 && p[0] == "notes") return NoteList(r);
    if (n == 1 && p[0] == "note") return NoteShow(r);
    return Status::NotFound(
        "no such API endpoint (see docs/inspector.md for the list)");
  }

  // Moves whenever anyone changes an object (the change feed's newest
  // stamp); renders and ingestions write objects, so sessions move it too.
  Result<uint64_t> ChangeCounter() {
    return StoreInternals::LatestChange(*store_);
  }

  Result<json> StoreInfo(const Request& r) {
    CTXKIT_RETURN_IF_ERROR(r.params.Only({}));
    CTXKIT_ASSIGN_OR_RETURN(StoreStats stats, store_->Stats());
    CTXKIT_ASSIGN_OR_RETURN(uint64_t change, ChangeCounter());
    return json{{"home", store_->home()},
                {"read_only", store_->read_only()},
                {"stats", store::StatsToJson(stats)},
                {"change", change}};
  }

  // Answers once the counter differs from `since`, after `wait_ms`, or
  // when the API stops.
  Result<json> Changes(const Request& r) EXCLUDES(mu_) {
    CTXKIT_RETURN_IF_ERROR(r.params.Only({"since", "wait_ms"}));
    CTXKIT_ASSIGN_OR_RETURN(uint64_t since,
                            r.params.Number("since", 0, 0, UINT64_MAX));
    CTXKIT_ASSIGN_OR_RETURN(uint64_t wait_ms,
                            r.params.Number("wait_ms", 25000, 0, 30000));
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);
    for (;;) {
      CTXKIT_ASSIGN_OR_RETURN(uint64_t change, ChangeCounter());
      const auto now = std::chrono::steady_clock::now();
      if (change != since || now >= deadline) return json{{"change", change}};
      core::MutexLock lock(&mu_);
      if (stopped_) return json{{"change", change}};
      (void)cv_.WaitUntil(&mu_, std::min(now + options_.change_poll, deadline));
    }
  }

  Store* const store_;
  const ApiOptions options_;
  core::Mutex mu_;
  core::CondVar cv_;
  bool stopped_ GUARDED_BY(mu_) = false;
};

Api::Api(Store* store, ApiOptions options)
    : impl_(std::make_unique<Impl>(store, std::move(options))) {}
Api::~Api() = default;

ApiAnswer Api::Handle(std::string_view path, const QueryParams& query) {
  return impl_->Handle(path, query);
}

void Api::Stop() { impl_->Stop(); }

}  // namespace ctxkit::inspect
