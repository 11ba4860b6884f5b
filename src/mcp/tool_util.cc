#include "mcp/tool_util.h"

#include <string>
#include <utility>

#include "mcp/resource_uri.h"

namespace ctxkit::mcp {

Json KeyProp() {
  return StringProp(
      "The variable's key, e.g. \"logs/build\" (1-256 bytes). Give key or "
      "ref, not both.",
      1, 256);
}

Json RefProp() {
  return StringProp(
      "A ref (handle) such as \"ck:2s:3:t:14729:g:notes/auth\", as returned "
      "by set, ref, search or list. A ref is a capability: it reads the "
      "object it names even in a scope you cannot list. Give key or ref, "
      "not both.",
      3, 1024);
}

Json ScopeProp(std::string_view description) {
  return EnumProp(description, {"global", "agent", "session"});
}

Json VersionProp() {
  return IntProp("With key: a version number (1 = first). Omit for the latest.",
                 1, INT64_MAX);
}

std::string StrArg(const Json& args, const char* name, std::string fallback) {
  auto it = args.find(name);
  return it != args.end() && it->is_string() ? it->get<std::string>()
                                             : std::move(fallback);
}

uint64_t U64Arg(const Json& args, const char* name, uint64_t fallback) {
  auto it = args.find(name);
  if (it == args.end() || !it->is_number()) return fallback;
  if (it->is_number_unsigned()) return it->get<uint64_t>();
  double d = it->get<double>();
  if (it->is_number_integer()) {
    int64_t v = it->get<int64_t>();
    return v < 0 ? 0 : static_cast<uint64_t>(v);
  }
  return d <= 0 ? 0 : static_cast<uint64_t>(d);
}

int64_t I64Arg(const Json& args, const char* name, int64_t fallback) {
  auto it = args.find(name);
  if (it == args.end() || !it->is_number()) return fallback;
  if (it->is_number_unsigned()) {
    uint64_t v = it->get<uint64_t>();
    return v > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX
                                                : static_cast<int64_t>(v);
  }
  if (it->is_number_integer()) return it->get<int64_t>();
  return static_cast<int64_t>(it->get<double>());
}

bool BoolArg(const Json& args, const char* name, bool fallback) {
  auto it = args.find(name);
  return it != args.end() && it->is_boolean() ? it->get<bool>() : fallback;
}

std::vector<std::string> StrListArg(const Json& args, const char* name) {
  std::vector<std::string> out;
  auto it = args.find(name);
  if (it == args.end() || !it->is_array()) return out;
  for (const Json& v : *it) {
    if (v.is_string()) out.push_back(v.get<std::string>());
  }
  return out;
}

Json TextContent(std::string text) {
  return {{"type", "text"}, {"text", std::move(text)}};
}

Result<Target> ParseTarget(const Json& args) {
  bool has_key = args.contains("key");
  bool has_ref = args.contains("ref");
  if (has_key == has_ref) {
    return Status::InvalidArgument(
        "give exactly one of \"key\" (a variable name) or \"ref\" (a handle "
        "such as ck:...)");
  }
  if (has_key) {
    // A key, taken as given: one that is a ref's text gets the store's
    // hint (KeyNotFound in ctxkit/target.h).
    return Target(StrArg(args, "key"),
                  {StrArg(args, "scope"), U64Arg(args, "version", 0)});
  }
  if (args.contains("scope")) {
    return Status::InvalidArgument(
        "\"scope\" applies to \"key\" lookups; a ref already names its "
        "object");
  }
  if (U64Arg(args, "version", 0) != 0) {
    return Status::InvalidArgument(
        "\"version\" applies to \"key\" lookups; a ref names its version "
        "(take a static ref with the ref or versions tool)");
  }
  Result<Ref> ref = ParseRef(StrArg(args, "ref"));
  if (!ref.ok()) return ref.status().WithContext("ref");
  return Target(std::move(*ref));
}

Result<Ref> ResolveTarget(ClientState& c, const Json& args) {
  Result<Target> t = ParseTarget(args);
  if (!t.ok()) return t.status();
  // Pinned, so every read of one call sees one version.
  return c.view.Pin(*t);
}

std::string MimeTypeFor(ValueType type) {
  switch (type) {
    case ValueType::kJson:
    case ValueType::kChat:
      return "application/json";
    case ValueType::kNote:
      return "text/markdown";
    default:
      return "text/plain";
  }
}

}  // namespace ctxkit::mcp
