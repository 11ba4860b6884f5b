#include "mcp/resource_uri.h"

#include <string>

#include "core/encoding.h"

namespace ctxkit::mcp {

namespace {

bool Unreserved(unsigned char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
         (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' ||
         c == '~' || c == '/' || c == ':';
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string PercentEncode(std::string_view bytes) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(bytes.size());
  for (unsigned char c : bytes) {
    if (Unreserved(c)) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

Result<std::string> PercentDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    int hi = i + 2 < text.size() ? HexValue(text[i + 1]) : -1;
    int lo = i + 2 < text.size() ? HexValue(text[i + 2]) : -1;
    if (i + 2 >= text.size() || hi < 0 || lo < 0) {
      return Status::InvalidArgument(
          "malformed percent-encoding: '%' must be followed by two hex "
          "digits");
    }
    out += static_cast<char>(hi * 16 + lo);
    i += 2;
  }
  return out;
}

Result<ResourceUri> ParseResourceUri(std::string_view uri) {
  if (!uri.starts_with(kUriPrefix)) {
    return Status::InvalidArgument("not a ctxkit:// resource URI: " +
                                   std::string(uri.substr(0, 200)));
  }
  std::string_view rest = uri.substr(kUriPrefix.size());
  size_t slash = rest.find('/');
  if (slash == std::string_view::npos) {
    return Status::InvalidArgument(
        "a ctxkit:// URI is ctxkit://<global|agent|session>/<key>[@<version>] "
        "or ctxkit://ref/<ref>");
  }
  std::string_view word = rest.substr(0, slash);
  std::string_view path = rest.substr(slash + 1);
  ResourceUri out;
  if (word == "ref") {
    Result<std::string> wire = PercentDecode(path);
    if (!wire.ok()) return wire.status();
    Result<Ref> ref = ParseRef(*wire);
    if (!ref.ok()) return ref.status().WithContext("ctxkit://ref/ URI");
    out.is_ref = true;
    out.ref = *ref;
    return out;
  }
  if (word != "global" && word != "agent" && word != "session") {
    return Status::InvalidArgument("unknown scope '" +
                                   std::string(word.substr(0, 64)) +
                                   "' in URI: use global, agent, session or "
                                   "ref");
  }
  out.scope = std::string(word);
  size_t at = path.rfind('@');
  if (at != std::string_view::npos) {
    std::optional<uint64_t> v =
        core::ParseCanonicalDecimal(path.substr(at + 1));
    if (!v || *v == 0) {
      return Status::InvalidArgument(
          "the version after '@' must be a positive integer (encode '@' in "
          "a key as %40)");
    }
    out.version = *v;
    path = path.substr(0, at);
  }
  Result<std::string> key = PercentDecode(path);
  if (!key.ok()) return key.status();
  Status valid = ValidateKey(*key);
  if (!valid.ok()) return valid.WithContext("key in URI");
  out.key = std::move(*key);
  return out;
}

std::string ScopedUri(std::string_view scope, std::string_view key,
                      uint64_t version) {
  std::string uri =
      std::string(kUriPrefix) + std::string(scope) + "/" + PercentEncode(key);
  if (version != 0) uri += "@" + std::to_string(version);
  return uri;
}

std::string RefUri(const Ref& ref) {
  return std::string(kUriPrefix) + "ref/" + PercentEncode(FormatRef(ref));
}

std::optional<std::string> ScopeWord(const Scope& scope, std::string_view agent,
                                     std::string_view session) {
  switch (scope.kind) {
    case Scope::Kind::kGlobal:
      return "global";
    case Scope::Kind::kAgent:
      if (!agent.empty() && scope.id == agent) return "agent";
      return std::nullopt;
    case Scope::Kind::kSession:
      if (!session.empty() && scope.id == session) return "session";
      return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace ctxkit::mcp
