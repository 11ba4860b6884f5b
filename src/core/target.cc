#include "ctxkit/target.h"

#include <string>

namespace ctxkit {

namespace {

// The prefix of a ref's wire form (ref.cc writes and reads it).
constexpr std::string_view kRefTextPrefix = "ck:";

}  // namespace

bool Target::IsRefText(std::string_view text) {
  return text.starts_with(kRefTextPrefix);
}

Result<Target> Target::Parse(std::string_view text, LookupOptions lookup) {
  if (IsRefText(text)) {
    Result<Ref> ref = ParseRef(text);
    if (!ref.ok()) {
      return ref.status().WithContext("'" + std::string(text.substr(0, 64)) +
                                      "' begins with ck: and is read as a ref");
    }
    if (!lookup.empty()) {
      return Status::InvalidArgument(
          "a scope or version applies to a key; a ref names its own scope "
          "and version");
    }
    return Target(std::move(*ref));
  }
  Status s = ValidateKey(text);
  if (!s.ok()) return s.WithContext("key");
  return Target(std::string(text), std::move(lookup));
}

Status KeyNotFound(std::string_view key, std::string_view where) {
  std::string message =
      "no key '" + std::string(key) + "' in " + std::string(where);
  if (!Target::IsRefText(key)) return Status::NotFound(message);
  Result<Ref> ref = ParseRef(key);
  if (!ref.ok()) return Status::NotFound(message);
  message += "; '" + std::string(key) +
             "' is a ref, not a key: give it as a ref, or give its key '" +
             ref->key + "' with scope " + ref->scope.ToString();
  if (ref->is_static()) {
    message += " and version " + std::to_string(ref->version);
  }
  return Status::NotFound(message);
}

}  // namespace ctxkit
