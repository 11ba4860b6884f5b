#include "index/concept_rank.h"

#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "core/status_macros.h"

namespace ctxkit::index {

namespace {

// FTS5's bm25() constants.
constexpr double kK1 = 1.2;
constexpr double kB = 0.75;
// The proximity term: groups matched within this many tokens of each other
// (about a sentence), and what their sum is worth against the row's.
constexpr int kWindowTokens = 20;
constexpr double kWindowFactor = 10;

// What one query's rows share: per phrase its group, weight and idf, and
// the table's average row length. Computed at the first row, kept as the
// query's FTS5 auxiliary data.
struct QueryData {
  std::vector<int> group;
  std::vector<double> weight;
  std::vector<int64_t> docs;  // Matching rows when known, else -1.
  std::vector<double> idf;
  std::vector<int> tf;  // Scratch for the current row.
  int groups = 0;
  double avgdl = 1;
};

int CountRow(const Fts5ExtensionApi*, Fts5Context*, void* user) {
  ++*static_cast<sqlite3_int64*>(user);
  return SQLITE_OK;
}

// Parses "group:weight:docs ..." for `phrases` phrases; nullptr when it
// does not match.
QueryData* ParseWeights(const char* text, int phrases) {
  auto* d = new QueryData;
  const char* p = text == nullptr ? "" : text;
  for (int i = 0; i < phrases; ++i) {
    if (i > 0 && *p++ != ' ') break;
    // Each number starts right there (strto* would skip blanks).
    auto digit = [](const char* c) { return *c >= '0' && *c <= '9'; };
    char* end = nullptr;
    if (!digit(p)) break;
    long g = std::strtol(p, &end, 10);
    if (*end != ':' || g < 0 || g >= phrases) break;
    p = end + 1;
    if (!digit(p)) break;
    double w = std::strtod(p, &end);
    if (!(w > 0 && w <= 1) || *end != ':') break;
    p = end + 1;
    if (!digit(p) && *p != '-') break;
    long long docs = std::strtoll(p, &end, 10);
    if (end == p || docs < -1) break;
    p = end;
    d->group.push_back(static_cast<int>(g));
    d->weight.push_back(w);
    d->docs.push_back(docs);
    d->groups = std::max(d->groups, static_cast<int>(g) + 1);
  }
  if (static_cast<int>(d->group.size()) != phrases || *p != '\0') {
    delete d;
    return nullptr;
  }
  return d;
}

int PrepareQuery(const Fts5ExtensionApi* api, Fts5Context* fts, QueryData* d) {
  sqlite3_int64 rows = 0;
  sqlite3_int64 tokens = 0;
  int rc = api->xRowCount(fts, &rows);
  if (rc == SQLITE_OK) rc = api->xColumnTotalSize(fts, -1, &tokens);
  if (rc != SQLITE_OK) return rc;
  d->avgdl = rows > 0 ? static_cast<double>(tokens) / rows : 1;
  if (d->avgdl <= 0) d->avgdl = 1;
  const int phrases = static_cast<int>(d->group.size());
  d->idf.resize(phrases);
  d->tf.resize(phrases);
  for (int i = 0; i < phrases; ++i) {
    sqlite3_int64 hits = d->docs[i];
    if (hits < 0) {
      hits = 0;
      rc = api->xQueryPhrase(fts, i, &hits, CountRow);
      if (rc != SQLITE_OK) return rc;
    }
    // A count made before the query (KeepUsefulTerms) may exceed a row
    // count that shrank since.
    hits = std::clamp<sqlite3_int64>(hits, 0, rows);
    double idf = std::log((static_cast<double>(rows - hits) + 0.5) /
                          (static_cast<double>(hits) + 0.5));
    d->idf[i] = idf > 0 ? idf : 1e-6;
  }
  return SQLITE_OK;
}

// The row's score from its phrase instances (offset, phrase) and its
// length in tokens.
double ScoreRow(QueryData* d, std::vector<std::pair<int, int>>* hits, int dl) {
  std::fill(d->tf.begin(), d->tf.end(), 0);
  for (const auto& [offset, phrase] : *hits) ++d->tf[phrase];
  // Each group's best BM25 term score over the row.
  const double norm = kK1 * (1 - kB + kB * dl / d->avgdl);
  std::vector<double> best(d->groups, 0.0);
  for (size_t i = 0; i < d->tf.size(); ++i) {
    if (d->tf[i] == 0) continue;
    const double tf = d->tf[i];
    const double s = d->weight[i] * d->idf[i] * tf * (kK1 + 1) / (tf + norm);
    best[d->group[i]] = std::max(best[d->group[i]], s);
  }
  double score = 0;
  for (double s : best) score += s;
  // The best window: the most weight * idf of distinct groups matched
  // within kWindowTokens of each other.
  std::sort(hits->begin(), hits->end());
  double window = 0;
  for (size_t i = 0; i < hits->size(); ++i) {
    std::fill(best.begin(), best.end(), 0.0);
    for (size_t j = i; j < hits->size() &&
                       (*hits)[j].first < (*hits)[i].first + kWindowTokens;
         ++j) {
      const int p = (*hits)[j].second;
      best[d->group[p]] = std::max(best[d->group[p]], d->weight[p] * d->idf[p]);
    }
    double sum = 0;
    for (double s : best) sum += s;
    window = std::max(window, sum);
  }
  return score + kWindowFactor * window;
}

void ConceptRank(const Fts5ExtensionApi* api, Fts5Context* fts,
                 sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  auto* d = static_cast<QueryData*>(api->xGetAuxdata(fts, 0));
  if (d == nullptr) {
    if (argc != 1) {
      sqlite3_result_error(ctx, "ctxkit_rank(table, weights)", -1);
      return;
    }
    d = ParseWeights(reinterpret_cast<const char*>(sqlite3_value_text(argv[0])),
                     api->xPhraseCount(fts));
    if (d == nullptr) {
      sqlite3_result_error(ctx, "ctxkit_rank: weights do not fit the query",
                           -1);
      return;
    }
    int rc = PrepareQuery(api, fts, d);
    if (rc == SQLITE_OK) {
      rc = api->xSetAuxdata(fts, d,
                            [](void* p) { delete static_cast<QueryData*>(p); });
    } else {
      delete d;
    }
    if (rc != SQLITE_OK) {
      sqlite3_result_error_code(ctx, rc);
      return;
    }
  }
  int count = 0;
  int rc = api->xInstCount(fts, &count);
  std::vector<std::pair<int, int>> hits;
  for (int i = 0; rc == SQLITE_OK && i < count; ++i) {
    int phrase = 0;
    int col = 0;
    int offset = 0;
    rc = api->xInst(fts, i, &phrase, &col, &offset);
    if (rc == SQLITE_OK) hits.emplace_back(offset, phrase);
  }
  int dl = 0;
  if (rc == SQLITE_OK) rc = api->xColumnSize(fts, -1, &dl);
  if (rc != SQLITE_OK) {
    sqlite3_result_error_code(ctx, rc);
    return;
  }
  sqlite3_result_double(ctx, ScoreRow(d, &hits, dl));
}

}  // namespace

Status RegisterConceptRank(storage::SqliteDb* db) {
  fts5_api* api = nullptr;
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db->raw(), "SELECT fts5(?1)", -1, &stmt, nullptr);
  if (rc == SQLITE_OK) {
    sqlite3_bind_pointer(stmt, 1, &api, "fts5_api_ptr", nullptr);
    rc = sqlite3_step(stmt);
    rc = rc == SQLITE_ROW ? SQLITE_OK : rc;
  }
  sqlite3_finalize(stmt);
  if (rc != SQLITE_OK || api == nullptr || api->iVersion < 2) {
    return Status::Internal("this SQLite has no FTS5 API");
  }
  rc = api->xCreateFunction(api, "ctxkit_rank", nullptr, ConceptRank, nullptr);
  if (rc != SQLITE_OK) {
    return Status::Internal(std::string("registering ctxkit_rank: ") +
                            sqlite3_errstr(rc));
  }
  return Status::Ok();
}

Result<std::vector<WeightedTerm>> KeepUsefulTerms(
    storage::SqliteDb* db, std::vector<WeightedTerm> terms, double max_share,
    int64_t min_docs, int64_t max_docs) {
  if (std::all_of(terms.begin(), terms.end(),
                  [](const WeightedTerm& t) { return t.weight >= 1; })) {
    return terms;
  }
  // The chunk id high-water mark stands for the chunk count (ids are never
  // reused below it, so it may only overcount): one b-tree seek.
  int64_t chunks = 0;
  {
    CTXKIT_ASSIGN_OR_RETURN(auto q, db->Prepare("SELECT max(id) FROM chunks"));
    CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
    if (row) chunks = q->Int(0);
  }
  const int64_t limit = std::max<int64_t>(
      min_docs, std::min<int64_t>(
                    max_docs, static_cast<int64_t>(
                                  max_share * static_cast<double>(chunks))));
  std::vector<WeightedTerm> kept;
  for (WeightedTerm& t : terms) {
    if (t.weight < 1) {
      // Counting stops past the limit: a common word costs no more than a
      // rare one to turn down.
      const std::string match = MatchExpression({t.text});
      CTXKIT_ASSIGN_OR_RETURN(
          auto q, db->Prepare("SELECT count(*) FROM (SELECT 1 FROM chunk_text "
                              "WHERE chunk_text MATCH ?1 LIMIT ?2)"));
      q->BindText(1, match).Bind(2, limit + 1);
      CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
      t.docs = row ? q->Int(0) : 0;
      if (t.docs == 0 || t.docs > limit) continue;
    }
    kept.push_back(std::move(t));
  }
  return kept;
}

std::vector<std::string> TermTexts(const std::vector<WeightedTerm>& terms) {
  std::vector<std::string> out;
  out.reserve(terms.size());
  for (const WeightedTerm& t : terms) out.push_back(t.text);
  return out;
}

std::string RankWeights(const std::vector<WeightedTerm>& terms) {
  std::string out;
  char buf[48];
  for (const WeightedTerm& t : terms) {
    std::snprintf(buf, sizeof buf, "%s%d:%.4g:%lld", out.empty() ? "" : " ",
                  t.group, t.weight, static_cast<long long>(t.docs));
    out += buf;
  }
  return out;
}

}  // namespace ctxkit::index
