// Session: the public API (session.h) — creation, pools, policy, ingestion.
// Rendering is in render.cc.

#include "ctxkit/session.h"

#include <algorithm>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/encoding.h"
#include "core/hmac.h"
#include "core/progress_meter.h"
#include "core/sha256.h"
#include "core/status_macros.h"
#include "ctxkit/toolcall.h"
#include "session/log_parse.h"
#include "session/object_info.h"
#include "session/relief.h"
#include "session/render_record.h"
#include "session/session_impl.h"
#include "store/stored_sessions.h"

namespace ctxkit {
namespace {

Status Locked(std::string_view object, std::string_view verb) {
  return Status::FailedPrecondition(
      "'" + std::string(object) +
      "' is locked: the system prompt and the chat are always in context "
      "at their latest version and cannot be " +
      std::string(verb));
}

Result<std::unique_ptr<SessionImpl>> MakeImpl(Store& store,
                                              std::string_view id) {
  CTXKIT_RETURN_IF_ERROR(ValidateScopeId(id).WithContext("session id"));
  CTXKIT_ASSIGN_OR_RETURN(View view, store.OpenView("", id));
  return std::make_unique<SessionImpl>(&store, std::move(view), std::string(id),
                                       StoredSessions(store));
}

// Chain hash of the log prefix: h0 binds the format and system text, each
// message then extends it, so any rewritten message changes every later h.
std::vector<std::string> ChainHashes(const session::ParsedLog& log,
                                     LogFormat format) {
  std::vector<std::string> chain;
  chain.reserve(log.items.size() + 1);
  std::string h =
      core::Sha256("ctxkit-log-v1\n" + std::string(LogFormatName(format)) +
                   "\n" + log.system);
  chain.push_back(core::ToHex(h));
  for (const session::ParsedItem& item : log.items) {
    h = core::Sha256(h + core::Sha256(item.canonical));
    chain.push_back(core::ToHex(h));
  }
  return chain;
}

// The chain hash after `log`'s items, continuing from hex hash `from`.
Result<std::string> ContinueChain(const std::string& from,
                                  const session::ParsedLog& log) {
  std::optional<std::string> raw = core::FromHex(from);
  if (!raw) return Status::Corruption("session state: bad ingest hash");
  std::string h = *raw;
  for (const session::ParsedItem& item : log.items) {
    h = core::Sha256(h + core::Sha256(item.canonical));
  }
  return core::ToHex(h);
}

}  // namespace

std::string_view LogFormatName(LogFormat format) {
  switch (format) {
    case LogFormat::kAnthropic:
      return "anthropic";
    case LogFormat::kOpenAIResponses:
      return "openai-responses";
    case LogFormat::kOpenAI:
      break;
  }
  return "openai";
}

Result<LogFormat> ParseLogFormat(std::string_view name) {
  if (name == "openai") return LogFormat::kOpenAI;
  if (name == "anthropic") return LogFormat::kAnthropic;
  if (name == "openai-responses") return LogFormat::kOpenAIResponses;
  return Status::InvalidArgument("unknown format '" + std::string(name) +
                                 "' (openai, openai-responses or anthropic)");
}

Session::Session(std::unique_ptr<SessionImpl> impl) : impl_(std::move(impl)) {}
Session::~Session() = default;

const std::string& Session::id() const { return impl_->id(); }

View& Session::view() { return impl_->view(); }

Result<std::unique_ptr<Session>> Session::Create(Store& store,
                                                 std::string_view id,
                                                 const SessionPolicy& policy) {
  CTXKIT_RETURN_IF_ERROR(session::ValidatePolicy(policy));
  CTXKIT_ASSIGN_OR_RETURN(auto impl, MakeImpl(store, id));
  session::State state;
  state.id = std::string(id);
  state.policy = policy;
  CTXKIT_ASSIGN_OR_RETURN(std::string nonce, core::SecureRandomBytes(8));
  state.records_key =
      std::string(session::kRecordsKey) + "/" + core::ToHex(nonce);
  storage::SessionWrite create;
  create.id = state.id;
  create.expected_generation = 0;     // AlreadyExists when it exists.
  state.listed_entries_known = true;  // None yet.
  create.state_json = session::EncodeState(state);
  CTXKIT_RETURN_IF_ERROR(impl->sessions().WriteSession(create).status());
  CTXKIT_RETURN_IF_ERROR(impl->Refresh());
  return std::unique_ptr<Session>(new Session(std::move(impl)));
}

Result<std::unique_ptr<Session>> Session::Open(Store& store,
                                               std::string_view id) {
  CTXKIT_ASSIGN_OR_RETURN(auto impl, MakeImpl(store, id));
  CTXKIT_RETURN_IF_ERROR(impl->Refresh());
  return std::unique_ptr<Session>(new Session(std::move(impl)));
}

Result<std::vector<std::string>> Session::List(Store& store) {
  return StoredSessions(store).ListSessions();
}

Result<uint64_t> Session::Remove(Store& store, std::string_view id) {
  CTXKIT_RETURN_IF_ERROR(ValidateScopeId(id).WithContext("session id"));
  StoredSessions sessions(store);
  CTXKIT_ASSIGN_OR_RETURN(std::optional<uint64_t> gen,
                          sessions.SessionGeneration(id));
  if (!gen) return Status::NotFound("no session '" + std::string(id) + "'");
  CTXKIT_ASSIGN_OR_RETURN(View view, store.OpenView("", id));
  // Objects first: if this stops half way, the session still exists and
  // running Remove again finishes the job.
  uint64_t removed = 0;
  ListFilter filter{.scope = "session", .limit = 1000};
  while (true) {
    CTXKIT_ASSIGN_OR_RETURN(ListPage page, view.List(filter));
    for (const ObjectMeta& m : page.items) {
      Status s = view.Remove(m.key, {.scope = "session"});
      if (s.ok()) ++removed;
      if (!s.ok() && !s.IsNotFound()) return s;
    }
    if (page.next_cursor.empty()) break;
    filter.cursor = page.next_cursor;
  }
  CTXKIT_RETURN_IF_ERROR(store.EndSession(id));
  Status s = sessions.RemoveSession(id);
  if (!s.ok() && !s.IsNotFound()) return s;
  return removed;
}

Result<SessionSnapshot> Session::Snapshot() {
  // One generation throughout: again when another writer came between the
  // state and the rest of its entries.
  for (int attempt = 0;; ++attempt) {
    CTXKIT_RETURN_IF_ERROR(impl_->Refresh());
    CTXKIT_RETURN_IF_ERROR(impl_->LoadAll());
    if (!impl_->stale()) break;
    if (attempt == SessionImpl::kMutateAttempts) {
      return Status::Unavailable("session '" + impl_->id() +
                                 "' is changing too often to list; try "
                                 "again");
    }
  }
  const session::State& st = impl_->state();
  SessionSnapshot snap;
  snap.id = st.id;
  snap.policy = st.policy;
  snap.generation = st.generation;
  snap.chat_messages = st.chat_messages;
  snap.chat_version = st.chat_version;
  snap.system_version = st.system_version;
  snap.ingest_format = st.ingest_format;
  snap.ingested_items = st.ingested_items;
  snap.entries.reserve(st.entries.size());
  for (const auto& [seq, id] : st.by_seq) {
    snap.entries.push_back(st.entries.at(id));
  }
  snap.compactions = st.compactions;
  CTXKIT_RETURN_IF_ERROR(session::FillRecordFigures(*impl_, &snap));
  return snap;
}

Status Session::Activate(std::string_view object, uint64_t version) {
  if (version != 0) return Pin(object, version);
  return impl_->Mutate([&](SessionChanges& ch) -> Status {
    CTXKIT_ASSIGN_OR_RETURN(ObjectMeta meta, impl_->Lookup(object));
    if (impl_->IsLocked(meta)) return Status::Ok();  // Always active.
    CTXKIT_ASSIGN_OR_RETURN(PoolEntry * e, impl_->EnsureEntry(meta, ch));
    if (e->active && !e->auto_active) return Status::Ok();
    e->active = true;
    e->auto_active = false;
    e->collapsed = false;
    e->active_seq = impl_->state().next_seq++;
    ch.dirty.insert(e->id);
    ch.state = true;
    return Status::Ok();
  });
}

Status Session::Deactivate(std::string_view object) {
  return impl_->Mutate([&](SessionChanges& ch) -> Status {
    CTXKIT_ASSIGN_OR_RETURN(ObjectMeta meta, impl_->Lookup(object));
    if (impl_->IsLocked(meta)) return Locked(object, "deactivated");
    CTXKIT_ASSIGN_OR_RETURN(PoolEntry * found, impl_->FindEntry(meta.id));
    if (found == nullptr) {
      return Status::NotFound("'" + std::string(object) +
                              "' is not in session '" + impl_->id() + "'");
    }
    PoolEntry& e = *found;
    if (!e.active) return Status::Ok();
    e.active = false;
    e.auto_active = false;
    ch.dirty.insert(e.id);
    return Status::Ok();
  });
}

Status Session::Pin(std::string_view object, uint64_t version) {
  return impl_->Mutate([&](SessionChanges& ch) -> Status {
    CTXKIT_ASSIGN_OR_RETURN(ObjectMeta meta, impl_->Lookup(object));
    if (impl_->IsLocked(meta)) return Locked(object, "pinned");
    const uint64_t v = version == 0 ? meta.version : version;
    // NotFound for a version that does not exist or is a tombstone.
    CTXKIT_RETURN_IF_ERROR(
        impl_->view()
            .RefOf(meta.key, {.scope = meta.scope.ToString(), .version = v})
            .status());
    CTXKIT_ASSIGN_OR_RETURN(PoolEntry * e, impl_->EnsureEntry(meta, ch));
    if (e->pinned_version == v) return Status::Ok();
    e->pinned_version = v;
    ch.dirty.insert(e->id);
    return Status::Ok();
  });
}

Status Session::Unpin(std::string_view object) {
  return impl_->Mutate([&](SessionChanges& ch) -> Status {
    CTXKIT_ASSIGN_OR_RETURN(ObjectMeta meta, impl_->Lookup(object));
    if (impl_->IsLocked(meta)) return Locked(object, "unpinned");
    CTXKIT_ASSIGN_OR_RETURN(PoolEntry * e, impl_->FindEntry(meta.id));
    if (e == nullptr || e->pinned_version == 0) {
      return Status::NotFound("'" + std::string(object) +
                              "' is not pinned in session '" + impl_->id() +
                              "'");
    }
    e->pinned_version = 0;
    ch.dirty.insert(e->id);
    return Status::Ok();
  });
}

Status Session::Track(std::string_view object) {
  return TrackMany({std::string(object)});
}

Status Session::TrackMany(const std::vector<std::string>& objects) {
  return impl_->Mutate([&](SessionChanges& ch) -> Status {
    for (const std::string& object : objects) {
      CTXKIT_ASSIGN_OR_RETURN(ObjectMeta meta, impl_->Lookup(object));
      if (impl_->IsLocked(meta)) continue;
      CTXKIT_RETURN_IF_ERROR(impl_->EnsureEntry(meta, ch).status());
    }
    return Status::Ok();
  });
}

Status Session::SetPolicy(const SessionPolicy& policy) {
  CTXKIT_RETURN_IF_ERROR(session::ValidatePolicy(policy));
  return impl_->Mutate([&](SessionChanges& ch) -> Status {
    impl_->state().policy = policy;
    ch.state = true;
    return Status::Ok();
  });
}

namespace {

// Where an ingestion starts: the messages kept from the stored chat and
// the log items already consumed.
struct IngestStart {
  bool fresh = false;  // Nothing ingested before.
  bool reset = false;  // The log was rewritten: the chat is rebuilt.
  size_t items = 0;    // Log items consumed before this ingestion.
};

// Records the tool outputs of log items [first, end) and appends their
// messages to `chat`.
Status AddItems(SessionImpl& impl, const session::ParsedLog& log, size_t first,
                std::vector<session::ChatMessage>* chat, SessionChanges& ch,
                const ProgressOptions& progress, IngestReport* report) {
  session::State& st = impl.state();
  View& view = impl.view();
  core::ProgressMeter meter(progress, "ingesting", "log items",
                            log.items.size() - first);
  for (size_t i = first; i < log.items.size(); ++i) {
    for (const session::ParsedMessage& p : log.items[i].messages) {
      session::ChatMessage m = p.message;
      if (m.role == "tool") {
        ToolCall call{.call_id = m.call_id,
                      .tool = m.tool,
                      .arguments_json = p.arguments,
                      .status = m.status,
                      .output = p.output,
                      .producer = "session:" + impl.id()};
        CTXKIT_ASSIGN_OR_RETURN(Ref output,
                                RecordToolCall(view, call, "session"));
        CTXKIT_ASSIGN_OR_RETURN(ObjectMeta meta, view.Stat(output));
        meta.version = output.version;  // Not a later writer's version.
        meta.size_bytes = output.size_bytes;
        CTXKIT_ASSIGN_OR_RETURN(PoolEntry * e, impl.EnsureEntry(meta, ch));
        if (!e->from_chat) {
          e->from_chat = true;
          e->active = true;
          e->auto_active = true;
          e->collapsed = false;
          e->active_seq = st.next_seq++;
          ch.dirty.insert(e->id);
        }
        m.object_id = e->id;
        m.ref = e->ref;
        m.version = e->version;
        m.bytes = e->size_bytes;
        m.tokens = e->tokens;
        m.summary = session::OneLineSummary(p.output);
        ++report->toolcalls_recorded;
      }
      chat->push_back(std::move(m));
      ++report->messages_added;
    }
    meter.Reach(i + 1 - first);
  }
  return Status::Ok();
}

// After a rewritten log: compactions are dropped, and outputs the new chat
// no longer refers to leave the session unless a user pinned or activated
// them.
Status PruneAfterReset(SessionImpl& impl,
                       const std::vector<session::ChatMessage>& chat,
                       SessionChanges& ch) {
  CTXKIT_RETURN_IF_ERROR(impl.LoadAll());
  session::State& st = impl.state();
  st.compactions.clear();
  std::set<std::string> in_chat;
  for (const session::ChatMessage& m : chat) {
    if (m.role == "tool") in_chat.insert(m.object_id);
  }
  for (auto it = st.entries.begin(); it != st.entries.end();) {
    PoolEntry& e = it->second;
    if (e.compacted) {
      e.compacted = false;
      ch.dirty.insert(e.id);
    }
    if (!e.from_chat || in_chat.count(e.id) != 0) {
      ++it;
      continue;
    }
    if (e.pinned_version != 0 || (e.active && !e.auto_active)) {
      e.from_chat = false;
      ch.dirty.insert(e.id);
      ++it;
      continue;
    }
    ch.removed.insert(e.id);
    ch.dirty.erase(e.id);
    st.by_seq.erase(e.seq);
    it = st.entries.erase(it);
  }
  return Status::Ok();
}

// Seed 004's policy (SessionPolicy::collapse_at_ingestion): the outputs
// the policy made active, older than the newest keep_tool_outputs and not
// among the newest outputs, collapse now, whatever the budget.
Status CollapseOlderOutputs(SessionImpl& impl, SessionChanges& ch) {
  session::State& st = impl.state();
  CTXKIT_ASSIGN_OR_RETURN(const auto* chat, impl.Chat());
  const size_t first = std::min<size_t>(st.compacted_end(), chat->size());
  const std::set<std::string> kept =
      session::NewestOutputIds(*chat, first, st.policy.keep_tool_outputs);
  const size_t newest = session::NewestOutputsFrom(*chat, first);
  for (size_t i = first; i < newest; ++i) {
    const session::ChatMessage& m = (*chat)[i];
    if (m.role != "tool" || kept.count(m.object_id) != 0) continue;
    auto it = st.entries.find(m.object_id);  // Active entries are loaded.
    if (it == st.entries.end()) continue;
    PoolEntry& e = it->second;
    if (!e.active || !e.auto_active || e.pinned_version != 0) continue;
    e.active = false;
    e.auto_active = false;
    e.collapsed = true;
    ch.dirty.insert(e.id);
    impl.TouchEntries();
  }
  return Status::Ok();
}

// Adds log items [start.items, end) to the chat and commits the cursor.
Status IngestItems(SessionImpl& impl, const session::ParsedLog& log,
                   const IngestStart& start, const std::string& system,
                   uint64_t items_after, const std::string& hash_after,
                   LogFormat format, const ProgressOptions& progress,
                   SessionChanges& ch, IngestReport* report) {
  session::State& st = impl.state();
  report->reset = start.reset;
  const bool continues = !start.fresh && !start.reset;
  std::vector<session::ChatMessage> added;
  CTXKIT_RETURN_IF_ERROR(
      AddItems(impl, log, start.items, &added, ch, progress, report));
  if (start.reset) {
    CTXKIT_RETURN_IF_ERROR(PruneAfterReset(impl, added, ch));
  }
  CTXKIT_ASSIGN_OR_RETURN(std::string old_system, impl.SystemText());
  if (system != old_system) {
    SetOptions opts{.scope = "session", .producer = "session:" + impl.id()};
    CTXKIT_ASSIGN_OR_RETURN(Ref ref,
                            impl.view().Set(session::kSystemKey, system, opts));
    st.system_version = ref.version;
    ch.hold.push_back(ref);
  }
  bool whole = false;
  // Only the new messages are stored when the chat continues.
  CTXKIT_ASSIGN_OR_RETURN(Ref chat_ref,
                          impl.WriteChat(std::move(added), continues, &whole));
  st.chat_version = chat_ref.version;
  ch.hold.push_back(chat_ref);
  if (whole) st.chat_whole_version = chat_ref.version;
  CTXKIT_ASSIGN_OR_RETURN(const auto* chat, impl.Chat());
  st.chat_messages = chat->size();
  st.ingest_format = std::string(LogFormatName(format));
  st.ingested_items = items_after;
  st.ingest_hash = hash_after;
  ch.state = true;
  if (st.policy.collapse_at_ingestion) {
    CTXKIT_RETURN_IF_ERROR(CollapseOlderOutputs(impl, ch));
  }
  return Status::Ok();
}

}  // namespace

Result<IngestReport> Session::Ingest(std::string_view log_json,
                                     LogFormat format,
                                     const ProgressOptions& progress) {
  // Parse and validate everything before touching the store or the state.
  CTXKIT_ASSIGN_OR_RETURN(session::ParsedLog log,
                          session::ParseLog(log_json, format));
  const std::vector<std::string> chain = ChainHashes(log, format);
  IngestReport report;
  Status s = impl_->Mutate([&](SessionChanges& ch) -> Status {
    report = IngestReport();
    const session::State& st = impl_->state();
    const bool continues = st.ingested_items <= log.items.size() &&
                           st.ingest_format == LogFormatName(format) &&
                           chain[st.ingested_items] == st.ingest_hash;
    if (continues && st.ingested_items == log.items.size()) {
      return Status::Ok();  // Nothing new.
    }
    IngestStart start;
    start.fresh = st.ingest_format.empty();
    start.reset = !continues && !start.fresh;
    start.items = continues ? st.ingested_items : 0;
    return IngestItems(*impl_, log, start, log.system, log.items.size(),
                       chain.back(), format, progress, ch, &report);
  });
  if (!s.ok()) return s;
  return report;
}

Result<IngestReport> Session::IngestAppend(std::string_view messages_json,
                                           LogFormat format,
                                           const ProgressOptions& progress) {
  IngestReport report;
  Status s = impl_->Mutate([&](SessionChanges& ch) -> Status {
    report = IngestReport();
    const session::State& st = impl_->state();
    IngestStart start;
    start.fresh = st.ingest_format.empty();
    if (!start.fresh && st.ingest_format != LogFormatName(format)) {
      return Status::FailedPrecondition(
          "session '" + impl_->id() + "' was ingested as " + st.ingest_format +
          "; append messages in that format");
    }
    const session::KnownCalls none;
    const session::KnownCalls* calls = &none;
    if (!start.fresh) {
      CTXKIT_ASSIGN_OR_RETURN(calls, impl_->ChatCalls());
    }
    CTXKIT_ASSIGN_OR_RETURN(session::ParsedLog log,
                            session::ParseLog(messages_json, format, *calls));
    if (!start.fresh && !log.system.empty()) {
      return Status::InvalidArgument(
          "appended messages hold a system prompt; the system prompt of a "
          "session is set by a whole-log ingestion (session ingest without "
          "--append)");
    }
    if (log.items.empty()) return Status::Ok();
    // The cursor continues as if the whole log had been ingested at once.
    std::string h = start.fresh ? ChainHashes(log, format).back() : "";
    if (!start.fresh) {
      CTXKIT_ASSIGN_OR_RETURN(h, ContinueChain(st.ingest_hash, log));
    }
    CTXKIT_ASSIGN_OR_RETURN(std::string system, impl_->SystemText());
    if (start.fresh) system = log.system;
    return IngestItems(*impl_, log, start, system,
                       st.ingested_items + log.items.size(), h, format,
                       progress, ch, &report);
  });
  if (!s.ok()) return s;
  return report;
}

uint64_t RequestPrefixBytes(std::string_view previous,
                            std::string_view current) {
  const size_t n = std::min(previous.size(), current.size());
  return static_cast<uint64_t>(
      std::mismatch(previous.begin(), previous.begin() + n, current.begin())
          .first -
      previous.begin());
}

Result<RenderResult> Session::Replay(uint64_t n) {
  CTXKIT_RETURN_IF_ERROR(impl_->Refresh());
  return session::ReplayRender(*impl_, n);
}

Result<std::vector<RenderFigures>> Session::RenderHistory() {
  CTXKIT_RETURN_IF_ERROR(impl_->Refresh());
  return session::RenderHistory(*impl_);
}

Result<RenderDiff> Session::Diff(uint64_t from, uint64_t to) {
  CTXKIT_RETURN_IF_ERROR(impl_->Refresh());
  return session::DiffRenders(*impl_, from, to);
}

Status Session::RequestCompaction(std::string_view instructions) {
  if (instructions.size() > 2000 || !core::IsValidUtf8(instructions)) {
    return Status::InvalidArgument(
        "compaction instructions must be at most 2000 bytes of UTF-8");
  }
  return impl_->Mutate([&](SessionChanges& ch) -> Status {
    impl_->state().compact_request = std::string(instructions);
    ch.state = true;
    return Status::Ok();
  });
}

Result<std::string> Session::Expand(std::string_view compaction) {
  CTXKIT_RETURN_IF_ERROR(impl_->Refresh());
  return session::ExpandCompaction(*impl_, compaction);
}

Result<Ref> Session::ToolOutputRef(uint64_t message) {
  CTXKIT_RETURN_IF_ERROR(impl_->Refresh());
  CTXKIT_ASSIGN_OR_RETURN(const auto* chat, impl_->Chat());
  if (message >= chat->size()) {
    return Status::NotFound("session '" + id() + "' has no chat message #" +
                            std::to_string(message) + " (it has " +
                            std::to_string(chat->size()) + ")");
  }
  const session::ChatMessage& m = (*chat)[message];
  if (m.role != "tool" || m.ref.empty()) {
    return Status::NotFound("chat message #" + std::to_string(message) +
                            " of session '" + id() + "' is a " + m.role +
                            " message, not a tool output");
  }
  return ParseRef(m.ref);
}

}  // namespace ctxkit
