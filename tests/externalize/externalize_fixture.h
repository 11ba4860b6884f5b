// A store with one session holding every kind of context SPEC-25
// externalizes: a chat with tool calls, tracked files, working memory.

#ifndef CTXKIT_TESTS_EXTERNALIZE_EXTERNALIZE_FIXTURE_H_
#define CTXKIT_TESTS_EXTERNALIZE_EXTERNALIZE_FIXTURE_H_

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "common/temp_store.h"
#include "ctxkit/externalize.h"
#include "ctxkit/session.h"
#include "ctxkit/store.h"

namespace ctxkit::testing {

// Text of about `words` words drawn from a fixed vocabulary (seeded, so
// every run builds the same bytes).
inline std::string Words(size_t words, uint32_t seed) {
  static const std::vector<std::string> kVocab = {
      "store",  "context", "agent",   "variable", "license", "warranty",
      "module", "handle",  "version", "session",  "token",   "summary",
      "search", "peek",    "budget",  "prompt",   "query",   "result",
      "file",   "output",  "memory",  "index",    "chunk",   "scope",
      "the",    "a",       "of",      "and",      "to",      "in",
      "is",     "for",     "with",    "on",       "by",      "that"};
  std::mt19937 rng(seed);
  std::string out;
  for (size_t i = 0; i < words; ++i) {
    out += kVocab[rng() % kVocab.size()];
    out += (i % 16 == 15) ? "\n" : " ";
  }
  return out;
}

class ExternalizeTest : public ::testing::Test {
 protected:
  static constexpr char kSession[] = "run-1";
  static constexpr char kSentinel[] = "ZQXJ-SENTINEL-7731";

  void SetUp() override {
    for (const char* v : {"CTXKIT_LLM_BASE_URL", "CTXKIT_LLM_MODEL",
                          "CTXKIT_EMBED_URL", "CTXKIT_EMBED_MODEL"}) {
      ::unsetenv(v);
    }
    dir_ = MakeTempDir("ctxkit-ext");
    ASSERT_FALSE(dir_.empty());
    auto store = OpenTempStore(dir_);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
    auto view = store_->OpenView("root", kSession);
    ASSERT_TRUE(view.ok());
    view_ = std::make_unique<View>(*view);
  }
  void TearDown() override {
    store_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  // An OpenAI log: question, `calls` tool calls with outputs, an answer.
  // Every message and output carries `plant` when it is non-empty.
  std::string Log(int calls, const std::string& plant, size_t output_words) {
    using nlohmann::json;
    json m = json::array();
    m.push_back({{"role", "system"}, {"content", "You are careful."}});
    m.push_back({{"role", "user"}, {"content", "Audit the licenses " + plant}});
    for (int i = 0; i < calls; ++i) {
      const std::string id = "call_" + std::to_string(i);
      const bool grep = i % 2 == 0;
      m.push_back({{"role", "assistant"},
                   {"content", nullptr},
                   {"tool_calls",
                    {{{"id", id},
                      {"type", "function"},
                      {"function",
                       {{"name", grep ? "grep" : "read_file"},
                        {"arguments", json{{"n", i}}.dump()}}}}}}});
      m.push_back({{"role", "tool"},
                   {"tool_call_id", id},
                   {"content", "output " + std::to_string(i) + " " + plant +
                                   "\n" + Words(output_words, 100 + i)}});
    }
    m.push_back(
        {{"role", "assistant"}, {"content", "Done reading " + plant + "."}});
    return json{{"messages", m}}.dump();
  }

  // Creates the session: the chat, `files` tracked file objects, a pinned
  // working-memory note and a memory value in the session scope.
  void BuildSession(const std::string& plant, int calls = 4,
                    size_t output_words = 200, int files = 3,
                    size_t file_words = 300) {
    auto s = Session::Create(*store_, kSession, {});
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    session_ = std::move(*s);
    auto ing =
        session_->Ingest(Log(calls, plant, output_words), LogFormat::kOpenAI);
    ASSERT_TRUE(ing.ok()) << ing.status().ToString();
    for (int i = 0; i < files; ++i) {
      const std::string key = "file:/docs/doc" + std::to_string(i) + ".md";
      std::string content = "# Doc " + std::to_string(i) + " " + plant + "\n" +
                            Words(file_words, 7 + i);
      file_bytes_ += content.size();
      ASSERT_TRUE(view_->Set(key, content, {.type = ValueType::kFile}).ok());
      ASSERT_TRUE(session_->Track(key).ok());
    }
    std::string note = "plan: check section 7 " + plant;
    ASSERT_TRUE(view_->Set("notes/plan", note, {.scope = "session"}).ok());
    ASSERT_TRUE(session_->Pin("notes/plan").ok());
    std::string mem = "{\"goal\": \"audit " + plant + "\"}";
    ASSERT_TRUE(view_
                    ->Set("wm/goal", mem,
                          {.scope = "session", .type = ValueType::kMemory})
                    .ok());
    memory_bytes_ = note.size() + mem.size();
  }

  Result<ExternalizedContext> Externalize(const std::string& query) {
    return ExternalizedContext::FromSession(*view_, "", kSession, query);
  }

  std::string dir_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<View> view_;
  std::unique_ptr<Session> session_;
  uint64_t file_bytes_ = 0;
  uint64_t memory_bytes_ = 0;
};

}  // namespace ctxkit::testing

#endif  // CTXKIT_TESTS_EXTERNALIZE_EXTERNALIZE_FIXTURE_H_
