// Agent context notes: markdown files with YAML frontmatter that agents
// write, update, link and search, and that other programs read directly
// (rg, ls, editors). The files are the source of truth; the store indexes
// them.
//
//   auto book = ctxkit::Notebook::Open(view, {.root = "/path/to/notes"});
//   ctxkit::NewNote n{.agent = "code-reviewer",
//                     .type = ctxkit::NoteType::kFinding,
//                     .tags = {"security"}, .slug = "auth vulnerability",
//                     .body = "# Auth\n\nThe token is not checked.\n"};
//   auto path = (*book)->Add(n);   //
//   "code-reviewer/20260221T143022-auth-vulnerability.md" ctxkit::NoteQuery
//   q{.tags = {"security"}, .text = "token"}; auto hits = (*book)->Search(q);
//
// Layout (docs/notes.md has the byte-exact format):
//
//   <root>/<agent>/<YYYYMMDDTHHMMSS>-<slug>.md              no session
//   <root>/<agent>/<session>/<YYYYMMDDTHHMMSS>-<slug>.md    with a session
//
// A file is "---\n" + YAML frontmatter (agent, sessionId, timestamp, type,
// tags, optional links) + "---\n\n" + markdown body. Updates never delete:
// they append "- <ISO> [agent]: message" to the body's "## Changelog"
// section, adding it when missing. Two notes written in the same second
// with the same slug never collide (the second is "<ts>-<slug>-2.md"), also
// across processes (created with link(2), which fails rather than replaces).
//
// Safety. Agent names and session ids must be 1-48 / 1-56 bytes of
// [A-Za-z0-9._-] starting with a letter or digit (InvalidArgument
// otherwise); slugs are slugified (lower-case ASCII words joined by '-').
// Paths given to Update/Show/Link/Supersede are relative to the root (or
// absolute inside it), may not contain "." or ".." components, and are
// opened component by component with O_NOFOLLOW: no symlink is followed
// below the root, so no operation reads or writes outside it.
//
// Index. Every note is also a store object: key "note:<relative path>" in
// the global scope, type text, tags "kind:note", "agent:<a>", "type:<t>",
// "session:<s>" (when set) and "tag:<x>" per tag, one version per distinct
// content. Search is answered from a full-text index (SQLite FTS5, BM25)
// kept in <store home>/notes/<root hash>.db, never by walking files. Before
// each search the index is brought up to date cheaply: directories whose
// mtime changed are re-listed (new, removed and renamed notes, and files
// rewritten by rename as editors and `sed -i` do); every note a search
// returns is checked by mtime and size (content hash when the stamp is too
// recent to trust) and re-indexed as a new version when another program
// changed it. Scan(true) checks every file (`ctxkit notes scan --full`).
//
// Concurrency. Writers in several processes are serialized by an flock on
// <root>/.ctxkit-notes.lock; files are replaced by atomic rename, so readers
// see the old or the new file, never a mix. A Notebook is thread-safe.
//
// Errors. No exceptions. InvalidArgument for bad names, types, tags,
// messages or paths; NotFound for a missing note; Corruption for a note
// whose frontmatter cannot be parsed when it must be changed; IoError for
// the operating system. A failed operation leaves the files and the store
// as they were.

#ifndef CTXKIT_NOTES_H_
#define CTXKIT_NOTES_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/ref.h"
#include "ctxkit/status.h"
#include "ctxkit/store.h"

namespace ctxkit {

// The recommended retention of notes, reported by `ctxkit --describe` as
// "contextRetention", and the default of `ctxkit notes gc --older-than`.
inline constexpr std::string_view kDefaultContextRetention = "30d";

// What decides the notes root. The library reads no environment variable:
// the caller passes their values (the CLI and MCP server do, from the
// variables named here).
struct NotesRootSources {
  std::string flag;           // An explicit root (e.g. --root); wins.
  std::string context_store;  // $SFA_CONTEXT_STORE.
  std::string config_file;    // $SFA_CONFIG: the shared config file.
  std::string config_home;    // $XDG_CONFIG_HOME.
  std::string user_home;      // $HOME: expands "~/", spec defaults.
  // Non-empty: the root when neither flag, context_store nor config_file's
  // contextStore.path names one, and the implicit config file under
  // config_home or ~/.config is not consulted. The faces set it to
  // <store home>/notes-root when the store home was given explicitly, so
  // that everything the store writes stays under that home.
  std::string default_root;
};

// The notes root: flag, else context_store, else `contextStore.path` of
// the shared config file (config_file, else
// <config_home>/single-file-agents/config.json, else
// ~/.config/single-file-agents/config.json; JSON or YAML), else
// default_root, else ~/.local/share/single-file-agents/context. A leading
// "~/" is expanded with user_home. The directory is not created here
// (Notebook::Open does). InvalidArgument when no candidate can be
// determined or the config file is malformed.
Result<std::string> ResolveNotesRoot(const NotesRootSources& sources);

// Parses "30d", "12h", "90m", "45s", "2w", "0s" into seconds (0 to 100
// years). A caller for which 0 makes no sense refuses it itself, saying why.
Result<int64_t> ParseRetention(std::string_view text);

enum class NoteType : uint8_t {
  kFinding = 0,
  kDecision,
  kArtifact,
  kReference,
  kSummary,
};
// "finding", "decision", "artifact", "reference", "summary".
std::string_view NoteTypeName(NoteType type);
// The inverse; InvalidArgument naming the allowed values.
Result<NoteType> ParseNoteType(std::string_view name);

// Name rules (see Safety above); InvalidArgument saying what is wrong.
Status ValidateAgentName(std::string_view agent);
Status ValidateNoteSessionId(std::string_view session_id);
// Tags: 1-60 bytes of UTF-8 letters/digits and "._+/-" (ASCII) or any
// non-ASCII character; they are written as YAML flow-sequence items.
Status ValidateNoteTag(std::string_view tag);
// "Auth Vulnerability!" -> "auth-vulnerability": lower-case ASCII letters
// and digits, other runs become one '-', at most 64 bytes. InvalidArgument
// when nothing is left.
Result<std::string> Slugify(std::string_view text);

// The frontmatter. Strings are as written in the file.
struct NoteHeader {
  std::string agent;
  std::string session_id;  // "" when the note was written without one.
  std::string timestamp;   // ISO 8601 UTC, "2026-02-21T14:30:22Z".
  std::string type;        // One of NoteTypeName (others are kept as read).
  std::vector<std::string> tags;
  std::vector<std::string> links;  // Root-relative paths of other notes.
};

struct Note {
  std::string path;  // Relative to the root, '/'-separated.
  std::string file;  // Absolute path.
  NoteHeader header;
  std::string body;     // The markdown after the frontmatter.
  std::string content;  // The whole file.
  // What does not conform to the format (missing or malformed fields);
  // empty for a well-formed note.
  std::vector<std::string> problems;
};

struct NewNote {
  std::string agent;       // REQUIRED.
  std::string session_id;  // "": written in the agent's directory.
  NoteType type = NoteType::kFinding;
  std::vector<std::string> tags;
  std::vector<std::string> links;  // Must name existing notes.
  std::string slug;                // Free text; slugified. REQUIRED.
  std::string body;                // Markdown; a final newline is added.
};

struct NoteQuery {
  std::string agent;              // "": any.
  std::string type;               // "": any; else one of NoteTypeName.
  std::vector<std::string> tags;  // Notes carrying every one of these.
  std::string session;            // "": any.
  // Free text: notes containing every word (porter-stemmed, as SQLite FTS5
  // matches), ranked by BM25. Empty: newest first.
  std::string text;
  size_t limit = 20;  // 1-10,000.
};

struct NoteHit {
  std::string path;  // Relative to the root.
  std::string file;  // Absolute path.
  NoteHeader header;
  // Higher is better: the negated BM25 value; 0 without text.
  double score = 0;
  // Text queries: the first body line holding a query word, with
  // [brackets] around each (the frontmatter is never shown), else the start
  // of the body; without text, the start of the body. At most a few hundred
  // bytes.
  std::string snippet;
  // The store object of the version indexed ("" when the path is too long
  // to be a key).
  std::string ref;
};

struct ScanStats {
  uint64_t directories_listed = 0;
  uint64_t files_checked = 0;
  uint64_t notes_indexed = 0;  // New notes or new versions.
  uint64_t notes_removed = 0;  // Files gone since the last scan.
  uint64_t notes_total = 0;
};

struct GcEntry {
  std::string path;
  int64_t age_seconds = 0;
};

struct GcReport {
  bool applied = false;
  std::vector<GcEntry> expired;  // Removed when applied, else would be.
  uint64_t kept = 0;
};

struct NotebookOptions {
  // The notes root, required (InvalidArgument when empty; see
  // ResolveNotesRoot). Created with parents when missing.
  std::string root;
};

class NotebookImpl;

class Notebook {
 public:
  // Opens the notes under options.root, indexing into `view`'s store. The
  // view must outlive the Notebook.
  static Result<std::unique_ptr<Notebook>> Open(View& view,
                                                const NotebookOptions& options);
  ~Notebook();
  Notebook(const Notebook&) = delete;
  Notebook& operator=(const Notebook&) = delete;

  // The root directory, symlinks resolved.
  const std::string& root() const;

  // Writes a new note and returns its root-relative path. The file is
  // complete (fsynced, renamed into place) and indexed when this returns.
  Result<std::string> Add(const NewNote& note);

  // Appends "- <now> [agent]: message" to the note's changelog. With
  // `new_body`, the body before the changelog is replaced by it (the old
  // content stays in the store as an earlier version); the body may not
  // contain a "## Changelog" heading of its own. The message: 1-1000
  // bytes, one line.
  Status Update(std::string_view path, std::string_view agent,
                std::string_view message,
                const std::optional<std::string>& new_body = std::nullopt);

  // Adds `target` (an existing note) to the note's links, with a changelog
  // line "- <now> [agent]: Linked to <target>". Linking twice is a no-op.
  Status Link(std::string_view path, std::string_view target,
              std::string_view agent);

  // `new_path` links to `old_path` ("Supersedes <old>" in its changelog),
  // and `old_path` gets "Marked as superseded, see <new>". Both files are
  // changed or neither.
  Status Supersede(std::string_view old_path, std::string_view new_path,
                   std::string_view agent);

  // Reads and parses one note (tolerant: see Note::problems).
  Result<Note> Show(std::string_view path);

  // Matching notes, best first (see NoteQuery).
  Result<std::vector<NoteHit>> Search(const NoteQuery& query);

  // Brings the index up to date: directories whose mtime changed
  // (full=false), or every file (full=true).
  Result<ScanStats> Scan(bool full);

  // Notes whose last activity (the later of the frontmatter timestamp and
  // the file's mtime) is more than `older_than_seconds` ago. With `apply`
  // they are deleted, empty session directories removed, and their store
  // objects removed (a tombstone; history stays).
  Result<GcReport> Gc(int64_t older_than_seconds, bool apply);

  // The root-relative form of a path argument (relative to the root, or
  // absolute inside it); InvalidArgument when it escapes or is malformed.
  Result<std::string> RelativePath(std::string_view path) const;

 private:
  explicit Notebook(std::unique_ptr<NotebookImpl> impl);
  std::unique_ptr<NotebookImpl> impl_;
};

// The execution log: one JSON line per invocation, about 500 bytes, with
// summaries capped (docs/notes.md). It lives in the store's engine (an
// append-only log, storage::Backend::WriteRecords), so every home that
// opens the store, on any machine, reads the same log; entries from
// several processes never interleave or tear. The file earlier builds
// kept, <store home>/logs/execution.jsonl, is imported once on first use
// and renamed execution.jsonl.imported.
struct ExecutionLogEntry {
  std::string timestamp;  // ISO 8601 UTC.
  std::string agent;
  std::string session_id;
  std::string command;  // "notes add", "tools save", ...
  std::string status;   // "ok" or "error".
  int exit_code = 0;
  int64_t duration_ms = 0;
  std::string input;   // Capped at kLogSummaryBytes.
  std::string output;  // Capped at kLogSummaryBytes.
  // meta.contextFiles: root-relative paths of the notes written.
  std::vector<std::string> context_files;
};

inline constexpr size_t kLogSummaryBytes = 120;
// How many entries a face shows when not told (`ctxkit log`, Node's
// store.executionLog, Python's read_execution_log).
inline constexpr size_t kExecutionLogDefaultLimit = 20;

// Appends one entry (summaries capped, at a UTF-8 boundary, with "...").
// Durable on return. PermissionDenied on a read-only store.
Status AppendExecutionLog(Store& store, const ExecutionLogEntry& entry);

// The last `limit` entries, oldest first; malformed lines are skipped. An
// empty log is empty. Corruption when the file of an earlier build cannot
// be imported.
Result<std::vector<ExecutionLogEntry>> ReadExecutionLog(Store& store,
                                                        size_t limit);

// The JSON object of one entry (one line of the log).
std::string ExecutionLogLine(const ExecutionLogEntry& entry);

}  // namespace ctxkit

#endif  // CTXKIT_NOTES_H_
