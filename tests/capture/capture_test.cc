// Tool-output capture against a real directory and store: the JSON file
// byte for byte, memory vs file pointers, listing, clearing, hashQuery,
// toolcall objects, and selection by BM25 and by a (fake) LLM.

#include "ctxkit/capture.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli/cli_test_util.h"
#include "common/fake_chat_server.h"
#include "common/files.h"
#include "common/temp_store.h"
#include "ctxkit/store.h"
#include "ctxkit/toolcall.h"

namespace ctxkit {
namespace {

namespace fs = std::filesystem;
using cli::testing::TempDir;
using ::ctxkit::testing::ReadAll;

class CaptureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(tmp_.path().empty());
    root_ = tmp_.path() + "/context";
    auto opened = testing::OpenTempStore(tmp_.path(), "home");
    ASSERT_TRUE(opened.ok()) << opened.status().ToString();
    store_ = std::move(*opened);
    view_ = std::make_unique<View>(*store_->OpenView("agent", "abc123"));
    cm_ = Open(*view_, 1024);
  }

  std::unique_ptr<ToolOutputCapture> Open(View& view, uint64_t threshold) {
    CaptureOptions c;
    c.root = root_;
    c.memory_threshold_bytes = threshold;
    auto cm = ToolOutputCapture::Open(view, c);
    EXPECT_TRUE(cm.ok()) << cm.status().ToString();
    return cm.ok() ? std::move(*cm) : nullptr;
  }

  std::string Save(const std::string& tool, const std::string& args,
                   const std::string& result, const std::string& query = "") {
    auto p = cm_->SaveContext(tool, args, result, "", query);
    EXPECT_TRUE(p.ok()) << p.status().ToString();
    return p.ok() ? *p : "";
  }

  static std::string Big(const std::string& word) {
    std::string s;
    while (s.size() < 2000) s += word + " line\n";
    return nlohmann::json(s).dump();
  }

  TempDir tmp_;
  std::string root_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<View> view_;
  std::unique_ptr<ToolOutputCapture> cm_;
};

TEST_F(CaptureTest, LargeOutputIsAFileInTheSpecLayout) {
  nlohmann::json result = {{"matches", std::string(1500, 'x')}};
  std::string q = HashQuery("Where are the TODOs?");
  std::string p = Save("search_code", R"({"query": "TODO"})", result.dump(), q);
  std::string name = fs::path(p).filename();
  ASSERT_TRUE(name.starts_with("session-abc123-search_code-")) << name;
  ASSERT_EQ(name.size(),
            std::string("session-abc123-search_code-").size() + 12 + 5);
  EXPECT_EQ(fs::path(p).parent_path(), fs::canonical(root_));
  std::string bytes = ReadAll(p);
  std::string ts = nlohmann::json::parse(bytes)["timestamp"];
  ASSERT_EQ(ts.size(), 24u);  // 2024-01-15T10:30:00.123Z
  // The seed's fields in its order, one per line; each value compact (what
  // was given, never re-indented).
  EXPECT_EQ(bytes,
            "{\n"
            "  \"toolName\": \"search_code\",\n"
            "  \"args\": {\"query\":\"TODO\"},\n"
            "  \"result\": {\"matches\":\"" +
                std::string(1500, 'x') +
                "\"},\n"
                "  \"timestamp\": \"" +
                ts +
                "\",\n"
                "  \"queryId\": \"" +
                q +
                "\",\n"
                "  \"sessionId\": \"abc123\"\n"
                "}\n");
  auto loaded = cm_->LoadContext(p);
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->tool_name, "search_code");
  EXPECT_EQ(nlohmann::json::parse(loaded->result_json), result);
  EXPECT_EQ(loaded->query_id, q);
  // Saving the same output again rewrites the one file.
  EXPECT_EQ(Save("search_code", R"({"query": "TODO"})", result.dump(), q), p);
  // It is also a toolcall object.
  std::string call_id = "ctx-" + name.substr(name.size() - 17, 12);
  auto call = LoadToolCall(*view_, call_id, true);
  ASSERT_TRUE(call.ok()) << call.status().ToString();
  EXPECT_EQ(call->tool, "search_code");
  EXPECT_EQ(call->status, "ok");
  EXPECT_EQ(nlohmann::json::parse(call->output), result);
}

// Outputs saved within one second (here: one loop) list in the order they
// were saved, files and in-memory ones alike, with millisecond timestamps.
TEST_F(CaptureTest, OutputsListInTheOrderSaved) {
  std::vector<std::string> saved;
  for (int i = 0; i < 12; ++i) {
    // Alternate in-memory (small) and file (big) outputs.
    saved.push_back(Save("t" + std::to_string(i), "{}",
                         i % 2 ? Big("w" + std::to_string(i))
                               : "\"s" + std::to_string(i) + "\""));
  }
  auto list = cm_->ListContexts("abc123");
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->size(), saved.size());
  for (size_t i = 0; i < saved.size(); ++i) {
    EXPECT_EQ((*list)[i].filepath, saved[i]) << i;
    if (i > 0) {
      EXPECT_LT((*list)[i - 1].timestamp, (*list)[i].timestamp);
    }
  }
}

// Nothing selected (an empty question, no match) falls back to the most
// recent outputs, as the seed's reference implementation falls back to all,
// and says so.
TEST_F(CaptureTest, SelectWithNothingChosenReturnsTheMostRecent) {
  Save("grep", "{}", "\"alpha\"");
  Save("grep", "{}", "\"beta\"");
  Save("grep", "{}", "\"gamma\"");
  auto list = cm_->ListContexts("abc123");
  ASSERT_TRUE(list.ok());
  SelectOptions o;
  o.use_llm = false;
  o.max_selected = 2;
  for (const std::string q : {"", "zebra unicorn"}) {
    auto sel = cm_->Select(q, *list, o);
    ASSERT_TRUE(sel.ok()) << sel.status().ToString();
    EXPECT_EQ(sel->method, "all") << q;
    ASSERT_EQ(sel->selected.size(), 2u) << q;
    EXPECT_EQ(sel->selected[0].filepath, (*list)[1].filepath);
    EXPECT_EQ(sel->selected[1].filepath, (*list)[2].filepath);
    ASSERT_FALSE(sel->notes.empty());
    EXPECT_NE(sel->notes.back().find("most recent"), std::string::npos);
  }
  // A question that matches still selects by BM25.
  auto sel = cm_->Select("beta", *list, o);
  ASSERT_TRUE(sel.ok());
  EXPECT_EQ(sel->method, "bm25");
  ASSERT_EQ(sel->selected.size(), 1u);
}

TEST_F(CaptureTest, SmallOutputStaysInMemoryAndIsAToolcall) {
  std::string p = Save("read_file", R"({"path":"a.ts"})", R"("tiny")");
  ASSERT_TRUE(p.starts_with("ck:")) << p;
  EXPECT_TRUE(fs::is_empty(root_) ||
              !fs::exists(root_ + "/session-abc123-read_file"));
  for (const auto& e : fs::directory_iterator(root_)) {
    EXPECT_TRUE(e.path().filename().string().starts_with(".")) << e.path();
  }
  auto loaded = cm_->LoadContext(p);
  ASSERT_TRUE(loaded.ok());
  EXPECT_EQ(loaded->result_json, R"("tiny")");
  auto ref = ParseRef(p);
  ASSERT_TRUE(ref.ok());
  EXPECT_EQ(*view_->Resolve(*ref), "tiny");
  EXPECT_TRUE(ref->key.starts_with("toolcall:ctx-"));
  // Another process of the same session (a new store instance) loads and
  // lists it through the store.
  auto opened = testing::OpenTempStore(tmp_.path(), "home");
  ASSERT_TRUE(opened.ok());
  std::unique_ptr<Store> other_store = std::move(*opened);
  View other_view = *other_store->OpenView("agent", "abc123");
  auto other = Open(other_view, 1024);
  auto again = other->LoadContext(p);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->result_json, R"("tiny")");
  EXPECT_EQ(again->args_json, R"({"path":"a.ts"})");
  auto list = other->ListContexts("abc123");
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 1u);
  EXPECT_TRUE((*list)[0].in_memory);
  EXPECT_EQ((*list)[0].tool_name, "read_file");
}

TEST_F(CaptureTest, ListAndClearTouchOnlyThisSession) {
  std::string small = Save("grep", "{}", R"("45 matches")");
  std::string big = Save("search_code", "{}", Big("alpha"), "query-1");
  // Sessions whose file names share the prefix "session-abc123-".
  View v2 = *store_->OpenView("agent", "abc123-x");
  auto cm2 = Open(v2, 0);
  std::string foreign = *cm2->SaveContext("grep", "{}", Big("beta"));
  View v3 = *store_->OpenView("agent", "session-abc123");
  auto cm3 = Open(v3, 0);
  std::string prefixed = *cm3->SaveContext("grep", "{}", Big("gamma"));
  EXPECT_TRUE(fs::path(prefixed).filename().string().starts_with(
      "session-abc123-grep-"));

  auto list = cm_->ListContexts("abc123");
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 2u);
  std::set<std::string> got = {(*list)[0].filepath, (*list)[1].filepath};
  EXPECT_EQ(got, (std::set<std::string>{small, big}));
  for (const ContextPointer& p : *list) {
    if (p.filepath == big) {
      EXPECT_EQ(p.query_id, "query-1");
      EXPECT_EQ(p.size_bytes, fs::file_size(big));
      EXPECT_FALSE(p.in_memory);
      EXPECT_GT(p.timestamp, 1700000000000);
    }
  }
  auto removed = cm_->ClearContexts();
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(*removed, 1u);
  EXPECT_FALSE(fs::exists(big));
  EXPECT_TRUE(fs::exists(foreign));
  EXPECT_TRUE(fs::exists(prefixed));
  EXPECT_TRUE(cm_->ListContexts("abc123")->empty());
  EXPECT_TRUE(cm_->LoadContext(big).status().IsNotFound());
}

TEST_F(CaptureTest, HashQueryIgnoresCaseAndSurroundingWhitespace) {
  std::string h = HashQuery("Where are the TODOs?");
  EXPECT_EQ(h, HashQuery("  where are the todos?\n"));
  EXPECT_EQ(h, HashQuery("Where are the TODOs?"));
  EXPECT_NE(h, HashQuery("Where are the  TODOs?"));
  EXPECT_TRUE(h.starts_with("query-"));
  EXPECT_EQ(h.size(), 18u);
}

TEST_F(CaptureTest, BadInputsAreRejected) {
  EXPECT_TRUE(
      cm_->SaveContext("grep", "[1]", "1").status().IsInvalidArgument());
  EXPECT_TRUE(cm_->SaveContext("grep", "{", "1").status().IsInvalidArgument());
  EXPECT_TRUE(
      cm_->SaveContext("grep", "{}", "nope").status().IsInvalidArgument());
  EXPECT_TRUE(cm_->SaveContext("", "{}", "1").status().IsInvalidArgument());
  EXPECT_TRUE(
      cm_->SaveContext("g\nrep", "{}", "1").status().IsInvalidArgument());
  EXPECT_TRUE(cm_->LoadContext("/etc/passwd").status().IsInvalidArgument());
  EXPECT_TRUE(
      cm_->LoadContext(fs::canonical(root_).string() + "/../session-x-y-z.json")
          .status()
          .IsInvalidArgument());
  EXPECT_TRUE(cm_->LoadContext(fs::canonical(root_).string() +
                               "/session-abc123-grep-000000000000.json")
                  .status()
                  .IsNotFound());
  // A symlink planted in the root is not followed.
  fs::create_symlink("/etc/hostname",
                     root_ + "/session-abc123-grep-111111111111.json");
  EXPECT_FALSE(cm_->LoadContext(fs::canonical(root_).string() +
                                "/session-abc123-grep-111111111111.json")
                   .ok());
  View no_session = *store_->OpenView("agent", "");
  CaptureOptions c;
  c.root = root_;
  EXPECT_TRUE(
      ToolOutputCapture::Open(no_session, c).status().IsInvalidArgument());
}

TEST_F(CaptureTest, AReadOnlyCaptureListsAndChangesNothing) {
  std::string saved = Save("grep", R"({"pattern":"x"})", Big("read only"));
  // A temp file of a writer long gone: a writable open would clear it.
  const std::string stale = root_ + "/.tmp-999999999-abcdef";
  { std::ofstream(stale) << "partial"; }
  CaptureOptions c;
  c.root = root_;
  c.read_only = true;
  auto ro = ToolOutputCapture::Open(*view_, c);
  ASSERT_TRUE(ro.ok()) << ro.status().ToString();
  auto listed = (*ro)->ListContexts("abc123");
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_TRUE((*ro)->LoadContext(saved).ok());
  EXPECT_EQ((*ro)->SaveContext("grep", "{}", "\"x\"").status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ((*ro)->ClearContexts().status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_TRUE(fs::exists(stale));
  // A missing root is not created.
  c.root = tmp_.path() + "/nowhere";
  EXPECT_FALSE(ToolOutputCapture::Open(*view_, c).ok());
  EXPECT_FALSE(fs::exists(c.root));
}

TEST_F(CaptureTest, SelectsByBm25WithoutAnLlm) {
  ::unsetenv("CTXKIT_LLM_BASE_URL");
  std::string a = Save("search_code", R"({"query":"TODO"})",
                       R"("Found 150 matches for TODO in parser.cc")");
  std::string b = Save("read_file", R"({"path":"src/main.ts"})", Big("main"));
  std::string c = Save("grep", R"({"pattern":"error"})",
                       R"("45 matches for error in logs")");
  auto list = cm_->ListContexts("abc123");
  ASSERT_TRUE(list.ok());
  auto sel = cm_->Select("which errors are in the logs?", *list);
  ASSERT_TRUE(sel.ok()) << sel.status().ToString();
  EXPECT_EQ(sel->method, "bm25");
  ASSERT_EQ(sel->selected.size(), 1u);
  EXPECT_EQ(sel->selected[0].filepath, c);
  ASSERT_EQ(sel->loaded.size(), 1u);
  EXPECT_EQ(sel->loaded[0].result_json, R"("45 matches for error in logs")");
  EXPECT_NE(sel->prompt_list.find("1. "), std::string::npos);
  // No match: every output (up to max_selected), saying so.
  auto none = cm_->Select("kubernetes", *list);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(none->method, "all");
  EXPECT_EQ(none->selected.size(), 3u);
}

TEST_F(CaptureTest, SelectsWithTheLlmShowingANumberedList) {
  std::string seen;
  // Answers with the number the prompt gave read_file (plus junk the
  // parser must ignore: an out-of-range number and a repeat).
  testing::FakeChatServer server([&](const nlohmann::json& req) {
    seen = req["messages"][1]["content"];
    size_t at = seen.find(". read_file: ");
    size_t line = seen.rfind('\n', at);
    std::string n = seen.substr(line + 1, at - line - 1);
    return "Relevant: [" + n + ", 9, " + n + "]";
  });
  Save("search_code", R"({"query":"TODO"})", R"("Found 150 matches")");
  std::string b = Save("read_file", R"({"path":"src/main.ts"})", Big("main"));
  auto list = cm_->ListContexts("abc123");
  // The library reads no environment: CTXKIT_LLM_* alone is not used.
  ::setenv("CTXKIT_LLM_BASE_URL", server.base_url().c_str(), 1);
  ::setenv("CTXKIT_LLM_MODEL", "test-model", 1);
  auto unset = cm_->Select("what does main do?", *list);
  ::unsetenv("CTXKIT_LLM_BASE_URL");
  ::unsetenv("CTXKIT_LLM_MODEL");
  ASSERT_TRUE(unset.ok());
  EXPECT_EQ(unset->method, "bm25");
  EXPECT_TRUE(seen.empty());
  SelectOptions o;
  o.llm.base_url = server.base_url();
  o.llm.model = "test-model";
  auto sel = cm_->Select("what does main do?", *list, o);
  ASSERT_TRUE(sel.ok());
  EXPECT_EQ(sel->method, "llm");
  ASSERT_EQ(sel->selected.size(), 1u);
  EXPECT_EQ(sel->selected[0].filepath, b);
  EXPECT_NE(seen.find("Available contexts:\n1. "), std::string::npos) << seen;
  EXPECT_NE(seen.find("\n2. "), std::string::npos);
  EXPECT_NE(seen.find(". search_code: {\"query\":\"TODO\"} -> Found 150 "
                      "matches ("),
            std::string::npos)
      << seen;
}

TEST_F(CaptureTest, FallsBackToBm25WhenTheLlmFails) {
  testing::FakeChatServer server(testing::FakeChatServer::Mode::kStatus500);
  std::string a = Save("grep", "{}", R"("timeout errors in worker")");
  auto list = cm_->ListContexts("abc123");
  SelectOptions o;
  o.llm.base_url = server.base_url();
  o.llm.model = "test-model";
  auto sel = cm_->Select("worker timeout", *list, o);
  ASSERT_TRUE(sel.ok());
  EXPECT_EQ(sel->method, "bm25");
  ASSERT_EQ(sel->selected.size(), 1u);
  EXPECT_FALSE(sel->notes.empty());
}

}  // namespace
}  // namespace ctxkit
