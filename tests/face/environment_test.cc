// The faces' configuration from the environment (src/mcp/environment.cc):
// the only place ctxkit reads CTXKIT_LLM_* and CTXKIT_EMBED_*.

#include "mcp/environment.h"

#include <gtest/gtest.h>
#include <stdlib.h>

namespace ctxkit {
namespace {

TEST(EnvironmentTest, LlmEndpointFromEnvironment) {
  ::setenv("CTXKIT_LLM_BASE_URL", "http://127.0.0.1:9/v1", 1);
  ::setenv("CTXKIT_LLM_MODEL", "env-model", 1);
  ::setenv("CTXKIT_LLM_API_KEY", "k", 1);
  ::setenv("CTXKIT_LLM_TIMEOUT_MS", "1234", 1);
  LlmEndpoint e = env::LlmEndpointFromEnv();
  ::unsetenv("CTXKIT_LLM_BASE_URL");
  ::unsetenv("CTXKIT_LLM_MODEL");
  ::unsetenv("CTXKIT_LLM_API_KEY");
  ::unsetenv("CTXKIT_LLM_TIMEOUT_MS");
  EXPECT_EQ(e.base_url, "http://127.0.0.1:9/v1");
  EXPECT_EQ(e.model, "env-model");
  EXPECT_EQ(e.api_key, "k");
  EXPECT_EQ(e.timeout_ms, 1234);
  EXPECT_TRUE(e.configured());
  EXPECT_FALSE(env::LlmEndpointFromEnv().configured());
}

TEST(EnvironmentTest, EmbeddingsFromEnvironment) {
  ::setenv("CTXKIT_EMBED_URL", "http://127.0.0.1:9/v1", 1);
  ::setenv("CTXKIT_EMBED_MODEL", "env-model", 1);
  ::setenv("CTXKIT_EMBED_API_KEY", "secret", 1);
  EmbeddingsConfig c = env::EmbeddingsFromEnv();
  ::unsetenv("CTXKIT_EMBED_URL");
  ::unsetenv("CTXKIT_EMBED_MODEL");
  ::unsetenv("CTXKIT_EMBED_API_KEY");
  EXPECT_EQ(c.base_url, "http://127.0.0.1:9/v1");
  EXPECT_EQ(c.model, "env-model");
  EXPECT_EQ(c.api_key, "secret");
  EXPECT_TRUE(env::EmbeddingsFromEnv().base_url.empty());
}

}  // namespace
}  // namespace ctxkit
