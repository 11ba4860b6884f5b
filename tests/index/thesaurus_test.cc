// WordNet read in place: base forms, related words by relation, runs of
// words, and files that are missing or not WordNet's.

#include "index/thesaurus.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace ctxkit::index {
namespace {

using Relation = Thesaurus::Relation;

class ThesaurusTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    t_ = Thesaurus::Default(&why);
    ASSERT_NE(t_, nullptr) << "WordNet (wordnet-base) is not installed: "
                           << why;
  }

  // The relation `related` has to `word`, or nullopt when it is not among
  // its first 64 related words.
  std::optional<Relation> RelationOf(const std::string& word,
                                     const std::string& related) {
    for (const Thesaurus::RelatedWord& r : t_->Related(word, 64)) {
      if (r.word == related) return r.relation;
    }
    return std::nullopt;
  }

  const Thesaurus* t_ = nullptr;
};

TEST_F(ThesaurusTest, FindsBaseFormsSynonymsAndDerivedWords) {
  EXPECT_EQ(RelationOf("bought", "buy"), Relation::kBaseForm);  // verb.exc
  EXPECT_EQ(RelationOf("repaired", "repair"), Relation::kBaseForm);
  EXPECT_EQ(RelationOf("repaired", "mend"), Relation::kSynonym);
  EXPECT_EQ(RelationOf("fixed", "repair"), Relation::kSynonym);
  EXPECT_EQ(RelationOf("physician", "doctor"), Relation::kSynonym);
  EXPECT_EQ(RelationOf("repair", "repairer"), Relation::kDerived);
}

TEST_F(ThesaurusTest, FindsMoreGeneralAndMoreSpecificWords) {
  EXPECT_EQ(RelationOf("furnace", "chamber"), Relation::kGeneral);
  EXPECT_EQ(RelationOf("coffee maker", "espresso maker"), Relation::kSpecific);
  EXPECT_EQ(RelationOf("cheap", "inexpensive"), Relation::kSynonym);
}

TEST_F(ThesaurusTest, AddsIrregularFormsOfRelatedWords) {
  // kid -> child (synonym), with its irregular plural: the index's stemmer
  // does not map "children" to "child".
  EXPECT_EQ(RelationOf("kids", "child"), Relation::kSynonym);
  EXPECT_EQ(RelationOf("kids", "children"), Relation::kSynonym);
}

TEST_F(ThesaurusTest, ClosestComeFirstEachOnceWithinTheLimit) {
  std::vector<Thesaurus::RelatedWord> all = t_->Related("fixed", 1000);
  ASSERT_GT(all.size(), 10u);
  EXPECT_EQ(all.front().relation, Relation::kBaseForm);
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_NE(all[i].word, "fixed");
    for (size_t j = 0; j < i; ++j) EXPECT_NE(all[i].word, all[j].word);
  }
  std::vector<Thesaurus::RelatedWord> few = t_->Related("fixed", 5);
  ASSERT_EQ(few.size(), 5u);
  for (size_t i = 0; i < few.size(); ++i) EXPECT_EQ(few[i].word, all[i].word);
}

TEST_F(ThesaurusTest, RunsOfWordsAndUnknownText) {
  EXPECT_TRUE(t_->Knows("coffee maker"));
  EXPECT_TRUE(t_->Knows("out of pocket"));
  EXPECT_TRUE(t_->Knows("oven"));
  EXPECT_FALSE(t_->Knows("zorbelwick"));
  EXPECT_FALSE(t_->Knows("coffee  maker"));
  EXPECT_FALSE(t_->Knows(""));
  EXPECT_TRUE(t_->Related("zorbelwick", 10).empty());
  EXPECT_TRUE(t_->Related("", 10).empty());
  EXPECT_TRUE(t_->Related("caf\xc3\xa9", 10).empty());  // Not ASCII letters.
  EXPECT_TRUE(t_->Related("a b c d", 10).empty());      // Over three words.
  EXPECT_TRUE(t_->Related("oven", 0).empty());
}

class ThesaurusFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ctxkit-wordnet-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    for (const char* pos : {"noun", "verb", "adj", "adv"}) {
      for (const std::string& name :
           {std::string("index.") + pos, std::string("data.") + pos,
            std::string(pos) + ".exc"}) {
        std::filesystem::copy_file(
            std::filesystem::path(kWordNetDir) / name, dir_ / name,
            std::filesystem::copy_options::overwrite_existing);
      }
    }
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
};

TEST_F(ThesaurusFilesTest, OpensACopyAndRefusesMissingOrForeignFiles) {
  Result<std::unique_ptr<Thesaurus>> ok = Thesaurus::Open(dir_.string());
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_TRUE((*ok)->Knows("oven"));

  std::filesystem::remove(dir_ / "data.verb");
  Result<std::unique_ptr<Thesaurus>> missing = Thesaurus::Open(dir_.string());
  EXPECT_TRUE(missing.status().IsNotFound()) << missing.status().ToString();

  std::ofstream(dir_ / "data.verb") << "not wordnet\n";
  std::ofstream(dir_ / "index.verb") << "oven q 1 0 1 0 00000000\n";
  Result<std::unique_ptr<Thesaurus>> foreign = Thesaurus::Open(dir_.string());
  EXPECT_EQ(foreign.status().code(), StatusCode::kCorruption)
      << foreign.status().ToString();

  std::ofstream(dir_ / "index.verb", std::ios::trunc).close();
  Result<std::unique_ptr<Thesaurus>> empty = Thesaurus::Open(dir_.string());
  EXPECT_EQ(empty.status().code(), StatusCode::kCorruption)
      << empty.status().ToString();
}

TEST_F(ThesaurusFilesTest, ABrokenDataLineGivesNoWordsNotACrash) {
  // An index line pointing past the end of data.noun, or at a line that is
  // not a synset: the word is known, its senses give nothing.
  std::ofstream(dir_ / "index.noun", std::ios::trunc)
      << "  1 licence header line\n"
      << "oven n 2 0 2 0 99999999 00000000\n";
  Result<std::unique_ptr<Thesaurus>> t = Thesaurus::Open(dir_.string());
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_TRUE((*t)->Knows("oven"));
  for (const Thesaurus::RelatedWord& r : (*t)->Related("oven", 64)) {
    EXPECT_NE(r.relation, Relation::kSynonym) << r.word;
  }
}

}  // namespace
}  // namespace ctxkit::index
