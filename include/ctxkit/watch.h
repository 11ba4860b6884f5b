// File watchers: files on disk mirrored as versioned store objects.
//
//   auto store = ctxkit::Store::Open({});
//   ctxkit::AddWatch(**store, "/src/project");        // indexes it now
//   auto watcher = ctxkit::Watcher::Start(store->get(), {});
//   (*watcher)->Run();                                // until Stop()
//
// Objects. A watched file is the durable object keyed
// "file:<canonical absolute path>" in the global scope, so any view (and
// `ctxkit get file:/abs/path`) reads it. Its type is json for a file whose
// name ends in ".json" and whose content parses as JSON, text otherwise.
// Versions are written with producer WatchOptions::producer.
//
// What makes a version. A file's content is hashed (SHA-256); a new version
// is written only when the hash differs from the content hash of the
// object's latest version, so touching a file or rewriting identical bytes
// writes nothing. A file that disappears gets a deleted state (a tombstone;
// the history stays and static refs still resolve). A file renamed within
// the watched trees keeps its object: same id and history, new key.
// Editors that save by writing a temporary file and renaming it over the
// original produce one new version of the original, never a delete.
//
// Skipped files. Files larger than WatchOptions::max_file_bytes, binary
// files (a NUL byte in the first 8,000 bytes), unreadable files, files
// whose key would be invalid (over 256 bytes, control characters, invalid
// UTF-8) and anything that is not a regular file are not indexed; passes
// report them (WatchReport::skipped). A file that was indexed and becomes
// skipped gets a deleted state, so the store never presents content the
// file no longer has. Symbolic links inside a watched tree are never
// followed (neither to files nor to directories), so nothing outside the
// tree is ever read; a symlink given to AddWatch itself is resolved once.
//
// Catch-up. Changes made while no watcher runs are found by the next pass
// (ScanWatches, Watcher::Start, AddWatch for its own path): every file of
// every watched tree is read and hashed and compared with the store; live
// `file:` objects under a watched root whose file is gone get the deleted
// state. The cost is proportional to the bytes in the watched trees.
//
// Watchers only write store objects. They never activate content, open
// sessions or touch any other key.
//
// The watch list persists in <home>/watch/watches.json (see
// docs/watchers.md), replaced atomically on every change.
//
// Thread safety: the free functions may be called from any thread and any
// process (the watch list is read-modify-written under an exclusive file
// lock). A Watcher is driven by one thread (Run); Stop() may be called from
// any thread or from a signal handler.

#ifndef CTXKIT_WATCH_H_
#define CTXKIT_WATCH_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/progress.h"
#include "ctxkit/status.h"
#include "ctxkit/store.h"

namespace ctxkit {

// What one change did to the store; passed to WatchOptions::on_change.
struct WatchChange {
  enum class Kind : uint8_t {
    kCreated = 0,  // First version of a new object, or a revived one.
    kUpdated,      // A new version of a live object.
    kDeleted,      // The file is gone (or became skipped): deleted state.
    kMoved,        // Same object, new key (from_key -> key).
  };
  Kind kind = Kind::kCreated;
  std::string key;       // "file:<path>" after the change.
  std::string from_key;  // kMoved only.
  uint64_t version = 0;  // The version written (0 for kMoved).
};

// "created", "updated", "deleted", "moved".
std::string_view WatchChangeKindName(WatchChange::Kind kind);

struct SkippedFile {
  std::string path;
  std::string reason;  // "larger than 67108864 bytes", "binary", ...
};

struct WatchOptions {
  // Files larger than this are skipped. 1 byte to 1 GiB.
  uint64_t max_file_bytes = 64ull << 20;
  // A watcher acts on a path once no event touched any watched path for
  // this long, so that the events of one editor save (write a temporary
  // file, rename it over the original) are seen together. While events keep
  // arriving, pending paths are still handled at least every
  // max_settle_ms. 0 to 10,000 ms.
  uint32_t settle_ms = 20;
  uint32_t max_settle_ms = 1000;
  // Recorded as every version's producer.
  std::string producer = "watch";
  // Called after each change is committed, on the thread that made it
  // (the Run thread for a Watcher). Must not call back into the Watcher.
  std::function<void(const WatchChange&)> on_change;
  // Called for each file a pass or watcher does not index (and, in a
  // running Watcher, for each per-file store failure, which does not stop
  // it), on the same thread as on_change.
  std::function<void(const SkippedFile&)> on_skip;
  // Reports of each directory pass of AddWatch and ScanWatches
  // (ctxkit/progress.h): task "reading", counted in files, out of the
  // files a quick walk of the tree counted first (only when `report` is
  // set). A running Watcher's full passes report too.
  ProgressOptions progress;
};

// One entry of the watch list.
struct WatchEntry {
  std::string path;  // Canonical absolute path.
  bool directory = false;
  int64_t added_unix_ns = 0;
};

// What a pass (or a running watcher, so far) did.
struct WatchReport {
  uint64_t files_seen = 0;  // Regular files examined.
  uint64_t created = 0;
  uint64_t updated = 0;
  uint64_t unchanged = 0;
  uint64_t deleted = 0;
  uint64_t moved = 0;
  std::vector<SkippedFile> skipped;
  // Watched roots that do not exist now (their objects were marked
  // deleted); they are watched again once they reappear and a pass runs.
  std::vector<std::string> missing_roots;
};

// Canonicalizes `path` (realpath: absolute, symlinks resolved), adds it to
// the watch list and indexes it at once. NotFound when it does not exist;
// InvalidArgument when it is neither a regular file nor a directory, when
// its key would be invalid, or when it contains or lies inside the store
// home (a store watching itself would never settle); AlreadyExists when it
// is already watched or inside a watched directory. When `report` is given
// it receives what the initial pass did. A failure leaves the watch list
// as it was.
Result<WatchEntry> AddWatch(Store& store, std::string_view path,
                            const WatchOptions& options = {},
                            WatchReport* report = nullptr);

// Removes `path` (canonicalized when it still exists, otherwise made
// absolute lexically) from the watch list. Its objects stay as they are.
// NotFound when it is not in the list.
Status RemoveWatch(Store& store, std::string_view path);

// The watch list, ordered by path.
Result<std::vector<WatchEntry>> ListWatches(Store& store);

// One catch-up pass over every watched path (see Catch-up above).
Result<WatchReport> ScanWatches(Store& store, const WatchOptions& options = {});

class WatcherImpl;

// The foreground daemon: inotify watches on every watched directory (and on
// the parent directory of every watched file, so that a file replaced by
// rename is still seen), plus the watch list itself, so `watch add`/`rm`
// from another process take effect without a restart.
//
// Overflow of the kernel event queue triggers a full catch-up pass. One
// Watcher per store at a time (an exclusive lock on <home>/watch/run.lock).
class Watcher {
 public:
  // Sets up the watches and runs a catch-up pass. FailedPrecondition when
  // another watcher holds the store; ResourceExhausted when the kernel's
  // inotify limits (fs.inotify.max_user_watches / max_user_instances) are
  // reached, with the sysctl to raise them.
  static Result<std::unique_ptr<Watcher>> Start(Store* store,
                                                const WatchOptions& options);

  Watcher(const Watcher&) = delete;
  Watcher& operator=(const Watcher&) = delete;
  ~Watcher();

  // Handles events until Stop() is called; pending changes are applied
  // before it returns. Returns the first store or kernel error that makes
  // watching impossible (a failure on one file is reported in the totals
  // and does not stop the watcher).
  Status Run();

  // Asks Run to return. Async-signal-safe; callable from any thread.
  void Stop();

  // The catch-up pass of Start plus everything Run has done. Call only when
  // Run is not running.
  const WatchReport& totals() const;

 private:
  explicit Watcher(std::unique_ptr<WatcherImpl> impl);
  std::unique_ptr<WatcherImpl> impl_;
};

}  // namespace ctxkit

#endif  // CTXKIT_WATCH_H_
