// ctxkit_rank(): BM25 per group of a query word and its stand-ins, plus a
// proximity window; the pruning of stand-ins; the widened query's phrases.

#include "index/concept_rank.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "index/index_db.h"
#include "index/query_terms.h"
#include "index/thesaurus.h"

namespace ctxkit::index {
namespace {

using storage::SqliteDb;

class ConceptRankTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<std::unique_ptr<SqliteDb>> db = OpenScratchIndexDb();
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = std::move(*db);
    ASSERT_TRUE(RegisterConceptRank(db_.get()).ok());
  }

  void Add(int64_t id, const std::string& text) {
    auto q = db_->Prepare(
        "INSERT INTO chunks(id, obj, seq, offset, length, tokens) "
        "VALUES (?1, 'o', ?1, 0, 0, 0)");
    ASSERT_TRUE(q.ok());
    ASSERT_TRUE((*q)->Bind(1, id).Run().ok());
    auto t =
        db_->Prepare("INSERT INTO chunk_text(rowid, text) VALUES (?1, ?2)");
    ASSERT_TRUE(t.ok());
    ASSERT_TRUE((*t)->Bind(1, id).BindText(2, text).Run().ok());
  }

  // Every matching row's score, by rowid; an empty map and a failure on
  // error.
  std::map<int64_t, double> Scores(
      const std::vector<WeightedTerm>& terms,
      const std::string& sql_score = "ctxkit_rank(chunk_text, ?2)") {
    const std::string match = MatchExpression(TermTexts(terms));
    const std::string weights = RankWeights(terms);
    auto q = db_->PrepareDynamic("SELECT rowid, " + sql_score +
                                 " FROM chunk_text WHERE chunk_text MATCH ?1");
    EXPECT_TRUE(q.ok());
    if (!q.ok()) return {};
    (*q)->BindText(1, match);
    if (sql_score.find("?2") != std::string::npos) {
      (*q)->BindText(2, weights);
    }
    std::map<int64_t, double> out;
    while (true) {
      Result<bool> row = (*q)->Step();
      EXPECT_TRUE(row.ok()) << row.status().ToString();
      if (!row.ok() || !*row) break;
      out[(*q)->Int(0)] = std::strtod((*q)->Text(1).c_str(), nullptr);
    }
    return out;
  }

  std::unique_ptr<SqliteDb> db_;
};

std::string Filler(int words) {
  std::string s;
  for (int i = 0; i < words; ++i) s += " lorem";
  return s;
}

TEST_F(ConceptRankTest, OneWordIsFts5Bm25PlusItsWindow) {
  Add(1, "the oven" + Filler(30));
  Add(2, "oven oven" + Filler(5));
  for (int i = 3; i <= 10; ++i) Add(i, Filler(4 * i));
  std::vector<WeightedTerm> terms = {{"oven", 0, 1.0}};
  std::map<int64_t, double> rank = Scores(terms);
  std::map<int64_t, double> bm25 = Scores(terms, "-bm25(chunk_text)");
  ASSERT_EQ(rank.size(), 2u);
  // idf of a word in 2 of 10 rows, as FTS5 computes it.
  const double idf = std::log((10 - 2 + 0.5) / (2 + 0.5));
  for (const auto& [id, score] : rank) {
    EXPECT_NEAR(score, bm25[id] + 10 * idf, 1e-9) << id;
  }
}

TEST_F(ConceptRankTest, StandInsOfOneWordDoNotAddUp) {
  Add(1, "car automobile" + Filler(20));
  Add(2, "car" + Filler(21));
  Add(3, "truck" + Filler(21));
  for (int i = 4; i < 20; ++i) Add(i, Filler(22));
  // The same document counts, so each phrase's idf is the same.
  const std::vector<WeightedTerm> grouped = {{"car", 0, 1.0, 2},
                                             {"automobile", 0, 0.7, 2}};
  std::map<int64_t, double> g = Scores(grouped);
  EXPECT_NEAR(g[1], g[2], 1e-9);  // Only the best of the group counts.
  const std::vector<WeightedTerm> apart = {{"car", 0, 1.0, 2},
                                           {"automobile", 1, 0.7, 2}};
  std::map<int64_t, double> a = Scores(apart);
  EXPECT_GT(a[1], a[2] + 1);  // Two groups: both count.
}

TEST_F(ConceptRankTest, IdeasCloseTogetherRankAboveIdeasFarApart) {
  Add(1, "the oven was repaired" + Filler(40));
  Add(2, "the oven" + Filler(40) + " was repaired");
  for (int i = 3; i < 20; ++i) Add(i, Filler(44));
  std::map<int64_t, double> s =
      Scores({{"oven", 0, 1.0}, {"repaired", 1, 1.0}});
  ASSERT_EQ(s.size(), 2u);
  EXPECT_GT(s[1], s[2]);
}

TEST_F(ConceptRankTest, WeightsThatDoNotFitTheQueryAreAnError) {
  Add(1, "oven");
  for (const char* bad :
       {"", "0:1:-1", "0:1:-1 1:0:-1", "0:2:-1 1:1:-1", "x 1:1:-1",
        "0:1:-1 5:1:-1", "0:1:-2 1:1:-1", "0:1 1:1", "0:1:-1 1:1:-1 junk",
        "0:1:-1 1:1:-1 2:1:-1", "0:1:-11:1:-1", "0:1:-1  1:1:-1",
        "0: 1:-1 1:1:-1", "0:nan:-1 1:1:-1", "0:1:- 1:1:-1"}) {
    auto q = db_->Prepare(
        "SELECT ctxkit_rank(chunk_text, ?2) FROM chunk_text "
        "WHERE chunk_text MATCH ?1");
    ASSERT_TRUE(q.ok());
    (*q)->BindText(1, "\"oven\" OR \"stove\"").BindText(2, bad);
    EXPECT_FALSE((*q)->Step().ok()) << bad;
  }
  auto q = db_->Prepare(
      "SELECT ctxkit_rank(chunk_text, ?2) FROM chunk_text "
      "WHERE chunk_text MATCH ?1");
  ASSERT_TRUE(q.ok());
  (*q)->BindText(1, "\"oven\" OR \"stove\"").BindText(2, "0:1:-1 1:0.5:3");
  Result<bool> row = (*q)->Step();
  ASSERT_TRUE(row.ok()) << row.status().ToString();
  EXPECT_TRUE(*row);
}

TEST_F(ConceptRankTest, KeepsOnlyStandInsThatAreInTheIndexButNotCommon) {
  for (int i = 1; i <= 100; ++i) {
    Add(i, std::string(i <= 50 ? "common " : "") + (i == 7 ? "rare " : "") +
               "filler");
  }
  std::vector<WeightedTerm> terms = {{"asked", 0, 1.0},
                                     {"absent", 0, 0.7},
                                     {"common", 0, 0.7},
                                     {"rare", 0, 0.7},
                                     {"also asked", 1, 1.0}};
  Result<std::vector<WeightedTerm>> kept =
      KeepUsefulTerms(db_.get(), terms, /*max_share=*/0.1, /*min_docs=*/1,
                      /*max_docs=*/1000);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  ASSERT_EQ(kept->size(), 3u);
  EXPECT_EQ((*kept)[0].text, "asked");  // The asker's words always stay.
  EXPECT_EQ((*kept)[1].text, "rare");
  EXPECT_EQ((*kept)[1].docs, 1);
  EXPECT_EQ((*kept)[2].text, "also asked");
  // The absolute cap applies too.
  kept = KeepUsefulTerms(db_.get(), terms, 1.0, 1, 10);
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->size(), 3u);
  kept = KeepUsefulTerms(db_.get(), terms, 1.0, 1, 100);
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->size(), 4u);  // "common" (50 rows) fits now.
  // So does it with a small share, under the floor for small indexes.
  kept = KeepUsefulTerms(db_.get(), terms, 0.01, 50, 100);
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(kept->size(), 4u);
}

TEST(WidenedTermsTest, WordsThenStandInsThenRunsOfWords) {
  const std::vector<WeightedTerm> literal =
      WidenedTerms("Who fixed the coffee maker?", nullptr);
  ASSERT_EQ(literal.size(), 3u);
  EXPECT_EQ(literal[0].text, "fixed");
  EXPECT_EQ(literal[2].text, "maker");
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(literal[i].group, i);
    EXPECT_EQ(literal[i].weight, 1.0);
  }
  const Thesaurus* t = Thesaurus::Default();
  ASSERT_NE(t, nullptr) << "WordNet (wordnet-base) is not installed";
  const std::vector<WeightedTerm> wide =
      WidenedTerms("Who fixed the coffee maker?", t);
  auto find = [&](const std::string& text) -> const WeightedTerm* {
    for (const WeightedTerm& w : wide) {
      if (w.text == text) return &w;
    }
    return nullptr;
  };
  const WeightedTerm* repair = find("repair");
  ASSERT_NE(repair, nullptr);
  EXPECT_EQ(repair->group, 0);
  EXPECT_EQ(repair->weight, kRelationWeights[1]);  // A synonym.
  const WeightedTerm* run = find("coffee maker");
  ASSERT_NE(run, nullptr);
  EXPECT_EQ(run->group, 3);
  EXPECT_EQ(run->weight, 1.0);
  const WeightedTerm* espresso = find("espresso maker");
  ASSERT_NE(espresso, nullptr);
  EXPECT_EQ(espresso->group, 3);
  for (const WeightedTerm& w : wide) {
    EXPECT_GT(w.weight, 0);
    EXPECT_LE(w.weight, 1);
  }
}

}  // namespace
}  // namespace ctxkit::index
