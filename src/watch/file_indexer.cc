#include "watch/file_indexer.h"

#include <utility>
#include <vector>

#include "core/status_macros.h"
#include "watch/file_snapshot.h"
#include "watch/watch_paths.h"

namespace ctxkit::watch {

namespace {

// Watched files always live in the global scope, whatever view writes.
LookupOptions Global() {
  LookupOptions o;
  o.scope = "global";
  return o;
}

}  // namespace

void FileIndexer::AddSkipped(std::string path, std::string reason) {
  SkippedFile skip{std::move(path), std::move(reason)};
  if (options_->on_skip) options_->on_skip(skip);
  if (report_->skipped.size() < kMaxSkippedReported) {
    report_->skipped.push_back(std::move(skip));
  }
}

void FileIndexer::Notify(WatchChange::Kind kind, std::string key,
                         std::string from, uint64_t version) {
  if (!options_->on_change) return;
  WatchChange c;
  c.kind = kind;
  c.key = std::move(key);
  c.from_key = std::move(from);
  c.version = version;
  options_->on_change(c);
}

Status FileIndexer::LoadTracked(std::string_view root, bool directory) {
  ListFilter filter;
  filter.scope = "global";
  filter.key_prefix = FileKey(root);
  if (directory && root != "/") filter.key_prefix += '/';
  filter.limit = 10000;
  for (;;) {
    CTXKIT_ASSIGN_OR_RETURN(ListPage page, view_.List(filter));
    for (const ObjectMeta& meta : page.items) {
      std::string_view path = PathOfKey(meta.key);
      if (!directory && path != root) continue;
      // Keep a hash learned earlier if the version did not move.
      Known& k = known_[std::string(path)];
      if (k.version != meta.version) k = Known{"", meta.version};
    }
    if (page.next_cursor.empty()) break;
    filter.cursor = page.next_cursor;
  }
  return Status::Ok();
}

Status FileIndexer::LatestHash(const std::string& key, std::string* hash,
                               uint64_t* version, bool* existed) {
  hash->clear();
  *version = 0;
  *existed = false;
  auto it = known_.find(std::string(PathOfKey(key)));
  if (it != known_.end() && !it->second.hash_hex.empty()) {
    // Another process may have written since; the store's latest version
    // number says whether the cached hash is still the latest content's.
    Result<ObjectMeta> meta = view_.Stat(key, Global());
    if (meta.ok() && meta->version == it->second.version) {
      *hash = it->second.hash_hex;
      *version = meta->version;
      *existed = true;
      return Status::Ok();
    }
    if (!meta.ok() && !meta.status().IsNotFound()) return meta.status();
  }
  Result<std::vector<VersionMeta>> versions = view_.Versions(key, Global());
  if (!versions.ok()) {
    return versions.status().IsNotFound() ? Status::Ok() : versions.status();
  }
  *existed = !versions->empty();
  if (!versions->empty() && versions->back().state == VersionState::kPresent) {
    *hash = versions->back().content_hash;
    *version = versions->back().version;
  }
  return Status::Ok();
}

Status FileIndexer::Sync(const std::string& path) {
  Status keyable = CheckKeyable(path);
  if (!keyable.ok()) {
    AddSkipped(path, keyable.message());
    return Status::Ok();
  }
  CTXKIT_ASSIGN_OR_RETURN(FileSnapshot snap,
                          ReadFileSnapshot(path, options_->max_file_bytes));
  if (snap.outcome == FileSnapshot::Outcome::kGone) return MarkGone(path);
  if (snap.outcome == FileSnapshot::Outcome::kSkipped) {
    AddSkipped(path, snap.skip_reason);
    return MarkGone(path);
  }
  ++report_->files_seen;
  std::string key = FileKey(path);
  std::string latest;
  uint64_t version = 0;
  bool existed = false;
  CTXKIT_RETURN_IF_ERROR(LatestHash(key, &latest, &version, &existed));
  if (!latest.empty() && latest == snap.hash_hex) {
    ++report_->unchanged;
    known_[path] = Known{snap.hash_hex, version};
    return Status::Ok();
  }
  SetOptions set;
  set.scope = "global";
  set.type = snap.type;
  set.producer = options_->producer;
  CTXKIT_ASSIGN_OR_RETURN(Ref written, view_.Set(key, snap.content, set));
  known_[path] = Known{snap.hash_hex, written.version};
  bool update = !latest.empty();
  ++(update ? report_->updated : report_->created);
  Notify(update ? WatchChange::Kind::kUpdated : WatchChange::Kind::kCreated,
         key, "", written.version);
  return Status::Ok();
}

Status FileIndexer::MarkGone(const std::string& path) {
  auto it = known_.find(path);
  if (it == known_.end()) return Status::Ok();
  std::string key = FileKey(path);
  Status s = view_.MarkMissing(key, Global());
  if (!s.ok() && !s.IsNotFound()) return s;
  known_.erase(it);
  if (s.IsNotFound()) return Status::Ok();  // Someone else got there first.
  ++report_->deleted;
  uint64_t version = 0;
  Result<std::vector<VersionMeta>> versions = view_.Versions(key, Global());
  if (versions.ok() && !versions->empty()) version = versions->back().version;
  Notify(WatchChange::Kind::kDeleted, key, "", version);
  return Status::Ok();
}

Status FileIndexer::MarkGoneUnder(const std::string& dir) {
  std::vector<std::string> gone;
  for (auto it = known_.lower_bound(dir);
       it != known_.end() && it->first.starts_with(dir); ++it) {
    if (IsWithin(it->first, dir)) gone.push_back(it->first);
  }
  for (const std::string& path : gone) CTXKIT_RETURN_IF_ERROR(MarkGone(path));
  return Status::Ok();
}

Result<bool> FileIndexer::Move(const std::string& from, const std::string& to) {
  auto it = known_.find(from);
  if (it == known_.end() || known_.count(to) || !CheckKeyable(to).ok()) {
    return false;
  }
  std::string from_key = FileKey(from);
  std::string to_key = FileKey(to);
  Result<Ref> ref = view_.Rename(from_key, to_key, Global());
  if (!ref.ok()) {
    // AlreadyExists: another process indexed `to` meanwhile; NotFound:
    // `from` was removed meanwhile. Either way the caller syncs both.
    if (ref.status().code() == StatusCode::kAlreadyExists ||
        ref.status().IsNotFound()) {
      return false;
    }
    return ref.status();
  }
  known_[to] = it->second;
  known_.erase(from);
  ++report_->moved;
  Notify(WatchChange::Kind::kMoved, to_key, from_key, 0);
  return true;
}

}  // namespace ctxkit::watch
