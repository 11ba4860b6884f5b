// Embeddings fused with BM25 by RRF, against a loopback fake endpoint, and
// the fallback to BM25 on any endpoint error.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "common/fake_embeddings_server.h"
#include "ctxkit/index.h"
#include "index/index_test_util.h"
#include "llm/embeddings_client.h"

namespace ctxkit::testing {
namespace {

using ::testing::HasSubstr;

class EmbeddingsTest : public IndexTest {
 protected:
  FindOptions With(const FakeEmbeddingsServer& server) {
    FindOptions o;
    o.embeddings.base_url = server.base_url();
    o.embeddings.model = "fake-embed";
    o.embeddings.timeout_ms = 5000;
    return o;
  }
};

TEST_F(EmbeddingsTest, FusesBm25AndVectorsAndSaysSo) {
  // "automobile" and "car" land in one bucket: only the vectors know.
  FakeEmbeddingsServer server(FakeEmbeddingsServer::Mode::kOk,
                              {{"automobile", "car"}});
  Put("a", "my car needs new tyres before winter");
  Put("b", "the quarterly budget meeting moved to friday");
  Put("c", "an automobile dealer sells tyres");
  FindOptions o = With(server);
  o.widen = false;  // WordNet relates "car" to "automobile" too.
  FindResult r = Find("car", o);
  EXPECT_EQ(r.method, "bm25+embeddings (rrf)");
  EXPECT_TRUE(r.notes.empty());
  ASSERT_GE(r.hits.size(), 2u);
  EXPECT_EQ(r.hits[0].key, "a");  // Ranked first by both methods.
  EXPECT_EQ(r.hits[0].bm25_rank, 1u);
  EXPECT_GT(r.hits[0].embedding_rank, 0u);
  EXPECT_EQ(r.hits[0].method, "bm25+embeddings (rrf)");
  EXPECT_NEAR(r.hits[0].score,
              1.0 / 61.0 + 1.0 / (60.0 + r.hits[0].embedding_rank), 1e-9);
  // "c" never says "car": it is there only because of its vector.
  bool found_c = false;
  for (const FindHit& h : r.hits) {
    if (h.key != "c") continue;
    found_c = true;
    EXPECT_EQ(h.bm25_rank, 0u);
    EXPECT_GT(h.embedding_rank, 0u);
  }
  EXPECT_TRUE(found_c);
  // The request had the OpenAI shape.
  ASSERT_FALSE(server.bodies().empty());
  EXPECT_EQ(server.request_lines()[0], "POST /v1/embeddings HTTP/1.1");
  auto body = nlohmann::json::parse(server.bodies()[0]);
  EXPECT_EQ(body["model"], "fake-embed");
  EXPECT_TRUE(body["input"].is_array());

  // Vectors are kept: a second query embeds only the query.
  size_t before = server.bodies().size();
  Find("tyres", o);
  EXPECT_EQ(server.bodies().size(), before + 1);
}

TEST_F(EmbeddingsTest, FallsBackToBm25OnErrors) {
  Put("a", "my car needs new tyres");
  Put("b", "budget meeting");
  for (auto mode : {FakeEmbeddingsServer::Mode::kStatus500,
                    FakeEmbeddingsServer::Mode::kGarbage}) {
    FakeEmbeddingsServer server(mode);
    FindResult r = Find("car", With(server));
    EXPECT_EQ(r.method, "bm25");
    ASSERT_EQ(r.hits.size(), 1u);
    EXPECT_EQ(r.hits[0].method, "bm25");
    ASSERT_EQ(r.notes.size(), 1u);
    EXPECT_THAT(r.notes[0], HasSubstr("embeddings unavailable"));
  }
  // Nothing listening at all.
  FindOptions o;
  o.embeddings.base_url = "http://127.0.0.1:1/v1";
  o.embeddings.model = "m";
  FindResult r = Find("car", o);
  EXPECT_EQ(r.method, "bm25");
  EXPECT_EQ(r.hits.size(), 1u);
  EXPECT_EQ(r.notes.size(), 1u);
}

TEST_F(EmbeddingsTest, ConfigComesFromOptionsNotTheEnvironment) {
  FakeEmbeddingsServer server(FakeEmbeddingsServer::Mode::kOk);
  setenv("CTXKIT_EMBED_URL", server.base_url().c_str(), 1);
  setenv("CTXKIT_EMBED_MODEL", "env-model", 1);
  Put("a", "penguin colony");
  // The library reads no environment; the faces build the config from it
  // (tests/mcp/environment_test.cc).
  EXPECT_EQ(Find("penguin").method, "bm25");
  EXPECT_TRUE(server.bodies().empty());
  unsetenv("CTXKIT_EMBED_URL");
  unsetenv("CTXKIT_EMBED_MODEL");
  FindOptions o;
  o.embeddings.base_url = server.base_url();
  o.embeddings.model = "env-model";
  FindResult r = Find("penguin", o);
  EXPECT_EQ(r.method, "bm25+embeddings (rrf)");
  ASSERT_FALSE(server.bodies().empty());
  EXPECT_THAT(server.bodies()[0], HasSubstr("env-model"));
}

TEST(EmbeddingsClientTest, ParsesAndRejectsReplies) {
  auto ok = llm::ParseEmbeddingsResponse(
      R"({"data":[{"index":1,"embedding":[3,4]},{"index":0,"embedding":[1,2]}]})",
      2);
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ((*ok)[0], (std::vector<float>{1, 2}));
  EXPECT_EQ((*ok)[1], (std::vector<float>{3, 4}));
  EXPECT_FALSE(llm::ParseEmbeddingsResponse("nope", 1).ok());
  EXPECT_FALSE(llm::ParseEmbeddingsResponse(R"({"data":[]})", 1).ok());
  EXPECT_FALSE(llm::ParseEmbeddingsResponse(
                   R"({"data":[{"embedding":[1]},{"embedding":[1,2]}]})", 2)
                   .ok());
  EXPECT_EQ(llm::EmbeddingsUrl("http://h/v1/"), "http://h/v1/embeddings");
  EXPECT_EQ(llm::EmbeddingsUrl("http://h/v1/embeddings"),
            "http://h/v1/embeddings");
}

}  // namespace
}  // namespace ctxkit::testing
