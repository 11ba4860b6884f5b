// find_relevant on a variable uses embeddings when configured (SPEC-25.03).

#include <string>

#include "common/fake_embeddings_server.h"
#include "externalize/externalize_fixture.h"

namespace ctxkit::testing {
namespace {

TEST_F(ExternalizeTest, FindRelevantUsesEmbeddingsWhenConfigured) {
  // "automobile" and "car" share a vector bucket: only embeddings know.
  FakeEmbeddingsServer server(FakeEmbeddingsServer::Mode::kOk,
                              {{"automobile", "car"}});
  BuildSession("", /*calls=*/2, /*output_words=*/50, /*files=*/0);
  ASSERT_TRUE(view_
                  ->Set("file:/a.txt", "an automobile dealer sells tyres\n",
                        {.type = ValueType::kFile})
                  .ok());
  ASSERT_TRUE(view_
                  ->Set("file:/b.txt", "the budget meeting moved\n",
                        {.type = ValueType::kFile})
                  .ok());
  ASSERT_TRUE(session_->TrackMany({"file:/a.txt", "file:/b.txt"}).ok());
  auto ctx = Externalize("q");
  ASSERT_TRUE(ctx.ok());
  VariableFindOptions o;
  o.top_k = 1;
  o.embeddings.base_url = server.base_url();
  o.embeddings.model = "fake-embed";
  auto r = ctx->FindRelevant(*view_, "files", "car", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->method, "bm25+embeddings (rrf)");
  ASSERT_EQ(r->hits.size(), 1u);
  EXPECT_EQ(r->hits[0].key, "file:/a.txt");
  EXPECT_FALSE(server.bodies().empty());
  // Without embeddings, BM25 alone: the word "car" is in neither file ...
  auto bm25 =
      ctx->FindRelevant(*view_, "files", "car", {.top_k = 1, .widen = false});
  ASSERT_TRUE(bm25.ok());
  EXPECT_EQ(bm25->method, "bm25");
  EXPECT_TRUE(bm25->hits.empty());
  // ... but WordNet knows "automobile" as one of its synonyms.
  auto widened = ctx->FindRelevant(*view_, "files", "car", {.top_k = 1});
  ASSERT_TRUE(widened.ok());
  EXPECT_EQ(widened->method, "bm25");
  ASSERT_EQ(widened->hits.size(), 1u);
  EXPECT_EQ(widened->hits[0].key, "file:/a.txt");
}

}  // namespace
}  // namespace ctxkit::testing
