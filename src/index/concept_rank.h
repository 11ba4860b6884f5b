// ctxkit_rank(): the FTS5 ranking function of find_relevant, for queries
// widened with related words, where a query word and the words standing in
// for it count as one group.

#ifndef CTXKIT_INDEX_CONCEPT_RANK_H_
#define CTXKIT_INDEX_CONCEPT_RANK_H_

#include <string>
#include <vector>

#include "ctxkit/status.h"
#include "index/query_terms.h"
#include "os/sqlite_db.h"

namespace ctxkit::index {

// Registers ctxkit_rank(<fts table>, <weights>) on `db`, callable in a
// query on an FTS5 table whose MATCH expression is
// MatchExpression(TermTexts(terms)), with <weights> = RankWeights(terms)
// (an error from the query otherwise). It scores a row, higher is better,
// as the sum of two parts:
//   - per group, the best of its phrases' BM25 term scores, each times
//     its weight (FTS5's bm25() formula and constants: k1 = 1.2,
//     b = 0.75, idf floored at 1e-6; a phrase's document count is its
//     `docs` when known, else counted once per query): a group's
//     stand-ins do not add up, so a word with many related words cannot
//     outweigh the rest of the query. With every phrase its own group at
//     weight 1 this part is exactly -bm25();
//   - 10 times the best window of 20 tokens: the sum of weight * idf
//     over the distinct groups matched within it.
Status RegisterConceptRank(storage::SqliteDb* db);

// `terms` without the stand-ins (weight < 1) that cannot pay for their
// cost in the index `db`'s chunk_text: those matching no chunk, and those
// matching more chunks than a limit: `max_share` of the chunks, but at
// least `min_docs` (a small index keeps its stand-ins) and at most
// `max_docs` (a word that common scores little and makes FTS5 visit its
// many rows). A kept stand-in carries its count in `docs`. Each is counted
// with a MATCH that stops past the limit, so a check costs at most that
// many rows.
Result<std::vector<WeightedTerm>> KeepUsefulTerms(
    storage::SqliteDb* db, std::vector<WeightedTerm> terms, double max_share,
    int64_t min_docs, int64_t max_docs);

// The phrases' texts, in order.
std::vector<std::string> TermTexts(const std::vector<WeightedTerm>& terms);

// The <weights> argument for `terms`: "group:weight:docs" per phrase,
// space separated (docs -1: ctxkit_rank counts the phrase's rows itself).
std::string RankWeights(const std::vector<WeightedTerm>& terms);

}  // namespace ctxkit::index

#endif  // CTXKIT_INDEX_CONCEPT_RANK_H_
