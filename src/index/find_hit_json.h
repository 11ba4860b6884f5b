// FindHit as JSON, shared by every front end that reports find results
// (the find verb, the externalize find verb, the MCP find_relevant tool)
// so the keys and their meaning stay the same everywhere.

#ifndef CTXKIT_INDEX_FIND_HIT_JSON_H_
#define CTXKIT_INDEX_FIND_HIT_JSON_H_

#include <nlohmann/json.hpp>

#include "ctxkit/index.h"

namespace ctxkit::index {

// key, ref, byte_offset, byte_length, tokens, score, preview, method,
// bm25_rank, embedding_rank (docs/json.md).
nlohmann::json FindHitToJson(const FindHit& hit);

}  // namespace ctxkit::index

#endif  // CTXKIT_INDEX_FIND_HIT_JSON_H_
