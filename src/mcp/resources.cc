#include "mcp/resources.h"

#include <string>
#include <utility>
#include <vector>

#include "core/encoding.h"
#include "core/format.h"
#include "core/hmac.h"
#include "mcp/extension.h"
#include "mcp/resource_uri.h"
#include "mcp/tool_util.h"

namespace ctxkit::mcp {

namespace {

// Our cursors wrap the store's opaque list cursor, so a cursor from
// anywhere else is recognized as foreign.
constexpr std::string_view kCursorTag = "ck1.";

constexpr char kTemplate[] = "ctxkit://{scope}/{key}@{version}";

RpcOutcome FromStatus(const Status& s) {
  switch (s.code()) {
    case StatusCode::kNotFound:
      return RpcOutcome::Fail(kResourceNotFound,
                              "resource not found: " + s.message());
    case StatusCode::kInvalidArgument:
    case StatusCode::kPermissionDenied:
    case StatusCode::kFailedPrecondition:
      return RpcOutcome::Fail(kInvalidParams, s.ToString());
    default:
      return RpcOutcome::Fail(kInternalError, s.ToString());
  }
}

Json ResourceEntry(ClientState& c, const ObjectMeta& m) {
  std::string word =
      ScopeWord(m.scope, c.binding.agent, c.binding.session).value_or("global");
  std::string description = std::string(ValueTypeName(m.type)) + " in " +
                            m.scope.ToString() + ", version " +
                            std::to_string(m.version) + ", " +
                            core::GroupedNumber(m.size_bytes) + " bytes";
  if (m.tokens)
    description += ", " + core::GroupedNumber(*m.tokens) + " tokens";
  description += "; ref " + FormatRef(StaticRefOf(m));
  return {{"uri", ScopedUri(word, m.key)},
          {"name", m.key},
          {"description", std::move(description)},
          {"mimeType", MimeTypeFor(m.type)},
          {"size", m.size_bytes}};
}

// The static ref (when the view can pin it) a parsed URI names.
Result<Ref> TargetOf(ClientState& c, const ResourceUri& u) {
  if (u.is_ref) return c.view.Pin(u.ref);
  return c.view.Pin(u.key, {.scope = u.scope, .version = u.version});
}

}  // namespace

RpcOutcome ListResources(ClientState& c, const Json& params) {
  ListFilter f;
  f.limit = kResourcePageSize;
  bool first_page = true;
  if (auto it = params.find("cursor"); it != params.end() && !it->is_null()) {
    if (!it->is_string() ||
        !it->get_ref<const std::string&>().starts_with(kCursorTag)) {
      return RpcOutcome::Fail(kInvalidParams,
                              "invalid cursor: pass nextCursor from the "
                              "previous resources/list page");
    }
    f.cursor = it->get<std::string>().substr(kCursorTag.size());
    first_page = false;
  }
  Result<ListPage> page = c.view.List(f);
  if (!page.ok()) {
    if (page.status().IsInvalidArgument()) {
      return RpcOutcome::Fail(kInvalidParams,
                              "invalid cursor: " + page.status().message());
    }
    return FromStatus(page.status());
  }
  Json resources = Json::array();
  if (first_page) {
    for (const Json& r : ExtensionResources(c.options)) resources.push_back(r);
  }
  for (const ObjectMeta& m : page->items) {
    resources.push_back(ResourceEntry(c, m));
  }
  Json result = {{"resources", std::move(resources)}};
  if (!page->next_cursor.empty()) {
    result["nextCursor"] = std::string(kCursorTag) + page->next_cursor;
  }
  return RpcOutcome::Ok(std::move(result));
}

RpcOutcome ReadResource(ClientState& c, const Json& params) {
  auto it = params.find("uri");
  if (it == params.end() || !it->is_string()) {
    return RpcOutcome::Fail(kInvalidParams, "params.uri: a string is required");
  }
  const std::string& uri = it->get_ref<const std::string&>();
  if (ExtensionOwnsUri(c.options, uri)) {
    return ReadExtensionResource(c.options, uri);
  }
  Result<ResourceUri> parsed = ParseResourceUri(uri);
  if (!parsed.ok()) {
    return RpcOutcome::Fail(kInvalidParams, parsed.status().message());
  }
  Result<Ref> ref = TargetOf(c, *parsed);
  if (!ref.ok()) return FromStatus(ref.status());
  if (ref->size_bytes > c.options.max_resource_read_bytes) {
    return RpcOutcome::Fail(
        kInvalidParams,
        "resource too large to read whole (" +
            core::GroupedNumber(ref->size_bytes) + " bytes; limit " +
            core::GroupedNumber(c.options.max_resource_read_bytes) +
            "): call the get tool with {\"ref\": \"" + FormatRef(*ref) +
            "\", \"byte_offset\": N, \"byte_length\": M}");
  }
  Result<std::string> value = c.view.Resolve(*ref);
  if (!value.ok()) return FromStatus(value.status());
  Json content = {{"uri", uri}};
  if (core::IsValidUtf8(*value)) {
    content["mimeType"] = MimeTypeFor(ref->type);
    content["text"] = std::move(*value);
  } else {
    content["mimeType"] = "application/octet-stream";
    content["blob"] = core::Base64(*value);
  }
  return RpcOutcome::Ok({{"contents", Json::array({std::move(content)})}});
}

RpcOutcome ListResourceTemplates(ClientState& c) {
  Json templates = Json::array(
      {{{"uriTemplate", kTemplate},
        {"name", "object-version"},
        {"title", "A stored object at one version"},
        {"description",
         "One version of a stored object: scope is global, agent or session "
         "(your own), key is the percent-encoded key, version a number "
         "(1 = first). Without @version the URI names the latest version."}}});
  for (const Json& t : ExtensionResourceTemplates(c.options)) {
    templates.push_back(t);
  }
  return RpcOutcome::Ok({{"resourceTemplates", std::move(templates)}});
}

RpcOutcome CheckSubscribable(ClientState& c, const std::string& uri) {
  if (ExtensionOwnsUri(c.options, uri)) return RpcOutcome::Ok(Json::object());
  Result<ResourceUri> parsed = ParseResourceUri(uri);
  if (!parsed.ok()) {
    return RpcOutcome::Fail(kInvalidParams, parsed.status().message());
  }
  return RpcOutcome::Ok(Json::object());
}

std::optional<uint64_t> WatchedVersion(ClientState& c, const std::string& uri) {
  Result<ResourceUri> u = ParseResourceUri(uri);
  if (!u.ok()) return std::nullopt;
  std::string scope = u->scope;
  std::string key = u->key;
  if (u->is_ref) {
    if (u->ref.is_static()) return std::nullopt;
    std::optional<std::string> word =
        ScopeWord(u->ref.scope, c.binding.agent, c.binding.session);
    if (!word) return std::nullopt;
    scope = *word;
    key = u->ref.key;
  } else if (u->version != 0) {
    return std::nullopt;
  }
  // A removed object's tombstone is a version too: Versions sees it where
  // Stat reports NotFound.
  Result<std::vector<VersionMeta>> vs = c.view.Versions(key, {.scope = scope});
  if (!vs.ok() || vs->empty()) return 0;
  return vs->back().version;
}

Json CompleteKeys(ClientState& c, const std::string& prefix) {
  ListFilter f;
  f.key_prefix = prefix;
  f.limit = 100;
  Json values = Json::array();
  Result<ListPage> page = c.view.List(f);
  if (!page.ok()) return values;
  for (const ObjectMeta& m : page->items) {
    if (values.empty() || values.back() != m.key) values.push_back(m.key);
  }
  return values;
}

Json CompleteVersions(ClientState& c, const std::string& scope,
                      const std::string& key, const std::string& prefix) {
  Json values = Json::array();
  Result<std::vector<VersionMeta>> vs = c.view.Versions(key, {.scope = scope});
  if (!vs.ok()) return values;
  for (const VersionMeta& v : *vs) {
    std::string s = std::to_string(v.version);
    if (v.state == VersionState::kPresent && s.starts_with(prefix)) {
      values.push_back(s);
    }
  }
  return values;
}

}  // namespace ctxkit::mcp
