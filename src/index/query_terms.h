// Turning a free-text query into an FTS5 MATCH expression.

#ifndef CTXKIT_INDEX_QUERY_TERMS_H_
#define CTXKIT_INDEX_QUERY_TERMS_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ctxkit::index {

class Thesaurus;

// Every word of `query` in order, ASCII lower-cased: maximal runs of ASCII
// letters, digits and bytes >= 0x80.
std::vector<std::string> QueryWords(std::string_view query);

// The words of `query`: maximal runs of ASCII letters, digits and bytes
// >= 0x80 (so any non-ASCII text stays whole; FTS5's unicode61 splits it
// the same way it split the chunks), ASCII lower-cased, duplicates and
// common English stop words dropped (unless nothing else is left).
std::vector<std::string> QueryTerms(std::string_view query);

// One phrase of a widened query: the query term (group) it stands for and
// what a match of it is worth, 0 < weight <= 1 (1: the asker's own word).
struct WeightedTerm {
  std::string text;  // One word, or words separated by single spaces.
  int group = 0;     // 0, 1, ...: one per query term or run of terms.
  double weight = 1;
  int64_t docs = -1;  // Chunks it matches, when counted (KeepUsefulTerms).
};

// How many related words stand in for one query term, and what each
// relation (Thesaurus::Relation, in order: base form, synonym, derived,
// more general, similar, more specific) makes a match of one worth.
inline constexpr size_t kRelatedPerTerm = 48;
// At most this many stand-ins in all (a long query's later words get
// fewer).
inline constexpr size_t kMaxStandIns = 256;
inline constexpr std::array<double, 6> kRelationWeights = {0.9, 0.7, 0.6,
                                                           0.4, 0.6, 0.5};

// QueryTerms(query), each its own group at weight 1; then, with a
// thesaurus, for each term that is not a stop word and for each run of two
// or three adjacent words of the query that WordNet knows as one ("coffee
// maker", "out of pocket"; not starting or ending with a stop word), at
// most kRelatedPerTerm related words (stand-ins), weighted by how they
// relate (kRelationWeights), at most kMaxStandIns in all. A stand-in that
// is a stop word or a query term is left out. A run gets a group of its
// own, led by the run itself at weight 1.
std::vector<WeightedTerm> WidenedTerms(std::string_view query,
                                       const Thesaurus* thesaurus);

// `"t1" OR "t2" ...`: any term may match, BM25 weighs them. Quoting makes
// every term a literal (no FTS5 operator or column syntax from users).
std::string MatchExpression(const std::vector<std::string>& terms);

}  // namespace ctxkit::index

#endif  // CTXKIT_INDEX_QUERY_TERMS_H_
