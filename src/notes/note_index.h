// The search index of one notes root: a SQLite database (WAL) with one row
// per note file, its tags, an FTS5 table over the whole file text (porter
// stemming, BM25), and the directory mtimes the incremental scan compares.
// Derived data: deleting the file only costs a rescan.

#ifndef CTXKIT_NOTES_NOTE_INDEX_H_
#define CTXKIT_NOTES_NOTE_INDEX_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/notes.h"
#include "ctxkit/status.h"
#include "os/sqlite_db.h"

namespace ctxkit::notes {

// mtime stored for a file or directory whose stamp was too recent to trust
// (it could change again within the file system's timestamp granularity
// without the stamp moving): it never equals a real mtime, so the next
// check looks again.
inline constexpr int64_t kRacyMtime = -1;

struct IndexedNote {
  std::string path;
  std::string dir;  // The directory part of path ("" never occurs).
  NoteHeader header;
  int64_t mtime_ns = 0;
  int64_t size = 0;
  std::string hash;     // Hex SHA-256 of the file.
  std::string ref;      // Store ref of the version indexed, or "".
  std::string summary;  // The start of the body.
};

struct IndexHit {
  IndexedNote note;
  double score = 0;
  std::string snippet;
};

// A filter of a NoteQuery (kTag: its first tag).
enum class NoteFilter { kNone, kSession, kAgent, kTag, kType };

class NoteIndex {
 public:
  static Result<std::unique_ptr<NoteIndex>> Open(const std::string& db_path);

  storage::SqliteDb* db() { return db_.get(); }

  Result<std::optional<IndexedNote>> Get(std::string_view path);
  // path -> (mtime_ns, size) of the notes in `dir`.
  Result<std::map<std::string, std::pair<int64_t, int64_t>>> StampsInDir(
      std::string_view dir);
  // Inserts or replaces a note and its text.
  Status Put(const IndexedNote& note, std::string_view text);
  Status SetStamp(std::string_view path, int64_t mtime_ns, int64_t size);
  Status Remove(std::string_view path);

  // Every directory recorded: path ("" is the root) -> mtime_ns.
  Result<std::map<std::string, int64_t>> Dirs();
  Status SetDir(std::string_view dir, int64_t mtime_ns);
  // Forgets a directory and every directory below it.
  Status RemoveDir(std::string_view dir);

  // `match` is an FTS5 expression, "" for no text condition.
  Result<std::vector<IndexHit>> Search(const NoteQuery& query,
                                       const std::string& match);
  // Every note (path, timestamp, mtime) for housekeeping.
  Result<std::vector<IndexedNote>> All();
  Result<uint64_t> Count();

 private:
  // The filter of `query` whose note ids a search for `match` should read
  // first, as a set its matches are checked against, or NoteFilter::kNone to
  // check each match's note instead: from the number of matches and of the
  // filter's notes.
  Result<NoteFilter> IdSetFilter(const NoteQuery& query,
                                 const std::string& match);

  explicit NoteIndex(std::unique_ptr<storage::SqliteDb> db)
      : db_(std::move(db)) {}
  std::unique_ptr<storage::SqliteDb> db_;
};

}  // namespace ctxkit::notes

#endif  // CTXKIT_NOTES_NOTE_INDEX_H_
