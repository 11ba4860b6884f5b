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
  CTXKIT_RETURN_IF_ERROR(Flush());
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
  // A second sync of a path in this batch compares with the first's write.
  if (pending_paths_.count(path)) CTXKIT_RETURN_IF_ERROR(Flush());
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
  pending_bytes_ += snap.content.size();
  pending_paths_.insert(path);
  pending_.push_back(Pending{path, std::move(key), std::move(snap),
                             /*update=*/!latest.empty()});
  if (pending_.size() >= kBatchFiles || pending_bytes_ >= kBatchBytes) {
    return Flush();
  }
  return Status::Ok();
}

Status FileIndexer::Flush() {
  if (pending_.empty()) return Status::Ok();
  std::vector<SetItem> items;
  items.reserve(pending_.size());
  for (const Pending& p : pending_) {
    SetItem item{.key = p.key, .value = p.snap.content, .options = {}};
    item.options.scope = "global";
    item.options.type = p.snap.type;
    item.options.producer = options_->producer;
    items.push_back(std::move(item));
  }
  Result<std::vector<Ref>> written = view_.SetMany(items);
  std::vector<Pending> done = std::move(pending_);
  pending_.clear();
  pending_paths_.clear();
  pending_bytes_ = 0;
  if (!written.ok()) {
    for (const Pending& p : done) {
      AddSkipped(p.path, "error: " + written.status().ToString());
    }
    return written.status();
  }
  for (size_t i = 0; i < done.size(); ++i) {
    const Pending& p = done[i];
    const uint64_t version = (*written)[i].version;
    known_[p.path] = Known{p.snap.hash_hex, version};
    ++(p.update ? report_->updated : report_->created);
    Notify(p.update ? WatchChange::Kind::kUpdated : WatchChange::Kind::kCreated,
           p.key, "", version);
  }
  return Status::Ok();
}

Status FileIndexer::MarkGone(const std::string& path) {
  CTXKIT_RETURN_IF_ERROR(Flush());
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
  CTXKIT_RETURN_IF_ERROR(Flush());
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
