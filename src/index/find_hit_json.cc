#include "index/find_hit_json.h"

#include "ctxkit/ref.h"

namespace ctxkit::index {

nlohmann::json FindHitToJson(const FindHit& hit, FindHitFields fields) {
  nlohmann::json j = {{"key", hit.key},
                      {"ref", FormatRef(hit.ref)},
                      {"byte_offset", hit.byte_offset},
                      {"byte_length", hit.byte_length},
                      {"tokens", hit.tokens},
                      {"score", hit.score},
                      {"preview", hit.preview}};
  if (fields == FindHitFields::kRanking) {
    j["method"] = hit.method;
    j["bm25_rank"] = hit.bm25_rank;
    j["embedding_rank"] = hit.embedding_rank;
  }
  return j;
}

}  // namespace ctxkit::index
