#include "ctxkit/ref.h"

#include <string>
#include <utility>
#include <vector>

#include "core/encoding.h"
#include "core/status_macros.h"
#include "core/value_type_codes.h"

namespace ctxkit {
namespace {
constexpr size_t kMaxScopeIdBytes = 64;
constexpr size_t kMaxKeyBytes = 256;
constexpr std::string_view kRefPrefix = "ck:";

bool IsScopeIdChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
}

// Durable ids are canonical base-36; session-only ids are
// "~<tag>.<counter>" with both parts canonical base-36.
bool IsValidObjectId(std::string_view id) {
  if (id.empty()) return false;
  if (id[0] != '~') return core::FromBase36(id).has_value();
  auto dot = id.find('.');
  if (dot == std::string_view::npos) return false;
  return core::FromBase36(id.substr(1, dot - 1)).has_value() &&
         core::FromBase36(id.substr(dot + 1)).has_value();
}

// The id field is "<id>" or "<id>.<tag>"; a session-only id has one '.'
// of its own.
std::pair<std::string_view, std::string_view> SplitTag(std::string_view field) {
  const size_t own_dots = (!field.empty() && field[0] == '~') ? 1 : 0;
  size_t dot = std::string_view::npos;
  for (size_t i = 0, seen = 0; i < field.size(); ++i) {
    if (field[i] == '.' && ++seen == own_dots + 1) {
      dot = i;
      break;
    }
  }
  if (dot == std::string_view::npos) return {field, {}};
  return {field.substr(0, dot), field.substr(dot + 1)};
}

bool IsValidTag(std::string_view tag) {
  if (tag.size() != kRefTagChars) return false;
  for (char c : tag) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    (c >= '0' && c <= '9') || c == '-' || c == '_';
    if (!ok) return false;
  }
  return true;
}

std::string ScopeToken(const Scope& scope) {
  switch (scope.kind) {
    case Scope::Kind::kGlobal:
      return "g";
    case Scope::Kind::kAgent:
      return "a=" + scope.id;
    case Scope::Kind::kSession:
      return "s=" + scope.id;
  }
  return "?";
}

Result<Scope> ParseScopeToken(std::string_view token) {
  if (token == "g") return Scope::Global();
  if (token.size() > 2 && token[1] == '=') {
    std::string id(token.substr(2));
    Status valid = ValidateScopeId(id);
    if (!valid.ok()) return valid;
    if (token[0] == 'a') return Scope::Agent(std::move(id));
    if (token[0] == 's') return Scope::Session(std::move(id));
  }
  return Status::InvalidArgument("bad scope field '" + std::string(token) +
                                 "'");
}
}  // namespace

Status ValidateScopeId(std::string_view id) {
  if (id.empty() || id.size() > kMaxScopeIdBytes) {
    return Status::InvalidArgument("agent/session id must be 1-64 bytes");
  }
  for (char c : id) {
    if (!IsScopeIdChar(c)) {
      return Status::InvalidArgument(
          "agent/session id '" + std::string(id) +
          "' may contain only letters, digits, '.', '_' and '-'");
    }
  }
  return Status::Ok();
}

Status ValidateTag(std::string_view tag) {
  if (tag.empty() || tag.size() > kMaxTagBytes) {
    return Status::InvalidArgument("a tag must be 1-64 bytes");
  }
  for (char c : tag) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      return Status::InvalidArgument("a tag contains a control character");
    }
  }
  if (!core::IsValidUtf8(tag)) {
    return Status::InvalidArgument("a tag is not valid UTF-8");
  }
  return Status::Ok();
}

Status ValidateTags(const std::vector<std::string>& tags) {
  if (tags.size() > kMaxTagsPerObject) {
    return Status::InvalidArgument("at most 64 tags per object");
  }
  for (const std::string& tag : tags) {
    CTXKIT_RETURN_IF_ERROR(ValidateTag(tag));
  }
  return Status::Ok();
}

Status ValidateKey(std::string_view key) {
  if (key.empty()) return Status::InvalidArgument("key is empty");
  if (key.size() > kMaxKeyBytes) {
    return Status::InvalidArgument("key is " + std::to_string(key.size()) +
                                   " bytes; the limit is 256");
  }
  for (char c : key) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      return Status::InvalidArgument("key contains a control character (byte " +
                                     std::to_string(u) + ")");
    }
  }
  if (!core::IsValidUtf8(key)) {
    return Status::InvalidArgument("key is not valid UTF-8");
  }
  // C1 controls (U+0080..U+009F) are control characters too.
  for (size_t i = 0; i + 1 < key.size(); ++i) {
    if (static_cast<unsigned char>(key[i]) == 0xc2 &&
        static_cast<unsigned char>(key[i + 1]) < 0xa0) {
      return Status::InvalidArgument("key contains a control character");
    }
  }
  return Status::Ok();
}

std::string Scope::ToString() const {
  switch (kind) {
    case Kind::kGlobal:
      return "global";
    case Kind::kAgent:
      return "agent:" + id;
    case Kind::kSession:
      return "session:" + id;
  }
  return "?";
}

Result<Scope> Scope::Parse(std::string_view text) {
  if (text == "global") return Scope::Global();
  for (auto [prefix, kind] :
       {std::pair<std::string_view, Kind>{"agent:", Kind::kAgent},
        std::pair<std::string_view, Kind>{"session:", Kind::kSession}}) {
    if (text.substr(0, prefix.size()) == prefix) {
      std::string id(text.substr(prefix.size()));
      Status valid = ValidateScopeId(id);
      if (!valid.ok()) return valid;
      return Scope{kind, std::move(id)};
    }
  }
  return Status::InvalidArgument(
      "bad scope '" + std::string(text) +
      "' (expected global, agent:<id> or session:<id>)");
}

std::string FormatRef(const Ref& ref) {
  std::string out;
  out.reserve(32 + ref.id.size() + ref.key.size() + ref.scope.id.size());
  out += kRefPrefix;
  out += ref.id;
  if (!ref.tag.empty()) {
    out += '.';
    out += ref.tag;
  }
  out += ':';
  out += std::to_string(ref.version);
  out += ':';
  out += core::ValueTypeLetter(ref.type);
  out += ':';
  out += std::to_string(ref.size_bytes);
  out += ':';
  out += ScopeToken(ref.scope);
  out += ':';
  out += ref.key;
  return out;
}

Result<Ref> ParseRef(std::string_view text) {
  auto bad = [&](std::string_view why) {
    return Status::InvalidArgument("not a ref (" + std::string(why) +
                                   "); expected "
                                   "ck:<id>[.<tag>]:<version>:<type>:<size>:"
                                   "<scope>:<key>");
  };
  if (text.substr(0, kRefPrefix.size()) != kRefPrefix) {
    return bad("missing 'ck:' prefix");
  }
  std::string_view rest = text.substr(kRefPrefix.size());
  // Five ':'-terminated fields, then the key (which may contain ':').
  std::vector<std::string_view> fields;
  for (int i = 0; i < 5; ++i) {
    auto colon = rest.find(':');
    if (colon == std::string_view::npos) return bad("too few fields");
    fields.push_back(rest.substr(0, colon));
    rest = rest.substr(colon + 1);
  }
  Ref ref;
  auto [id, tag] = SplitTag(fields[0]);
  if (!IsValidObjectId(id)) return bad("bad id");
  const bool has_tag = id.size() != fields[0].size();
  if (has_tag && !IsValidTag(tag)) return bad("bad capability tag");
  ref.id = std::string(id);
  ref.tag = std::string(tag);
  auto version = core::ParseCanonicalDecimal(fields[1]);
  if (!version) return bad("bad version");
  ref.version = *version;
  if (fields[2].size() != 1) return bad("bad type");
  auto type = core::ValueTypeFromLetter(fields[2][0]);
  if (!type) return bad("bad type");
  ref.type = *type;
  auto size = core::ParseCanonicalDecimal(fields[3]);
  if (!size) return bad("bad size");
  ref.size_bytes = *size;
  auto scope = ParseScopeToken(fields[4]);
  if (!scope.ok()) return bad(scope.status().message());
  ref.scope = std::move(scope).value();
  Status key_ok = ValidateKey(rest);
  if (!key_ok.ok()) return bad(key_ok.message());
  ref.key = std::string(rest);
  return ref;
}

}  // namespace ctxkit
