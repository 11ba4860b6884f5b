// What a read names: a key (looked up through a view's scopes) or a ref (a
// capability, read whatever its scope). Every View read (Get, Pin, Stat,
// Versions, CountTokens, RefOf) takes a Target, so a caller holding either
// makes one call.
//
// The text form is what agents and users type: text beginning with "ck:"
// is a ref in its wire form (ref.h); anything else is a key. Target::Parse
// is the one parser of that form: faces (CLI arguments, MCP tool arguments,
// Python, the inspector) and layers reading their own records call it
// rather than testing the prefix themselves.
//
//   ctxkit::Result<ctxkit::Target> t = ctxkit::Target::Parse(argument);
//   if (!t.ok()) return t.status();          // InvalidArgument, with why
//   ctxkit::Result<std::string> value = view.Get(*t);
//
// Thread safety: plain values, as for any standard-library type.

#ifndef CTXKIT_TARGET_H_
#define CTXKIT_TARGET_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ctxkit/ref.h"
#include "ctxkit/status.h"

namespace ctxkit {

// Which of the view's scopes an operation names.
//   ""           Set: global. Lookups: session, then agent, then global.
//   "global", "agent", "session"   the view's own scope of that kind.
//   "agent:<id>", "session:<id>"   fully qualified; PermissionDenied unless
//                                  it is the view's own.
using ScopeName = std::string;

struct LookupOptions {
  ScopeName scope;
  // 0: the latest version. N: that version (NotFound when it does not exist
  // or is a tombstone).
  uint64_t version = 0;

  bool empty() const { return scope.empty() && version == 0; }
};

class Target {
 public:
  // A key, looked up as `lookup` says (see LookupOptions). Not checked
  // here: a malformed key fails the call that reads it (InvalidArgument),
  // and a key that begins with "ck:" is read as a key.
  explicit Target(std::string key, LookupOptions lookup = {})
      : key_(std::move(key)), lookup_(std::move(lookup)) {}
  // A ref: the version it pins, or the latest for a dynamic ref.
  Target(Ref ref) : ref_(std::move(ref)) {}  // NOLINT: a Ref is a Target.

  // The text form. Text for which IsRefText holds is a ref in its wire
  // form: InvalidArgument, with ParseRef's reason and "'<text>' begins with
  // ck: and is read as a ref", when it does not parse, and InvalidArgument
  // when `lookup` is not empty (a ref names its own scope and version).
  // Anything else is a key, checked with ValidateKey (InvalidArgument in
  // context "key": empty, too long, a control character), looked up as
  // `lookup` says. Touches no store.
  static Result<Target> Parse(std::string_view text, LookupOptions lookup = {});

  // True when `text` is in the text form of a ref (it begins with "ck:"),
  // whether or not it parses: what Parse reads as a ref. For text that is a
  // ref or something other than a key (a captured output's file path).
  static bool IsRefText(std::string_view text);

  bool is_ref() const { return ref_.has_value(); }
  // The ref, when is_ref().
  const std::optional<Ref>& ref() const { return ref_; }
  // The key: the one given, or the ref's (the key it was taken under).
  const std::string& key() const { return ref_ ? ref_->key : key_; }
  // The lookup of a key; empty for a ref.
  const LookupOptions& lookup() const { return lookup_; }
  // True when the target names one version: a static ref, or a key with
  // lookup().version.
  bool pins_version() const {
    return ref_ ? ref_->is_static() : lookup_.version != 0;
  }

  // The text form Parse reads back: the key, or the ref's wire form.
  std::string ToString() const { return ref_ ? FormatRef(*ref_) : key_; }

 private:
  std::string key_;
  LookupOptions lookup_;
  std::optional<Ref> ref_;
};

// The NotFound every lookup by key answers when nothing is there: "no key
// '<key>' in <where>". When the key is itself a well-formed ref (a ref
// given where a key was meant), the message adds the one hint every face
// shows: "'<ref>' is a ref, not a key: give it as a ref, or give its key
// '<key>' with scope <scope> (and version <n> for a static ref)".
Status KeyNotFound(std::string_view key, std::string_view where);

}  // namespace ctxkit

#endif  // CTXKIT_TARGET_H_
