// The store side of watching: turns "this path may have changed / is gone /
// moved" into versions, tombstones and renames of `file:` objects, writing
// only when the content hash differs from the latest version's.

#ifndef CTXKIT_WATCH_FILE_INDEXER_H_
#define CTXKIT_WATCH_FILE_INDEXER_H_

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/status.h"
#include "ctxkit/store.h"
#include "ctxkit/watch.h"
#include "watch/file_snapshot.h"

namespace ctxkit::watch {

class FileIndexer {
 public:
  // `options` and `report` must outlive the indexer. Skipped entries beyond
  // kMaxSkippedReported are counted but not listed, so a long-running
  // watcher's report stays bounded.
  FileIndexer(View view, const WatchOptions* options, WatchReport* report)
      : view_(std::move(view)), options_(options), report_(report) {}

  static constexpr size_t kMaxSkippedReported = 1000;

  const WatchOptions& options() const { return *options_; }

  // Learns the live `file:` objects at `path` (a file root) or under it (a
  // directory root) from the store, so that later passes know what to mark
  // deleted.
  Status LoadTracked(std::string_view root, bool directory);

  // Reads `path` and writes a version when its hash differs from the latest
  // version's (reviving a deleted object); marks it deleted when it is gone
  // or no longer indexable. Per-file problems are skips, not errors; the
  // Status is a store failure. Writes are batched (View::SetMany: one
  // commit and fsync for up to kBatchFiles files or kBatchBytes): they
  // reach the store, the report and the listeners at the next Flush, which
  // every other call here and CatchUp's end do first.
  Status Sync(const std::string& path);

  // Writes the batched versions, if any. When the write fails, none is
  // written and each of their paths is also listed as skipped, with the
  // error.
  Status Flush();

  static constexpr size_t kBatchFiles = 1000;
  static constexpr uint64_t kBatchBytes = 32ull << 20;

  // Deleted state for `path` if it is a live object this indexer knows.
  Status MarkGone(const std::string& path);

  // MarkGone for every known object at `dir` or under it.
  Status MarkGoneUnder(const std::string& dir);

  // `from`'s object takes the key of `to` (same id and history), when
  // `from` is known and `to` is not. Returns false (and does nothing) when
  // that does not apply; the caller then syncs both paths instead.
  Result<bool> Move(const std::string& from, const std::string& to);

  // Known live objects: path -> what this indexer last saw of them.
  struct Known {
    std::string hash_hex;  // Empty: not read yet (learned from a listing).
    uint64_t version = 0;
  };
  const std::map<std::string, Known>& known() const { return known_; }
  bool IsKnown(const std::string& path) const { return known_.count(path); }

  void AddSkipped(std::string path, std::string reason);

 private:
  // The latest present version's hash and number, or empty when there is
  // no live version. Uses the cached hash when the store's latest version
  // is still the one this indexer saw.
  Status LatestHash(const std::string& key, std::string* hash,
                    uint64_t* version, bool* existed);
  void Notify(WatchChange::Kind kind, std::string key, std::string from,
              uint64_t version);

  // A version Sync will write at the next Flush.
  struct Pending {
    std::string path;
    std::string key;
    FileSnapshot snap;
    bool update = false;  // The object had a live version.
  };

  View view_;
  const WatchOptions* options_;
  WatchReport* report_;
  std::map<std::string, Known> known_;
  std::vector<Pending> pending_;
  std::set<std::string> pending_paths_;
  uint64_t pending_bytes_ = 0;
};

}  // namespace ctxkit::watch

#endif  // CTXKIT_WATCH_FILE_INDEXER_H_
