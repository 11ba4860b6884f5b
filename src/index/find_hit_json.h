// FindHit as JSON, shared by every front end that reports find results
// (the find verb, the externalize find verb, the MCP find_relevant tool)
// so the keys and their meaning stay the same everywhere.

#ifndef CTXKIT_INDEX_FIND_HIT_JSON_H_
#define CTXKIT_INDEX_FIND_HIT_JSON_H_

#include <nlohmann/json.hpp>

#include "ctxkit/index.h"

namespace ctxkit::index {

// Which fields of a hit to emit. The ranking details (method and the
// per-method ranks) are on only where a front end has always reported
// them; the others keep their smaller output.
enum class FindHitFields {
  kBasic,    // key, ref, byte_offset, byte_length, tokens, score, preview.
  kRanking,  // kBasic plus method, bm25_rank, embedding_rank.
};

nlohmann::json FindHitToJson(const FindHit& hit,
                             FindHitFields fields = FindHitFields::kBasic);

}  // namespace ctxkit::index

#endif  // CTXKIT_INDEX_FIND_HIT_JSON_H_
