// Every path the store writes, named in one place (like LevelDB's
// db/filename.h). Each function takes the store home (an absolute path
// without a trailing '/', as ResolveHome returns it) and only joins names:
// nothing is created here. No other code spells a file or directory name
// under the home; docs/storage-format.md describes each one (writer, format,
// primary or derived, durability). Layers above storage/ include this
// header for their own files.

#ifndef CTXKIT_OS_FILENAME_H_
#define CTXKIT_OS_FILENAME_H_

#include <string>
#include <string_view>

namespace ctxkit::storage {

// The durable store (storage/): objects, versions, small contents.
std::string DatabasePath(std::string_view home);  // <home>/ctxkit.db
// Large contents, <home>/blobs/<hh>/<sha256 hex> (BlobFiles lays it out).
std::string BlobDir(std::string_view home);  // <home>/blobs
// The shared change counters every process maps.
std::string SequencePath(std::string_view home);  // <home>/ctxkit.seq
// Where each Store instance opens its unnamed O_TMPFILE spill file.
std::string SpillDir(std::string_view home);  // <home>/spill

// Session pools of stores written before schema v2; imported into the
// store database on open, then renamed to <home>/sessions.db.imported.
std::string SessionsDbPath(std::string_view home);  // <home>/sessions.db
// The find_relevant index (index/), derived.
std::string IndexDbPath(std::string_view home);  // <home>/index.db
// Cached summaries (summary/), derived.
std::string SummaryCacheDir(std::string_view home);  // <home>/cache/summaries

// Note search indexes (notes/), derived: one per notes root, named by the
// first 16 hex digits of the SHA-256 of the root's real path.
std::string NotesIndexDir(std::string_view home);  // <home>/notes
std::string NotesIndexPath(std::string_view home,
                           std::string_view root_hash);  // <dir>/<hash>.db
// The JSONL execution log of earlier builds (notes/), imported once into
// the store's engine and renamed execution.jsonl.imported.
std::string ExecutionLogPath(std::string_view home);  // <home>/logs/...jsonl

// The watch list and its locks (watch/).
std::string WatchDir(std::string_view home);  // <home>/watch
// The list lives in the store's engine (watch/watch_list.h); an earlier
// build's file is imported once and renamed watches.json.imported.
inline constexpr char kWatchListFileName[] = "watches.json";
std::string WatchListPath(std::string_view home);  // <watch>/watches.json
// Rewritten after each change to the list: a running watcher on this
// machine reloads the list when it sees the file replaced.
inline constexpr char kWatchListHintName[] = "watches.changed";
// Held while the list is read-modified-written.
std::string WatchListLockPath(std::string_view home);  // <watch>/watches.lock
// Held by the one running watcher daemon.
std::string WatchRunLockPath(std::string_view home);  // <watch>/run.lock

// Sub-agent manifests (spawn/), one per child agent id.
std::string SpawnDir(std::string_view home);  // <home>/spawn
std::string SpawnManifestPath(
    std::string_view home,
    std::string_view child_agent);  // <spawn>/<id>.json

// The defaults for the two spec directories when the store home was chosen
// explicitly (--home, CTXKIT_HOME) and the spec's own variable is unset, so
// that an explicit home keeps everything the store writes under it.
std::string HomeNotesRoot(std::string_view home);      // <home>/notes-root
std::string HomeToolOutputDir(std::string_view home);  // <home>/tool-outputs

// Lock files inside the spec directories (outside the home).
std::string NotesLockPath(std::string_view notes_root);  // .ctxkit-notes.lock
std::string ToolOutputLockPath(
    std::string_view tool_output_dir);  // .ctxkit-capture.lock

}  // namespace ctxkit::storage

#endif  // CTXKIT_OS_FILENAME_H_
