// Compact descriptions of stored objects: kind, one-line title, exact token
// count. What a metadata-pool entry and a chat reference line show.

#ifndef CTXKIT_SESSION_OBJECT_INFO_H_
#define CTXKIT_SESSION_OBJECT_INFO_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "ctxkit/session.h"
#include "ctxkit/store.h"

namespace ctxkit::session {

// One line describing `content`: for a JSON object or array its shape,
// otherwise its first non-blank line; whitespace collapsed, at most about
// 120 bytes (cut at a UTF-8 boundary, marked with "..."). Always UTF-8:
// each ill-formed sequence of `content` shows as U+FFFD.
std::string OneLineSummary(std::string_view content);

// Exact o200k_base token count.
uint64_t CountTokens(std::string_view text);

// Whether `view` reads objects of `scope` (Scope::ToString form) by key:
// global, its agent's and its session's. Another session's objects (a
// fork's shared tool outputs, docs/sessions.md "Forks") are read by ref.
bool ViewSeesScope(const View& view, std::string_view scope);

// A static ref to version `version` (>= 1) of the object `object`
// (any ref to it) names: by key in a scope the view sees, else from the
// object's history, which a ref reads in any scope (after the object was
// removed, too). NotFound when there is no such version.
Result<Ref> VersionRef(View& view, const Ref& object, uint64_t version);

// Fills every descriptive field of an entry (id, key, scope, kind, title,
// version, tokens, size) for version `version` (0: latest) of the object
// `meta` describes. Flags and seq are left as they are.
Status DescribeObject(View& view, const ObjectMeta& meta, uint64_t version,
                      PoolEntry* entry);

}  // namespace ctxkit::session

#endif  // CTXKIT_SESSION_OBJECT_INFO_H_
