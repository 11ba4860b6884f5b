#include "notes/note_index.h"

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "core/status_macros.h"
#include "text/json_parse.h"
#include "text/json_write.h"

namespace ctxkit::notes {

namespace {

using storage::Query;
using storage::SqliteDb;

constexpr int kBusyTimeoutMs = 30000;

constexpr char kSchema[] = R"sql(
CREATE TABLE IF NOT EXISTS notes(
  id INTEGER PRIMARY KEY,
  path TEXT NOT NULL UNIQUE,
  dir TEXT NOT NULL,
  agent TEXT NOT NULL,
  session TEXT NOT NULL,
  type TEXT NOT NULL,
  timestamp TEXT NOT NULL,
  tags TEXT NOT NULL,
  links TEXT NOT NULL,
  mtime_ns INTEGER NOT NULL,
  size INTEGER NOT NULL,
  hash TEXT NOT NULL,
  ref TEXT NOT NULL,
  summary TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS notes_dir ON notes(dir);
-- Search without text lists newest first, ties by path: these indexes hold
-- that order, so a filter by agent, type or session (or none) reads only
-- the rows it returns instead of sorting every match.
DROP INDEX IF EXISTS notes_agent;
DROP INDEX IF EXISTS notes_type;
DROP INDEX IF EXISTS notes_session;
DROP INDEX IF EXISTS notes_timestamp;
CREATE INDEX IF NOT EXISTS notes_agent_newest
  ON notes(agent, timestamp DESC, path);
CREATE INDEX IF NOT EXISTS notes_type_newest
  ON notes(type, timestamp DESC, path);
CREATE INDEX IF NOT EXISTS notes_session_newest
  ON notes(session, timestamp DESC, path);
CREATE INDEX IF NOT EXISTS notes_newest ON notes(timestamp DESC, path);
-- Each tag row repeats its note's timestamp and path, so a listing by tag
-- reads note_tags_newest in order and stops at the limit.
CREATE TABLE IF NOT EXISTS note_tags(
  tag TEXT NOT NULL, note_id INTEGER NOT NULL,
  timestamp TEXT NOT NULL, path TEXT NOT NULL,
  PRIMARY KEY(tag, note_id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS note_tags_note ON note_tags(note_id);
CREATE INDEX IF NOT EXISTS note_tags_newest
  ON note_tags(tag, timestamp DESC, path);
CREATE VIRTUAL TABLE IF NOT EXISTS note_fts
  USING fts5(text, tokenize = 'porter unicode61');
CREATE TABLE IF NOT EXISTS dirs(
  path TEXT PRIMARY KEY, mtime_ns INTEGER NOT NULL) WITHOUT ROWID;
)sql";

std::string ToJsonList(const std::vector<std::string>& v) {
  return text::DumpJson(nlohmann::json(v));
}

std::vector<std::string> FromJsonList(const std::string& text) {
  nlohmann::json j = ctxkit::text::ParseJsonOrDiscarded(text);
  std::vector<std::string> out;
  if (!j.is_array()) return out;
  for (const auto& item : j) {
    if (item.is_string()) out.push_back(item.get<std::string>());
  }
  return out;
}

constexpr char kColumns[] =
    "n.path, n.dir, n.agent, n.session, n.type, n.timestamp, n.tags, "
    "n.links, n.mtime_ns, n.size, n.hash, n.ref, n.summary";

IndexedNote ReadRow(const Query& q) {
  IndexedNote n;
  n.path = q.Text(0);
  n.dir = q.Text(1);
  n.header.agent = q.Text(2);
  n.header.session_id = q.Text(3);
  n.header.type = q.Text(4);
  n.header.timestamp = q.Text(5);
  n.header.tags = FromJsonList(q.Text(6));
  n.header.links = FromJsonList(q.Text(7));
  n.mtime_ns = q.Int(8);
  n.size = q.Int(9);
  n.hash = q.Text(10);
  n.ref = q.Text(11);
  n.summary = q.Text(12);
  return n;
}

// An index made before note_tags repeated each note's timestamp and path
// gets its tag rows again, from the notes' own tag lists.
Status UpgradeTagRows(SqliteDb* db) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db->Prepare("SELECT (SELECT count(*) FROM sqlite_master WHERE "
                          "name = 'note_tags'), (SELECT count(*) FROM "
                          "pragma_table_info('note_tags') WHERE name = "
                          "'timestamp')"));
  CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
  const bool old_rows = row && q->Int(0) == 1 && q->Int(1) == 0;
  q.reset();
  if (!old_rows) return Status::Ok();
  storage::WriteTransaction txn(db);
  CTXKIT_RETURN_IF_ERROR(txn.Begin());
  CTXKIT_RETURN_IF_ERROR(db->Exec("DROP TABLE note_tags;"));
  CTXKIT_RETURN_IF_ERROR(db->Exec(kSchema));
  CTXKIT_RETURN_IF_ERROR(
      db->Exec("INSERT OR IGNORE INTO note_tags(tag, note_id, timestamp, path) "
               "SELECT j.value, n.id, n.timestamp, n.path FROM notes n, "
               "json_each(n.tags) j WHERE j.type = 'text';"));
  return txn.Commit();
}

}  // namespace

Result<std::unique_ptr<NoteIndex>> NoteIndex::Open(const std::string& path) {
  CTXKIT_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> db,
                          SqliteDb::Open(path, kBusyTimeoutMs));
  // Derived data: a crash may lose the last commits, never corrupt them.
  CTXKIT_RETURN_IF_ERROR(db->EnableWal());
  CTXKIT_RETURN_IF_ERROR(db->Exec("PRAGMA synchronous=NORMAL;"));
  CTXKIT_RETURN_IF_ERROR(UpgradeTagRows(db.get()));
  CTXKIT_RETURN_IF_ERROR(db->Exec(kSchema));
  return std::unique_ptr<NoteIndex>(new NoteIndex(std::move(db)));
}

Result<std::optional<IndexedNote>> NoteIndex::Get(std::string_view path) {
  static const std::string sql =
      std::string("SELECT ") + kColumns + " FROM notes n WHERE n.path = ?";
  CTXKIT_ASSIGN_OR_RETURN(auto q, db_->Prepare(sql.c_str()));
  q->BindText(1, path);
  CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
  if (!row) return std::optional<IndexedNote>();
  return std::optional<IndexedNote>(ReadRow(*q));
}

Result<std::map<std::string, std::pair<int64_t, int64_t>>>
NoteIndex::StampsInDir(std::string_view dir) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q,
      db_->Prepare("SELECT path, mtime_ns, size FROM notes WHERE dir = ?"));
  q->BindText(1, dir);
  std::map<std::string, std::pair<int64_t, int64_t>> out;
  while (true) {
    CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    out[q->Text(0)] = {q->Int(1), q->Int(2)};
  }
  return out;
}

Status NoteIndex::Put(const IndexedNote& n, std::string_view text) {
  CTXKIT_RETURN_IF_ERROR(Remove(n.path));
  {
    CTXKIT_ASSIGN_OR_RETURN(
        auto q, db_->Prepare("INSERT INTO notes(path, dir, agent, session, "
                             "type, timestamp, tags, links, mtime_ns, size, "
                             "hash, ref, summary) VALUES "
                             "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"));
    std::string tags = ToJsonList(n.header.tags);
    std::string links = ToJsonList(n.header.links);
    q->BindText(1, n.path)
        .BindText(2, n.dir)
        .BindText(3, n.header.agent)
        .BindText(4, n.header.session_id)
        .BindText(5, n.header.type)
        .BindText(6, n.header.timestamp)
        .BindText(7, tags)
        .BindText(8, links)
        .Bind(9, n.mtime_ns)
        .Bind(10, n.size)
        .BindText(11, n.hash)
        .BindText(12, n.ref)
        .BindText(13, n.summary);
    CTXKIT_RETURN_IF_ERROR(q->Run());
  }
  int64_t id = db_->LastInsertRowId();
  {
    CTXKIT_ASSIGN_OR_RETURN(
        auto q,
        db_->Prepare("INSERT INTO note_fts(rowid, text) VALUES (?, ?)"));
    q->Bind(1, id).BindText(2, text);
    CTXKIT_RETURN_IF_ERROR(q->Run());
  }
  for (const std::string& tag : n.header.tags) {
    CTXKIT_ASSIGN_OR_RETURN(
        auto q, db_->Prepare("INSERT OR IGNORE INTO note_tags(tag, note_id, "
                             "timestamp, path) VALUES (?, ?, ?, ?)"));
    q->BindText(1, tag)
        .Bind(2, id)
        .BindText(3, n.header.timestamp)
        .BindText(4, n.path);
    CTXKIT_RETURN_IF_ERROR(q->Run());
  }
  return Status::Ok();
}

Status NoteIndex::SetStamp(std::string_view path, int64_t mtime_ns,
                           int64_t size) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q,
      db_->Prepare("UPDATE notes SET mtime_ns = ?, size = ? WHERE path = ?"));
  q->Bind(1, mtime_ns).Bind(2, size).BindText(3, path);
  return q->Run();
}

Status NoteIndex::Remove(std::string_view path) {
  int64_t id = 0;
  {
    CTXKIT_ASSIGN_OR_RETURN(
        auto q, db_->Prepare("SELECT id FROM notes WHERE path = ?"));
    q->BindText(1, path);
    CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) return Status::Ok();
    id = q->Int(0);
  }
  for (const char* sql : {"DELETE FROM note_fts WHERE rowid = ?",
                          "DELETE FROM note_tags WHERE note_id = ?",
                          "DELETE FROM notes WHERE id = ?"}) {
    CTXKIT_ASSIGN_OR_RETURN(auto q, db_->Prepare(sql));
    q->Bind(1, id);
    CTXKIT_RETURN_IF_ERROR(q->Run());
  }
  return Status::Ok();
}

Result<std::map<std::string, int64_t>> NoteIndex::Dirs() {
  CTXKIT_ASSIGN_OR_RETURN(auto q,
                          db_->Prepare("SELECT path, mtime_ns FROM dirs"));
  std::map<std::string, int64_t> out;
  while (true) {
    CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    out[q->Text(0)] = q->Int(1);
  }
  return out;
}

Status NoteIndex::SetDir(std::string_view dir, int64_t mtime_ns) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db_->Prepare(
                  "INSERT OR REPLACE INTO dirs(path, mtime_ns) VALUES (?, ?)"));
  q->BindText(1, dir).Bind(2, mtime_ns);
  return q->Run();
}

Status NoteIndex::RemoveDir(std::string_view dir) {
  CTXKIT_ASSIGN_OR_RETURN(
      auto q, db_->Prepare("DELETE FROM dirs WHERE path = ? OR "
                           "substr(path, 1, length(?) + 1) = ? || '/'"));
  q->BindText(1, dir).BindText(2, dir).BindText(3, dir);
  return q->Run();
}

namespace {

// The filter whose note ids a filtered text search may read first, as a
// set to check its matches against: the first given of session, agent,
// first tag and type (roughly the most selective first). kNone: no filter.
NoteFilter IdSetField(const NoteQuery& query) {
  if (!query.session.empty()) return NoteFilter::kSession;
  if (!query.agent.empty()) return NoteFilter::kAgent;
  if (!query.tags.empty()) return NoteFilter::kTag;
  if (!query.type.empty()) return NoteFilter::kType;
  return NoteFilter::kNone;
}

// The ids of the notes `field`'s filter keeps, from one covering index; one
// '?' for the value.
const char* IdsSql(NoteFilter field) {
  switch (field) {
    case NoteFilter::kSession:
      return "SELECT id FROM notes WHERE session = ?";
    case NoteFilter::kAgent:
      return "SELECT id FROM notes WHERE agent = ?";
    case NoteFilter::kTag:
      return "SELECT note_id FROM note_tags WHERE tag = ?";
    case NoteFilter::kType:
      return "SELECT id FROM notes WHERE type = ?";
    case NoteFilter::kNone:
      break;
  }
  return "";
}

const std::string& FieldValue(const NoteQuery& query, NoteFilter field) {
  switch (field) {
    case NoteFilter::kSession:
      return query.session;
    case NoteFilter::kAgent:
      return query.agent;
    case NoteFilter::kTag:
      return query.tags.front();
    case NoteFilter::kType:
    case NoteFilter::kNone:
      break;
  }
  return query.type;
}

// The conditions of `query` on notes `n` other than text and other than
// `done`'s (for kTag, the first tag's), which the caller applies its own
// way; each " AND ..." with one '?'.
std::string FilterSql(const NoteQuery& query, NoteFilter done) {
  std::string sql;
  if (!query.agent.empty() && done != NoteFilter::kAgent)
    sql += " AND n.agent = ?";
  if (!query.type.empty() && done != NoteFilter::kType)
    sql += " AND n.type = ?";
  if (!query.session.empty() && done != NoteFilter::kSession) {
    sql += " AND n.session = ?";
  }
  for (size_t i = done == NoteFilter::kTag ? 1 : 0; i < query.tags.size();
       ++i) {
    sql += " AND n.id IN (SELECT note_id FROM note_tags WHERE tag = ?)";
  }
  return sql;
}

// Binds FilterSql's parameters from `*i` on.
void BindFilter(const NoteQuery& query, NoteFilter done, Query* q, int* i) {
  if (!query.agent.empty() && done != NoteFilter::kAgent) {
    q->BindText((*i)++, query.agent);
  }
  if (!query.type.empty() && done != NoteFilter::kType) {
    q->BindText((*i)++, query.type);
  }
  if (!query.session.empty() && done != NoteFilter::kSession) {
    q->BindText((*i)++, query.session);
  }
  for (size_t t = done == NoteFilter::kTag ? 1 : 0; t < query.tags.size();
       ++t) {
    q->BindText((*i)++, query.tags[t]);
  }
}

// Text matches up to which a filtered search joins every match with its
// note (~1.3 µs each; < 2 ms in all) rather than count a filter's ids.
constexpr int64_t kFewMatches = 1000;
// Joining a match with its note costs ~1.3 µs; putting one id of the
// filter into the set the matches are checked against ~0.15 µs. So the
// set pays off while it holds fewer ids than 8 per match.
constexpr int64_t kFilterIdsPerMatch = 8;

}  // namespace

Result<NoteFilter> NoteIndex::IdSetFilter(const NoteQuery& query,
                                          const std::string& match) {
  const NoteFilter field = IdSetField(query);
  if (field == NoteFilter::kNone) return NoteFilter::kNone;
  CTXKIT_ASSIGN_OR_RETURN(
      auto count,
      db_->Prepare("SELECT count(*) FROM note_fts WHERE note_fts MATCH ?"));
  count->BindText(1, match);
  CTXKIT_ASSIGN_OR_RETURN(bool row, count->Step());
  const int64_t matches = row ? count->Int(0) : 0;
  if (matches <= kFewMatches) return NoteFilter::kNone;
  // Count the filter's notes only as far as the choice needs.
  const int64_t enough = kFilterIdsPerMatch * matches;
  CTXKIT_ASSIGN_OR_RETURN(
      auto ids, db_->PrepareDynamic("SELECT count(*) FROM (" +
                                    std::string(IdsSql(field)) + " LIMIT ?)"));
  ids->BindText(1, FieldValue(query, field)).Bind(2, enough + 1);
  CTXKIT_ASSIGN_OR_RETURN(row, ids->Step());
  return row && ids->Int(0) <= enough ? field : NoteFilter::kNone;
}

Result<std::vector<IndexHit>> NoteIndex::Search(const NoteQuery& query,
                                                const std::string& match) {
  const bool filtered_text =
      !match.empty() && IdSetField(query) != NoteFilter::kNone;
  NoteFilter id_set = NoteFilter::kNone;
  if (filtered_text) {
    CTXKIT_ASSIGN_OR_RETURN(id_set, IdSetFilter(query, match));
  }
  const bool by_tag = match.empty() && !query.tags.empty();
  std::string sql = std::string("SELECT ") + kColumns;
  if (filtered_text) {
    // BM25 only for the matches that pass the filters: FTS5's own
    // ORDER BY rank would rank every match before the join filters them.
    // Matches first (CROSS JOIN), then the id set if any (the unary +
    // keeps FTS5 from running one full-text query per id), then the rest.
    sql +=
        ", -bm25(note_fts) AS score, snippet(note_fts, 0, '[', ']', '...', "
        "24) FROM note_fts CROSS JOIN notes n ON n.id = note_fts.rowid "
        "WHERE note_fts MATCH ?";
    if (id_set != NoteFilter::kNone) {
      sql += std::string(" AND +note_fts.rowid IN (") + IdsSql(id_set) + ")";
    }
    sql += FilterSql(query, id_set) + " ORDER BY score DESC, n.id LIMIT ?";
  } else if (!match.empty()) {
    sql +=
        ", CAST(-note_fts.rank AS TEXT), snippet(note_fts, 0, '[', ']', "
        "'...', 24) FROM note_fts JOIN notes n ON n.id = note_fts.rowid "
        "WHERE note_fts MATCH ? ORDER BY note_fts.rank LIMIT ?";
  } else if (by_tag) {
    // Newest first through the first tag's rows (note_tags_newest).
    sql +=
        ", 0, '' FROM note_tags t JOIN notes n ON n.id = t.note_id "
        "WHERE t.tag = ?" +
        FilterSql(query, NoteFilter::kTag) +
        " ORDER BY t.timestamp DESC, t.path LIMIT ?";
  } else {
    sql += ", 0, '' FROM notes n WHERE 1" +
           FilterSql(query, NoteFilter::kNone) +
           " ORDER BY n.timestamp DESC, n.path LIMIT ?";
  }
  CTXKIT_ASSIGN_OR_RETURN(auto q, db_->PrepareDynamic(sql));
  int i = 1;
  if (!match.empty()) q->BindText(i++, match);
  if (id_set != NoteFilter::kNone) q->BindText(i++, FieldValue(query, id_set));
  if (by_tag) q->BindText(i++, query.tags.front());
  BindFilter(query, by_tag ? NoteFilter::kTag : id_set, q.get(), &i);
  q->Bind(i++, static_cast<int64_t>(query.limit));
  std::vector<IndexHit> out;
  while (true) {
    CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    IndexHit hit;
    hit.note = ReadRow(*q);
    // BM25 is lower (more negative) for better matches; negated.
    hit.score = match.empty() ? 0.0 : std::strtod(q->Text(13).c_str(), nullptr);
    hit.snippet = match.empty() ? hit.note.summary : q->Text(14);
    out.push_back(std::move(hit));
  }
  return out;
}

Result<std::vector<IndexedNote>> NoteIndex::All() {
  static const std::string sql =
      std::string("SELECT ") + kColumns + " FROM notes n ORDER BY n.path";
  CTXKIT_ASSIGN_OR_RETURN(auto q, db_->Prepare(sql.c_str()));
  std::vector<IndexedNote> out;
  while (true) {
    CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    out.push_back(ReadRow(*q));
  }
  return out;
}

Result<uint64_t> NoteIndex::Count() {
  CTXKIT_ASSIGN_OR_RETURN(auto q, db_->Prepare("SELECT count(*) FROM notes"));
  CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
  return row ? static_cast<uint64_t>(q->Int(0)) : 0;
}

}  // namespace ctxkit::notes
