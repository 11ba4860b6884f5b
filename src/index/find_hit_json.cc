#include "index/find_hit_json.h"

#include "ctxkit/ref.h"

namespace ctxkit::index {

nlohmann::json FindHitToJson(const FindHit& hit) {
  return nlohmann::json{{"key", hit.key},
                        {"ref", FormatRef(hit.ref)},
                        {"byte_offset", hit.byte_offset},
                        {"byte_length", hit.byte_length},
                        {"tokens", hit.tokens},
                        {"score", hit.score},
                        {"preview", hit.preview},
                        {"method", hit.method},
                        {"bm25_rank", hit.bm25_rank},
                        {"embedding_rank", hit.embedding_rank}};
}

}  // namespace ctxkit::index
