#include "face/environment.h"

#include <charconv>
#include <cstdlib>
#include <string>

#include "ctxkit/notes.h"
#include "ctxkit/progress.h"
#include "os/filename.h"

namespace ctxkit::env {

std::string Get(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

LlmEndpoint LlmEndpointFromEnv() {
  LlmEndpoint e;
  e.base_url = Get("CTXKIT_LLM_BASE_URL");
  e.model = Get("CTXKIT_LLM_MODEL");
  e.api_key = Get("CTXKIT_LLM_API_KEY");
  std::string timeout = Get("CTXKIT_LLM_TIMEOUT_MS");
  if (!timeout.empty()) {
    char* end = nullptr;
    long ms = std::strtol(timeout.c_str(), &end, 10);
    if (end != nullptr && *end == '\0' && ms > 0 && ms < 3600000) {
      e.timeout_ms = static_cast<int>(ms);
    }
  }
  return e;
}

uint32_t ProgressIntervalFromEnv() {
  const std::string text = Get("CTXKIT_PROGRESS_INTERVAL_MS");
  uint32_t ms = ProgressOptions().interval_ms;
  const auto [end, err] =
      std::from_chars(text.data(), text.data() + text.size(), ms);
  const bool whole = err == std::errc() && end == text.data() + text.size();
  return whole && ms <= 60000 ? ms : ProgressOptions().interval_ms;
}

EmbeddingsConfig EmbeddingsFromEnv() {
  EmbeddingsConfig c;
  std::string url = Get("CTXKIT_EMBED_URL");
  std::string model = Get("CTXKIT_EMBED_MODEL");
  if (!url.empty() && !model.empty()) {
    c.base_url = std::move(url);
    c.model = std::move(model);
    c.api_key = Get("CTXKIT_EMBED_API_KEY");
  }
  return c;
}

Result<std::string> NotesRoot(std::string_view flag,
                              std::string_view explicit_home) {
  NotesRootSources s;
  s.flag = std::string(flag);
  s.context_store = Get("SFA_CONTEXT_STORE");
  s.config_file = Get("SFA_CONFIG");
  s.config_home = Get("XDG_CONFIG_HOME");
  s.user_home = Get("HOME");
  if (!explicit_home.empty()) {
    s.default_root = storage::HomeNotesRoot(explicit_home);
  }
  return ResolveNotesRoot(s);
}

Result<std::string> ToolOutputDir(std::string_view flag,
                                  std::string_view explicit_home) {
  if (!flag.empty()) return std::string(flag);
  std::string dir = Get("CTXKIT_TOOL_CONTEXT_DIR");
  if (!dir.empty()) return dir;
  if (!explicit_home.empty()) return storage::HomeToolOutputDir(explicit_home);
  std::string home = Get("HOME");
  if (home.empty()) {
    return Status::InvalidArgument(
        "no context directory: set CTXKIT_TOOL_CONTEXT_DIR or HOME");
  }
  return home + "/.agent/context";
}

}  // namespace ctxkit::env
