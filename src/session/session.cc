// Session: the public API (session.h) — creation, pools, policy, ingestion.
// Rendering is in render.cc.

#include "ctxkit/session.h"

#include <string>
#include <utility>

#include "core/encoding.h"
#include "core/sha256.h"
#include "core/status_macros.h"
#include "ctxkit/toolcall.h"
#include "session/log_parse.h"
#include "session/object_info.h"
#include "session/session_impl.h"
#include "store/store_internals.h"

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
                                       &StoreInternals::BackendOf(store));
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

}  // namespace

std::string_view LogFormatName(LogFormat format) {
  return format == LogFormat::kAnthropic ? "anthropic" : "openai";
}

Result<LogFormat> ParseLogFormat(std::string_view name) {
  if (name == "openai") return LogFormat::kOpenAI;
  if (name == "anthropic") return LogFormat::kAnthropic;
  return Status::InvalidArgument("unknown format '" + std::string(name) +
                                 "' (openai or anthropic)");
}

Session::Session(std::unique_ptr<SessionImpl> impl) : impl_(std::move(impl)) {}
Session::~Session() = default;

const std::string& Session::id() const { return impl_->id(); }

Result<std::unique_ptr<Session>> Session::Create(Store& store,
                                                 std::string_view id,
                                                 const SessionPolicy& policy) {
  CTXKIT_RETURN_IF_ERROR(session::ValidatePolicy(policy));
  CTXKIT_ASSIGN_OR_RETURN(auto impl, MakeImpl(store, id));
  session::State state;
  state.id = std::string(id);
  state.policy = policy;
  storage::SessionWrite create;
  create.id = state.id;
  create.expected_generation = 0;  // AlreadyExists when it exists.
  create.state_json = session::EncodeState(state);
  CTXKIT_RETURN_IF_ERROR(impl->backend().WriteSession(create).status());
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
  return StoreInternals::BackendOf(store).ListSessions();
}

Result<uint64_t> Session::Remove(Store& store, std::string_view id) {
  CTXKIT_RETURN_IF_ERROR(ValidateScopeId(id).WithContext("session id"));
  storage::Backend& backend = StoreInternals::BackendOf(store);
  CTXKIT_ASSIGN_OR_RETURN(std::optional<uint64_t> gen,
                          backend.SessionGeneration(id));
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
  Status s = backend.RemoveSession(id);
  if (!s.ok() && !s.IsNotFound()) return s;
  return removed;
}

Result<SessionSnapshot> Session::Snapshot() {
  CTXKIT_RETURN_IF_ERROR(impl_->Refresh());
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
    auto it = impl_->state().entries.find(meta.id);
    if (it == impl_->state().entries.end()) {
      return Status::NotFound("'" + std::string(object) +
                              "' is not in session '" + impl_->id() + "'");
    }
    PoolEntry& e = it->second;
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
    auto it = impl_->state().entries.find(meta.id);
    if (it == impl_->state().entries.end() || it->second.pinned_version == 0) {
      return Status::NotFound("'" + std::string(object) +
                              "' is not pinned in session '" + impl_->id() +
                              "'");
    }
    it->second.pinned_version = 0;
    ch.dirty.insert(it->second.id);
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
    CTXKIT_ASSIGN_OR_RETURN(const auto* chat, impl_->Chat());
    impl_->ApplyPolicy(*chat, ch);
    return Status::Ok();
  });
}

Result<IngestReport> Session::Ingest(std::string_view log_json,
                                     LogFormat format) {
  // Parse and validate everything before touching the store or the state.
  CTXKIT_ASSIGN_OR_RETURN(session::ParsedLog log,
                          session::ParseLog(log_json, format));
  const std::vector<std::string> chain = ChainHashes(log, format);
  IngestReport report;
  Status s = impl_->Mutate([&](SessionChanges& ch) -> Status {
    report = IngestReport();
    session::State& st = impl_->state();
    const std::string format_name(LogFormatName(format));
    const bool continues = st.ingested_items <= log.items.size() &&
                           st.ingest_format == format_name &&
                           chain[st.ingested_items] == st.ingest_hash;
    const bool fresh = st.ingest_format.empty();
    if (continues && st.ingested_items == log.items.size()) {
      return Status::Ok();  // Nothing new.
    }
    report.reset = !continues && !fresh;
    std::vector<session::ChatMessage> chat;
    if (continues) {
      CTXKIT_ASSIGN_OR_RETURN(const auto* old, impl_->Chat());
      chat = *old;
    }
    const size_t kept = chat.size();
    std::set<std::string> in_chat;
    const size_t first = continues ? st.ingested_items : 0;
    View& view = impl_->view();
    for (size_t i = first; i < log.items.size(); ++i) {
      for (const session::ParsedMessage& p : log.items[i].messages) {
        session::ChatMessage m = p.message;
        if (m.role == "tool") {
          ToolCall call{.call_id = m.call_id,
                        .tool = m.tool,
                        .arguments_json = p.arguments,
                        .status = m.status,
                        .output = p.output,
                        .producer = "session:" + impl_->id()};
          CTXKIT_ASSIGN_OR_RETURN(Ref output,
                                  RecordToolCall(view, call, "session"));
          CTXKIT_ASSIGN_OR_RETURN(ObjectMeta meta, view.Stat(output));
          meta.version = output.version;  // Not a later writer's version.
          meta.size_bytes = output.size_bytes;
          CTXKIT_ASSIGN_OR_RETURN(PoolEntry * e, impl_->EnsureEntry(meta, ch));
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
          ++report.toolcalls_recorded;
        }
        chat.push_back(std::move(m));
        ++report.messages_added;
      }
    }
    for (const session::ChatMessage& m : chat) {
      if (m.role == "tool") in_chat.insert(m.object_id);
    }
    if (report.reset) {
      // Outputs the rewritten chat no longer refers to leave the session,
      // unless a user pinned or activated them.
      for (auto it = st.entries.begin(); it != st.entries.end();) {
        PoolEntry& e = it->second;
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
    }
    CTXKIT_ASSIGN_OR_RETURN(std::string old_system, impl_->SystemText());
    if (log.system != old_system) {
      SetOptions opts{.scope = "session", .producer = "session:" + impl_->id()};
      CTXKIT_ASSIGN_OR_RETURN(Ref system,
                              view.Set(session::kSystemKey, log.system, opts));
      st.system_version = system.version;
    }
    const uint64_t messages = chat.size();
    // Only the new messages are stored when the chat continues.
    CTXKIT_ASSIGN_OR_RETURN(Ref chat_ref,
                            impl_->WriteChat(std::move(chat), kept));
    st.chat_version = chat_ref.version;
    st.chat_messages = messages;
    st.ingest_format = format_name;
    st.ingested_items = log.items.size();
    st.ingest_hash = chain.back();
    ch.state = true;
    CTXKIT_ASSIGN_OR_RETURN(const auto* stored, impl_->Chat());
    report.collapsed = impl_->ApplyPolicy(*stored, ch);
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return report;
}

}  // namespace ctxkit
