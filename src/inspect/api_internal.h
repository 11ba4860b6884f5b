// What the endpoint files of the inspector API share (api.cc routes to
// them): the request, its checked parameters, and the view it reads
// through.

#ifndef CTXKIT_INSPECT_API_INTERNAL_H_
#define CTXKIT_INSPECT_API_INTERNAL_H_

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/status.h"
#include "ctxkit/store.h"
#include "inspect/api.h"

namespace ctxkit::inspect {

using nlohmann::json;

// A request's query parameters. Every accessor fails with InvalidArgument
// naming the parameter.
class Params {
 public:
  explicit Params(const QueryParams& query) : query_(query) {}

  // OK when every parameter is one of `names` and none is given twice.
  Status Only(std::initializer_list<std::string_view> names) const;
  // The value, or nullopt when absent.
  std::optional<std::string> Get(std::string_view name) const;
  Result<std::string> Required(std::string_view name) const;
  // A decimal number in [min, max]; `fallback` when absent.
  Result<uint64_t> Number(std::string_view name, uint64_t fallback,
                          uint64_t min, uint64_t max) const;

 private:
  const QueryParams& query_;
};

struct Request {
  Store& store;
  const ApiOptions& options;
  std::vector<std::string> path;  // The segments after /api.
  Params params;
};

// The parameters every view-reading endpoint takes besides its own.
inline constexpr std::string_view kAgent = "agent";
inline constexpr std::string_view kSession = "session";

// The view the request's `agent` and `session` parameters choose (global
// only when both are absent).
Result<View> RequestView(const Request& r);

// A `ref` parameter as a Target (InvalidArgument, in context "parameter
// 'ref'", when it does not parse).
Result<Target> RefParam(const std::string& wire);
// RefParam pinned through `view`.
Result<Ref> PinRefParam(View& view, const std::string& wire);

// Endpoints. Each checks its parameters and returns the answer's JSON.
Result<json> SessionList(const Request& r);
Result<json> SessionShow(const Request& r, const std::string& id);
Result<json> SessionRenders(const Request& r, const std::string& id);
Result<json> SessionRender(const Request& r, const std::string& id,
                           const std::string& n);
Result<json> SessionDiff(const Request& r, const std::string& id);
Result<json> SessionExpand(const Request& r, const std::string& id);
Result<json> SessionToolOutputs(const Request& r, const std::string& id);
// The ids of the sessions whose pools hold object `object_id` (at most
// `max_sessions` sessions are looked at; *truncated says when more exist).
Result<std::vector<std::string>> SessionsHolding(Store& store,
                                                 const std::string& object_id,
                                                 size_t max_sessions,
                                                 bool* truncated);

Result<json> ObjectList(const Request& r);
Result<json> ObjectShow(const Request& r);
Result<json> ContentRange(const Request& r);
Result<json> VersionDiff(const Request& r);

Result<json> SearchValues(const Request& r);
Result<json> NoteList(const Request& r);
Result<json> NoteShow(const Request& r);

}  // namespace ctxkit::inspect

#endif  // CTXKIT_INSPECT_API_INTERNAL_H_
