// Retrieval of a planted fact for a question that rewords it, sharing at
// most one content word with it (tests/index/data/reworded_facts.tsv):
// widening the query with WordNet's related words must find clearly more
// facts than the query's own words do.
//
// The full run (100 cases of ~132k tokens, with the /usr/share/doc
// copyright files too) is BM_RewordedRecall in bench/needle_bench.cc; this
// keeps the suite fast, also under ASan: the 100 facts in haystacks of ~4k
// tokens of the license texts.

#include <gtest/gtest.h>

#include <iostream>
#include <string>
#include <vector>

#include "index/index_test_util.h"
#include "index/needle_cases.h"

namespace ctxkit::testing {
namespace {

constexpr size_t kRewordedHaystackTokens = 4000;

class RewordedTest : public IndexTest {
 protected:
  // How many of `cases` have their fact in the top 5 hits.
  int Found(const std::vector<needle::Case>& cases, bool widen) {
    int found = 0;
    for (size_t i = 0; i < cases.size(); ++i) {
      const needle::Case& c = cases[i];
      FindOptions o;
      o.key = "reworded/" + std::to_string(i);
      o.top_k = 5;
      o.widen = widen;
      FindResult r = Find(c.question, o);
      bool hit = false;
      for (const FindHit& h : r.hits) {
        hit |= needle::HoldsFact(c, h.byte_offset, h.byte_length);
      }
      found += hit ? 1 : 0;
    }
    return found;
  }
};

TEST_F(RewordedTest, WideningFindsMoreRewordedFacts) {
  const std::vector<needle::Reworded> set = needle::LoadReworded(
      std::string(CTXKIT_SOURCE_DIR) + "/tests/index/data/reworded_facts.tsv");
  ASSERT_EQ(set.size(), 100u);
  const std::vector<needle::Paragraph> corpus = needle::LoadCorpus(false);
  ASSERT_GT(corpus.size(), 100u) << "/usr/share/common-licenses is missing";
  std::vector<needle::Case> cases;
  for (size_t i = 0; i < set.size(); ++i) {
    cases.push_back(
        needle::MakeRewordedCase(corpus, set, i, kRewordedHaystackTokens));
    Put("reworded/" + std::to_string(i), cases.back().haystack);
  }
  const int literal = Found(cases, false);
  const int widened = Found(cases, true);
  std::cerr << "reworded facts in the top 5: " << literal << " literal, "
            << widened << " widened (of " << cases.size() << ")\n";
  RecordProperty("literal_recall_at_5", literal);
  RecordProperty("widened_recall_at_5", widened);
  EXPECT_GE(widened, literal + 15);
  EXPECT_GE(widened, 75);
}

}  // namespace
}  // namespace ctxkit::testing
