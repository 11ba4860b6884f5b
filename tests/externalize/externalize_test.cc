// SPEC-25 test plan: externalize a session, a prompt without the context,
// the helpers, size warnings, chunking, the comparison.

#include "ctxkit/externalize.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "ctxkit/tokenizer.h"
#include "externalize/externalize_fixture.h"

namespace ctxkit::testing {
namespace {

const ContextVariable& Var(const ExternalizedContext& c, const char* name) {
  auto v = c.Find(name);
  EXPECT_TRUE(v.ok()) << name;
  return **v;
}

uint64_t Tokens(const std::string& s) {
  return (*Tokenizer::Get(Encoding::kO200kBase))->Count(s);
}

TEST_F(ExternalizeTest, ExternalizeSession) {
  BuildSession("");
  auto ctx = Externalize("What do the licenses say?");
  ASSERT_TRUE(ctx.ok()) << ctx.status().ToString();
  ASSERT_EQ(ctx->variables().size(), 4u);
  EXPECT_EQ(ctx->query(), "What do the licenses say?");

  const ContextVariable& conv = Var(*ctx, "conversation");
  EXPECT_EQ(conv.type, VariableType::kConversation);
  EXPECT_EQ(conv.shape, VariableShape::kList);
  // user, 4 x (assistant call + tool), final assistant.
  EXPECT_EQ(conv.item_count, 10u);
  auto chat = view_->Resolve(conv.ref);
  ASSERT_TRUE(chat.ok());
  EXPECT_EQ(conv.size_bytes, chat->size());
  EXPECT_EQ(conv.tokens, Tokens(*chat));
  EXPECT_NE(conv.summary.find("10 messages"), std::string::npos)
      << conv.summary;

  const ContextVariable& out = Var(*ctx, "tool_outputs");
  EXPECT_EQ(out.type, VariableType::kToolOutputs);
  ASSERT_EQ(out.members.size(), 4u);
  EXPECT_EQ(out.item_count, 4u);
  uint64_t bytes = 0;
  uint64_t tokens = 0;
  for (const VariableMember& m : out.members) {
    auto v = view_->Resolve(m.ref);
    ASSERT_TRUE(v.ok());
    EXPECT_TRUE(m.ref.is_static());
    bytes += v->size();
    tokens += Tokens(*v);
  }
  EXPECT_EQ(out.size_bytes, bytes);
  EXPECT_EQ(out.tokens, tokens);
  EXPECT_NE(out.summary.find("grep x2"), std::string::npos) << out.summary;

  const ContextVariable& files = Var(*ctx, "files");
  EXPECT_EQ(files.shape, VariableShape::kDict);
  ASSERT_EQ(files.members.size(), 3u);
  EXPECT_EQ(files.members[0].name, "/docs/doc0.md");
  EXPECT_EQ(files.size_bytes, file_bytes_);

  const ContextVariable& wm = Var(*ctx, "working_memory");
  ASSERT_EQ(wm.members.size(), 2u);
  EXPECT_EQ(wm.members[0].name, "notes/plan");
  EXPECT_EQ(wm.members[1].name, "wm/goal");
  EXPECT_EQ(wm.size_bytes, memory_bytes_);

  EXPECT_EQ(ctx->total_size_bytes(), conv.size_bytes + out.size_bytes +
                                         files.size_bytes + wm.size_bytes);
  // The manifest is the variable's ref: a JSON object of static refs.
  auto manifest = view_->Resolve(files.ref);
  ASSERT_TRUE(manifest.ok());
  auto j = nlohmann::json::parse(*manifest);
  EXPECT_EQ(j["/docs/doc1.md"], FormatRef(files.members[1].ref));
}

TEST_F(ExternalizeTest, ManifestsAreWrittenOnlyWhenTheyChange) {
  BuildSession("");
  ASSERT_TRUE(Externalize("q").ok());
  auto v1 =
      view_->Versions("ctxkit.externalize/tool_outputs", {.scope = "session"});
  ASSERT_TRUE(v1.ok());
  ASSERT_TRUE(Externalize("q").ok());
  auto v2 =
      view_->Versions("ctxkit.externalize/tool_outputs", {.scope = "session"});
  ASSERT_TRUE(v2.ok());
  EXPECT_EQ(v1->size(), v2->size());
  // A changed member: a new manifest version, pointing at the new content.
  ASSERT_TRUE(
      view_->Set("file:/docs/doc0.md", "changed", {.type = ValueType::kFile})
          .ok());
  auto ctx = Externalize("q");
  ASSERT_TRUE(ctx.ok());
  EXPECT_EQ(Var(*ctx, "files").members[0].size_bytes, 7u);
}

// FromSession resolves its custom variables before it writes a manifest:
// one it refuses (a forged ref, a taken or bad name) leaves the session's
// scope as it was, for every face that externalizes through it.
TEST_F(ExternalizeTest, RefusedCustomVariablesWriteNothing) {
  BuildSession("");
  auto alice = store_->OpenView("alice", "");
  ASSERT_TRUE(alice.ok());
  auto secret = alice->Set("secret", "alice's", {.scope = "agent"});
  ASSERT_TRUE(secret.ok());
  Ref forged = *secret;
  forged.tag.clear();
  auto own = view_->Set("mine", "root's", {});
  ASSERT_TRUE(own.ok());
  auto manifests = [&] {
    ListFilter f;
    f.scope = "session";
    f.key_prefix = "ctxkit.externalize/";
    auto page = view_->List(f);
    EXPECT_TRUE(page.ok()) << page.status().ToString();
    return page.ok() ? page->items.size() : 0;
  };
  ASSERT_EQ(manifests(), 0u);
  const std::vector<std::pair<std::vector<CustomVariable>, StatusCode>> cases =
      {{{{"ok", *own, ""}, {"x", forged, ""}}, StatusCode::kNotFound},
       {{{"files", *own, ""}}, StatusCode::kAlreadyExists},
       {{{"x", *own, ""}, {"x", *own, ""}}, StatusCode::kAlreadyExists},
       {{{"class", *own, ""}}, StatusCode::kInvalidArgument},
       {{{"x", *own, std::string("bad\ntype")}}, StatusCode::kInvalidArgument}};
  for (const auto& [custom, code] : cases) {
    auto ctx =
        ExternalizedContext::FromSession(*view_, "", kSession, "q", {}, custom);
    EXPECT_EQ(ctx.status().code(), code) << ctx.status().ToString();
    EXPECT_EQ(manifests(), 0u) << ctx.status().ToString();
  }
  auto ok = ExternalizedContext::FromSession(*view_, "", kSession, "q", {},
                                             {{"x", *secret, "notes"}});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  ASSERT_EQ(ok->variables().size(), 5u);
  EXPECT_EQ(ok->variables()[4].name, "x");
  EXPECT_EQ(ok->variables()[4].custom_type, "notes");
  EXPECT_EQ(manifests(), 3u);  // The chat is the conversation's own ref.
}

TEST_F(ExternalizeTest, MissingSessionAndForeignHome) {
  auto none = ExternalizedContext::FromSession(*view_, "", "nope", "q");
  EXPECT_TRUE(none.status().IsNotFound()) << none.status().ToString();
  BuildSession("");
  auto other = ExternalizedContext::FromSession(*view_, dir_ + "/elsewhere",
                                                kSession, "q");
  EXPECT_TRUE(other.status().IsInvalidArgument());
  auto same =
      ExternalizedContext::FromSession(*view_, dir_ + "/store", kSession, "q");
  EXPECT_TRUE(same.ok()) << same.status().ToString();
  auto bad = ExternalizedContext::FromSession(*view_, "", "bad id!", "q");
  EXPECT_TRUE(bad.status().IsInvalidArgument());
}

TEST_F(ExternalizeTest, PromptNoFullContext) {
  BuildSession(kSentinel);
  auto ctx = Externalize("Which license allows linking?");
  ASSERT_TRUE(ctx.ok()) << ctx.status().ToString();
  auto custom = view_->Set("extra", std::string("custom ") + kSentinel, {});
  ASSERT_TRUE(custom.ok());
  ASSERT_TRUE(ctx->AddVariable(*view_, "extra_notes", *custom).ok());
  // The sentinel really is in every variable.
  for (const ContextVariable& v : ctx->variables()) {
    auto hits = ctx->Search(*view_, v.name, kSentinel);
    ASSERT_TRUE(hits.ok()) << v.name << ": " << hits.status().ToString();
    EXPECT_FALSE(hits->matches.empty()) << v.name;
  }
  auto prompt = BuildRootPrompt(*ctx);
  ASSERT_TRUE(prompt.ok()) << prompt.status().ToString();
  EXPECT_EQ(prompt->text.find(kSentinel), std::string::npos) << prompt->text;
  EXPECT_NE(prompt->text.find("Your task: Which license allows linking?"),
            std::string::npos);
  for (const char* needle :
       {"peek(var, start=0, end=10)", "search(var, pattern, regex=False",
        "summarize(var, max_tokens=500)", "find_relevant(var, query, top_k=5)",
        "len(var)", "SUBMIT({...})", "- conversation: List[Message]",
        "- files: Dict[str, str]", "- tool_outputs: List[ToolOutput]",
        "- working_memory: Dict[str, Any]", "- extra_notes: str"}) {
    EXPECT_NE(prompt->text.find(needle), std::string::npos) << needle;
  }
  EXPECT_EQ(prompt->tokens, Tokens(prompt->text));
  // The summaries part equals variable_summaries().
  EXPECT_NE(prompt->text.find(ctx->VariableSummaries()), std::string::npos);
}

TEST_F(ExternalizeTest, PromptTemplate) {
  BuildSession("");
  auto ctx = Externalize("Q1");
  ASSERT_TRUE(ctx.ok());
  auto p = BuildRootPrompt(
      *ctx, {.template_text = "T {{x}} {query}\n{variable_summaries}"});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_TRUE(p->text.starts_with("T {x} Q1\n- conversation"));
  EXPECT_EQ(p->tokens, Tokens(p->text));
  for (const char* bad : {"{query}", "{variable_summaries}",
                          "{query} {variable_summaries} {nope}",
                          "{query} {variable_summaries} {", "} {query}"}) {
    EXPECT_TRUE(BuildRootPrompt(*ctx, {.template_text = bad})
                    .status()
                    .IsInvalidArgument())
        << bad;
  }
  auto empty = Externalize("");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(BuildRootPrompt(*empty).status().IsInvalidArgument());
}

TEST_F(ExternalizeTest, AddVariableValidatesNames) {
  auto ctx = ExternalizedContext::Empty("q");
  ASSERT_TRUE(ctx.ok());
  auto ref = view_->Set("k", "v", {});
  ASSERT_TRUE(ref.ok());
  for (const char* bad : {"", "1abc", "a-b", "class", "None", "peek", "len",
                          "SUBMIT", "caf\xc3\xa9", "a b"}) {
    EXPECT_TRUE(ctx->AddVariable(*view_, bad, *ref).IsInvalidArgument()) << bad;
  }
  EXPECT_TRUE(
      ctx->AddVariable(*view_, std::string(65, 'a'), *ref).IsInvalidArgument());
  ASSERT_TRUE(ctx->AddVariable(*view_, "_ok1", *ref).ok());
  ASSERT_TRUE(ctx->AddVariable(*view_, "match", *ref).ok());  // Soft keyword.
  EXPECT_EQ(ctx->AddVariable(*view_, "_ok1", *ref).code(),
            StatusCode::kAlreadyExists);
  EXPECT_EQ(ctx->variables().size(), 2u);
  EXPECT_EQ(ctx->total_size_bytes(), 2u);
  // A dynamic ref is pinned: later versions do not change the variable.
  ASSERT_TRUE(view_->Set("k", "longer value", {}).ok());
  auto p = ctx->Peek(*view_, "_ok1");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->text, "v");
}

TEST_F(ExternalizeTest, PeekList) {
  BuildSession("");
  auto ctx = Externalize("q");
  ASSERT_TRUE(ctx.ok());
  auto p = ctx->Peek(*view_, "conversation", {.start = 0, .end = 2});
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->shape, VariableShape::kList);
  ASSERT_EQ(p->items.size(), 2u);
  auto first = nlohmann::json::parse(p->items[0].text);
  EXPECT_EQ(first["role"], "user");
  EXPECT_EQ(first["text"], "Audit the licenses ");
  // Negative indices count from the end, as in Python.
  auto last = ctx->Peek(*view_, "conversation", {.start = -1, .end = 100});
  ASSERT_TRUE(last.ok());
  ASSERT_EQ(last->items.size(), 1u);
  EXPECT_EQ(last->items[0].index, 9u);
  EXPECT_EQ(nlohmann::json::parse(last->items[0].text)["role"], "assistant");

  auto outs = ctx->Peek(*view_, "tool_outputs", {.start = 1, .end = 3});
  ASSERT_TRUE(outs.ok());
  ASSERT_EQ(outs->items.size(), 2u);
  EXPECT_EQ(outs->items[0].index, 1u);
  EXPECT_EQ(outs->items[0].key, "toolcall:call_1");
  EXPECT_TRUE(outs->items[0].text.starts_with("output 1"));
  EXPECT_EQ(outs->total, 4u);
  // max_bytes cuts the content and says so.
  auto cut = ctx->Peek(*view_, "tool_outputs",
                       {.start = 0, .end = 4, .max_bytes = 10});
  ASSERT_TRUE(cut.ok());
  EXPECT_EQ(cut->items[0].text, "output 0 \n");
  EXPECT_TRUE(cut->truncated);
  EXPECT_EQ(cut->items.size(), 4u);
  EXPECT_TRUE(cut->items[3].text.empty());
  // Out of range and empty slices are not errors.
  auto none = ctx->Peek(*view_, "tool_outputs", {.start = 9, .end = 12});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->items.empty());
  EXPECT_TRUE(ctx->Peek(*view_, "nope").status().IsNotFound());
}

TEST_F(ExternalizeTest, PeekDict) {
  BuildSession("");
  auto ctx = Externalize("q");
  ASSERT_TRUE(ctx.ok());
  auto p = ctx->Peek(*view_, "files", {.start = 1, .end = 10});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->shape, VariableShape::kDict);
  ASSERT_EQ(p->items.size(), 2u);
  EXPECT_EQ(p->items[0].key, "/docs/doc1.md");
  EXPECT_TRUE(p->items[0].text.starts_with("# Doc 1"));
  auto wm = ctx->Peek(*view_, "working_memory");
  ASSERT_TRUE(wm.ok());
  ASSERT_EQ(wm->items.size(), 2u);
  EXPECT_EQ(wm->items[1].key, "wm/goal");
  EXPECT_EQ(wm->items[1].text, "{\"goal\": \"audit \"}");
  // A custom JSON object is a dict too: keys and values split.
  auto obj = view_->Set("cfg", R"({"a": 1, "b": {"c": [2]}, "d": "x"})",
                        {.type = ValueType::kJson});
  ASSERT_TRUE(obj.ok());
  ASSERT_TRUE(ctx->AddVariable(*view_, "cfg", *obj).ok());
  EXPECT_EQ(Var(*ctx, "cfg").item_count, 3u);
  auto c = ctx->Peek(*view_, "cfg", {.start = 1, .end = 3});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  ASSERT_EQ(c->items.size(), 2u);
  EXPECT_EQ(c->items[0].key, "b");
  EXPECT_EQ(c->items[0].text, R"({"c": [2]})");
  EXPECT_EQ(c->items[1].key, "d");
}

TEST_F(ExternalizeTest, PeekString) {
  auto ctx = ExternalizedContext::Empty("q");
  ASSERT_TRUE(ctx.ok());
  auto ref = view_->Set("doc", "l0\nl1\nl2\nl3\n", {});
  ASSERT_TRUE(ref.ok());
  ASSERT_TRUE(ctx->AddVariable(*view_, "doc", *ref).ok());
  auto p = ctx->Peek(*view_, "doc", {.start = 1, .end = 3});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->shape, VariableShape::kString);
  EXPECT_EQ(p->text, "l1\nl2\n");
  auto b =
      ctx->Peek(*view_, "doc",
                {.start = -3, .end = kPeekToEnd, .unit = PeekUnit::kBytes});
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->text, "l3\n");
  EXPECT_TRUE(ctx->Peek(*view_, "doc", {.unit = PeekUnit::kItems})
                  .status()
                  .IsInvalidArgument());
}

TEST_F(ExternalizeTest, SearchLiteral) {
  BuildSession("needle");
  auto ctx = Externalize("q");
  ASSERT_TRUE(ctx.ok());
  auto r = ctx->Search(*view_, "tool_outputs", "output 2 needle");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->matches.size(), 1u);
  EXPECT_EQ(r->matches[0].index, 2u);
  EXPECT_EQ(r->matches[0].key, "toolcall:call_2");
  EXPECT_EQ(r->matches[0].line, 1u);
  // Literal: regex metacharacters are plain.
  auto none = ctx->Search(*view_, "tool_outputs", "output .");
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->matches.empty());
  // In the conversation: one match per message, by index.
  auto conv = ctx->Search(*view_, "conversation", "needle");
  ASSERT_TRUE(conv.ok());
  // The question, each tool message's one-line reference, the answer.
  ASSERT_EQ(conv->matches.size(), 6u);
  EXPECT_EQ(conv->matches[0].index, 0u);
  EXPECT_EQ(conv->matches[1].index, 2u);
  EXPECT_EQ(conv->matches[5].index, 9u);
  EXPECT_NE(conv->matches[5].preview.find("Done reading needle"),
            std::string::npos);
  auto files = ctx->Search(*view_, "files", "# Doc 2");
  ASSERT_TRUE(files.ok());
  ASSERT_EQ(files->matches.size(), 1u);
  EXPECT_EQ(files->matches[0].key, "/docs/doc2.md");
  // max_results bounds and reports truncation.
  auto many = ctx->Search(*view_, "tool_outputs", "needle", {.max_results = 2});
  ASSERT_TRUE(many.ok());
  EXPECT_EQ(many->matches.size(), 2u);
  EXPECT_TRUE(many->truncated);
}

TEST_F(ExternalizeTest, SearchRegex) {
  BuildSession("needle");
  auto ctx = Externalize("q");
  ASSERT_TRUE(ctx.ok());
  auto r =
      ctx->Search(*view_, "tool_outputs", "^output [13] ", {.regex = true});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->matches.size(), 2u);
  EXPECT_EQ(r->matches[0].index, 1u);
  EXPECT_EQ(r->matches[1].index, 3u);
  auto conv = ctx->Search(*view_, "conversation", "\"role\": ?\"tool\"",
                          {.regex = true, .max_results = 100});
  ASSERT_TRUE(conv.ok());
  EXPECT_EQ(conv->matches.size(), 4u);
  auto ci = ctx->Search(*view_, "files", "# DOC [01]",
                        {.regex = true, .case_insensitive = true});
  ASSERT_TRUE(ci.ok());
  EXPECT_EQ(ci->matches.size(), 2u);
  EXPECT_TRUE(ctx->Search(*view_, "files", "(", {.regex = true})
                  .status()
                  .IsInvalidArgument());
  EXPECT_TRUE(
      ctx->Search(*view_, "files", "a\nb").status().IsInvalidArgument());
  EXPECT_TRUE(ctx->Search(*view_, "files", "").status().IsInvalidArgument());
}

TEST_F(ExternalizeTest, SummarizeIsDeferred) {
  BuildSession("");
  auto ctx = Externalize("q");
  ASSERT_TRUE(ctx.ok());
  auto d = ctx->Summarize(*view_, "tool_outputs", 120);
  ASSERT_TRUE(d.ok());
  ASSERT_TRUE(d->valid());
  auto s = d->Get();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_TRUE(d->Ready());
  EXPECT_LE(s->tokens, 120u);
  EXPECT_EQ(s->tokens, Tokens(s->text));
  EXPECT_TRUE(s->text.starts_with("tool_outputs: 4 items")) << s->text;
  auto one = ctx->Summarize(*view_, "conversation", 80);
  ASSERT_TRUE(one.ok());
  auto t = one->Get();
  ASSERT_TRUE(t.ok());
  EXPECT_LE(t->tokens, 80u);
  EXPECT_EQ(t->ref.id, Var(*ctx, "conversation").ref.id);
  EXPECT_TRUE(ctx->Summarize(*view_, "files", 0).status().IsInvalidArgument());
}

TEST_F(ExternalizeTest, FindRelevantUsesBm25WithoutEmbeddings) {
  BuildSession("");
  ASSERT_TRUE(view_
                  ->Set("file:/docs/doc1.md",
                        "intro\n\nthe zygomorphic orchid grows here\n",
                        {.type = ValueType::kFile})
                  .ok());
  auto ctx = Externalize("q");
  ASSERT_TRUE(ctx.ok());
  auto r =
      ctx->FindRelevant(*view_, "files", "zygomorphic orchid", {.top_k = 2});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->method, "bm25");
  ASSERT_FALSE(r->hits.empty());
  EXPECT_EQ(r->hits[0].key, "file:/docs/doc1.md");
  EXPECT_LE(r->hits.size(), 2u);
  EXPECT_TRUE(ctx->FindRelevant(*view_, "files", "x", {.top_k = 0})
                  .status()
                  .IsInvalidArgument());
}

TEST_F(ExternalizeTest, LenNeverLoadsTheValue) {
  BuildSession("");
  auto ctx = Externalize("q");
  ASSERT_TRUE(ctx.ok());
  const uint64_t bytes = Var(*ctx, "tool_outputs").size_bytes;
  // Len takes no view: close the store entirely first.
  view_.reset();
  store_.reset();
  auto n = ctx->Len("tool_outputs");
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(n->items, 4u);
  EXPECT_EQ(n->bytes, bytes);
  auto c = ctx->Len("conversation");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->items, 10u);
  EXPECT_TRUE(ctx->Len("nope").status().IsNotFound());
}

TEST_F(ExternalizeTest, SizeWarning) {
  auto ctx = ExternalizedContext::Empty("q");
  ASSERT_TRUE(ctx.ok());
  auto small = view_->Set("small", std::string(100 << 10, 'a'), {});
  auto large = view_->Set("large", std::string(150 << 10, 'b'), {});
  auto huge = view_->Set("huge", std::string((1 << 20) + 1, 'c'), {});
  ASSERT_TRUE(small.ok() && large.ok() && huge.ok());
  ASSERT_TRUE(ctx->AddVariable(*view_, "small", *small).ok());
  ASSERT_TRUE(ctx->AddVariable(*view_, "large", *large).ok());
  ASSERT_TRUE(ctx->AddVariable(*view_, "huge", *huge).ok());
  auto w = ctx->CheckSizeLimits();
  ASSERT_EQ(w.size(), 2u);  // 100 KiB exactly is not over.
  EXPECT_EQ(w[0].kind, SizeWarning::Kind::kLargeVariable);
  EXPECT_EQ(w[0].variable, "large");
  EXPECT_EQ(w[0].size, 150u << 10);
  EXPECT_EQ(w[0].threshold, 100u << 10);
  EXPECT_EQ(w[1].kind, SizeWarning::Kind::kRequiresChunking);
  EXPECT_EQ(w[1].variable, "huge");
  EXPECT_EQ(w[1].suggested_chunks, ((1u << 20) + 1) / (100u << 10) + 1);
  EXPECT_NE(w[1].message.find("auto_chunk"), std::string::npos);
  // Total over the maximum.
  auto t = ctx->CheckSizeLimits({.total_bytes = 1 << 20});
  ASSERT_EQ(t.size(), 3u);
  EXPECT_EQ(t[2].kind, SizeWarning::Kind::kTotalSizeExceeded);
  EXPECT_EQ(t[2].size, ctx->total_size_bytes());
  EXPECT_EQ(t[2].threshold, 1u << 20);
  auto j = ctx->ToJson({.total_bytes = 1 << 20});
  EXPECT_EQ(j["warnings"].size(), 3u);
  EXPECT_EQ(j["warnings"][2]["kind"], "total_size_exceeded");
}

TEST_F(ExternalizeTest, Chunking) {
  BuildSession("", /*calls=*/4, /*output_words=*/4000);
  auto ctx = Externalize("q");
  ASSERT_TRUE(ctx.ok());
  auto before = store_->Stats();
  ASSERT_TRUE(before.ok());
  SizeConfig cfg{
      .warn_bytes = 4096, .chunk_bytes = 64 << 10, .chunk_tokens = 500};
  ASSERT_GT(Var(*ctx, "tool_outputs").size_bytes, cfg.chunk_bytes);
  ASSERT_LT(Var(*ctx, "files").size_bytes, cfg.chunk_bytes);
  ASSERT_TRUE(ctx->AutoChunk(*view_, cfg).ok());
  const ContextVariable& out = Var(*ctx, "tool_outputs");
  ASSERT_FALSE(out.chunks.empty());
  EXPECT_NE(out.summary.find("chunked:"), std::string::npos) << out.summary;
  EXPECT_TRUE(Var(*ctx, "files").chunks.empty());
  // Chunks tile every member, are token-bounded and are refs, not copies.
  uint64_t member = 0;
  uint64_t next = 0;
  for (const VariableChunk& c : out.chunks) {
    if (c.member != member) {
      EXPECT_EQ(next, out.members[member].size_bytes);
      member = c.member;
      next = 0;
    }
    EXPECT_EQ(c.byte_begin, next);
    EXPECT_LE(c.tokens, 500u);
    EXPECT_EQ(c.ref.id, out.members[c.member].ref.id);
    auto text =
        view_->ReadRange(c.ref, c.byte_begin, c.byte_end - c.byte_begin);
    ASSERT_TRUE(text.ok());
    EXPECT_EQ(Tokens(*text), c.tokens);
    next = c.byte_end;
  }
  EXPECT_EQ(member, 3u);
  EXPECT_EQ(next, out.members[3].size_bytes);
  auto after = store_->Stats();
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(before->objects, after->objects);
  EXPECT_EQ(before->versions, after->versions);
  // Again with higher limits: nothing is chunked any more.
  ASSERT_TRUE(ctx->AutoChunk(*view_, {.chunk_bytes = 100 << 20}).ok());
  EXPECT_TRUE(Var(*ctx, "tool_outputs").chunks.empty());
  EXPECT_EQ(Var(*ctx, "tool_outputs").summary.find("chunked:"),
            std::string::npos);
  EXPECT_TRUE(ctx->AutoChunk(*view_, {.warn_bytes = 0}).IsInvalidArgument());
}

// The seed's comparison: a 132k-token context (3 documents and tool
// outputs), root prompt <= 3,000 tokens, >= 97% less than inlining it.
TEST_F(ExternalizeTest, Comparison) {
  BuildSession("", /*calls=*/12, /*output_words=*/6500, /*files=*/3,
               /*file_words=*/15000);
  auto ctx = Externalize("Which documents mention a warranty, and where?");
  ASSERT_TRUE(ctx.ok());
  uint64_t total_tokens = 0;
  for (const ContextVariable& v : ctx->variables()) total_tokens += v.tokens;
  EXPECT_GE(total_tokens, 120000u);
  auto prompt = BuildRootPrompt(*ctx);
  ASSERT_TRUE(prompt.ok());
  auto inlined = InlinedPromptTokens(*view_, *ctx);
  ASSERT_TRUE(inlined.ok()) << inlined.status().ToString();
  EXPECT_GT(*inlined, total_tokens);
  EXPECT_LE(prompt->tokens, 3000u);
  EXPECT_GE(1.0 - static_cast<double>(prompt->tokens) / *inlined, 0.97)
      << prompt->tokens << " vs " << *inlined;
  auto j = ctx->ToJson({}, &*prompt);
  EXPECT_EQ(j["prompt_tokens"], prompt->tokens);
  EXPECT_EQ(j["variables"].size(), 4u);
}

}  // namespace
}  // namespace ctxkit::testing
