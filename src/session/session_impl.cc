// SessionImpl: loading, the mutation transaction, lookups and caches.

#include "session/session_impl.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "core/status_macros.h"
#include "session/object_info.h"
#include "session/render_layout.h"
#include "store/store_internals.h"
#include "text/json_parse.h"

namespace ctxkit {
namespace {

// Caches are dropped whole when they outgrow these (simple and enough: a
// render touches far less).
constexpr uint64_t kContentCacheBytes = 256ull << 20;
constexpr uint64_t kCountCacheBytes = 256ull << 20;
// Listed entries a load reads at least (see Load).
constexpr uint64_t kListedLoad = 16;
uint64_t listed_load_for_testing = 0;

}  // namespace

void SessionImpl::SetListedLoadForTesting(uint64_t n) {
  listed_load_for_testing = n;
}

Status SessionImpl::Load() {
  loaded_ = false;
  // Enough index lines for the policy's cap at 24 tokens a line (a line
  // holds a ref of about that many tokens, and its key and title): the
  // index rarely needs more (LoadMoreListed).
  const uint64_t listed_limit =
      listed_load_for_testing != 0
          ? listed_load_for_testing
          : kListedLoad + state_.policy.index_max_tokens / 24;
  CTXKIT_ASSIGN_OR_RETURN(
      storage::SessionRecord rec,
      sessions_.LoadSessionHead(id_, static_cast<size_t>(listed_limit)));
  session::State fresh;
  CTXKIT_RETURN_IF_ERROR(session::DecodeState(rec.state_json, &fresh));
  fresh.generation = rec.generation;
  if (!fresh.listed_entries_known) {
    // A state written before the count was kept: count once (a later
    // generation counted here only makes the next write lose its
    // compare-and-set).
    CTXKIT_ASSIGN_OR_RETURN(fresh.listed_entries,
                            sessions_.CountListedSessionEntries(id_));
    fresh.listed_entries_known = true;
  }
  fresh.complete = false;
  state_ = std::move(fresh);
  stored_listed_.clear();
  CTXKIT_RETURN_IF_ERROR(AddHead(rec.entries, listed_limit));
  loaded_ = true;
  return Status::Ok();
}

Status SessionImpl::AddHead(const std::vector<storage::SessionEntryRow>& rows,
                            uint64_t listed_limit) {
  // The rows are the hot entries and the first listed_limit listed ones by
  // seq: those are the smallest listed seqs among the rows.
  std::vector<uint64_t> listed;
  for (const storage::SessionEntryRow& row : rows) {
    if (row.listed) listed.push_back(row.seq);
  }
  std::sort(listed.begin(), listed.end());
  state_.listed_through = UINT64_MAX;
  // Fewer than listed_limit listed rows: the query returned them all.
  if (state_.listed_entries > listed.size() && listed.size() >= listed_limit) {
    state_.listed_through =
        listed[std::min<size_t>(listed_limit, listed.size()) - 1];
  }
  listed_limit_ = listed_limit;
  return AddRows(rows);
}

Status SessionImpl::LoadMoreListed() {
  if (state_.listed_through == UINT64_MAX) return Status::Ok();
  const uint64_t limit = std::max<uint64_t>(2 * listed_limit_, kListedLoad);
  CTXKIT_ASSIGN_OR_RETURN(
      storage::SessionRecord rec,
      sessions_.LoadSessionHead(id_, static_cast<size_t>(limit)));
  if (rec.generation != state_.generation) {
    // Another writer came first: this copy is stale, and what it lists
    // stays as loaded (a mutation loses its compare-and-set and runs again).
    loaded_ = false;
    state_.listed_through = UINT64_MAX;
    return Status::Ok();
  }
  return AddHead(rec.entries, limit);
}

Status SessionImpl::AddRows(const std::vector<storage::SessionEntryRow>& rows) {
  for (const storage::SessionEntryRow& row : rows) {
    if (state_.entries.count(row.object_id) != 0) continue;
    CTXKIT_ASSIGN_OR_RETURN(PoolEntry e, session::DecodeEntry(row.entry_json));
    if (e.id != row.object_id) {
      return Status::Corruption("session '" + id_ + "' entry of " +
                                row.object_id + " names object " + e.id);
    }
    if (row.listed) stored_listed_.insert(e.id);
    state_.by_seq[e.seq] = e.id;
    std::string eid = e.id;
    state_.entries.emplace(std::move(eid), std::move(e));
  }
  TouchEntries();
  return Status::Ok();
}

Status SessionImpl::LoadEntries(const std::vector<std::string>& ids) {
  if (state_.complete) return Status::Ok();
  std::vector<std::string> missing;
  for (const std::string& id : ids) {
    if (state_.entries.count(id) == 0) missing.push_back(id);
  }
  if (missing.empty()) return Status::Ok();
  CTXKIT_ASSIGN_OR_RETURN(storage::SessionRecord rec,
                          sessions_.LoadSessionEntries(id_, missing));
  // Rows of a later generation: the mutation under way loses its
  // compare-and-set and runs again on a fresh state.
  return AddRows(rec.entries);
}

Result<PoolEntry*> SessionImpl::FindEntry(const std::string& id) {
  auto it = state_.entries.find(id);
  if (it != state_.entries.end()) return &it->second;
  CTXKIT_RETURN_IF_ERROR(LoadEntries({id}));
  it = state_.entries.find(id);
  return it == state_.entries.end() ? nullptr : &it->second;
}

Status SessionImpl::LoadAll() {
  if (state_.complete) return Status::Ok();
  CTXKIT_ASSIGN_OR_RETURN(storage::SessionRecord rec,
                          sessions_.LoadSession(id_));
  // Rows of a later generation: the copy is stale (reloaded before next
  // use; a mutation loses its compare-and-set and runs again).
  if (rec.generation != state_.generation) loaded_ = false;
  CTXKIT_RETURN_IF_ERROR(AddRows(rec.entries));
  state_.complete = true;
  state_.listed_through = UINT64_MAX;
  TouchEntries();
  return Status::Ok();
}

Status SessionImpl::Refresh() {
  if (loaded_) {
    CTXKIT_ASSIGN_OR_RETURN(auto gen, sessions_.SessionGeneration(id_));
    if (!gen) return Status::NotFound("no session '" + id_ + "'");
    if (*gen == state_.generation) return Status::Ok();
  }
  return Load();
}

storage::SessionWrite SessionImpl::WriteOf(const SessionChanges& changes) {
  storage::SessionWrite w;
  w.id = id_;
  w.expected_generation = state_.generation;
  w.removed_entries.assign(changes.removed.begin(), changes.removed.end());
  // The listed count moves by the rows whose listed flag the write changes.
  int64_t listed_delta = 0;
  for (const std::string& id : changes.removed) {
    listed_delta -= stored_listed_.count(id);
  }
  for (const std::string& id : changes.dirty) {
    auto it = state_.entries.find(id);
    if (it == state_.entries.end()) continue;
    const PoolEntry& e = it->second;
    const bool listed = session::EntryIsListed(e);
    listed_delta += int64_t{listed};
    if (changes.removed.count(id) == 0) {
      listed_delta -= int64_t(stored_listed_.count(id));
    }
    w.put_entries.push_back(
        {id, e.seq, session::EncodeEntry(e), session::EntryIsHot(e), listed});
  }
  state_.listed_entries =
      listed_delta < 0 &&
              static_cast<uint64_t>(-listed_delta) > state_.listed_entries
          ? 0
          : state_.listed_entries + listed_delta;
  w.state_json = session::EncodeState(state_);
  w.holds = HeldBy(changes);
  return w;
}

std::vector<storage::VersionKey> SessionImpl::HeldBy(
    const SessionChanges& changes) const {
  std::vector<Ref> refs = changes.hold;
  for (const std::string& id : changes.dirty) {
    auto it = state_.entries.find(id);
    if (it == state_.entries.end()) continue;
    Result<Ref> ref = ParseRef(it->second.ref);
    if (!ref.ok()) continue;  // An entry of a value with no version yet.
    refs.push_back(*ref);
    if (it->second.pinned_version != 0) {
      ref->version = it->second.pinned_version;
      refs.push_back(*ref);
    }
  }
  return StoreInternals::DurableVersionsOf(refs);
}

void SessionImpl::Committed(const storage::SessionWrite& w) {
  for (const std::string& id : w.removed_entries) stored_listed_.erase(id);
  for (const storage::SessionEntryRow& row : w.put_entries) {
    if (row.listed) {
      stored_listed_.insert(row.object_id);
    } else {
      stored_listed_.erase(row.object_id);
    }
  }
}

Status SessionImpl::Mutate(const std::function<Status(SessionChanges&)>& fn) {
  for (int attempt = 0; attempt < kMutateAttempts; ++attempt) {
    Status s = Refresh();
    SessionChanges changes;
    if (s.ok()) s = fn(changes);
    if (!s.ok()) {
      loaded_ = false;  // The copy may hold half a mutation: reload it.
      return s;
    }
    if (!changes.dirty.empty() || !changes.removed.empty()) TouchEntries();
    if (!changes.any()) return Status::Ok();
    const storage::SessionWrite write = WriteOf(changes);
    Result<uint64_t> written = sessions_.WriteSession(write);
    if (written.ok()) {
      state_.generation = *written;
      Committed(write);
      return Status::Ok();
    }
    loaded_ = false;
    // FailedPrecondition: another writer came first; go again on its state.
    if (written.status().code() != StatusCode::kFailedPrecondition) {
      return written.status();
    }
  }
  return Status::Unavailable("session '" + id_ + "' is changing too often (" +
                             std::to_string(kMutateAttempts) +
                             " attempts lost to other writers); try again");
}

bool SessionImpl::IsLocked(const ObjectMeta& meta) const {
  return meta.scope == Scope::Session(id_) &&
         (meta.key == session::kChatKey || meta.key == session::kSystemKey);
}

Result<ObjectMeta> SessionImpl::Lookup(std::string_view object) {
  if (object == "chat" || object == "system") {
    const char* key =
        object == "chat" ? session::kChatKey : session::kSystemKey;
    Result<ObjectMeta> meta = view_.Stat(key, {.scope = session_scope()});
    if (meta.status().IsNotFound()) {
      return Status::NotFound("session '" + id_ + "' has no " +
                              std::string(object) +
                              " yet (ingest a log first)");
    }
    return meta;
  }
  Result<Target> target = Target::Parse(object);
  if (!target.ok()) {
    return Target::IsRefText(object)
               ? target.status()
               : ValidateKey(object).WithContext("object");
  }
  if (target->is_ref()) {
    if (target->ref()->is_session_only()) {
      return Status::InvalidArgument(
          "a session tracks persistent objects only; " + std::string(object) +
          " is session-only");
    }
    return view_.Stat(*target);
  }
  CTXKIT_ASSIGN_OR_RETURN(ObjectMeta meta, view_.Stat(*target));
  if (!meta.persistent) {
    return Status::InvalidArgument(
        "a session tracks persistent objects only; '" + std::string(object) +
        "' is session-only");
  }
  return meta;
}

Result<PoolEntry*> SessionImpl::EnsureEntry(const ObjectMeta& meta,
                                            SessionChanges& changes) {
  CTXKIT_ASSIGN_OR_RETURN(PoolEntry * found, FindEntry(meta.id));
  if (found != nullptr) {
    PoolEntry& e = *found;
    if (e.version != meta.version || e.key != meta.key) {
      CTXKIT_RETURN_IF_ERROR(session::DescribeObject(view_, meta, 0, &e));
      changes.dirty.insert(e.id);
    }
    return &e;
  }
  PoolEntry e;
  CTXKIT_RETURN_IF_ERROR(session::DescribeObject(view_, meta, 0, &e));
  e.locked = IsLocked(meta);
  e.seq = state_.next_seq++;
  changes.state = true;
  changes.dirty.insert(e.id);
  state_.by_seq[e.seq] = e.id;
  auto [pos, inserted] = state_.entries.emplace(e.id, std::move(e));
  (void)inserted;
  return &pos->second;
}

Status SessionImpl::LoadChat() {
  const LookupOptions at{.scope = session_scope(),
                         .version = state_.chat_version};
  CTXKIT_ASSIGN_OR_RETURN(Ref ref, view_.RefOf(session::kChatKey, at));
  // The cached version is a prefix of the state's when both are of the
  // chain the last whole write started.
  const bool appended =
      chat_version_ != 0 && chat_encoding_ == session::ChatEncoding::kLines &&
      chat_version_ >= state_.chat_whole_version &&
      chat_version_ < state_.chat_version && chat_bytes_ <= ref.size_bytes;
  Result<std::vector<session::ChatMessage>> more = Status::NotFound("");
  if (appended) {
    CTXKIT_ASSIGN_OR_RETURN(
        std::string tail,
        view_.ReadRange(ref, chat_bytes_, ref.size_bytes - chat_bytes_));
    more = session::DecodeChat(tail);
  }
  if (more.ok()) {
    for (auto& m : *more) chat_.push_back(std::move(m));
  } else {
    // Not a continuation after all (or not one this build can tell):
    // read the version whole.
    CTXKIT_ASSIGN_OR_RETURN(std::string text, view_.Resolve(ref));
    CTXKIT_ASSIGN_OR_RETURN(chat_, session::DecodeChat(text, &chat_encoding_));
    ++chat_epoch_;
  }
  chat_version_ = state_.chat_version;
  chat_bytes_ = ref.size_bytes;
  return Status::Ok();
}

Result<const std::vector<session::ChatMessage>*> SessionImpl::Chat() {
  if (state_.chat_version == 0) {
    chat_.clear();
    ++chat_epoch_;
    chat_version_ = 0;
    chat_bytes_ = 0;
    return &chat_;
  }
  if (chat_version_ != state_.chat_version) {
    Status s = LoadChat();
    if (!s.ok()) {
      chat_version_ = 0;  // The cache may hold part of a read.
      return s;
    }
  }
  return &chat_;
}

Result<Ref> SessionImpl::WriteChat(std::vector<session::ChatMessage> messages,
                                   bool continues, bool* whole) {
  SetOptions opts{.scope = "session",
                  .type = ValueType::kChat,
                  .producer = "session:" + id_};
  Result<Ref> written = Status::FailedPrecondition("not appendable");
  if (continues) {
    CTXKIT_RETURN_IF_ERROR(Chat().status());
    if (state_.chat_version != 0 &&
        chat_encoding_ == session::ChatEncoding::kLines) {
      opts.expected_version = state_.chat_version;
      written =
          view_.Append(session::kChatKey, session::EncodeChat(messages), opts);
    }
  }
  *whole = !written.ok();
  if (!*whole) {
    for (auto& m : messages) chat_.push_back(std::move(m));
  } else {
    // FailedPrecondition: not a continuation, or another writer moved the
    // chat on since this state was read. A whole value is right either way.
    if (written.status().code() != StatusCode::kFailedPrecondition) {
      return written.status();
    }
    std::vector<session::ChatMessage> chat;
    if (continues) {
      CTXKIT_ASSIGN_OR_RETURN(const auto* old, Chat());
      chat = *old;
    }
    for (auto& m : messages) chat.push_back(std::move(m));
    opts.expected_version = 0;
    written = view_.Set(session::kChatKey, session::EncodeChat(chat), opts);
    if (!written.ok()) {
      chat_version_ = 0;  // The cache no longer matches a stored version.
      return written.status();
    }
    chat_ = std::move(chat);
    ++chat_epoch_;
  }
  chat_version_ = written->version;
  chat_bytes_ = written->size_bytes;
  chat_encoding_ = session::ChatEncoding::kLines;
  return written;
}

Result<const session::KnownCalls*> SessionImpl::ChatCalls() {
  CTXKIT_ASSIGN_OR_RETURN(const auto* chat, Chat());
  if (calls_epoch_ != chat_epoch_ || calls_scanned_ > chat->size()) {
    calls_.clear();
    calls_scanned_ = 0;
    calls_epoch_ = chat_epoch_;
  }
  for (; calls_scanned_ < chat->size(); ++calls_scanned_) {
    for (const session::ToolCallRef& c : (*chat)[calls_scanned_].tool_calls) {
      calls_[c.id] = {c.name, c.arguments};
    }
  }
  return &calls_;
}

Result<std::string> SessionImpl::ChatRef() {
  if (state_.chat_version == 0) return std::string();
  CTXKIT_ASSIGN_OR_RETURN(
      Ref ref,
      view_.RefOf(session::kChatKey,
                  {.scope = session_scope(), .version = state_.chat_version}));
  return FormatRef(ref);
}

Result<std::string> SessionImpl::SystemRef() {
  if (state_.system_version == 0) return std::string();
  CTXKIT_ASSIGN_OR_RETURN(
      Ref ref,
      view_.RefOf(session::kSystemKey, {.scope = session_scope(),
                                        .version = state_.system_version}));
  return FormatRef(ref);
}

Result<const std::string*> SessionImpl::CompactionText(
    const std::string& ref, session::ToolTexts texts) {
  // Keyed by ref and form (a render with the agent tools names them).
  const std::string key = ref + "#" + std::to_string(static_cast<int>(texts));
  auto it = compaction_texts_.find(key);
  if (it != compaction_texts_.end()) return &it->second;
  CTXKIT_ASSIGN_OR_RETURN(Ref parsed, ParseRef(ref));
  CTXKIT_ASSIGN_OR_RETURN(std::string text, view_.Resolve(parsed));
  nlohmann::json content = ctxkit::text::ParseJsonOrDiscarded(text);
  if (!content.is_object()) {
    return Status::Corruption("compaction " + ref + " is not a JSON object");
  }
  auto [pos, inserted] = compaction_texts_.emplace(
      key, session::CompactionBlockText(ref, content, texts));
  return &pos->second;
}

Result<std::string> SessionImpl::SystemText() {
  if (state_.system_version == 0) return std::string();
  if (system_version_ != state_.system_version) {
    CTXKIT_ASSIGN_OR_RETURN(
        system_text_,
        view_.Get(session::kSystemKey, {.scope = session_scope(),
                                        .version = state_.system_version}));
    system_version_ = state_.system_version;
  }
  return system_text_;
}

Result<std::shared_ptr<const std::string>> SessionImpl::Content(
    const std::string& key, const std::string& scope, uint64_t version) {
  std::string cache_key = scope + "\n" + key + "\n" + std::to_string(version);
  auto it = content_.find(cache_key);
  if (it != content_.end()) return it->second;
  CTXKIT_ASSIGN_OR_RETURN(std::string text,
                          view_.Get(key, {.scope = scope, .version = version}));
  return CacheContent(std::move(cache_key), std::move(text));
}

std::shared_ptr<const std::string> SessionImpl::CacheContent(
    std::string cache_key, std::string text) {
  if (content_bytes_ + text.size() > kContentCacheBytes) {
    content_.clear();
    content_bytes_ = 0;
  }
  content_bytes_ += text.size();
  auto ptr = std::make_shared<const std::string>(std::move(text));
  content_.emplace(std::move(cache_key), ptr);
  return ptr;
}

bool SessionImpl::IsShared(const PoolEntry& e) const {
  return !session::ViewSeesScope(view_, e.scope);
}

Result<Ref> SessionImpl::EntryRef(const PoolEntry& e, uint64_t version) {
  if (!IsShared(e)) {
    return view_.RefOf(e.key, {.scope = e.scope, .version = version});
  }
  CTXKIT_ASSIGN_OR_RETURN(Ref ref, ParseRef(e.ref));
  if (version == 0) {
    ref.version = 0;
    return ref;
  }
  return session::VersionRef(view_, ref, version);
}

Result<std::shared_ptr<const std::string>> SessionImpl::EntryContent(
    const PoolEntry& e, uint64_t version) {
  if (!IsShared(e)) return Content(e.key, e.scope, version);
  std::string cache_key =
      e.scope + "\n" + e.key + "\n" + std::to_string(version);
  auto it = content_.find(cache_key);
  if (it != content_.end()) return it->second;
  CTXKIT_ASSIGN_OR_RETURN(Ref ref, EntryRef(e, version));
  CTXKIT_ASSIGN_OR_RETURN(std::string text, view_.Resolve(ref));
  return CacheContent(std::move(cache_key), std::move(text));
}

uint64_t SessionImpl::Tokens(std::string_view text) {
  auto it = counts_.find(text);
  if (it != counts_.end()) return it->second;
  uint64_t n = session::CountTokens(text);
  if (counts_bytes_ + text.size() > kCountCacheBytes) {
    counts_.clear();
    counts_bytes_ = 0;
  }
  counts_bytes_ += text.size();
  counts_.emplace(std::string(text), n);
  return n;
}

uint64_t SessionImpl::IndexTotal() { return state_.listed_entries; }

void SessionImpl::ComputeLists() {
  if (lists_epoch_ == entries_epoch_) return;
  // Walks the entries by id (no lookups), then orders each list by its
  // sequence number.
  using Keyed = std::vector<std::pair<uint64_t, const std::string*>>;
  Keyed active, pinned, index;
  for (const auto& [id, e] : state_.entries) {
    if (e.locked) continue;
    if (session::EntryIsListed(e) && e.seq <= state_.listed_through) {
      index.emplace_back(e.seq, &id);
    }
    if (e.active) active.emplace_back(e.active_seq, &id);
    if (e.pinned_version != 0) pinned.emplace_back(e.seq, &id);
  }
  auto fill = [](Keyed& keyed, std::vector<std::string>* out) {
    std::sort(keyed.begin(), keyed.end());
    out->clear();
    out->reserve(keyed.size());
    for (const auto& [seq, id] : keyed) out->push_back(*id);
  };
  fill(active, &active_ids_);
  fill(pinned, &pinned_ids_);
  fill(index, &index_ids_);
  lists_epoch_ = entries_epoch_;
}

const std::vector<std::string>& SessionImpl::ActiveIds() {
  ComputeLists();
  return active_ids_;
}

const std::vector<std::string>& SessionImpl::IndexIds() {
  ComputeLists();
  return index_ids_;
}

const std::vector<std::string>& SessionImpl::PinnedIds() {
  ComputeLists();
  return pinned_ids_;
}

}  // namespace ctxkit
