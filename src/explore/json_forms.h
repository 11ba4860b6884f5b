// The JSON forms of explore results (peek, search, len), shared by the
// CLI's --json and the MCP tools so both report them alike (docs/json.md).
// Content (a peek's text and parts) is not part of a form: each face
// delivers it its own way around the form.

#ifndef CTXKIT_EXPLORE_JSON_FORMS_H_
#define CTXKIT_EXPLORE_JSON_FORMS_H_

#include <nlohmann/json.hpp>

#include "ctxkit/explore.h"

namespace ctxkit::explore {

// ref, key, unit, start, end, total (null when not counted), total_bytes,
// byte_offset, byte_end, cut_at_max_bytes, chunk_bytes (null unless the
// unit is chunks), bytes_read.
nlohmann::json PeekToJson(const PeekResult& peek);

// ref, key, line, byte_offset, line_offset, length, preview,
// preview_truncated, before, after ([{line, text}]).
nlohmann::json SearchMatchToJson(const SearchMatch& match);

// matches, max_results_reached, variables_searched, bytes_read, skipped.
nlohmann::json SearchResultToJson(const SearchResult& result);

// ref, key, type, size_bytes, lines, items, chunks (each null when not
// counted), bytes_read.
nlohmann::json LenToJson(const LenResult& len);

}  // namespace ctxkit::explore

#endif  // CTXKIT_EXPLORE_JSON_FORMS_H_
