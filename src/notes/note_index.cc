#include "notes/note_index.h"

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "core/status_macros.h"
#include "text/json_parse.h"

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
  return nlohmann::json(v).dump(-1, ' ', false,
                                nlohmann::json::error_handler_t::replace);
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

Result<std::vector<IndexHit>> NoteIndex::Search(const NoteQuery& query,
                                                const std::string& match) {
  std::string sql = std::string("SELECT ") + kColumns;
  if (!match.empty()) {
    sql +=
        ", CAST(-note_fts.rank AS TEXT), snippet(note_fts, 0, '[', ']', '...', "
        "24) "
        "FROM note_fts JOIN notes n ON n.id = note_fts.rowid "
        "WHERE note_fts MATCH ?";
  } else if (!query.tags.empty()) {
    // Newest first through the first tag's rows (note_tags_newest).
    sql +=
        ", 0, '' FROM note_tags t JOIN notes n ON n.id = t.note_id "
        "WHERE t.tag = ?";
  } else {
    sql += ", 0, '' FROM notes n WHERE 1";
  }
  if (!query.agent.empty()) sql += " AND n.agent = ?";
  if (!query.type.empty()) sql += " AND n.type = ?";
  if (!query.session.empty()) sql += " AND n.session = ?";
  const bool by_tag = match.empty() && !query.tags.empty();
  for (size_t i = by_tag ? 1 : 0; i < query.tags.size(); ++i) {
    sql += " AND n.id IN (SELECT note_id FROM note_tags WHERE tag = ?)";
  }
  if (!match.empty()) {
    sql += " ORDER BY note_fts.rank LIMIT ?";
  } else if (by_tag) {
    sql += " ORDER BY t.timestamp DESC, t.path LIMIT ?";
  } else {
    sql += " ORDER BY n.timestamp DESC, n.path LIMIT ?";
  }
  CTXKIT_ASSIGN_OR_RETURN(auto q, db_->PrepareDynamic(sql));
  int i = 1;
  if (!match.empty()) q->BindText(i++, match);
  if (by_tag) q->BindText(i++, query.tags.front());
  if (!query.agent.empty()) q->BindText(i++, query.agent);
  if (!query.type.empty()) q->BindText(i++, query.type);
  if (!query.session.empty()) q->BindText(i++, query.session);
  for (size_t t = by_tag ? 1 : 0; t < query.tags.size(); ++t) {
    q->BindText(i++, query.tags[t]);
  }
  q->Bind(i++, static_cast<int64_t>(query.limit));
  std::vector<IndexHit> out;
  while (true) {
    CTXKIT_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    IndexHit hit;
    hit.note = ReadRow(*q);
    // FTS5's rank is bm25(), lower (more negative) is better; negated.
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
