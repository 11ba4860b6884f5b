// Summarize by handle: key and ref, the durable cache (a hit does no work),
// versions and streams, sampled large values, the deferred form, errors.

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>

#include "ctxkit/store.h"
#include "ctxkit/summary.h"
#include "ctxkit/tokenizer.h"
#include "summary_test_util.h"

namespace ctxkit {
namespace {

using testing::StoreFixture;

class SummaryApiTest : public StoreFixture {};

size_t CacheFiles(const std::string& home) {
  std::error_code ec;
  size_t n = 0;
  for (const auto& e :
       std::filesystem::directory_iterator(home + "/cache/summaries", ec)) {
    if (e.path().extension() != ".tmp") ++n;
  }
  return n;
}

TEST_F(SummaryApiTest, StructuralByKeyAndCacheHitDoesNoWork) {
  ASSERT_TRUE(view().Set("notes/report", testing::LogText(300), {}).ok());
  SummarizeOptions opts;
  opts.max_tokens = 120;
  opts.summarizer = SummarizerKind::kStructural;

  ResetSummarizerStats();
  Result<Summary> first = Summarize(view(), "notes/report", opts);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_FALSE(first->cached);
  EXPECT_EQ(first->summarizer, "structural-v1");
  EXPECT_EQ(first->kind, "text");
  EXPECT_LE(first->tokens, 120u);
  EXPECT_EQ(first->tokens, (*Tokenizer::Get())->Count(first->text));
  EXPECT_EQ(first->ref.version, 1u);  // Pinned.
  EXPECT_EQ(first->content_hash.size(), 64u);
  SummarizerStats after_first = GetSummarizerStats();
  EXPECT_EQ(after_first.structural_runs, 1u);
  EXPECT_EQ(after_first.cache_writes, 1u);
  EXPECT_GT(after_first.bytes_read, 0u);
  EXPECT_EQ(CacheFiles(home()), 1u);

  Result<Summary> second = Summarize(view(), "notes/report", opts);
  ASSERT_TRUE(second.ok());
  EXPECT_TRUE(second->cached);
  EXPECT_EQ(second->text, first->text);
  EXPECT_EQ(second->tokens, first->tokens);
  SummarizerStats after_second = GetSummarizerStats();
  EXPECT_EQ(after_second.structural_runs, 1u);  // No summarizer ran...
  EXPECT_EQ(after_second.bytes_read, after_first.bytes_read);  // ...nor read.
  EXPECT_EQ(after_second.cache_hits, 1u);
}

TEST_F(SummaryApiTest, CacheKeyedByContentMaxTokensAndSummarizer) {
  ASSERT_TRUE(view().Set("a", testing::LogText(50), {}).ok());
  SummarizeOptions opts;
  opts.summarizer = SummarizerKind::kStructural;
  opts.max_tokens = 60;
  ResetSummarizerStats();
  ASSERT_TRUE(Summarize(view(), "a", opts).ok());
  opts.max_tokens = 61;  // Another budget: a miss.
  ASSERT_TRUE(Summarize(view(), "a", opts).ok());
  EXPECT_EQ(GetSummarizerStats().structural_runs, 2u);
  // Same content under another key: a hit (content-addressed).
  ASSERT_TRUE(view().Set("b", testing::LogText(50), {}).ok());
  Result<Summary> b = Summarize(view(), "b", opts);
  ASSERT_TRUE(b.ok());
  EXPECT_TRUE(b->cached);
  // A new version: a miss, and the summary follows the content.
  ASSERT_TRUE(view().Set("a", "completely different words now\n", {}).ok());
  Result<Summary> a2 = Summarize(view(), "a", opts);
  ASSERT_TRUE(a2.ok());
  EXPECT_FALSE(a2->cached);
  EXPECT_EQ(a2->ref.version, 2u);
  EXPECT_NE(a2->text.find("completely different"), std::string::npos);
  // The old version is still summarizable through a static ref.
  Result<Ref> v1 = view().RefOf("a", LookupOptions{"", 1});
  ASSERT_TRUE(v1.ok());
  Result<Summary> old = Summarize(view(), FormatRef(*v1), opts);
  ASSERT_TRUE(old.ok());
  EXPECT_TRUE(old->cached);
  EXPECT_EQ(GetSummarizerStats().structural_runs, 3u);
}

TEST_F(SummaryApiTest, CacheSharedAcrossStoreInstances) {
  ASSERT_TRUE(view().Set("doc", testing::LogText(80), {}).ok());
  SummarizeOptions opts;
  opts.summarizer = SummarizerKind::kStructural;
  ASSERT_TRUE(Summarize(view(), "doc", opts).ok());
  // Another Store on the same home stands in for another process.
  Options o;
  o.home = home();
  auto other = Store::Open(o);
  ASSERT_TRUE(other.ok());
  auto other_view = (*other)->OpenView("", "");
  ASSERT_TRUE(other_view.ok());
  ResetSummarizerStats();
  Result<Summary> s = Summarize(*other_view, "doc", opts);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->cached);
  EXPECT_EQ(GetSummarizerStats().structural_runs, 0u);
}

TEST_F(SummaryApiTest, UseCacheFalseAlwaysRuns) {
  ASSERT_TRUE(view().Set("k", "hello there\n", {}).ok());
  SummarizeOptions opts;
  opts.summarizer = SummarizerKind::kStructural;
  opts.use_cache = false;
  ResetSummarizerStats();
  ASSERT_TRUE(Summarize(view(), "k", opts).ok());
  ASSERT_TRUE(Summarize(view(), "k", opts).ok());
  EXPECT_EQ(GetSummarizerStats().structural_runs, 2u);
  EXPECT_EQ(CacheFiles(home()), 0u);
}

TEST_F(SummaryApiTest, CorruptCacheEntryIsAMiss) {
  ASSERT_TRUE(view().Set("k", "some text to summarize\n", {}).ok());
  SummarizeOptions opts;
  opts.summarizer = SummarizerKind::kStructural;
  ASSERT_TRUE(Summarize(view(), "k", opts).ok());
  for (const auto& e :
       std::filesystem::directory_iterator(home() + "/cache/summaries")) {
    std::FILE* f = std::fopen(e.path().c_str(), "w");
    std::fputs("{not json", f);
    std::fclose(f);
  }
  ResetSummarizerStats();
  Result<Summary> s = Summarize(view(), "k", opts);
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(s->cached);
  EXPECT_EQ(GetSummarizerStats().structural_runs, 1u);
}

TEST_F(SummaryApiTest, JsonCodeAndStreamByHandle) {
  SetOptions json;
  json.type = ValueType::kJson;
  ASSERT_TRUE(
      view()
          .Set("cfg", R"({"users":[{"name":"ann","age":3}],"n":1})", json)
          .ok());
  ASSERT_TRUE(view().Set("src/tool.py", testing::PythonSource(), {}).ok());
  for (int i = 0; i < 12; ++i) {
    ASSERT_TRUE(
        view().Append("events", "event " + std::to_string(i) + "\n", {}).ok());
  }
  SummarizeOptions opts;
  opts.summarizer = SummarizerKind::kStructural;
  opts.max_tokens = 300;
  Result<Summary> j = Summarize(view(), "cfg", opts);
  ASSERT_TRUE(j.ok());
  EXPECT_EQ(j->kind, "json");
  EXPECT_NE(j->text.find("$.users[].name  string, e.g. \"ann\""),
            std::string::npos)
      << j->text;
  Result<Summary> c = Summarize(view(), "src/tool.py", opts);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->kind, "code");
  EXPECT_NE(c->text.find("def run(self):"), std::string::npos) << c->text;
  Result<Summary> s = Summarize(view(), "events", opts);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->kind, "stream");
  EXPECT_NE(s->text.find("stream: 12 chunks"), std::string::npos) << s->text;
  EXPECT_NE(s->text.find("#12 @"), std::string::npos) << s->text;
  // Appending changes the stream's identity.
  ASSERT_TRUE(view().Append("events", "event 12\n", {}).ok());
  Result<Summary> s2 = Summarize(view(), "events", opts);
  ASSERT_TRUE(s2.ok());
  EXPECT_FALSE(s2->cached);
  EXPECT_NE(s2->content_hash, s->content_hash);
  EXPECT_NE(s2->text.find("13 chunks"), std::string::npos) << s2->text;
}

TEST_F(SummaryApiTest, LargeValueIsSampledAndReadByRange) {
  // 3 MiB with a 256 KiB sample: the summary says "sampled" and reads
  // little more than the sample (counts are streamed up to the limit,
  // here set below the size so they are estimated).
  std::string big;
  while (big.size() < (3u << 20)) big += testing::LogText(200);
  big += "THE LAST LINE OF THE VALUE\n";
  ASSERT_TRUE(view().Set("big", big, {}).ok());
  SummarizeOptions opts;
  opts.summarizer = SummarizerKind::kStructural;
  opts.max_tokens = 200;
  opts.sample_bytes = 256u << 10;
  opts.count_limit_bytes = 1u << 20;
  ResetSummarizerStats();
  Result<Summary> s = Summarize(view(), "big", opts);
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->sampled);
  EXPECT_NE(s->text.find("(sampled"), std::string::npos) << s->text;
  EXPECT_NE(s->text.find("tokens"), std::string::npos) << s->text;
  EXPECT_NE(s->text.find("THE LAST LINE OF THE VALUE"), std::string::npos)
      << s->text;
  EXPECT_LE(s->tokens, 200u);
  SummarizerStats st = GetSummarizerStats();
  // Hashing is free (version metadata); reads: head sample + tail sample.
  EXPECT_LE(st.bytes_read, (256u << 10) + (64u << 10));
}

TEST_F(SummaryApiTest, TinyBudgetsNeverOverflow) {
  ASSERT_TRUE(view().Set("t", testing::LogText(100), {}).ok());
  SummarizeOptions opts;
  opts.summarizer = SummarizerKind::kStructural;
  for (size_t n : {1, 2, 5, 20}) {
    opts.max_tokens = n;
    Result<Summary> s = Summarize(view(), "t", opts);
    ASSERT_TRUE(s.ok());
    EXPECT_LE(s->tokens, n);
    EXPECT_LE((*Tokenizer::Get())->Count(s->text), n);
  }
}

TEST_F(SummaryApiTest, RefFromAnotherAgentIsACapability) {
  auto owner = store().OpenView("owner", "");
  ASSERT_TRUE(owner.ok());
  SetOptions agent_scope;
  agent_scope.scope = "agent";
  Result<Ref> ref =
      owner->Set("private/notes", "secret plan: ship it\n", agent_scope);
  ASSERT_TRUE(ref.ok());
  auto other = store().OpenView("other", "");
  ASSERT_TRUE(other.ok());
  SummarizeOptions opts;
  opts.summarizer = SummarizerKind::kStructural;
  // By key: not visible.
  EXPECT_FALSE(Summarize(*other, "private/notes", opts).ok());
  // By ref: allowed; the content is hashed since the history is not
  // visible, and the identity matches the owner's.
  Result<Summary> by_ref = Summarize(*other, FormatRef(*ref), opts);
  ASSERT_TRUE(by_ref.ok()) << by_ref.status().ToString();
  EXPECT_NE(by_ref->text.find("secret plan"), std::string::npos);
  Result<Summary> by_owner = Summarize(*owner, "private/notes", opts);
  ASSERT_TRUE(by_owner.ok());
  EXPECT_EQ(by_owner->content_hash, by_ref->content_hash);
  EXPECT_TRUE(by_owner->cached);
}

TEST_F(SummaryApiTest, SessionOnlyValue) {
  auto v = store().OpenView("a1", "s1");
  ASSERT_TRUE(v.ok());
  SetOptions session;
  session.persist = false;
  session.scope = "session";
  ASSERT_TRUE(v->Set("scratch", "temporary scratch notes\n", session).ok());
  SummarizeOptions opts;
  opts.summarizer = SummarizerKind::kStructural;
  Result<Summary> s = Summarize(*v, "scratch", opts);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_NE(s->text.find("temporary scratch notes"), std::string::npos);
}

TEST_F(SummaryApiTest, EmptyAndBinaryValues) {
  ASSERT_TRUE(view().Set("empty", "", {}).ok());
  ASSERT_TRUE(view()
                  .Set("bin",
                       std::string("\x7f"
                                   "ELF\0\0\0\1\2\3",
                                   10),
                       {})
                  .ok());
  SummarizeOptions opts;
  opts.summarizer = SummarizerKind::kStructural;
  Result<Summary> e = Summarize(view(), "empty", opts);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(e->text, "empty (0 bytes)");
  Result<Summary> b = Summarize(view(), "bin", opts);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->kind, "binary");
  EXPECT_NE(b->text.find("ELF executable"), std::string::npos) << b->text;
}

TEST_F(SummaryApiTest, Errors) {
  SummarizeOptions opts;
  opts.summarizer = SummarizerKind::kStructural;
  EXPECT_EQ(Summarize(view(), "missing", opts).status().code(),
            StatusCode::kNotFound);
  EXPECT_EQ(Summarize(view(), "ck:bad", opts).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(Summarize(view(), "", opts).status().code(),
            StatusCode::kInvalidArgument);
  ASSERT_TRUE(view().Set("x", "y", {}).ok());
  opts.max_tokens = 0;
  EXPECT_EQ(Summarize(view(), "x", opts).status().code(),
            StatusCode::kInvalidArgument);
  ASSERT_TRUE(view().Remove("x").ok());
  opts.max_tokens = 10;
  EXPECT_EQ(Summarize(view(), "x", opts).status().code(),
            StatusCode::kNotFound);
  EXPECT_FALSE(ParseSummarizerKind("magic").ok());
  EXPECT_EQ(*ParseSummarizerKind("llm"), SummarizerKind::kLlm);
}

TEST_F(SummaryApiTest, DeferredStartsNowCollectsLater) {
  ASSERT_TRUE(view().Set("d1", testing::LogText(100), {}).ok());
  ASSERT_TRUE(view().Set("d2", testing::PythonSource(), {}).ok());
  SummarizeOptions opts;
  opts.summarizer = SummarizerKind::kStructural;
  opts.max_tokens = 80;
  DeferredSummary a = SummarizeDeferred(view(), "d1", opts);
  DeferredSummary b = SummarizeDeferred(view(), "d2", opts);
  DeferredSummary missing = SummarizeDeferred(view(), "nope", opts);
  EXPECT_TRUE(a.valid());
  ASSERT_TRUE(a.WaitFor(std::chrono::seconds(30)));
  EXPECT_TRUE(a.Ready());
  Result<Summary> ra = a.Get();
  ASSERT_TRUE(ra.ok());
  EXPECT_LE(ra->tokens, 80u);
  Result<Summary> rb = b.Get();
  ASSERT_TRUE(rb.ok());
  EXPECT_EQ(rb->kind, "code");
  EXPECT_EQ(missing.Get().status().code(), StatusCode::kNotFound);
  // Copies share the operation; Get can be called again.
  DeferredSummary copy = a;
  EXPECT_TRUE(copy.Ready());
  EXPECT_EQ(copy.Get()->text, ra->text);
  DeferredSummary empty;
  EXPECT_FALSE(empty.valid());
  EXPECT_FALSE(empty.Ready());
  EXPECT_FALSE(empty.Get().ok());
}

TEST_F(SummaryApiTest, CountValueTokensStreams) {
  std::string text = testing::LogText(500);
  ASSERT_TRUE(view().Set("t", text, {}).ok());
  Result<uint64_t> n = CountValueTokens(view(), "t");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(*n, (*Tokenizer::Get())->Count(text));
  Result<uint64_t> cl = CountValueTokens(view(), "t", "cl100k_base");
  ASSERT_TRUE(cl.ok());
  EXPECT_EQ(*cl, (*Tokenizer::Get(Encoding::kCl100kBase))->Count(text));
  EXPECT_FALSE(CountValueTokens(view(), "t", "p50k").ok());
  EXPECT_EQ(CountValueTokens(view(), "nope").status().code(),
            StatusCode::kNotFound);
}

}  // namespace
}  // namespace ctxkit
