// Inspector API: the object list, an object's versions, content by range
// and a diff between two versions (docs/inspector.md).

#include <algorithm>
#include <string>
#include <vector>

#include "core/encoding.h"
#include "core/status_macros.h"
#include "ctxkit/ref.h"
#include "inspect/api_internal.h"
#include "store/json_forms.h"
#include "text/line_diff.h"
#include "text/preview.h"
#include "text/utf8.h"

namespace ctxkit::inspect {
namespace {

constexpr uint64_t kDefaultRange = 64 << 10;
constexpr uint64_t kMaxRange = 1 << 20;
constexpr uint64_t kMaxDiffBytes = 4 << 20;
// Sessions looked at for "which sessions hold this object".
constexpr size_t kMaxSessionsScanned = 500;

// The object a request names: `ref`, or `key` (with `scope`) through the
// request's view. Pinned to its latest version.
Result<Ref> PinObject(const Request& r, View& view) {
  std::optional<std::string> ref = r.params.Get("ref");
  std::optional<std::string> key = r.params.Get("key");
  if (ref.has_value() == key.has_value()) {
    return Status::InvalidArgument("give either 'ref' or 'key'");
  }
  if (ref && r.params.Get("scope")) {
    return Status::InvalidArgument(
        "'scope' goes with 'key' (a ref names its own scope)");
  }
  CTXKIT_ASSIGN_OR_RETURN(
      Target target,
      ref ? RefParam(*ref)
          : Result<Target>(
                Target(*key, {.scope = r.params.Get("scope").value_or("")})));
  CTXKIT_ASSIGN_OR_RETURN(Ref pinned, view.Pin(target));
  return pinned.Dynamic();
}

// Version `version` of the object `object` names, as a static ref.
Result<Ref> VersionOf(View& view, const Ref& object, uint64_t version) {
  CTXKIT_ASSIGN_OR_RETURN(std::vector<VersionMeta> versions,
                          view.Versions(object));
  for (const VersionMeta& v : versions) {
    if (v.version != version) continue;
    if (v.state != VersionState::kPresent) {
      return Status::NotFound("version " + std::to_string(version) + " of '" +
                              object.key + "' is " +
                              std::string(VersionStateName(v.state)));
    }
    return StaticRefOf(object, v);
  }
  return Status::NotFound("'" + object.key + "' has no version " +
                          std::to_string(version));
}

}  // namespace

Result<json> ObjectList(const Request& r) {
  CTXKIT_RETURN_IF_ERROR(
      r.params.Only({kAgent, kSession, "scope", "type", "tag", "kind", "prefix",
                     "limit", "cursor"}));
  ListFilter filter;
  filter.scope = r.params.Get("scope").value_or("");
  if (std::optional<std::string> type = r.params.Get("type");
      type && !type->empty()) {
    CTXKIT_ASSIGN_OR_RETURN(filter.type, ParseValueType(*type));
  }
  if (std::optional<std::string> tag = r.params.Get("tag");
      tag && !tag->empty()) {
    filter.tags.push_back(*tag);
  }
  if (std::optional<std::string> kind = r.params.Get("kind");
      kind && !kind->empty()) {
    filter.tags.push_back("kind:" + *kind);
  }
  filter.key_prefix = r.params.Get("prefix").value_or("");
  CTXKIT_ASSIGN_OR_RETURN(uint64_t limit,
                          r.params.Number("limit", 100, 1, 1000));
  filter.limit = limit;
  filter.cursor = r.params.Get("cursor").value_or("");
  // Without an agent or session view: every scope (the operator's view,
  // what the header's object count counts); with one, what that view sees.
  ListPage page;
  if (!r.params.Get(kAgent) && !r.params.Get(kSession)) {
    CTXKIT_ASSIGN_OR_RETURN(page, r.store.ListEveryScope(filter));
  } else {
    CTXKIT_ASSIGN_OR_RETURN(View view, RequestView(r));
    CTXKIT_ASSIGN_OR_RETURN(page, view.List(filter));
  }
  json objects = json::array();
  for (const ObjectMeta& m : page.items) {
    objects.push_back(store::ObjectMetaToJson(m));
  }
  return json{{"objects", std::move(objects)},
              {"next_cursor", page.next_cursor}};
}

Result<json> ObjectShow(const Request& r) {
  CTXKIT_RETURN_IF_ERROR(
      r.params.Only({kAgent, kSession, "key", "scope", "ref"}));
  CTXKIT_ASSIGN_OR_RETURN(View view, RequestView(r));
  CTXKIT_ASSIGN_OR_RETURN(Ref object, PinObject(r, view));
  CTXKIT_ASSIGN_OR_RETURN(ObjectMeta meta, view.Stat(object));
  CTXKIT_ASSIGN_OR_RETURN(std::vector<VersionMeta> versions,
                          view.Versions(object));
  bool truncated = false;
  CTXKIT_ASSIGN_OR_RETURN(
      std::vector<std::string> sessions,
      SessionsHolding(r.store, object.id, kMaxSessionsScanned, &truncated));
  json out = store::VersionListToJson(meta.key, versions, &object);
  return json{{"object", store::ObjectMetaToJson(meta)},
              {"versions", std::move(out["versions"])},
              {"sessions", sessions},
              {"sessions_truncated", truncated}};
}

Result<json> ContentRange(const Request& r) {
  CTXKIT_RETURN_IF_ERROR(
      r.params.Only({kAgent, kSession, "ref", "offset", "length"}));
  CTXKIT_ASSIGN_OR_RETURN(std::string wire, r.params.Required("ref"));
  CTXKIT_ASSIGN_OR_RETURN(uint64_t offset,
                          r.params.Number("offset", 0, 0, UINT64_MAX));
  CTXKIT_ASSIGN_OR_RETURN(
      uint64_t length, r.params.Number("length", kDefaultRange, 1, kMaxRange));
  CTXKIT_ASSIGN_OR_RETURN(View view, RequestView(r));
  CTXKIT_ASSIGN_OR_RETURN(Ref ref, PinRefParam(view, wire));
  CTXKIT_ASSIGN_OR_RETURN(std::string bytes,
                          view.ReadRange(ref, offset, length));
  // A character the range's end cuts is left for the next range (unless
  // nothing else would be shown, or the value ends there).
  if (offset + bytes.size() < ref.size_bytes) {
    const size_t whole = text::Utf8CompletePrefix(bytes);
    if (whole > 0) bytes.resize(whole);
  }
  // Text asked for from the middle of a character starts at the next one
  // (the answer's offset says where); other bytes are shown as they are.
  if (offset > 0) {
    const size_t start = text::Utf8SafeStart(bytes, 0);
    if (start > 0 && start < bytes.size() &&
        core::IsValidUtf8(std::string_view(bytes).substr(start))) {
      bytes.erase(0, start);
      offset += start;
    }
  }
  const bool binary = !core::IsValidUtf8(bytes);
  std::string shown;
  if (binary) {
    text::AppendRepairedUtf8(bytes, /*final=*/true, &shown);
  }
  return json{{"ref", FormatRef(ref)},
              {"offset", offset},
              {"length", bytes.size()},
              {"total_bytes", ref.size_bytes},
              {"text", binary ? std::move(shown) : std::move(bytes)},
              {"binary", binary}};
}

Result<json> VersionDiff(const Request& r) {
  CTXKIT_RETURN_IF_ERROR(
      r.params.Only({kAgent, kSession, "key", "scope", "ref", "from", "to"}));
  CTXKIT_ASSIGN_OR_RETURN(uint64_t from,
                          r.params.Number("from", 0, 1, UINT64_MAX));
  CTXKIT_ASSIGN_OR_RETURN(uint64_t to, r.params.Number("to", 0, 1, UINT64_MAX));
  if (from == 0 || to == 0) {
    return Status::InvalidArgument("parameters 'from' and 'to' are required");
  }
  CTXKIT_ASSIGN_OR_RETURN(View view, RequestView(r));
  CTXKIT_ASSIGN_OR_RETURN(Ref object, PinObject(r, view));
  CTXKIT_ASSIGN_OR_RETURN(Ref a, VersionOf(view, object, from));
  CTXKIT_ASSIGN_OR_RETURN(Ref b, VersionOf(view, object, to));
  if (a.size_bytes > kMaxDiffBytes || b.size_bytes > kMaxDiffBytes) {
    return Status::ResourceExhausted(
        "versions over " + std::to_string(kMaxDiffBytes >> 20) +
        " MiB are not diffed here; read them by range");
  }
  CTXKIT_ASSIGN_OR_RETURN(std::string old_text, view.Resolve(a));
  CTXKIT_ASSIGN_OR_RETURN(std::string new_text, view.Resolve(b));
  CTXKIT_ASSIGN_OR_RETURN(std::vector<text::DiffHunk> hunks,
                          text::LineDiff(old_text, new_text));
  json out_hunks = json::array();
  for (const text::DiffHunk& h : hunks) {
    json lines = json::array();
    for (const text::DiffLine& l : h.lines) {
      json line = {{"op", std::string(1, l.op)}, {"text", l.text}};
      if (l.no_newline) line["no_newline"] = true;
      lines.push_back(std::move(line));
    }
    out_hunks.push_back({{"from_line", h.from_line},
                         {"from_count", h.from_count},
                         {"to_line", h.to_line},
                         {"to_count", h.to_count},
                         {"lines", std::move(lines)}});
  }
  return json{{"key", object.key},
              {"from", from},
              {"to", to},
              {"from_bytes", a.size_bytes},
              {"to_bytes", b.size_bytes},
              {"hunks", std::move(out_hunks)}};
}

}  // namespace ctxkit::inspect
