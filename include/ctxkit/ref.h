// Scopes, value types and refs: the names agents pass around instead of
// content.
//
// A Ref identifies one stored object (and optionally one version of it) and
// carries its metadata, never its value. Its wire form is a compact string
// that round-trips exactly: ParseRef(FormatRef(r)) == r and
// FormatRef(*ParseRef(s)) == s for every s that parses. Any process that
// opens the same store can resolve a ref to a persistent value; holding a
// ref is the capability to read that object, whatever its scope.
//
// Wire form (fields separated by ':'; the key is last and taken verbatim):
//
//   ck:<id>:<version>:<type>:<size>:<scope>:<key>
//
//   id       object id: base-36 digits for persistent objects, or
//            "~<process tag>.<n>" for session-only values.
//   version  decimal; 0 means "latest" (a dynamic ref).
//   type     one letter: t text, j json, m memory, r result, s stream,
//            c toolcall, f file, n note, h chat.
//   size     decimal size in bytes of the version the ref was taken from.
//   scope    "g", "a=<agent id>" or "s=<session id>".
//   key      the key, verbatim (keys contain no control characters).
//
// Example: ck:2s.Qm7x0c3VbK9_pLd2:3:t:14729:a=reviewer:notes/auth
//
// Length: for a persistent object with a key of at most 64 bytes, a scope
// id of at most 32 bytes, fewer than 10,000 versions, a value under 10 GB
// and fewer than 36^7 (78 billion) objects in the store, the wire form is at
// most 145 bytes with its tag. A session-only ref is at most 4 bytes longer.
//
// Thread safety: plain values, as for any standard-library type.

#ifndef CTXKIT_REF_H_
#define CTXKIT_REF_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/status.h"

namespace ctxkit {

// What a value holds. Text, json, memory, result and stream are the seed
// spec's types; the rest are kinds the context manager layers store.
enum class ValueType : uint8_t {
  kText = 0,
  kJson,
  kMemory,
  kResult,
  kStream,    // Append-only; read by byte range.
  kToolcall,  // One tool execution and its output.
  kFile,      // A watched file's content.
  kNote,      // An agent context note.
  kChat,      // Conversation messages, one JSON object per line (NDJSON);
              // chats written by earlier builds are one JSON array.
};

// Types whose values grow by View::Append, each version the previous one
// plus the appended bytes: stream and chat.
inline bool IsAppendableType(ValueType type) {
  return type == ValueType::kStream || type == ValueType::kChat;
}

// "text", "json", ... as used by the CLI and JSON output.
std::string_view ValueTypeName(ValueType type);
// Parses a name from ValueTypeName; InvalidArgument otherwise.
Result<ValueType> ParseValueType(std::string_view name);

// Where an object lives. Agent and session ids are 1-64 bytes of
// [A-Za-z0-9._-].
struct Scope {
  enum class Kind : uint8_t { kGlobal = 0, kAgent, kSession };

  Kind kind = Kind::kGlobal;
  std::string id;  // Empty for kGlobal.

  static Scope Global() { return Scope{}; }
  static Scope Agent(std::string id) { return {Kind::kAgent, std::move(id)}; }
  static Scope Session(std::string id) {
    return {Kind::kSession, std::move(id)};
  }

  bool is_global() const { return kind == Kind::kGlobal; }

  // "global", "agent:<id>" or "session:<id>".
  std::string ToString() const;
  // Parses ToString()'s form and validates the id.
  static Result<Scope> Parse(std::string_view text);

  friend bool operator==(const Scope&, const Scope&) = default;
};

// Validates an agent or session id (1-64 bytes of [A-Za-z0-9._-]).
Status ValidateScopeId(std::string_view id);

// Validates a key: UTF-8, 1-256 bytes, no NUL or other control character.
Status ValidateKey(std::string_view key);

// Tags label objects for listing (SetOptions::tags, ListFilter::tags).
inline constexpr size_t kMaxTagBytes = 64;
inline constexpr size_t kMaxTagsPerObject = 64;
// Validates one tag: UTF-8, 1-64 bytes, no control character.
Status ValidateTag(std::string_view tag);
// Validates a tag list: at most 64 tags, each valid.
Status ValidateTags(const std::vector<std::string>& tags);

// Length of a ref's capability tag on the wire.
inline constexpr size_t kRefTagChars = 16;

struct Ref {
  std::string id;
  std::string key;
  Scope scope;
  ValueType type = ValueType::kText;
  uint64_t size_bytes = 0;
  // The pinned version (a static ref), or 0 for "latest" (a dynamic ref).
  uint64_t version = 0;
  // The capability tag (kRefTagChars of base64url), or empty. Set by the
  // store; see the top of this file.
  std::string tag;

  bool is_static() const { return version != 0; }
  // The same object, following its latest version.
  Ref Dynamic() const {
    Ref ref = *this;
    ref.version = 0;
    return ref;
  }
  // True for refs to session-only (persist=false) values, which resolve only
  // in the Store instance that holds them.
  bool is_session_only() const { return !id.empty() && id[0] == '~'; }

  friend bool operator==(const Ref&, const Ref&) = default;
};

std::string FormatRef(const Ref& ref);
// InvalidArgument with the reason when `text` is not a well-formed ref.
Result<Ref> ParseRef(std::string_view text);

}  // namespace ctxkit

#endif  // CTXKIT_REF_H_
