// FindRelevant: bring index.db up to date with what a call covers (one
// variable, or a listing region caught up from the store's change feed;
// index/region_sync.h), then rank by BM25 (and, when configured,
// embeddings fused by RRF) over the covered rows alone.

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/status_macros.h"
#include "ctxkit/index.h"
#include "index/concept_rank.h"
#include "index/index_db.h"
#include "index/index_rows.h"
#include "index/query_terms.h"
#include "index/region_sync.h"
#include "index/thesaurus.h"
#include "llm/embeddings_client.h"
#include "os/sqlite_db.h"
#include "store/store_internals.h"

namespace ctxkit {

namespace {

using storage::Query;
using storage::SqliteDb;

constexpr size_t kListPage = 1000;
constexpr double kRrfK = 60.0;
constexpr int kBusyTimeoutMs = 30000;

Status CheckOptions(const FindOptions& o) {
  if (o.top_k < 1 || o.top_k > 1000) {
    return Status::InvalidArgument("top_k must be 1-1000");
  }
  if (o.chunk_tokens < 16 || o.chunk_tokens > 8192) {
    return Status::InvalidArgument("chunk_tokens must be 16-8192");
  }
  if (!o.key.empty()) CTXKIT_RETURN_IF_ERROR(ValidateKey(o.key));
  if (!o.key.empty() && o.ref) {
    return Status::InvalidArgument("give a key or a ref, not both");
  }
  return Status::Ok();
}

// What a call ranks over, as a condition on index.db's `objects o`: one
// variable, or a region's scopes and key prefix; either way within the
// size limit (rows a call with a larger limit made stay, unranked here).
struct CoverFilter {
  std::string obj;                  // Set: this variable alone.
  std::vector<std::string> scopes;  // Otherwise: these scopes ...
  std::string key_prefix;           // ... and keys starting so,
  std::string key_upper;            // below PrefixUpperBound(key_prefix).
  int64_t max_size = 0;
  // No indexed value is over the size limit (the largest is within it).
  bool sizes_fit = false;
  // The filter keeps every indexed variable (CoversWholeIndex): rankings
  // need no join.
  bool whole = false;

  // Parameters are bound without a copy (Query::BindText): the filter
  // must outlive the statements it is bound to.

  // The condition, its parameters numbered from `first`.
  std::string Sql(int first) const {
    if (whole) return "1";
    auto p = [&first] { return "?" + std::to_string(first++); };
    std::string sql = "o.size <= " + p();
    if (!obj.empty()) return sql + " AND o.obj = " + p();
    sql += " AND o.scope IN (";
    for (size_t i = 0; i < scopes.size(); ++i) {
      sql += (i ? ", " : "") + p();
    }
    sql += ")";
    if (!key_prefix.empty()) {
      sql += " AND o.key >= " + p();
      if (!key_upper.empty()) sql += " AND o.key < " + p();
    }
    return sql;
  }
  void Bind(Query* q, int first) const {
    if (whole) return;
    q->Bind(first++, max_size);
    if (!obj.empty()) {
      q->BindText(first, obj);
      return;
    }
    for (const std::string& s : scopes) q->BindText(first++, s);
    if (!key_prefix.empty()) {
      q->BindText(first++, key_prefix);
      if (!key_upper.empty()) q->BindText(first, key_upper);
    }
  }
};

int64_t SizeLimit(const FindOptions& o) {
  return static_cast<int64_t>(std::min<uint64_t>(o.max_value_bytes, INT64_MAX));
}

std::string TooLarge(const FindOptions& o) {
  return "larger than " + std::to_string(o.max_value_bytes) +
         " bytes: not indexed";
}

// A one-variable call: the variable it names (by ref or key; its latest
// version), synced alone. Only read when its rows are current.
Result<CoverFilter> SyncOne(SqliteDb* db, View& view,
                            const FindOptions& options, FindResult* result) {
  ObjectMeta m;
  if (options.ref) {
    CTXKIT_ASSIGN_OR_RETURN(m, view.Stat(*options.ref));
  } else {
    LookupOptions lookup = options.lookup;
    lookup.version = 0;
    CTXKIT_ASSIGN_OR_RETURN(m, view.Stat(options.key, lookup));
  }
  CoverFilter filter;
  filter.obj = m.id;
  filter.max_size = SizeLimit(options);
  if (!m.persistent) {
    // Its content must never reach index.db (docs/index.md).
    result->skipped.push_back({m.key, "session-only value: not indexed"});
    return filter;
  }
  const bool wanted = m.size_bytes <= options.max_value_bytes;
  if (!wanted) result->skipped.push_back({m.key, TooLarge(options)});
  CTXKIT_ASSIGN_OR_RETURN(std::optional<index::Indexed> have,
                          index::LoadIndexed(db, m.id));
  const bool current = have && have->version == m.version &&
                       have->key == m.key && have->scope == m.scope.ToString();
  if (current || (!have && !wanted)) return filter;
  storage::WriteTransaction tx(db);
  CTXKIT_RETURN_IF_ERROR(tx.Begin());
  index::CountDeltas counts;
  index::Current to{&m, false, wanted};
  to.have = &have;  // Looked up above.
  CTXKIT_RETURN_IF_ERROR(
      index::Reconcile(db, view, to, options.chunk_tokens, &counts, result));
  CTXKIT_RETURN_IF_ERROR(counts.Write(db));
  CTXKIT_RETURN_IF_ERROR(tx.Commit());
  return filter;
}

// Session-only values never reach the index; a listing call names those
// it covers in result->skipped. Listing them also checks the call's scope
// filter against the view.
Status NoteSessionOnly(View& view, const FindOptions& options,
                       FindResult* result) {
  ListFilter filter;
  filter.scope = options.scope;
  filter.key_prefix = options.key_prefix;
  filter.limit = kListPage;
  while (true) {
    CTXKIT_ASSIGN_OR_RETURN(ListPage page,
                            StoreInternals::ListSessionOnly(view, filter));
    for (const ObjectMeta& m : page.items) {
      result->skipped.push_back({m.key, "session-only value: not indexed"});
    }
    if (page.next_cursor.empty()) return Status::Ok();
    filter.cursor = std::move(page.next_cursor);
  }
}

// Whether no indexed value is over `f`'s size limit: the largest is not.
Result<bool> SizesFit(SqliteDb* db, const CoverFilter& f) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db->Prepare("SELECT coalesce(max(size), 0) FROM objects"));
  CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
  return row && q->Int(0) <= f.max_size;
}

// Whether `f` keeps every indexed variable: a listing call without a key
// prefix whose scopes hold every row, with every size within its limit. A
// few index probes, whatever the index's size: is there a row whose scope
// sorts before, between or after the call's?
Result<bool> CoversWholeIndex(SqliteDb* db, const CoverFilter& f) {
  if (!f.obj.empty() || !f.key_prefix.empty() || !f.sizes_fit) return false;
  const size_t n = f.scopes.size();
  for (size_t i = 0; i <= n; ++i) {
    std::string sql = "SELECT 1 FROM objects WHERE ";
    sql += i > 0 ? "scope > ?1" : "1";
    if (i < n) sql += " AND scope < ?2";
    CTXKIT_ASSIGN_OR_RETURN(auto q, db->PrepareDynamic(sql + " LIMIT 1"));
    if (i > 0) q->BindText(1, f.scopes[i - 1]);
    if (i < n) q->BindText(2, f.scopes[i]);
    CTXKIT_ASSIGN_OR_RETURN(bool outside, q->Step());
    if (outside) return false;
  }
  return true;
}

// A listing call: its region caught up from the store's change feed.
Result<CoverFilter> SyncRegion(SqliteDb* db, View& view,
                               const FindOptions& options, FindResult* result) {
  CTXKIT_ASSIGN_OR_RETURN(index::Region region, index::RegionOf(view, options));
  CTXKIT_RETURN_IF_ERROR(index::CatchUp(db, view, region, options.chunk_tokens,
                                        options.progress, result));
  CoverFilter filter;
  filter.scopes = std::move(region.scopes);
  filter.key_prefix = options.key_prefix;
  filter.key_upper = storage::PrefixUpperBound(options.key_prefix);
  filter.max_size = SizeLimit(options);
  CTXKIT_ASSIGN_OR_RETURN(filter.sizes_fit, SizesFit(db, filter));
  CTXKIT_ASSIGN_OR_RETURN(filter.whole, CoversWholeIndex(db, filter));
  return filter;
}

// The variables `filter` keeps: from the kept counts when it keeps whole
// scopes (O(scopes)); counted through objects_by_scope otherwise (one
// variable, a key prefix, or values over the size limit: O(region)).
Result<uint64_t> CountCovered(SqliteDb* db, const CoverFilter& filter) {
  if (filter.obj.empty() && filter.key_prefix.empty() && filter.sizes_fit) {
    std::string sql = "SELECT coalesce(sum(n), 0) FROM counts WHERE name IN (";
    for (size_t i = 0; i < filter.scopes.size(); ++i) {
      sql += (i ? ", ?" : "?") + std::to_string(i + 1);
    }
    CTXKIT_ASSIGN_OR_RETURN(auto q, db->PrepareDynamic(sql + ")"));
    std::vector<std::string> names;
    for (const std::string& s : filter.scopes) names.push_back("scope:" + s);
    for (size_t i = 0; i < names.size(); ++i) {
      q->BindText(static_cast<int>(i) + 1, names[i]);
    }
    CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
    return row ? static_cast<uint64_t>(q->Int(0)) : 0;
  }
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db->PrepareDynamic("SELECT count(*) FROM objects o WHERE " +
                                 filter.Sql(1)));
  filter.Bind(q.get(), 1);
  CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
  return row ? static_cast<uint64_t>(q->Int(0)) : 0;
}

struct Ranked {
  int64_t chunk = 0;
  double score = 0;
};

// One variable: its chunk ids are contiguous (a variable is always
// re-chunked whole, in one transaction), so bounding rowid lets FTS5 skip
// the posting lists of every other variable instead of matching the whole
// index and filtering afterwards.
Result<std::vector<Ranked>> RankBm25(
    SqliteDb* db, const std::vector<index::WeightedTerm>& terms, size_t limit,
    const CoverFilter& filter) {
  const std::string match = index::MatchExpression(index::TermTexts(terms));
  const std::string weights = index::RankWeights(terms);
  int64_t lo = 0;
  int64_t hi = INT64_MAX;
  if (!filter.obj.empty()) {
    CTXKIT_ASSIGN_OR_RETURN(
        auto r,
        db->Prepare("SELECT min(id), max(id) FROM chunks WHERE obj = ?1"));
    r->BindText(1, filter.obj);
    CTXKIT_ASSIGN_OR_RETURN(bool row, r->Step());
    if (!row || r->IsNull(0)) return std::vector<Ranked>{};
    lo = r->Int(0);
    hi = r->Int(1);
  }
  // The whole index: FTS5 alone, as a raw query would run, but for the
  // orphans when there are any (index_db.cc; the join drops them).
  CTXKIT_ASSIGN_OR_RETURN(auto o,
                          db->Prepare("SELECT EXISTS (SELECT 1 FROM orphans)"));
  CTXKIT_ASSIGN_OR_RETURN(bool has_orphans, o->Step());
  has_orphans = has_orphans && o->Int(0) != 0;
  CTXKIT_ASSIGN_OR_RETURN(
      auto q,
      db->PrepareDynamic(
          filter.whole
              ? std::string("SELECT rowid, ctxkit_rank(chunk_text, ?900) AS s "
                            "FROM chunk_text "
                            "WHERE chunk_text MATCH ?1 "
                            "AND rowid BETWEEN ?3 AND ?4 ") +
                    (has_orphans ? "AND rowid NOT IN (SELECT id FROM orphans) "
                                 : "") +
                    "ORDER BY s DESC LIMIT ?2"
              : "SELECT t.rowid, ctxkit_rank(t.chunk_text, ?900) AS s "
                "FROM chunk_text t "
                "JOIN chunks c ON c.id = t.rowid "
                "JOIN objects o ON o.obj = c.obj "
                "WHERE t.chunk_text MATCH ?1 AND t.rowid BETWEEN ?3 AND ?4 "
                "AND " +
                    filter.Sql(5) + " ORDER BY s DESC LIMIT ?2"));
  q->BindText(1, match)
      .Bind(2, static_cast<int64_t>(limit))
      .Bind(3, lo)
      .Bind(4, hi)
      .BindText(900, weights);
  filter.Bind(q.get(), 5);
  std::vector<Ranked> out;
  while (true) {
    CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    out.push_back({q->Int(0), std::strtod(q->Text(1).c_str(), nullptr)});
  }
  return out;
}

std::string VectorBlob(std::vector<float> v) {
  // Stored unit-length, so ranking is a plain dot product.
  double norm = 0;
  for (float x : v) norm += static_cast<double>(x) * x;
  norm = std::sqrt(norm);
  if (norm > 0) {
    for (float& x : v) x = static_cast<float>(x / norm);
  }
  return std::string(reinterpret_cast<const char*>(v.data()),
                     v.size() * sizeof(float));
}

// Gives every covered chunk without a vector for `config.model` one, a
// batch at a time so memory stays bounded by one batch of chunk texts
// (read from the store: index.db keeps no copy). A chunk whose version is
// gone gets none now; the sync that notices the newer version replaces it.
Status EmbedMissing(SqliteDb* db, Store& store, const llm::EmbedConfig& config,
                    size_t batch_size, const CoverFilter& filter) {
  batch_size = std::max<size_t>(1, batch_size);
  while (true) {
    std::vector<std::pair<int64_t, std::string>> todo;
    bool gone = false;
    {
      CTXKIT_ASSIGN_OR_RETURN(
          auto q,
          db->PrepareDynamic("SELECT c.id, c.obj, o.version, c.offset, "
                             "c.length FROM chunks c "
                             "JOIN objects o ON o.obj = c.obj "
                             "WHERE NOT EXISTS (SELECT 1 FROM vectors v "
                             "WHERE v.chunk = c.id AND v.model = ?1) AND " +
                             filter.Sql(3) + " ORDER BY c.id LIMIT ?2"));
      q->BindText(1, config.model).Bind(2, static_cast<int64_t>(batch_size));
      filter.Bind(q.get(), 3);
      while (true) {
        CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
        if (!row) break;
        CTXKIT_ASSIGN_OR_RETURN(
            std::optional<std::string> text,
            index::ReadIndexedRange(store, q->Text(1),
                                    static_cast<uint64_t>(q->Int(2)),
                                    static_cast<uint64_t>(q->Int(3)),
                                    static_cast<uint64_t>(q->Int(4))));
        if (text) {
          todo.emplace_back(q->Int(0), std::move(*text));
        } else {
          gone = true;
        }
      }
    }
    if (todo.empty()) return Status::Ok();
    std::vector<std::string> inputs;
    for (auto& t : todo) inputs.push_back(std::move(t.second));
    // Each successful batch is committed, so a later failure loses
    // nothing and the loop always makes progress or returns.
    CTXKIT_ASSIGN_OR_RETURN(auto vectors, llm::Embed(config, inputs));
    storage::WriteTransaction tx(db);
    CTXKIT_RETURN_IF_ERROR(tx.Begin());
    for (size_t j = 0; j < todo.size(); ++j) {
      int64_t dim = static_cast<int64_t>(vectors[j].size());
      std::string blob = VectorBlob(std::move(vectors[j]));
      CTXKIT_ASSIGN_OR_RETURN(
          auto q, db->Prepare("INSERT OR REPLACE INTO vectors(chunk, model, "
                              "dim, vec) VALUES (?1, ?2, ?3, ?4)"));
      CTXKIT_RETURN_IF_ERROR(q->Bind(1, todo[j].first)
                                 .BindText(2, config.model)
                                 .Bind(3, dim)
                                 .BindBlob(4, blob)
                                 .Run());
    }
    CTXKIT_RETURN_IF_ERROR(tx.Commit());
    if (gone) return Status::Ok();  // The same batch would come back.
  }
}

Result<std::vector<Ranked>> RankVectors(SqliteDb* db, const std::string& model,
                                        std::vector<float> query, size_t limit,
                                        const CoverFilter& filter) {
  std::string qblob = VectorBlob(std::move(query));
  const size_t dim = qblob.size() / sizeof(float);
  std::vector<float> qv(dim);
  std::memcpy(qv.data(), qblob.data(), qblob.size());
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db->PrepareDynamic("SELECT v.chunk, v.vec FROM vectors v "
                                 "JOIN chunks c ON c.id = v.chunk "
                                 "JOIN objects o ON o.obj = c.obj "
                                 "WHERE v.model = ?1 AND v.dim = ?2 AND " +
                                 filter.Sql(3)));
  q->BindText(1, model).Bind(2, static_cast<int64_t>(dim));
  filter.Bind(q.get(), 3);
  std::vector<Ranked> all;
  std::vector<float> v(dim);
  while (true) {
    CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    std::string blob = q->Blob(1);
    if (blob.size() != dim * sizeof(float)) continue;
    std::memcpy(v.data(), blob.data(), blob.size());
    double dot = 0;
    for (size_t i = 0; i < dim; ++i) dot += static_cast<double>(v[i]) * qv[i];
    all.push_back({q->Int(0), dot});
  }
  size_t n = std::min(limit, all.size());
  std::partial_sort(all.begin(), all.begin() + n, all.end(),
                    [](const Ranked& a, const Ranked& b) {
                      return a.score > b.score ||
                             (a.score == b.score && a.chunk < b.chunk);
                    });
  all.resize(n);
  return all;
}

// Cuts a trailing partial UTF-8 character off a preview.
void TrimPartialChar(std::string* s) {
  size_t n = s->size();
  size_t i = n;
  while (i > 0 && n - i < 4 &&
         (static_cast<unsigned char>((*s)[i - 1]) & 0xC0) == 0x80) {
    --i;
  }
  if (i == 0) return;
  unsigned char lead = static_cast<unsigned char>((*s)[i - 1]);
  size_t want = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
  if (lead >= 0xC0 && n - (i - 1) < want) s->resize(i - 1);
}

// A related word in more than this share of the index's chunks (but at
// least the minimum, at most the maximum) is left out of a widened query:
// it would score little and cost much.
constexpr double kMaxRelatedShare = 0.02;
constexpr int64_t kMinRelatedDocs = 20;
constexpr int64_t kMaxRelatedDocs = 2000;

// How much of a hit's chunk is read to choose its preview.
constexpr uint64_t kPassageBytes = 64 << 10;

// Whether `line` (ASCII-lowercased) holds `term` or a word starting with
// its stem (the index stems words, so "failure" matches "failed").
bool HoldsTerm(std::string_view line, std::string_view term) {
  size_t stem =
      std::max<size_t>(std::min<size_t>(term.size(), 4),
                       term.size() > 5 ? term.size() - 3 : term.size());
  return line.find(term.substr(0, stem)) != std::string_view::npos;
}

// Offset of the line of `text` that holds the most of the query: the sum
// over groups of the best weight of the group's phrases on the line (so
// the asker's own words count most); the first such line, 0 when no line
// holds any.
size_t MatchingLine(std::string_view text,
                    const std::vector<index::WeightedTerm>& terms) {
  size_t best = 0;
  double best_score = 0;
  std::string lower;
  int max_group = -1;
  for (const index::WeightedTerm& t : terms) {
    max_group = std::max(max_group, t.group);
  }
  // Per group, its best weight on the current line.
  std::vector<double> groups(static_cast<size_t>(max_group + 1));
  for (size_t begin = 0; begin < text.size();) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    lower.assign(text.substr(begin, end - begin));
    for (char& c : lower) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    std::fill(groups.begin(), groups.end(), 0.0);
    for (const index::WeightedTerm& t : terms) {
      double& best_in_group = groups[static_cast<size_t>(t.group)];
      if (t.weight > best_in_group && HoldsTerm(lower, t.text)) {
        best_in_group = t.weight;
      }
    }
    double score = 0;
    for (double weight : groups) score += weight;
    if (score > best_score) {
      best = begin;
      best_score = score;
    }
    begin = end + 1;
  }
  return best;
}

Result<FindHit> LoadHit(SqliteDb* db, View& view, int64_t chunk,
                        const std::vector<index::WeightedTerm>& terms,
                        size_t preview_bytes) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db->Prepare("SELECT c.obj, c.offset, c.length, c.tokens, o.key, "
                          "o.scope, o.type, o.version, o.size, o.tag "
                          "FROM chunks c "
                          "JOIN objects o ON o.obj = c.obj WHERE c.id = ?1"));
  q->Bind(1, chunk);
  CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
  if (!row) return Status::Internal("index chunk vanished during a query");
  FindHit h;
  h.ref.id = q->Text(0);
  h.byte_offset = static_cast<uint64_t>(q->Int(1));
  h.byte_length = static_cast<uint64_t>(q->Int(2));
  h.tokens = static_cast<uint32_t>(q->Int(3));
  h.key = q->Text(4);
  h.ref.key = h.key;
  CTXKIT_ASSIGN_OR_RETURN(h.ref.scope, Scope::Parse(q->Text(5)));
  h.ref.type = static_cast<ValueType>(q->Int(6));
  h.ref.version = static_cast<uint64_t>(q->Int(7));
  h.ref.size_bytes = static_cast<uint64_t>(q->Int(8));
  h.ref.tag = q->Text(9);
  Result<std::string> text = view.ReadRange(
      h.ref, h.byte_offset, std::min<uint64_t>(h.byte_length, kPassageBytes));
  if (text.ok()) {
    h.preview = text->substr(MatchingLine(*text, terms), preview_bytes);
    TrimPartialChar(&h.preview);
  }
  return h;
}

// The covered chunks ranked by embedding similarity to the query (at most
// `pool`), or nullopt when embeddings are not configured or fail (the
// reason noted in result->notes): BM25 alone then.
std::optional<std::vector<Ranked>> RankByEmbeddings(SqliteDb* db, Store& store,
                                                    std::string_view query,
                                                    const EmbeddingsConfig& ec,
                                                    size_t pool,
                                                    const CoverFilter& filter,
                                                    FindResult* result) {
  if (ec.base_url.empty() || ec.model.empty()) return std::nullopt;
  llm::EmbedConfig cfg{ec.base_url, ec.model, ec.api_key, ec.timeout_ms};
  Status s = EmbedMissing(db, store, cfg, ec.batch_size, filter);
  if (s.ok()) {
    Result<std::vector<std::vector<float>>> qv =
        llm::Embed(cfg, {std::string(query)});
    if (qv.ok()) {
      Result<std::vector<Ranked>> r =
          RankVectors(db, ec.model, std::move((*qv)[0]), pool, filter);
      if (r.ok()) return std::move(*r);
      s = r.status();
    } else {
      s = qv.status();
    }
  }
  result->notes.push_back("embeddings unavailable, ranked by bm25 alone: " +
                          s.ToString());
  return std::nullopt;
}

// A chunk's place in the final order.
struct Fused {
  double score = 0;
  uint32_t bm25_rank = 0;
  uint32_t vector_rank = 0;
};
using FusedOrder = std::vector<std::pair<int64_t, Fused>>;

// The BM25 order as is.
FusedOrder Bm25Order(const std::vector<Ranked>& by_bm25) {
  FusedOrder order;
  for (size_t i = 0; i < by_bm25.size(); ++i) {
    order.push_back({by_bm25[i].chunk,
                     {by_bm25[i].score, static_cast<uint32_t>(i + 1), 0}});
  }
  return order;
}

// Reciprocal rank fusion of the two orders, best first, at most `top_k`.
FusedOrder FuseRanks(const std::vector<Ranked>& by_bm25,
                     const std::vector<Ranked>& by_vector, size_t top_k) {
  std::unordered_map<int64_t, Fused> acc;
  for (size_t i = 0; i < by_bm25.size(); ++i) {
    Fused& f = acc[by_bm25[i].chunk];
    f.bm25_rank = static_cast<uint32_t>(i + 1);
    f.score += 1.0 / (kRrfK + static_cast<double>(i + 1));
  }
  for (size_t i = 0; i < by_vector.size(); ++i) {
    Fused& f = acc[by_vector[i].chunk];
    f.vector_rank = static_cast<uint32_t>(i + 1);
    f.score += 1.0 / (kRrfK + static_cast<double>(i + 1));
  }
  FusedOrder order(acc.begin(), acc.end());
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return a.second.score > b.second.score ||
           (a.second.score == b.second.score && a.first < b.first);
  });
  if (order.size() > top_k) order.resize(top_k);
  return order;
}

// The phrases to match and how each counts (index::WidenedTerms): the
// query's words, and with options.widen and WordNet installed, their
// related words that occur in the index without being common in it.
Result<std::vector<index::WeightedTerm>> QueryPhrases(
    SqliteDb* db, std::string_view query, const FindOptions& options,
    FindResult* result) {
  const index::Thesaurus* thesaurus = nullptr;
  if (options.widen) {
    std::string why;
    thesaurus = index::Thesaurus::Default(&why);
    if (thesaurus == nullptr) {
      result->notes.push_back("query not widened with related words: " + why);
    }
  }
  CTXKIT_RETURN_IF_ERROR(index::RegisterConceptRank(db));
  return index::KeepUsefulTerms(db, index::WidenedTerms(query, thesaurus),
                                kMaxRelatedShare, kMinRelatedDocs,
                                kMaxRelatedDocs);
}

}  // namespace

Result<FindResult> FindRelevant(View& view, std::string_view query,
                                const FindOptions& options) {
  CTXKIT_RETURN_IF_ERROR(CheckOptions(options));
  std::vector<std::string> terms = index::QueryTerms(query);
  if (terms.empty()) {
    return Status::InvalidArgument("the query has no words to search for");
  }
  FindResult result;
  const bool one = !options.key.empty() || options.ref.has_value();
  if (!one) CTXKIT_RETURN_IF_ERROR(NoteSessionOnly(view, options, &result));

  // 1. Bring the index up to date with what the call covers.
  Store& store = *view.store();
  std::unique_ptr<SqliteDb> db;
  if (store.read_only()) {
    CTXKIT_ASSIGN_OR_RETURN(db, index::OpenScratchIndexDb());
  } else {
    CTXKIT_ASSIGN_OR_RETURN(std::string identity,
                            StoreInternals::Identity(store));
    CTXKIT_ASSIGN_OR_RETURN(
        db, index::OpenIndexDb(store.home(), identity, kBusyTimeoutMs));
  }
  CTXKIT_ASSIGN_OR_RETURN(CoverFilter filter,
                          one ? SyncOne(db.get(), view, options, &result)
                              : SyncRegion(db.get(), view, options, &result));
  CTXKIT_ASSIGN_OR_RETURN(result.variables_covered,
                          CountCovered(db.get(), filter));

  // 2. Embeddings, when configured; any failure means BM25 alone.
  const size_t pool = std::max<size_t>(options.top_k * 4, 50);
  std::optional<std::vector<Ranked>> by_vector =
      RankByEmbeddings(db.get(), *view.store(), query, options.embeddings, pool,
                       filter, &result);
  const bool fused = by_vector.has_value();

  // 3. Rank.
  CTXKIT_ASSIGN_OR_RETURN(std::vector<index::WeightedTerm> weighted,
                          QueryPhrases(db.get(), query, options, &result));
  CTXKIT_ASSIGN_OR_RETURN(
      std::vector<Ranked> by_bm25,
      RankBm25(db.get(), weighted, fused ? pool : options.top_k, filter));
  FusedOrder order = fused ? FuseRanks(by_bm25, *by_vector, options.top_k)
                           : Bm25Order(by_bm25);
  result.method = std::string(fused ? kMethodFused : kMethodBm25);
  for (const auto& [chunk, f] : order) {
    CTXKIT_ASSIGN_OR_RETURN(FindHit h, LoadHit(db.get(), view, chunk, weighted,
                                               options.preview_bytes));
    h.score = f.score;
    h.method = result.method;
    h.bm25_rank = f.bm25_rank;
    h.embedding_rank = f.vector_rank;
    result.hits.push_back(std::move(h));
  }
  return result;
}

}  // namespace ctxkit
