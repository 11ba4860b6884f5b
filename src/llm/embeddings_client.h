// A minimal OpenAI-compatible embeddings client over libcurl.
//
// One blocking POST <base>/embeddings per call with a batch of inputs;
// returns one float vector per input, in input order (the reply's `index`
// fields are honoured). Every failure is a Status: Unavailable for
// connection failures and timeouts, IoError for an HTTP error status,
// Corruption for a reply that is not an embeddings list of the right shape.
//
// Thread safety: Embed may be called from any number of threads at once.

#ifndef CTXKIT_LLM_EMBEDDINGS_CLIENT_H_
#define CTXKIT_LLM_EMBEDDINGS_CLIENT_H_

#include <cstddef>
#include <string>
#include <vector>

#include "ctxkit/status.h"

namespace ctxkit::llm {

struct EmbedConfig {
  std::string base_url;  // e.g. "http://127.0.0.1:8000/v1".
  std::string model;
  std::string api_key;  // Optional bearer token.
  int timeout_ms = 30000;
  int connect_timeout_ms = 5000;
  size_t max_response_bytes = 64u << 20;
};

// <base_url>/embeddings, unless base_url already ends with it.
std::string EmbeddingsUrl(const std::string& base_url);

// The JSON body sent for `inputs`.
std::string EmbeddingsRequestBody(const EmbedConfig& config,
                                  const std::vector<std::string>& inputs);

// Parses a reply for `expected` inputs. Corruption when it is not one, or
// when the vectors are missing, empty or of different lengths.
Result<std::vector<std::vector<float>>> ParseEmbeddingsResponse(
    const std::string& body, size_t expected);

Result<std::vector<std::vector<float>>> Embed(
    const EmbedConfig& config, const std::vector<std::string>& inputs);

}  // namespace ctxkit::llm

#endif  // CTXKIT_LLM_EMBEDDINGS_CLIENT_H_
