// FindRelevant: lazy sync of index.db with the variables a call covers,
// then BM25 (and, when configured, embeddings fused by RRF) ranking.

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "core/status_macros.h"
#include "ctxkit/index.h"
#include "index/chunker.h"
#include "index/index_db.h"
#include "index/query_terms.h"
#include "llm/embeddings_client.h"
#include "storage/sqlite_db.h"

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

// The scope strings a listing with `scope_name` covers, so rows of
// removed variables can be dropped without touching other views' rows.
std::set<std::string> ListedScopes(const View& view,
                                   const std::string& scope_name) {
  std::set<std::string> out;
  if (scope_name.empty() || scope_name == "global") out.insert("global");
  if ((scope_name.empty() || scope_name == "agent") &&
      !view.agent_id().empty()) {
    out.insert("agent:" + view.agent_id());
  }
  if ((scope_name.empty() || scope_name == "session") &&
      !view.session_id().empty()) {
    out.insert("session:" + view.session_id());
  }
  if (scope_name.starts_with("agent:") || scope_name.starts_with("session:")) {
    out.insert(scope_name);  // List has already checked it is the view's.
  }
  return out;
}

struct Indexed {
  uint64_t version = 0;
  std::string key;
  std::string scope;
};

Result<std::optional<Indexed>> LoadIndexed(SqliteDb* db,
                                           const std::string& obj) {
  CTXKIT_ASSIGN_OR_RETURN(auto q,
                          db->Prepare("SELECT version, key, scope FROM objects "
                                      "WHERE obj = ?1"));
  q->BindText(1, obj);
  CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
  if (!row) return std::optional<Indexed>();
  return std::optional<Indexed>(
      Indexed{static_cast<uint64_t>(q->Int(0)), q->Text(1), q->Text(2)});
}

Status DropObjectRows(SqliteDb* db, const std::string& obj) {
  for (const char* sql : {"DELETE FROM chunk_text WHERE rowid IN "
                          "(SELECT id FROM chunks WHERE obj = ?1)",
                          "DELETE FROM vectors WHERE chunk IN "
                          "(SELECT id FROM chunks WHERE obj = ?1)",
                          "DELETE FROM chunks WHERE obj = ?1",
                          "DELETE FROM objects WHERE obj = ?1"}) {
    CTXKIT_ASSIGN_OR_RETURN(auto q, db->Prepare(sql));
    CTXKIT_RETURN_IF_ERROR(q->BindText(1, obj).Run());
  }
  return Status::Ok();
}

// Re-chunks one variable at meta.version. Runs inside the caller's write
// transaction; `chunks` receives the number of chunks written.
Status IndexObject(SqliteDb* db, View& view, const ObjectMeta& meta,
                   uint32_t chunk_tokens, uint64_t* chunks) {
  CTXKIT_RETURN_IF_ERROR(DropObjectRows(db, meta.id));
  const Ref ref = StaticRefOf(meta);
  int64_t seq = 0;
  index::RangeReader read = [&](uint64_t off, uint64_t len) {
    return view.ReadRange(ref, off, len);
  };
  index::ChunkSink emit = [&](index::Chunk c) -> Status {
    CTXKIT_ASSIGN_OR_RETURN(
        auto q, db->Prepare("INSERT INTO chunks(obj, seq, offset, length, "
                            "tokens) VALUES (?1, ?2, ?3, ?4, ?5)"));
    CTXKIT_RETURN_IF_ERROR(q->BindText(1, meta.id)
                               .Bind(2, seq++)
                               .Bind(3, static_cast<int64_t>(c.offset))
                               .Bind(4, static_cast<int64_t>(c.text.size()))
                               .Bind(5, c.tokens)
                               .Run());
    int64_t id = db->LastInsertRowId();
    CTXKIT_ASSIGN_OR_RETURN(
        auto t,
        db->Prepare("INSERT INTO chunk_text(rowid, text) VALUES (?1, ?2)"));
    CTXKIT_RETURN_IF_ERROR(t->Bind(1, id).BindText(2, c.text).Run());
    ++*chunks;
    return Status::Ok();
  };
  CTXKIT_RETURN_IF_ERROR(
      index::ChunkValue(meta.size_bytes, read, chunk_tokens, emit));
  CTXKIT_ASSIGN_OR_RETURN(
      auto q,
      db->Prepare("INSERT INTO objects(obj, key, scope, type, version, size, "
                  "chunk_tokens, indexed_ns, tag) VALUES "
                  "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"));
  return q->BindText(1, meta.id)
      .BindText(2, meta.key)
      .BindText(3, meta.scope.ToString())
      .Bind(4, static_cast<int64_t>(meta.type))
      .Bind(5, static_cast<int64_t>(meta.version))
      .Bind(6, static_cast<int64_t>(meta.size_bytes))
      .Bind(7, chunk_tokens)
      .Bind(8, core::NowUnixNanos())
      .BindText(9, meta.ref_tag)
      .Run();
}

Status UpdateName(SqliteDb* db, const ObjectMeta& meta) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db->Prepare("UPDATE objects SET key = ?2, scope = ?3, tag = ?4 "
                          "WHERE obj = ?1"));
  return q->BindText(1, meta.id)
      .BindText(2, meta.key)
      .BindText(3, meta.scope.ToString())
      .BindText(4, meta.ref_tag)
      .Run();
}

// Brings index.db up to date with `covered` (and drops rows of variables in
// `drop_scopes` that are not in `covered`), in one write transaction.
Status Sync(SqliteDb* db, View& view, const std::vector<ObjectMeta>& covered,
            const std::set<std::string>& drop_scopes,
            const std::string& drop_prefix, bool drop_exact,
            const std::set<std::string>& keep, const FindOptions& options,
            FindResult* result) {
  // A read-only pass first, so an up-to-date index costs no write lock.
  std::vector<const ObjectMeta*> stale;
  std::vector<const ObjectMeta*> renamed;
  std::vector<std::string> gone;
  // One read transaction: a consistent snapshot, and one lock acquisition
  // instead of one per lookup. The connection is closed (rolling back) if
  // a step fails.
  CTXKIT_RETURN_IF_ERROR(db->Exec("BEGIN"));
  // Many variables: one scan of `objects` beats a lookup per variable.
  std::unordered_map<std::string, Indexed> all;
  const bool scan = covered.size() > 64;
  if (scan) {
    CTXKIT_ASSIGN_OR_RETURN(
        auto q, db->Prepare("SELECT obj, version, key, scope FROM objects"));
    while (true) {
      CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
      if (!row) break;
      all.emplace(q->Text(0), Indexed{static_cast<uint64_t>(q->Int(1)),
                                      q->Text(2), q->Text(3)});
    }
  }
  for (const ObjectMeta& m : covered) {
    std::optional<Indexed> have;
    if (scan) {
      if (auto it = all.find(m.id); it != all.end()) have = it->second;
    } else {
      CTXKIT_ASSIGN_OR_RETURN(have, LoadIndexed(db, m.id));
    }
    if (!have || have->version != m.version) {
      stale.push_back(&m);
    } else if (have->key != m.key || have->scope != m.scope.ToString()) {
      renamed.push_back(&m);  // Promotion keeps id and version.
    }
  }
  for (const std::string& scope : drop_scopes) {
    CTXKIT_ASSIGN_OR_RETURN(
        auto q, db->Prepare("SELECT obj, key FROM objects WHERE scope = ?1"));
    q->BindText(1, scope);
    while (true) {
      CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
      if (!row) break;
      std::string obj = q->Text(0);
      std::string key = q->Text(1);
      bool named =
          drop_exact ? key == drop_prefix : key.starts_with(drop_prefix);
      if (named && !keep.contains(obj)) {
        gone.push_back(std::move(obj));
      }
    }
  }
  CTXKIT_RETURN_IF_ERROR(db->Exec("COMMIT"));
  if (stale.empty() && renamed.empty() && gone.empty()) return Status::Ok();

  storage::WriteTransaction tx(db);
  CTXKIT_RETURN_IF_ERROR(tx.Begin());
  for (const std::string& obj : gone) {
    CTXKIT_RETURN_IF_ERROR(DropObjectRows(db, obj));
    ++result->variables_dropped;
  }
  for (const ObjectMeta* m : renamed)
    CTXKIT_RETURN_IF_ERROR(UpdateName(db, *m));
  for (const ObjectMeta* m : stale) {
    // Another process may have indexed it while we waited for the lock.
    CTXKIT_ASSIGN_OR_RETURN(std::optional<Indexed> have,
                            LoadIndexed(db, m->id));
    if (have && have->version == m->version) continue;
    CTXKIT_RETURN_IF_ERROR(db->Exec("SAVEPOINT one_object"));
    uint64_t chunks = 0;
    Status s = IndexObject(db, view, *m, options.chunk_tokens, &chunks);
    if (!s.ok()) {
      // A value that cannot be read now (removed meanwhile, a
      // capability problem) must not fail the whole query.
      CTXKIT_RETURN_IF_ERROR(
          db->Exec("ROLLBACK TO one_object; RELEASE one_object"));
      if (s.code() == StatusCode::kIoError) return s;
      result->skipped.push_back({m->key, "not indexed: " + s.ToString()});
      continue;
    }
    CTXKIT_RETURN_IF_ERROR(db->Exec("RELEASE one_object"));
    ++result->variables_indexed;
    result->chunks_indexed += chunks;
  }
  return tx.Commit();
}

Status FillCovered(SqliteDb* db, const std::vector<ObjectMeta>& covered) {
  CTXKIT_RETURN_IF_ERROR(
      db->Exec("CREATE TEMP TABLE IF NOT EXISTS covered(obj TEXT PRIMARY KEY) "
               "WITHOUT ROWID; DELETE FROM temp.covered; BEGIN"));
  for (const ObjectMeta& m : covered) {
    auto q = db->Prepare("INSERT OR IGNORE INTO temp.covered(obj) VALUES (?1)");
    Status s = q.ok() ? (*q)->BindText(1, m.id).Run() : q.status();
    if (!s.ok()) {
      db->Exec("ROLLBACK").IgnoreError();  // `s` is the error to report.
      return s;
    }
  }
  return db->Exec("COMMIT");
}

struct Ranked {
  int64_t chunk = 0;
  double score = 0;
};

// `few`: the call covers few variables. Their chunk ids are contiguous per
// variable (a variable is always re-chunked whole, in one transaction), so
// bounding rowid lets FTS5 skip the posting lists of every other variable
// instead of matching the whole index and filtering afterwards.
Result<std::vector<Ranked>> RankBm25(SqliteDb* db, const std::string& match,
                                     size_t limit, bool few) {
  int64_t lo = 0;
  int64_t hi = INT64_MAX;
  if (few) {
    CTXKIT_ASSIGN_OR_RETURN(
        auto r, db->Prepare("SELECT min(c.id), max(c.id) FROM chunks c "
                            "JOIN temp.covered k ON k.obj = c.obj"));
    CTXKIT_ASSIGN_OR_RETURN(bool row, r->Step());
    if (!row || r->IsNull(0)) return std::vector<Ranked>{};
    lo = r->Int(0);
    hi = r->Int(1);
  }
  CTXKIT_ASSIGN_OR_RETURN(
      auto q,
      db->Prepare("SELECT chunk_text.rowid, chunk_text.rank FROM chunk_text "
                  "JOIN chunks c ON c.id = chunk_text.rowid "
                  "WHERE chunk_text MATCH ?1 "
                  "AND chunk_text.rowid BETWEEN ?3 AND ?4 "
                  "AND c.obj IN (SELECT obj FROM temp.covered) "
                  "ORDER BY chunk_text.rank LIMIT ?2"));
  q->BindText(1, match)
      .Bind(2, static_cast<int64_t>(limit))
      .Bind(3, lo)
      .Bind(4, hi);
  std::vector<Ranked> out;
  while (true) {
    CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    // FTS5's bm25() is lower-is-better; flip it so higher is better.
    out.push_back({q->Int(0), -std::strtod(q->Text(1).c_str(), nullptr)});
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
// batch at a time so memory stays bounded by one batch of chunk texts.
Status EmbedMissing(SqliteDb* db, const llm::EmbedConfig& config,
                    size_t batch_size) {
  batch_size = std::max<size_t>(1, batch_size);
  while (true) {
    std::vector<std::pair<int64_t, std::string>> todo;
    {
      CTXKIT_ASSIGN_OR_RETURN(
          auto q, db->Prepare("SELECT c.id, t.text FROM chunks c "
                              "JOIN temp.covered k ON k.obj = c.obj "
                              "JOIN chunk_text t ON t.rowid = c.id "
                              "WHERE NOT EXISTS (SELECT 1 FROM vectors v "
                              "WHERE v.chunk = c.id AND v.model = ?1) "
                              "ORDER BY c.id LIMIT ?2"));
      q->BindText(1, config.model).Bind(2, static_cast<int64_t>(batch_size));
      while (true) {
        CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
        if (!row) break;
        todo.emplace_back(q->Int(0), q->Text(1));
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
  }
}

Result<std::vector<Ranked>> RankVectors(SqliteDb* db, const std::string& model,
                                        std::vector<float> query,
                                        size_t limit) {
  std::string qblob = VectorBlob(std::move(query));
  const size_t dim = qblob.size() / sizeof(float);
  std::vector<float> qv(dim);
  std::memcpy(qv.data(), qblob.data(), qblob.size());
  CTXKIT_ASSIGN_OR_RETURN(auto q,
                          db->Prepare("SELECT v.chunk, v.vec FROM vectors v "
                                      "JOIN chunks c ON c.id = v.chunk "
                                      "JOIN temp.covered k ON k.obj = c.obj "
                                      "WHERE v.model = ?1 AND v.dim = ?2"));
  q->BindText(1, model).Bind(2, static_cast<int64_t>(dim));
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

Result<FindHit> LoadHit(SqliteDb* db, View& view, int64_t chunk,
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
      h.ref, h.byte_offset, std::min<uint64_t>(h.byte_length, preview_bytes));
  if (text.ok()) {
    h.preview = std::move(*text);
    TrimPartialChar(&h.preview);
  }
  return h;
}

// What one call covers, as the view sees it now, and which index rows
// it may drop: those of variables in `drop_scopes` whose key is
// `drop_prefix` (one variable: `drop_exact`) or starts with it, unless
// covered.
struct Coverage {
  std::vector<ObjectMeta> listed;
  std::vector<ObjectMeta> covered;  // Listed, persistent and small enough.
  std::set<std::string> keep;       // Ids of `covered`.
  std::set<std::string> drop_scopes;
  std::string drop_prefix;
  bool drop_exact = false;
};

// The variables a call names: one (by ref or key; its latest version) or
// every one the view lists with the call's filters.
Status ListTargets(View& view, const FindOptions& options, Coverage* c) {
  c->drop_exact = !options.key.empty() || options.ref.has_value();
  if (options.ref) {
    CTXKIT_ASSIGN_OR_RETURN(ObjectMeta meta, view.Stat(*options.ref));
    c->listed.push_back(std::move(meta));
    return Status::Ok();
  }
  if (!options.key.empty()) {
    LookupOptions lookup = options.lookup;
    lookup.version = 0;
    CTXKIT_ASSIGN_OR_RETURN(ObjectMeta meta, view.Stat(options.key, lookup));
    c->listed.push_back(std::move(meta));
    return Status::Ok();
  }
  ListFilter filter;
  filter.scope = options.scope;
  filter.key_prefix = options.key_prefix;
  filter.limit = kListPage;
  while (true) {
    CTXKIT_ASSIGN_OR_RETURN(ListPage page, view.List(filter));
    for (ObjectMeta& m : page.items) c->listed.push_back(std::move(m));
    if (page.next_cursor.empty()) break;
    filter.cursor = std::move(page.next_cursor);
  }
  c->drop_scopes = ListedScopes(view, options.scope);
  c->drop_prefix = options.key_prefix;
  return Status::Ok();
}

// Lists the call's variables and keeps those the index may hold; the
// others are reported in result->skipped.
Result<Coverage> Cover(View& view, const FindOptions& options,
                       FindResult* result) {
  Coverage c;
  CTXKIT_RETURN_IF_ERROR(ListTargets(view, options, &c));
  for (ObjectMeta& m : c.listed) {
    if (!m.persistent) {
      // Its content must never reach index.db (docs/index.md).
      result->skipped.push_back({m.key, "session-only value: not indexed"});
    } else if (m.size_bytes > options.max_value_bytes) {
      result->skipped.push_back(
          {m.key, "larger than " + std::to_string(options.max_value_bytes) +
                      " bytes: not indexed"});
    } else {
      c.keep.insert(m.id);
      c.covered.push_back(std::move(m));  // listed[0] is read only if not.
    }
  }
  if (c.drop_exact && c.covered.empty()) {
    // A variable that became too large or session-only: stale rows go.
    c.drop_scopes.insert(c.listed[0].scope.ToString());
    c.drop_prefix = c.listed[0].key;
  }
  result->variables_covered = c.covered.size();
  return c;
}

// The covered chunks ranked by embedding similarity to the query (at most
// `pool`), or nullopt when embeddings are not configured or fail (the
// reason noted in result->notes): BM25 alone then.
std::optional<std::vector<Ranked>> RankByEmbeddings(SqliteDb* db,
                                                    std::string_view query,
                                                    const EmbeddingsConfig& ec,
                                                    size_t pool,
                                                    FindResult* result) {
  if (ec.base_url.empty() || ec.model.empty()) return std::nullopt;
  llm::EmbedConfig cfg{ec.base_url, ec.model, ec.api_key, ec.timeout_ms};
  Status s = EmbedMissing(db, cfg, ec.batch_size);
  if (s.ok()) {
    Result<std::vector<std::vector<float>>> qv =
        llm::Embed(cfg, {std::string(query)});
    if (qv.ok()) {
      Result<std::vector<Ranked>> r =
          RankVectors(db, ec.model, std::move((*qv)[0]), pool);
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

}  // namespace

Result<FindResult> FindRelevant(View& view, std::string_view query,
                                const FindOptions& options) {
  CTXKIT_RETURN_IF_ERROR(CheckOptions(options));
  std::vector<std::string> terms = index::QueryTerms(query);
  if (terms.empty()) {
    return Status::InvalidArgument("the query has no words to search for");
  }
  FindResult result;
  // 1. What the call covers, as the view sees it now.
  CTXKIT_ASSIGN_OR_RETURN(Coverage c, Cover(view, options, &result));

  // 2. Bring the index up to date.
  CTXKIT_ASSIGN_OR_RETURN(
      std::unique_ptr<SqliteDb> db,
      view.store()->read_only()
          ? index::OpenScratchIndexDb()
          : index::OpenIndexDb(view.store()->home(), kBusyTimeoutMs));
  CTXKIT_RETURN_IF_ERROR(Sync(db.get(), view, c.covered, c.drop_scopes,
                              c.drop_prefix, c.drop_exact, c.keep, options,
                              &result));
  CTXKIT_RETURN_IF_ERROR(FillCovered(db.get(), c.covered));

  // 3. Embeddings, when configured; any failure means BM25 alone.
  const size_t pool = std::max<size_t>(options.top_k * 4, 50);
  std::optional<std::vector<Ranked>> by_vector =
      RankByEmbeddings(db.get(), query, options.embeddings, pool, &result);
  const bool fused = by_vector.has_value();

  // 4. Rank.
  CTXKIT_ASSIGN_OR_RETURN(
      std::vector<Ranked> by_bm25,
      RankBm25(db.get(), index::MatchExpression(terms),
               fused ? pool : options.top_k, c.covered.size() <= 8));
  FusedOrder order = fused ? FuseRanks(by_bm25, *by_vector, options.top_k)
                           : Bm25Order(by_bm25);
  result.method = std::string(fused ? kMethodFused : kMethodBm25);
  for (const auto& [chunk, f] : order) {
    CTXKIT_ASSIGN_OR_RETURN(
        FindHit h, LoadHit(db.get(), view, chunk, options.preview_bytes));
    h.score = f.score;
    h.method = result.method;
    h.bm25_rank = f.bm25_rank;
    h.embedding_rank = f.vector_rank;
    result.hits.push_back(std::move(h));
  }
  return result;
}

}  // namespace ctxkit
