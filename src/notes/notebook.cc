// Notebook: writing, changing and searching notes. Files first (they are
// the source of truth and what other programs read), then the index.

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "core/encoding.h"
#include "core/mutex.h"
#include "core/sha256.h"
#include "core/status_macros.h"
#include "ctxkit/notes.h"
#include "index/query_terms.h"
#include "notes/changelog.h"
#include "notes/frontmatter.h"
#include "notes/note_index.h"
#include "notes/safe_dir.h"
#include "os/file_util.h"
#include "os/filename.h"
#include "os/posix_io.h"
#include "os/sqlite_db.h"

namespace ctxkit {

using notes::IndexedNote;
using notes::NoteIndex;
using notes::NoteParts;
using notes::RootDir;
using notes::SplitRelative;
using storage::FileLock;
using storage::UniqueFd;

namespace {

constexpr uint64_t kMaxNoteBytes = 16ull << 20;
// File system timestamps are coarse (a kernel tick); a stamp this recent
// may not move on the next change, so it is not trusted (git's "racy
// clean" problem).
constexpr int64_t kRacyWindowNs = 2'000'000'000;
constexpr size_t kSummaryBytes = 200;
constexpr size_t kMaxMessageBytes = 1000;

int64_t StampOf(const struct stat& st) {
  return static_cast<int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 +
         st.st_mtim.tv_nsec;
}

int64_t Trusted(int64_t mtime_ns, int64_t now_ns) {
  return now_ns - mtime_ns >= kRacyWindowNs ? mtime_ns : notes::kRacyMtime;
}

struct Clock {
  std::string iso;      // 2026-02-21T14:30:22Z
  std::string compact;  // 20260221T143022
};

Clock Now() {
  time_t t = static_cast<time_t>(core::NowUnixNanos() / 1'000'000'000);
  struct tm tm;
  gmtime_r(&t, &tm);
  char iso[32];
  char compact[32];
  std::strftime(iso, sizeof iso, "%Y-%m-%dT%H:%M:%SZ", &tm);
  std::strftime(compact, sizeof compact, "%Y%m%dT%H%M%S", &tm);
  return {iso, compact};
}

// Seconds since the epoch of an ISO 8601 UTC stamp; -1 when unparsable.
int64_t ParseIso(const std::string& s) {
  const std::optional<int64_t> ms = core::ParseIso8601Millis(s);
  if (!ms) return -1;
  return *ms / 1000 - (*ms % 1000 < 0 ? 1 : 0);  // Floor: whole seconds.
}

// Cut at a UTF-8 character boundary.
std::string Prefix(std::string_view s, size_t max) {
  if (s.size() <= max) return std::string(s);
  size_t n = max;
  while (n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) --n;
  return std::string(s.substr(0, n));
}

Status ValidateMessage(std::string_view message) {
  if (message.empty() || message.size() > kMaxMessageBytes) {
    return Status::InvalidArgument("the message must be 1-1000 bytes");
  }
  if (!core::IsValidUtf8(message)) {
    return Status::InvalidArgument("the message must be UTF-8");
  }
  for (unsigned char c : message) {
    if (c < 0x20 || c == 0x7f) {
      return Status::InvalidArgument(
          "the message must be one line without control characters");
    }
  }
  return Status::Ok();
}

bool StoreTagOk(std::string_view tag) {
  if (tag.empty() || tag.size() > 64) return false;
  for (unsigned char c : tag) {
    if (c < 0x20 || c == 0x7f) return false;
  }
  return true;
}

std::vector<std::string> StoreTags(const NoteHeader& h) {
  std::vector<std::string> tags = {"kind:note"};
  auto add = [&](std::string t) {
    if (StoreTagOk(t)) tags.push_back(std::move(t));
  };
  if (!h.agent.empty()) add("agent:" + h.agent);
  if (!h.type.empty()) add("type:" + h.type);
  if (!h.session_id.empty()) add("session:" + h.session_id);
  for (const std::string& t : h.tags) add("tag:" + t);
  return tags;
}

std::string DirOf(std::string_view rel) {
  size_t slash = rel.rfind('/');
  return slash == std::string_view::npos ? ""
                                         : std::string(rel.substr(0, slash));
}

std::string JoinRel(std::string_view dir, std::string_view name) {
  return dir.empty() ? std::string(name)
                     : std::string(dir) + "/" + std::string(name);
}

std::string NoteKey(std::string_view rel) { return "note:" + std::string(rel); }

// A directory listing: sub-directories and note files, hidden names and
// symlinks skipped.
struct Listing {
  std::vector<std::string> dirs;
  std::map<std::string, struct stat> files;
};

Result<Listing> ListDir(const RootDir& root, const std::string& dir_rel,
                        bool want_dirs, bool want_files) {
  std::vector<std::string> parts;
  if (!dir_rel.empty()) {
    CTXKIT_ASSIGN_OR_RETURN(parts, SplitRelative(dir_rel));
  }
  CTXKIT_ASSIGN_OR_RETURN(UniqueFd fd, root.OpenDir(parts, false));
  int dfd = fd.release();
  DIR* d = ::fdopendir(dfd);
  if (d == nullptr) {
    ::close(dfd);
    return storage::ErrnoStatus("list", dir_rel);
  }
  Listing out;
  while (struct dirent* e = ::readdir(d)) {
    std::string_view name = e->d_name;
    if (name.empty()) continue;
    struct stat st;
    if (::fstatat(::dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
      continue;  // Removed meanwhile.
    }
    if (name.front() == '.') {
      // A temp file of a writer that died is cleared as the scan passes.
      if (storage::IsStaleTempFile(name, st)) {
        ::unlinkat(::dirfd(d), e->d_name, 0);
      }
      continue;
    }
    if (S_ISDIR(st.st_mode) && want_dirs) {
      out.dirs.emplace_back(name);
    } else if (S_ISREG(st.st_mode) && want_files && name.ends_with(".md")) {
      out.files.emplace(std::string(name), st);
    }
  }
  ::closedir(d);
  std::sort(out.dirs.begin(), out.dirs.end());
  return out;
}

// The first line of `body` holding one of `terms` (lower-case words, as
// index::QueryTerms gives them; compared ASCII case-insensitively), with
// [brackets] around each occurrence, cut to about kSnippetBytes around the
// first; "" when no line holds one.
constexpr size_t kSnippetBytes = 200;

std::string MatchingBodyLine(std::string_view body,
                             const std::vector<std::string>& terms) {
  auto lower = [](char c) {
    return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
  };
  // The length of the term at `at` in `line`, 0 when none starts there.
  auto term_at = [&](std::string_view line, size_t at) -> size_t {
    for (const std::string& t : terms) {
      if (t.empty() || at + t.size() > line.size()) continue;
      bool same = true;
      for (size_t k = 0; k < t.size() && same; ++k) {
        same = lower(line[at + k]) == t[k];
      }
      if (same) return t.size();
    }
    return 0;
  };
  size_t start = 0;
  while (start < body.size()) {
    size_t end = body.find('\n', start);
    if (end == std::string_view::npos) end = body.size();
    std::string_view line = body.substr(start, end - start);
    start = end + 1;
    size_t first = std::string_view::npos;
    for (size_t i = 0; i < line.size() && first == std::string_view::npos;
         ++i) {
      if (term_at(line, i) > 0) first = i;
    }
    if (first == std::string_view::npos) continue;
    // A window around the first match, on UTF-8 character boundaries.
    size_t from = first > kSnippetBytes / 4 ? first - kSnippetBytes / 4 : 0;
    size_t to = std::min(line.size(), from + kSnippetBytes);
    auto continuation = [&](size_t at) {
      return at < line.size() &&
             (static_cast<unsigned char>(line[at]) & 0xC0) == 0x80;
    };
    while (continuation(from)) --from;
    while (continuation(to)) --to;
    std::string out = from > 0 ? "..." : "";
    for (size_t i = from; i < to;) {
      const size_t n = term_at(line, i);
      if (n > 0 && i + n <= to) {
        out += "[" + std::string(line.substr(i, n)) + "]";
        i += n;
      } else {
        out += line[i++];
      }
    }
    if (to < line.size()) out += "...";
    return out;
  }
  return "";
}

}  // namespace

class NotebookImpl {
 public:
  View* view = nullptr;
  std::string given_root;
  std::unique_ptr<RootDir> root;
  std::string lock_path;
  core::Mutex mu;  // Serializes use of `index` (one SQLite connection).
  std::unique_ptr<NoteIndex> index PT_GUARDED_BY(mu);

  Result<FileLock> Lock() {
    return FileLock::Acquire(lock_path, storage::LockMode::kExclusive,
                             storage::LockWait::kBlock);
  }

  // Indexes `content` as the note at `rel` unless the index already holds
  // exactly this content. REQUIRES: inside a write transaction on index.
  // Returns whether a new version was indexed.
  Result<bool> IndexContent(const std::string& rel, const std::string& content,
                            const struct stat& st, const std::string& producer,
                            int64_t now_ns) REQUIRES(mu) {
    std::string hash = core::ToHex(core::Sha256(content));
    CTXKIT_ASSIGN_OR_RETURN(std::optional<IndexedNote> old, index->Get(rel));
    int64_t stamp = Trusted(StampOf(st), now_ns);
    if (old.has_value() && old->hash == hash) {
      if (old->mtime_ns != stamp || old->size != st.st_size) {
        CTXKIT_RETURN_IF_ERROR(index->SetStamp(rel, stamp, st.st_size));
      }
      return false;
    }
    IndexedNote n;
    n.path = rel;
    n.dir = DirOf(rel);
    NoteParts parts = notes::SplitNote(content);
    std::vector<std::string> problems;
    if (parts.has_frontmatter) {
      notes::ParseHeader(parts.yaml, &n.header, &problems);
    }
    // The layout says who wrote it when the frontmatter does not.
    CTXKIT_ASSIGN_OR_RETURN(std::vector<std::string> comps, SplitRelative(rel));
    if (n.header.agent.empty()) n.header.agent = comps.front();
    if (n.header.session_id.empty() && comps.size() == 3) {
      n.header.session_id = comps[1];
    }
    n.mtime_ns = stamp;
    n.size = st.st_size;
    n.hash = hash;
    n.summary = Prefix(parts.body, kSummaryBytes);
    std::string key = NoteKey(rel);
    if (ValidateKey(key).ok()) {
      SetOptions o;
      o.scope = "global";
      o.type = ValueType::kNote;
      o.tags = StoreTags(n.header);
      o.producer = producer;
      // Pinned: the version this row indexes.
      CTXKIT_ASSIGN_OR_RETURN(Ref ref, view->Set(key, content, o));
      n.ref = FormatRef(ref);
    }
    CTXKIT_RETURN_IF_ERROR(index->Put(n, content));
    return true;
  }

  // Reads the file at `rel` and indexes it (or drops it when gone).
  // REQUIRES: inside a write transaction.
  Status Reindex(const std::string& rel, const std::string& producer,
                 int64_t now_ns, ScanStats* stats) REQUIRES(mu) {
    Result<struct stat> st = root->Lstat(rel);
    Result<std::string> content = st.ok() ? root->ReadFile(rel, kMaxNoteBytes)
                                          : Result<std::string>(st.status());
    if (!content.ok()) {
      if (content.status().IsNotFound() ||
          content.status().code() == StatusCode::kInvalidArgument) {
        // Gone, or replaced by a symlink/non-file: no longer a note.
        return Drop(rel, stats);
      }
      if (content.status().code() == StatusCode::kResourceExhausted) {
        return Status::Ok();  // Too large to index; left as it was.
      }
      return content.status();
    }
    CTXKIT_ASSIGN_OR_RETURN(bool indexed,
                            IndexContent(rel, *content, *st, producer, now_ns));
    if (indexed && stats != nullptr) ++stats->notes_indexed;
    return Status::Ok();
  }

  Status Drop(const std::string& rel, ScanStats* stats) REQUIRES(mu) {
    CTXKIT_ASSIGN_OR_RETURN(std::optional<IndexedNote> old, index->Get(rel));
    if (!old.has_value()) return Status::Ok();
    CTXKIT_RETURN_IF_ERROR(index->Remove(rel));
    if (!old->ref.empty()) {
      Status s = view->Remove(NoteKey(rel), {"global", 0});
      if (!s.ok() && !s.IsNotFound()) return s;
    }
    if (stats != nullptr) ++stats->notes_removed;
    return Status::Ok();
  }

  // Whether any recorded directory's mtime moved (or none is recorded).
  Result<bool> DirsChanged(const std::map<std::string, int64_t>& dirs) {
    if (dirs.empty()) return true;
    for (const auto& [dir, mtime] : dirs) {
      struct stat st;
      int rc = dir.empty() ? ::fstat(root->fd(), &st)
                           : ::fstatat(root->fd(), dir.c_str(), &st,
                                       AT_SYMLINK_NOFOLLOW);
      if (rc != 0 || StampOf(st) != mtime) return true;
    }
    return false;
  }

  // One directory of the walk: depth 0 root, 1 agent, 2 session.
  Status Walk(const std::string& dir_rel, int depth, bool full,
              const std::map<std::string, int64_t>& known, int64_t now_ns,
              ScanStats* stats) REQUIRES(mu) {
    struct stat st;
    int rc = dir_rel.empty() ? ::fstat(root->fd(), &st)
                             : ::fstatat(root->fd(), dir_rel.c_str(), &st,
                                         AT_SYMLINK_NOFOLLOW);
    if (rc != 0 || !S_ISDIR(st.st_mode)) return DropDir(dir_rel, known, stats);
    auto it = known.find(dir_rel);
    bool changed = full || it == known.end() || it->second != StampOf(st);
    std::vector<std::string> subdirs;
    if (changed) {
      ++stats->directories_listed;
      CTXKIT_ASSIGN_OR_RETURN(Listing listing,
                              ListDir(*root, dir_rel, depth < 2, depth >= 1));
      for (const std::string& d : listing.dirs) {
        subdirs.push_back(JoinRel(dir_rel, d));
      }
      // Known sub-directories that are gone.
      std::set<std::string> present(subdirs.begin(), subdirs.end());
      for (const auto& [d, m] : known) {
        if (DirOf(d) == dir_rel && !d.empty() && !present.count(d)) {
          CTXKIT_RETURN_IF_ERROR(DropDir(d, known, stats));
        }
      }
      CTXKIT_ASSIGN_OR_RETURN(auto stamps, index->StampsInDir(dir_rel));
      for (const auto& [name, fst] : listing.files) {
        std::string rel = JoinRel(dir_rel, name);
        ++stats->files_checked;
        auto s = stamps.find(rel);
        bool same = s != stamps.end() && s->second.first == StampOf(fst) &&
                    s->second.second == fst.st_size;
        if (s != stamps.end()) stamps.erase(s);
        if (same) continue;
        CTXKIT_RETURN_IF_ERROR(Reindex(rel, "notes:scan", now_ns, stats));
      }
      for (const auto& [rel, unused] : stamps) {
        CTXKIT_RETURN_IF_ERROR(Drop(rel, stats));
      }
      CTXKIT_RETURN_IF_ERROR(
          index->SetDir(dir_rel, Trusted(StampOf(st), now_ns)));
    } else {
      for (const auto& [d, m] : known) {
        if (!d.empty() && DirOf(d) == dir_rel) subdirs.push_back(d);
      }
    }
    if (depth < 2) {
      for (const std::string& d : subdirs) {
        CTXKIT_RETURN_IF_ERROR(Walk(d, depth + 1, full, known, now_ns, stats));
      }
    }
    return Status::Ok();
  }

  Status DropDir(const std::string& dir_rel,
                 const std::map<std::string, int64_t>& known, ScanStats* stats)
      REQUIRES(mu) {
    for (const auto& [d, m] : known) {
      if (d == dir_rel || d.starts_with(dir_rel + "/")) {
        CTXKIT_ASSIGN_OR_RETURN(auto stamps, index->StampsInDir(d));
        for (const auto& [rel, unused] : stamps) {
          CTXKIT_RETURN_IF_ERROR(Drop(rel, stats));
        }
      }
    }
    return index->RemoveDir(dir_rel);
  }

  // REQUIRES: mu held.
  Status SyncLocked(bool full, ScanStats* stats) REQUIRES(mu) {
    CTXKIT_ASSIGN_OR_RETURN(auto known, index->Dirs());
    if (!full) {
      CTXKIT_ASSIGN_OR_RETURN(bool changed, DirsChanged(known));
      if (!changed) return Status::Ok();
    }
    storage::WriteTransaction txn(index->db());
    CTXKIT_RETURN_IF_ERROR(txn.Begin());
    // Re-read under the write lock: another process may have synced.
    CTXKIT_ASSIGN_OR_RETURN(known, index->Dirs());
    CTXKIT_RETURN_IF_ERROR(
        Walk("", 0, full, known, core::NowUnixNanos(), stats));
    return txn.Commit();
  }

  // Writes `content` over the note and indexes it; restores the old
  // content when indexing fails. REQUIRES: mu and the root lock held.
  Status WriteAndIndex(
      const std::vector<std::pair<std::string, std::string>>& changes,
      const std::vector<std::string>& originals, const std::string& producer)
      REQUIRES(mu) {
    size_t written = 0;
    Status s;
    for (; written < changes.size(); ++written) {
      s = root->Replace(changes[written].first, changes[written].second);
      if (!s.ok()) break;
    }
    if (s.ok()) {
      storage::WriteTransaction txn(index->db());
      s = txn.Begin();
      int64_t now = core::NowUnixNanos();
      for (size_t i = 0; s.ok() && i < changes.size(); ++i) {
        Result<struct stat> st = root->Lstat(changes[i].first);
        s = st.status();
        if (s.ok()) {
          s = IndexContent(changes[i].first, changes[i].second, *st, producer,
                           now)
                  .status();
        }
      }
      if (s.ok()) s = txn.Commit();
    }
    if (!s.ok()) {
      for (size_t i = 0; i < written; ++i) {
        // Best effort: `s` is the error to report.
        root->Replace(changes[i].first, originals[i]).IgnoreError();
      }
    }
    return s;
  }

  Result<std::string> AddLink(const std::string& content,
                              const std::string& rel, const std::string& target,
                              bool* added) {
    NoteParts parts = notes::SplitNote(content);
    if (!parts.has_frontmatter) {
      return Status::FailedPrecondition(rel + " has no YAML frontmatter");
    }
    NoteHeader header;
    std::vector<std::string> problems;
    notes::ParseHeader(parts.yaml, &header, &problems);
    for (const std::string& p : problems) {
      if (p.starts_with("frontmatter") || p.starts_with("links")) {
        return Status::Corruption(rel + ": " + p);
      }
    }
    std::vector<std::string> links = header.links;
    *added = std::find(links.begin(), links.end(), target) == links.end();
    if (!*added) return content;
    links.push_back(target);
    std::string yaml = notes::ReplaceLinks(parts.yaml, links);
    NoteHeader check;
    std::vector<std::string> unused;
    notes::ParseHeader(yaml, &check, &unused);
    if (check.links != links) {
      return Status::Corruption(rel + ": cannot rewrite its links field");
    }
    size_t yaml_at = content.find('\n') + 1;
    return content.substr(0, yaml_at) + yaml +
           content.substr(yaml_at + parts.yaml.size());
  }

  // Appends a changelog entry to the body of `content`.
  static std::string WithEntry(const std::string& content,
                               const std::string& entry) {
    NoteParts parts = notes::SplitNote(content);
    std::string prefix = content.substr(0, content.size() - parts.body.size());
    return prefix + notes::AppendChangelog(parts.body, entry);
  }

  Result<std::string> ExistingNote(std::string_view path, const Notebook& nb) {
    CTXKIT_ASSIGN_OR_RETURN(std::string rel, nb.RelativePath(path));
    Result<struct stat> st = root->Lstat(rel);
    if (!st.ok()) {
      if (st.status().IsNotFound()) {
        return Status::NotFound("no note " + rel);
      }
      return st.status();
    }
    if (!S_ISREG(st->st_mode)) {
      return Status::InvalidArgument(rel + " is not a regular file");
    }
    return rel;
  }
};

Notebook::Notebook(std::unique_ptr<NotebookImpl> impl)
    : impl_(std::move(impl)) {}
Notebook::~Notebook() = default;

const std::string& Notebook::root() const { return impl_->root->path(); }

Result<std::unique_ptr<Notebook>> Notebook::Open(
    View& view, const NotebookOptions& options) {
  auto impl = std::make_unique<NotebookImpl>();
  impl->view = &view;
  const std::string& root_path = options.root;
  if (root_path.empty()) {
    return Status::InvalidArgument(
        "no notes root: NotebookOptions::root is empty");
  }
  impl->given_root = root_path;
  while (impl->given_root.size() > 1 && impl->given_root.back() == '/') {
    impl->given_root.pop_back();
  }
  CTXKIT_ASSIGN_OR_RETURN(impl->root, RootDir::Open(root_path));
  impl->lock_path = storage::NotesLockPath(impl->root->path());
  const std::string& home = view.store()->home();
  CTXKIT_RETURN_IF_ERROR(storage::MakeDirs(storage::NotesIndexDir(home)));
  std::string id = core::ToHex(core::Sha256(impl->root->path())).substr(0, 16);
  CTXKIT_ASSIGN_OR_RETURN(impl->index,
                          NoteIndex::Open(storage::NotesIndexPath(home, id)));
  return std::unique_ptr<Notebook>(new Notebook(std::move(impl)));
}

Result<std::string> Notebook::RelativePath(std::string_view path) const {
  std::string rel(path);
  if (rel.starts_with("/")) {
    bool inside = false;
    for (const std::string& prefix : {impl_->root->path(), impl_->given_root}) {
      if (rel.starts_with(prefix + "/")) {
        rel = rel.substr(prefix.size() + 1);
        inside = true;
        break;
      }
    }
    if (!inside) {
      return Status::InvalidArgument("'" + std::string(path) +
                                     "' is outside the notes root " +
                                     impl_->root->path());
    }
  }
  CTXKIT_ASSIGN_OR_RETURN(std::vector<std::string> parts, SplitRelative(rel));
  if (parts.size() < 2 || parts.size() > 3 || !rel.ends_with(".md")) {
    return Status::InvalidArgument(
        "'" + std::string(path) +
        "' is not a note path (<agent>/[<session>/]<name>.md)");
  }
  return rel;
}

Result<std::string> Notebook::Add(const NewNote& note) {
  CTXKIT_RETURN_IF_ERROR(ValidateAgentName(note.agent));
  if (!note.session_id.empty()) {
    CTXKIT_RETURN_IF_ERROR(ValidateNoteSessionId(note.session_id));
  }
  for (const std::string& tag : note.tags) {
    CTXKIT_RETURN_IF_ERROR(ValidateNoteTag(tag));
  }
  CTXKIT_ASSIGN_OR_RETURN(std::string slug, Slugify(note.slug));
  if (note.body.size() > kMaxNoteBytes) {
    return Status::ResourceExhausted("a note body is at most 16 MiB");
  }
  if (!core::IsValidUtf8(note.body)) {
    return Status::InvalidArgument("the note body must be UTF-8");
  }
  core::MutexLock guard(&impl_->mu);
  NoteHeader header;
  for (const std::string& link : note.links) {
    CTXKIT_ASSIGN_OR_RETURN(std::string rel, impl_->ExistingNote(link, *this));
    header.links.push_back(rel);
  }
  Clock now = Now();
  header.agent = note.agent;
  header.session_id = note.session_id;
  header.timestamp = now.iso;
  header.type = std::string(NoteTypeName(note.type));
  header.tags = note.tags;
  std::string content = notes::RenderNote(header, note.body);
  std::vector<std::string> dirs = {note.agent};
  if (!note.session_id.empty()) dirs.push_back(note.session_id);
  CTXKIT_ASSIGN_OR_RETURN(FileLock lock, impl_->Lock());
  CTXKIT_ASSIGN_OR_RETURN(
      std::string name,
      impl_->root->CreateNew(dirs, now.compact + "-" + slug, ".md", content));
  std::string rel = JoinRel(
      note.session_id.empty() ? note.agent : note.agent + "/" + note.session_id,
      name);
  storage::WriteTransaction txn(impl_->index->db());
  Status s = txn.Begin();
  if (s.ok()) {
    Result<struct stat> st = impl_->root->Lstat(rel);
    s = st.status();
    if (s.ok()) {
      s = impl_
              ->IndexContent(rel, content, *st, "agent:" + note.agent,
                             core::NowUnixNanos())
              .status();
    }
  }
  if (s.ok()) s = txn.Commit();
  if (!s.ok()) {
    // Nobody was told about it yet; `s` is the error to report.
    impl_->root->Remove(rel).IgnoreError();
    return s;
  }
  return rel;
}

Status Notebook::Update(std::string_view path, std::string_view agent,
                        std::string_view message,
                        const std::optional<std::string>& new_body) {
  CTXKIT_RETURN_IF_ERROR(ValidateAgentName(agent));
  CTXKIT_RETURN_IF_ERROR(ValidateMessage(message));
  if (new_body.has_value()) {
    if (new_body->size() > kMaxNoteBytes || !core::IsValidUtf8(*new_body)) {
      return Status::InvalidArgument("the new body must be UTF-8, <= 16 MiB");
    }
    if (notes::FindChangelog(*new_body).start != std::string_view::npos) {
      return Status::InvalidArgument(
          "the new body may not contain a '## Changelog' section: the "
          "existing changelog is kept and extended");
    }
    if (new_body->starts_with("---\n")) {
      return Status::InvalidArgument(
          "give the new body without frontmatter (the frontmatter is kept)");
    }
  }
  core::MutexLock guard(&impl_->mu);
  CTXKIT_ASSIGN_OR_RETURN(std::string rel, impl_->ExistingNote(path, *this));
  CTXKIT_ASSIGN_OR_RETURN(FileLock lock, impl_->Lock());
  CTXKIT_ASSIGN_OR_RETURN(std::string old,
                          impl_->root->ReadFile(rel, kMaxNoteBytes));
  std::string content = old;
  if (new_body.has_value()) {
    NoteParts parts = notes::SplitNote(old);
    std::string prefix = old.substr(0, old.size() - parts.body.size());
    notes::ChangelogSpan span = notes::FindChangelog(parts.body);
    std::string body = *new_body;
    if (!body.empty() && body.back() != '\n') body += '\n';
    if (span.start != std::string_view::npos) {
      if (!body.empty()) body += '\n';
      body += parts.body.substr(span.start, span.end - span.start);
    }
    content = prefix + body;
  }
  content = NotebookImpl::WithEntry(
      content, notes::ChangelogEntry(Now().iso, agent, message));
  return impl_->WriteAndIndex({{rel, content}}, {old},
                              "agent:" + std::string(agent));
}

Status Notebook::Link(std::string_view path, std::string_view target,
                      std::string_view agent) {
  CTXKIT_RETURN_IF_ERROR(ValidateAgentName(agent));
  core::MutexLock guard(&impl_->mu);
  CTXKIT_ASSIGN_OR_RETURN(std::string rel, impl_->ExistingNote(path, *this));
  CTXKIT_ASSIGN_OR_RETURN(std::string to, impl_->ExistingNote(target, *this));
  if (rel == to) return Status::InvalidArgument("a note cannot link to itself");
  CTXKIT_ASSIGN_OR_RETURN(FileLock lock, impl_->Lock());
  CTXKIT_ASSIGN_OR_RETURN(std::string old,
                          impl_->root->ReadFile(rel, kMaxNoteBytes));
  bool added = false;
  CTXKIT_ASSIGN_OR_RETURN(std::string content,
                          impl_->AddLink(old, rel, to, &added));
  if (!added) return Status::Ok();
  content = NotebookImpl::WithEntry(
      content, notes::ChangelogEntry(Now().iso, agent, "Linked to " + to));
  return impl_->WriteAndIndex({{rel, content}}, {old},
                              "agent:" + std::string(agent));
}

Status Notebook::Supersede(std::string_view old_path, std::string_view new_path,
                           std::string_view agent) {
  CTXKIT_RETURN_IF_ERROR(ValidateAgentName(agent));
  core::MutexLock guard(&impl_->mu);
  CTXKIT_ASSIGN_OR_RETURN(std::string old_rel,
                          impl_->ExistingNote(old_path, *this));
  CTXKIT_ASSIGN_OR_RETURN(std::string new_rel,
                          impl_->ExistingNote(new_path, *this));
  if (old_rel == new_rel) {
    return Status::InvalidArgument("a note cannot supersede itself");
  }
  CTXKIT_ASSIGN_OR_RETURN(FileLock lock, impl_->Lock());
  CTXKIT_ASSIGN_OR_RETURN(std::string old_orig,
                          impl_->root->ReadFile(old_rel, kMaxNoteBytes));
  CTXKIT_ASSIGN_OR_RETURN(std::string new_orig,
                          impl_->root->ReadFile(new_rel, kMaxNoteBytes));
  std::string iso = Now().iso;
  bool added = false;
  CTXKIT_ASSIGN_OR_RETURN(std::string new_content,
                          impl_->AddLink(new_orig, new_rel, old_rel, &added));
  new_content = NotebookImpl::WithEntry(
      new_content, notes::ChangelogEntry(iso, agent, "Supersedes " + old_rel));
  std::string old_content = NotebookImpl::WithEntry(
      old_orig, notes::ChangelogEntry(iso, agent,
                                      "Marked as superseded, see " + new_rel));
  return impl_->WriteAndIndex({{new_rel, new_content}, {old_rel, old_content}},
                              {new_orig, old_orig},
                              "agent:" + std::string(agent));
}

Result<Note> Notebook::Show(std::string_view path) {
  core::MutexLock guard(&impl_->mu);
  CTXKIT_ASSIGN_OR_RETURN(std::string rel, impl_->ExistingNote(path, *this));
  Note note;
  note.path = rel;
  note.file = impl_->root->path() + "/" + rel;
  CTXKIT_ASSIGN_OR_RETURN(note.content,
                          impl_->root->ReadFile(rel, kMaxNoteBytes));
  NoteParts parts = notes::SplitNote(note.content);
  note.body = parts.body;
  if (parts.has_frontmatter) {
    notes::ParseHeader(parts.yaml, &note.header, &note.problems);
  } else {
    note.problems.push_back("no YAML frontmatter");
  }
  // Reading it is a chance to notice another program's change.
  storage::WriteTransaction txn(impl_->index->db());
  CTXKIT_RETURN_IF_ERROR(txn.Begin());
  CTXKIT_RETURN_IF_ERROR(
      impl_->Reindex(rel, "notes:scan", core::NowUnixNanos(), nullptr));
  CTXKIT_RETURN_IF_ERROR(txn.Commit());
  return note;
}

Result<std::vector<NoteHit>> Notebook::Search(const NoteQuery& query) {
  if (query.limit < 1 || query.limit > 10000) {
    return Status::InvalidArgument("limit must be 1-10000");
  }
  if (!query.type.empty()) {
    CTXKIT_RETURN_IF_ERROR(ParseNoteType(query.type).status());
  }
  std::string match;
  std::vector<std::string> terms;
  if (!query.text.empty()) {
    terms = index::QueryTerms(query.text);
    if (terms.empty()) {
      return Status::InvalidArgument("the search text has no words");
    }
    // Every word must occur (as with rg on each word); BM25 ranks.
    for (const std::string& t : terms) {
      if (!match.empty()) match += " AND ";
      match += "\"" + t + "\"";
    }
  }
  core::MutexLock guard(&impl_->mu);
  ScanStats stats;
  CTXKIT_RETURN_IF_ERROR(impl_->SyncLocked(false, &stats));
  std::vector<notes::IndexHit> hits;
  // Hits whose file changed behind our back are re-indexed and the query
  // run again, so results never describe content that is gone.
  for (int attempt = 0; attempt < 3; ++attempt) {
    CTXKIT_ASSIGN_OR_RETURN(hits, impl_->index->Search(query, match));
    std::vector<std::string> stale;
    for (const notes::IndexHit& h : hits) {
      struct stat st;
      if (::fstatat(impl_->root->fd(), h.note.path.c_str(), &st,
                    AT_SYMLINK_NOFOLLOW) != 0 ||
          StampOf(st) != h.note.mtime_ns || st.st_size != h.note.size) {
        stale.push_back(h.note.path);
      }
    }
    if (stale.empty()) break;
    storage::WriteTransaction txn(impl_->index->db());
    CTXKIT_RETURN_IF_ERROR(txn.Begin());
    int64_t now = core::NowUnixNanos();
    for (const std::string& rel : stale) {
      CTXKIT_RETURN_IF_ERROR(impl_->Reindex(rel, "notes:scan", now, &stats));
    }
    CTXKIT_RETURN_IF_ERROR(txn.Commit());
    if (stats.notes_indexed == 0 && stats.notes_removed == 0) break;
    stats = ScanStats();
  }
  std::vector<NoteHit> out;
  out.reserve(hits.size());
  for (notes::IndexHit& h : hits) {
    NoteHit hit;
    hit.path = h.note.path;
    hit.file = impl_->root->path() + "/" + h.note.path;
    hit.header = std::move(h.note.header);
    hit.score = h.score;
    hit.snippet = std::move(h.snippet);
    if (!terms.empty()) {
      // The body line that matches, not the frontmatter's (a tag, the
      // agent): else the start of the body.
      Result<std::string> content =
          impl_->root->ReadFile(h.note.path, kMaxNoteBytes);
      if (content.ok()) {
        std::string line =
            MatchingBodyLine(notes::SplitNote(*content).body, terms);
        hit.snippet = line.empty() ? h.note.summary : std::move(line);
      }
    }
    hit.ref = std::move(h.note.ref);
    out.push_back(std::move(hit));
  }
  return out;
}

Result<ScanStats> Notebook::Scan(bool full) {
  core::MutexLock guard(&impl_->mu);
  ScanStats stats;
  CTXKIT_RETURN_IF_ERROR(impl_->SyncLocked(full, &stats));
  CTXKIT_ASSIGN_OR_RETURN(stats.notes_total, impl_->index->Count());
  return stats;
}

Result<GcReport> Notebook::Gc(int64_t older_than_seconds, bool apply) {
  if (older_than_seconds < 1) {
    // Store gc keeps what is named and the latest version; a note has no
    // later version to keep, so 0 would delete every note there is.
    return Status::InvalidArgument(
        "notes gc: older-than must be at least 1 second (every note is "
        "older than 0 seconds, so 0 would delete them all)");
  }
  core::MutexLock guard(&impl_->mu);
  ScanStats stats;
  CTXKIT_RETURN_IF_ERROR(impl_->SyncLocked(true, &stats));
  std::optional<FileLock> lock;
  if (apply) {
    CTXKIT_ASSIGN_OR_RETURN(FileLock l, impl_->Lock());
    lock.emplace(std::move(l));
  }
  CTXKIT_ASSIGN_OR_RETURN(std::vector<IndexedNote> all, impl_->index->All());
  int64_t now = core::NowUnixNanos() / 1'000'000'000;
  GcReport report;
  report.applied = apply;
  std::set<std::string> dirs;
  for (const IndexedNote& n : all) {
    Result<struct stat> st = impl_->root->Lstat(n.path);
    if (!st.ok()) continue;
    int64_t activity =
        std::max<int64_t>(ParseIso(n.header.timestamp), st->st_mtim.tv_sec);
    int64_t age = now - activity;
    if (age <= older_than_seconds) {
      ++report.kept;
      continue;
    }
    report.expired.push_back({n.path, age});
    dirs.insert(n.dir);
  }
  if (!apply) return report;
  storage::WriteTransaction txn(impl_->index->db());
  CTXKIT_RETURN_IF_ERROR(txn.Begin());
  for (const GcEntry& e : report.expired) {
    Status s = impl_->root->Remove(e.path);
    if (!s.ok() && !s.IsNotFound()) return s;
    CTXKIT_RETURN_IF_ERROR(impl_->Drop(e.path, nullptr));
  }
  // Emptied session directories, then emptied agent directories.
  for (int pass = 0; pass < 2; ++pass) {
    std::set<std::string> parents;
    for (const std::string& d : dirs) {
      Status s = impl_->root->RemoveDir(d);
      if (s.ok()) {
        CTXKIT_RETURN_IF_ERROR(impl_->index->RemoveDir(d));
        if (d.find('/') != std::string::npos) parents.insert(DirOf(d));
      }
    }
    dirs = std::move(parents);
  }
  CTXKIT_RETURN_IF_ERROR(txn.Commit());
  return report;
}

}  // namespace ctxkit
