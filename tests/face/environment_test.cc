// The faces' configuration from the environment (src/face/): the only
// place ctxkit reads CTXKIT_* variables, the store root and URL included.

#include "face/environment.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <optional>
#include <string>

#include "ctxkit/environment.h"

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

// Sets, then restores, one environment variable.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = ::getenv(name)) saved_ = old;
    Set(value);
  }
  ~ScopedEnv() { Set(saved_ ? saved_->c_str() : nullptr); }
  void Set(const char* value) {
    value ? ::setenv(name_, value, 1) : ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> saved_;
};

TEST(ResolveHomeTest, FlagThenEnvironment) {
  ScopedEnv home("CTXKIT_HOME", "/tmp/from-env");
  ScopedEnv xdg("XDG_DATA_HOME", "/tmp/xdg");
  ScopedEnv user("HOME", "/tmp/userhome");
  EXPECT_EQ(ResolveHome("/tmp/flag/").value_or(""), "/tmp/flag");
  EXPECT_EQ(ResolveHome("").value_or(""), "/tmp/from-env");
  home.Set(nullptr);
  EXPECT_EQ(ResolveHome("").value_or(""), "/tmp/xdg/ctxkit");
  xdg.Set(nullptr);
  EXPECT_EQ(ResolveHome("").value_or(""), "/tmp/userhome/.local/share/ctxkit");
  user.Set(nullptr);
  Result<std::string> none = ResolveHome("");
  EXPECT_EQ(none.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(ResolveHome(std::string("a\0b", 3)).status().code(),
            StatusCode::kInvalidArgument);
}

TEST(ResolveStoreUrlTest, FlagThenEnvironment) {
  ScopedEnv url("CTXKIT_STORE_URL", "postgresql:///env");
  EXPECT_EQ(ResolveStoreUrl("postgresql:///flag"), "postgresql:///flag");
  EXPECT_EQ(ResolveStoreUrl(""), "postgresql:///env");
  url.Set(nullptr);
  EXPECT_EQ(ResolveStoreUrl(""), "");
}

}  // namespace
}  // namespace ctxkit
