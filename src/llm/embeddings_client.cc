#include "llm/embeddings_client.h"

#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>

#include "core/status_macros.h"
#include "llm/http_post.h"
#include "text/json_write.h"

namespace ctxkit::llm {

std::string EmbeddingsUrl(const std::string& base_url) {
  return EndpointUrl(base_url, "embeddings");
}

std::string EmbeddingsRequestBody(const EmbedConfig& config,
                                  const std::vector<std::string>& inputs) {
  nlohmann::json body = {
      {"model", config.model}, {"input", inputs}, {"encoding_format", "float"}};
  // Invalid UTF-8 replaced: inputs may hold binary, and one bad byte must
  // not fail a whole request.
  return text::DumpJson(body);
}

Result<std::vector<std::vector<float>>> ParseEmbeddingsResponse(
    const std::string& body, size_t expected) {
  CTXKIT_ASSIGN_OR_RETURN(nlohmann::json j,
                          ParseReplyObject(body, "embeddings"));
  auto data = j.find("data");
  if (data == j.end() || !data->is_array() || data->size() != expected) {
    return Status::Corruption("embeddings reply has no data list of " +
                              std::to_string(expected) + " items");
  }
  std::vector<std::vector<float>> out(expected);
  size_t dim = 0;
  for (size_t i = 0; i < data->size(); ++i) {
    const nlohmann::json& item = (*data)[i];
    if (!item.is_object()) return Status::Corruption("embeddings item");
    size_t index = i;
    if (auto ix = item.find("index");
        ix != item.end() && ix->is_number_unsigned()) {
      index = ix->get<size_t>();
    }
    auto emb = item.find("embedding");
    if (index >= expected || emb == item.end() || !emb->is_array() ||
        emb->empty() || !out[index].empty()) {
      return Status::Corruption("embeddings item " + std::to_string(i) +
                                " has no usable embedding");
    }
    std::vector<float>& v = out[index];
    v.reserve(emb->size());
    for (const nlohmann::json& x : *emb) {
      if (!x.is_number()) return Status::Corruption("embedding not numeric");
      v.push_back(x.get<float>());
    }
    if (dim == 0) dim = v.size();
    if (v.size() != dim) {
      return Status::Corruption("embeddings of different lengths");
    }
  }
  return out;
}

Result<std::vector<std::vector<float>>> Embed(
    const EmbedConfig& config, const std::vector<std::string>& inputs) {
  if (config.base_url.empty() || config.model.empty()) {
    return Status::FailedPrecondition(
        "no embeddings endpoint configured (CTXKIT_EMBED_URL, "
        "CTXKIT_EMBED_MODEL)");
  }
  if (inputs.empty()) return std::vector<std::vector<float>>{};
  Result<std::string> reply = PostJson(EmbeddingsUrl(config.base_url),
                                       EmbeddingsRequestBody(config, inputs),
                                       PostOptionsOf(config), "embeddings");
  if (!reply.ok()) return reply.status();
  return ParseEmbeddingsResponse(*reply, inputs.size());
}

}  // namespace ctxkit::llm
