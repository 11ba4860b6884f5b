// The session's in-process side: the loaded state, the transaction that
// mutates it, and the caches rendering relies on for speed.

#ifndef CTXKIT_SESSION_SESSION_IMPL_H_
#define CTXKIT_SESSION_SESSION_IMPL_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ctxkit/session.h"
#include "ctxkit/store.h"
#include "session/log_parse.h"
#include "session/render_layout.h"
#include "session/session_state.h"
#include "store/stored_sessions.h"

namespace ctxkit {

// What one mutation changed, for the commit.
struct SessionChanges {
  std::set<std::string> dirty;    // Entry ids to write.
  std::set<std::string> removed;  // Entry ids to delete.
  bool state = false;             // The session row changed.
  // Versions the changed state names beyond its entries' refs and pins
  // (the chat, system and compaction versions): held with the write.
  std::vector<Ref> hold;
  bool any() const { return state || !dirty.empty() || !removed.empty(); }
};

class SessionImpl {
 public:
  // `sessions` holds the session's state (store/stored_sessions.h).
  SessionImpl(Store* store, View view, std::string id, StoredSessions sessions)
      : store_(store),
        view_(std::move(view)),
        id_(std::move(id)),
        sessions_(sessions) {}

  Store* store() { return store_; }
  View& view() { return view_; }
  const std::string& id() const { return id_; }
  session::State& state() { return state_; }
  StoredSessions& sessions() { return sessions_; }
  std::string session_scope() const { return "session:" + id_; }

  // Reloads the state when another process (or a failed mutation) made the
  // loaded copy stale. NotFound when the session was never created.
  Status Refresh();

  // Runs `fn` on a fresh copy of the state and writes what it reports
  // changed with a compare-and-set on the generation. When another writer
  // came first, the state is reloaded and `fn` runs again on it (so `fn`
  // must start from the state, not from what an earlier attempt did), up
  // to kMutateAttempts times, then Unavailable. When `fn` fails, nothing is
  // written and the in-memory copy is reloaded before next use.
  static constexpr int kMutateAttempts = 32;
  Status Mutate(const std::function<Status(SessionChanges&)>& fn);

  // The object a CLI/API name stands for (a key, a ref, "chat", "system").
  Result<ObjectMeta> Lookup(std::string_view object);
  bool IsLocked(const ObjectMeta& meta) const;

  // The pool entry of object `id`, loaded when it is not yet; nullptr when
  // the session does not hold it.
  Result<PoolEntry*> FindEntry(const std::string& id);
  // Loads those of the entries of `ids` the session holds (see
  // session::State::entries). Entries loaded already stay as they are.
  Status LoadEntries(const std::vector<std::string>& ids);
  // Loads every entry (for callers that list or scan the whole pool, and
  // before removing entries). Entries loaded already stay as they are;
  // when the stored session moved on meanwhile, the copy is marked stale
  // (stale()), to be reloaded before next use.
  Status LoadAll();
  bool stale() const { return !loaded_; }
  // Loads twice as many listed entries as the last load did (for an index
  // that shows more than were loaded); nothing once all are.
  Status LoadMoreListed();
  // Makes later loads read `n` listed entries (0: as many as the policy's
  // index cap needs), so tests reach the paths that read more. Not
  // thread-safe: tests call it before opening sessions.
  static void SetListedLoadForTesting(uint64_t n);

  // The pool entry for `meta`, created (with the next seq) when missing and
  // re-described when its latest version moved on.
  Result<PoolEntry*> EnsureEntry(const ObjectMeta& meta,
                                 SessionChanges& changes);

  // The chat at the state's chat_version (cached per version).
  Result<const std::vector<session::ChatMessage>*> Chat();
  // Writes the next version of the chat object and caches it; returns the
  // ref written. `continues`: `messages` follow the chat at the state's
  // chat_version, and only they are appended when that version is stored
  // one message per line and still the latest (a conditional append);
  // otherwise (a fresh or rewritten chat, `messages` whole; a chat in the
  // array form of earlier builds; another writer came first) the whole
  // chat is set. `whole` receives whether it was. Does not touch the state.
  Result<Ref> WriteChat(std::vector<session::ChatMessage> messages,
                        bool continues, bool* whole);
  // Static refs (wire form) of the chat and the system prompt at the
  // state's versions; "" when there is none.
  Result<std::string> ChatRef();
  Result<std::string> SystemRef();
  // The rendered block of the compaction `ref` names (cached by ref: a
  // static ref's content never changes).
  Result<const std::string*> CompactionText(
      const std::string& ref,
      session::ToolTexts texts = session::ToolTexts::kCompact);
  // The last snapshot of a render's index block, and of its tools, written
  // or read (render_record.cc).
  struct Snapshot {
    std::string text;
    std::string ref;
  };
  Snapshot& index_snapshot() { return index_snapshot_; }
  Snapshot& tools_snapshot() { return tools_snapshot_; }
  // The request of the last render this instance recorded or replayed
  // (render_record.cc: the previous request a new record's prefix_bytes
  // compares with). record 0: none.
  struct LastRequest {
    uint64_t record = 0;
    std::string text;
  };
  LastRequest& last_request() { return last_request_; }
  // The tool calls of the chat by id (for results that answer them in a
  // later append), kept up to date as the chat grows.
  Result<const session::KnownCalls*> ChatCalls();
  // The system text at the state's system_version (cached per version).
  Result<std::string> SystemText();
  // Content of one version (cached; bounded).
  Result<std::shared_ptr<const std::string>> Content(const std::string& key,
                                                     const std::string& scope,
                                                     uint64_t version);
  // Entry `e`'s object shared from another session's scope (a fork's
  // tool outputs, docs/sessions.md "Forks"): read by ref at the versions
  // the entry names, it does not follow that session's later versions.
  bool IsShared(const PoolEntry& e) const;
  // The ref of version `version` of `e`'s object: static, or (version 0)
  // dynamic; and that version's content (cached as Content). Read by key
  // in the scopes the view sees, by ref otherwise (IsShared).
  Result<Ref> EntryRef(const PoolEntry& e, uint64_t version);
  Result<std::shared_ptr<const std::string>> EntryContent(const PoolEntry& e,
                                                          uint64_t version);
  // Exact token count of `text` (cached by content).
  uint64_t Tokens(std::string_view text);

  // Rendering caches (render.cc). The chat epoch moves whenever the cached
  // chat is replaced rather than extended.
  uint64_t chat_epoch() const { return chat_epoch_; }
  session::FragmentCache& fragments() { return fragments_; }
  // The last compaction summary an endpoint wrote and what it was asked,
  // and its last failure (relief.cc).
  struct LlmSummaryMemo {
    std::string identity;
    uint64_t cap = 0;
    std::string transcript;
    std::string summary;
    std::string failed_identity;
    std::chrono::steady_clock::time_point failed_at;
    std::string failure;  // The note; empty: no failure.
  };
  LlmSummaryMemo& llm_summary_memo() { return llm_summary_memo_; }
  struct IndexLine {
    uint64_t version = 0;
    std::string line;
    uint64_t tokens = 0;
  };
  std::unordered_map<std::string, IndexLine>& index_lines() {
    return index_lines_;
  }
  // Entries the index may list (not locked, not referenced by the chat),
  // loaded or not, as of the last write (the state's listed count).
  uint64_t IndexTotal();
  // Ids of active entries (by active_seq) and pinned entries (by seq),
  // recomputed when the entries change, so a render never scans the whole
  // metadata pool.
  const std::vector<std::string>& ActiveIds();
  // Says pool entries changed in memory (the lists above are stale).
  void TouchEntries() { ++entries_epoch_; }
  const std::vector<std::string>& PinnedIds();
  // Ids of the entries the index may list (not locked, not from the chat),
  // in seq order: those loaded, so while the state is not complete a
  // prefix of them (shorter than IndexTotal() when more exist).
  const std::vector<std::string>& IndexIds();

 private:
  // Loads the session's state with the entries a render needs.
  Status Load();
  // Adds the decoded `rows` not loaded yet to the state.
  Status AddRows(const std::vector<storage::SessionEntryRow>& rows);
  // Adds the rows of a head load (Backend::LoadSessionHead with
  // `listed_limit`), and sets listed_through from them.
  Status AddHead(const std::vector<storage::SessionEntryRow>& rows,
                 uint64_t listed_limit);
  // The conditional write of what `changes` names, from the loaded state
  // (whose listed count it brings up to date).
  storage::SessionWrite WriteOf(const SessionChanges& changes);
  // The durable versions the write of `changes` names: its changed
  // entries' refs and pinned versions, and changes.hold.
  std::vector<storage::VersionKey> HeldBy(const SessionChanges& changes) const;
  // Notes what a successful `write` stored.
  void Committed(const storage::SessionWrite& write);

  Store* store_;
  View view_;
  std::string id_;
  StoredSessions sessions_;
  session::State state_;
  bool loaded_ = false;

  uint64_t chat_version_ = 0;
  uint64_t chat_bytes_ = 0;  // Size of the cached chat version.
  std::vector<session::ChatMessage> chat_;
  // Reads the chat at the state's version into the cache: only the bytes
  // after the cached version when the state's version appended to it.
  Status LoadChat();
  std::unordered_map<std::string, std::string> compaction_texts_;
  session::KnownCalls calls_;
  size_t calls_scanned_ = 0;  // Messages of chat_ whose calls are in calls_.
  // Bumped whenever chat_ is replaced rather than extended.
  uint64_t chat_epoch_ = 0;
  uint64_t calls_epoch_ = 0;
  Snapshot index_snapshot_;
  Snapshot tools_snapshot_;
  LastRequest last_request_;
  // Bumped whenever pool entries may have changed (a load, a commit that
  // wrote entries); the lists below are recomputed when it moves.
  uint64_t entries_epoch_ = 1;
  session::ChatEncoding chat_encoding_ = session::ChatEncoding::kLines;
  uint64_t system_version_ = 0;
  std::string system_text_;
  std::unordered_map<std::string, std::shared_ptr<const std::string>> content_;
  // Keeps `text` under `cache_key` (the cache bounded) and returns it.
  std::shared_ptr<const std::string> CacheContent(std::string cache_key,
                                                  std::string text);
  uint64_t content_bytes_ = 0;
  // Keyed by the whole text, so a hit is exact, never a hash collision.
  // Looked up by string_view (no copy of the text per lookup).
  struct TextHash {
    using is_transparent = void;
    size_t operator()(std::string_view text) const noexcept {
      return std::hash<std::string_view>{}(text);
    }
  };
  std::unordered_map<std::string, uint64_t, TextHash, std::equal_to<>> counts_;
  uint64_t counts_bytes_ = 0;
  std::unordered_map<std::string, IndexLine> index_lines_;
  session::FragmentCache fragments_;
  LlmSummaryMemo llm_summary_memo_;
  void ComputeLists();
  uint64_t lists_epoch_ = 0;
  std::vector<std::string> active_ids_;
  std::vector<std::string> pinned_ids_;
  std::vector<std::string> index_ids_;
  uint64_t listed_limit_ = 0;  // Of the last head load.
  // Loaded entries whose stored row is listed (for the listed count).
  std::unordered_set<std::string> stored_listed_;
};

}  // namespace ctxkit

#endif  // CTXKIT_SESSION_SESSION_IMPL_H_
