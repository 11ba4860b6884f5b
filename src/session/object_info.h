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

// Fills every descriptive field of an entry (id, key, scope, kind, title,
// version, tokens, size) for version `version` (0: latest) of the object
// `meta` describes. Flags and seq are left as they are.
Status DescribeObject(View& view, const ObjectMeta& meta, uint64_t version,
                      PoolEntry* entry);

}  // namespace ctxkit::session

#endif  // CTXKIT_SESSION_OBJECT_INFO_H_
