// Session::Fork: a new session from a recorded render of another
// (docs/sessions.md, "Forks"). The record names what the render showed by
// static ref; the child's state is rebuilt from it, its pool entries from
// the record and the parent's pool, and everything of the parent's scope
// stays shared by ref (SessionImpl::IsShared).

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status_macros.h"
#include "ctxkit/session.h"
#include "session/object_info.h"
#include "session/render_record.h"
#include "session/session_impl.h"
#include "session/session_state.h"
#include "text/json_parse.h"

namespace ctxkit {
namespace {

using nlohmann::json;
using session::ChatMessage;

Status BadForkRecord(uint64_t n, const std::string& what) {
  return Status::Corruption("render record " + std::to_string(n) +
                            " cannot be forked: " + what);
}

// A static ref a record field holds.
Result<Ref> RecordRef(const json& field) {
  if (!field.is_string()) return Status::Corruption("a ref is not a string");
  return ParseRef(field.get<std::string>());
}

// The ref in index line `line` that names object `id` (the line ends with
// the entry's ref, and a key may hold " | ").
std::optional<Ref> RefInIndexLine(std::string_view line,
                                  const std::string& id) {
  for (size_t at = line.find(" | ck:"); at != std::string_view::npos;
       at = line.find(" | ck:", at + 1)) {
    Result<Ref> ref = ParseRef(line.substr(at + 3));
    if (ref.ok() && ref->id == id) return *ref;
  }
  return std::nullopt;
}

// The entry lines of a rendered index block (without its header and its
// "more objects" line).
std::vector<std::string> IndexLines(const std::string& block) {
  std::vector<std::string> lines;
  size_t at = block.find('\n');
  while (at != std::string::npos) {
    const size_t end = block.find('\n', at + 1);
    lines.push_back(block.substr(
        at + 1, end == std::string::npos ? std::string::npos : end - at - 1));
    at = end;
  }
  return lines;
}

// Builds the child's pool from record `rec` of the parent and the parent's
// pool (for what a record does not keep: titles, join and activation
// order, who activated an output).
class ForkPool {
 public:
  // `view` reads for the fork (the parent's); `child` is the new
  // session's view, which reads the parent's scope only by ref.
  ForkPool(View& view, const View& child, const session::State& parent,
           const json& rec, uint64_t n)
      : view_(view), child_(child), parent_(parent), rec_(rec), n_(n) {
    next_seq_ = parent.next_seq;
  }

  // The entries, in the order the steps below give them.
  Status Build(const std::vector<ChatMessage>& chat) {
    CTXKIT_RETURN_IF_ERROR(AddListed(chat));
    CTXKIT_RETURN_IF_ERROR(AddChatOutputs(chat));
    CTXKIT_RETURN_IF_ERROR(AddPinned());
    return AddTail();
  }
  std::map<std::string, PoolEntry>& entries() { return entries_; }
  uint64_t next_seq() const { return next_seq_; }

 private:
  const PoolEntry* ParentEntry(const std::string& id) const {
    auto it = parent_.entries.find(id);
    return it == parent_.entries.end() ? nullptr : &it->second;
  }

  // The child's entry of the object `ref` names: made from the parent's
  // entry (flags cleared) or described anew, at ref's version when the
  // object is shared (it then stays at the version the render showed).
  Result<PoolEntry*> EntryFor(const Ref& ref) {
    auto it = entries_.find(ref.id);
    if (it == entries_.end()) {
      PoolEntry e;
      if (const PoolEntry* p = ParentEntry(ref.id)) {
        e = *p;
        e.active = e.auto_active = e.collapsed = e.from_chat = false;
        e.compacted = e.locked = false;
        e.pinned_version = 0;
      } else {
        e.id = ref.id;
        e.seq = next_seq_++;
      }
      it = entries_.emplace(ref.id, std::move(e)).first;
    }
    PoolEntry& e = it->second;
    const bool shared = !session::ViewSeesScope(child_, ref.scope.ToString());
    if (e.ref.empty() || (shared && e.version != ref.version)) {
      CTXKIT_RETURN_IF_ERROR(DescribeAt(ref, &e));
    }
    return &e;
  }

  // Fills `e`'s description for the version static ref `at` names.
  Status DescribeAt(const Ref& at, PoolEntry* e) {
    Result<ObjectMeta> meta = view_.Stat(at);
    if (meta.ok()) return session::DescribeObject(view_, *meta, at.version, e);
    if (!meta.status().IsNotFound()) return meta.status();
    // Removed since (its versions still read by ref): from the ref alone.
    e->id = at.id;
    e->key = at.key;
    e->scope = at.scope.ToString();
    e->kind = std::string(ValueTypeName(at.type));
    e->version = at.version;
    e->size_bytes = at.size_bytes;
    e->ref = FormatRef(at);
    CTXKIT_ASSIGN_OR_RETURN(e->tokens, view_.CountTokens(at));
    return Status::Ok();
  }

  // The entries render n's index counted (index_total), in join order: the
  // parent's listed entries, each at the version its line showed.
  Status AddListed(const std::vector<ChatMessage>& chat) {
    std::map<std::string, bool> outputs;
    for (const ChatMessage& m : chat) {
      if (m.role == "tool") outputs[m.object_id] = true;
    }
    std::vector<std::string> lines;
    const std::string index = ctxkit::text::StringOr(rec_, "index", "");
    if (!index.empty()) {
      CTXKIT_ASSIGN_OR_RETURN(Ref ref, ParseRef(index));
      CTXKIT_ASSIGN_OR_RETURN(std::string block, view_.Resolve(ref));
      lines = IndexLines(block);
    }
    const uint64_t total = ctxkit::text::UintOr(rec_, "index_total", 0);
    const uint64_t listed = ctxkit::text::UintOr(rec_, "index_listed", 0);
    uint64_t k = 0;
    for (const auto& [seq, id] : parent_.by_seq) {
      if (k == total) break;
      const PoolEntry& p = parent_.entries.at(id);
      if (!session::EntryIsListed(p) || outputs.count(id) != 0) continue;
      std::optional<Ref> shown;
      if (k < listed && k < lines.size()) shown = RefInIndexLine(lines[k], id);
      ++k;
      CTXKIT_ASSIGN_OR_RETURN(Ref ref, ParseRef(p.ref));
      CTXKIT_RETURN_IF_ERROR(EntryFor(ref).status());
      if (shown && shown->version != p.version) {
        CTXKIT_RETURN_IF_ERROR(DescribeAt(*shown, &entries_.at(id)));
      }
    }
    return Status::Ok();
  }

  // Activation order: the parent's, else after every other.
  void Activate(PoolEntry* e, bool by_policy) {
    const PoolEntry* p = ParentEntry(e->id);
    e->active = true;
    e->collapsed = false;
    e->auto_active = by_policy && !(p && p->active && !p->auto_active);
    e->active_seq = p && p->active_seq != 0 ? p->active_seq : next_seq_++;
  }

  // One entry per tool output of the chat, shown, pinned or hidden as
  // render n had it (an output dropped for the budget stays active: the
  // child's render drops it again).
  Status AddChatOutputs(const std::vector<ChatMessage>& chat) {
    const uint64_t first = ctxkit::text::UintOr(rec_, "first", 0);
    std::map<uint64_t, json> shown, pinned_out;
    for (const json& s : rec_.value("shown", json::array())) {
      shown[s.at(0).get<uint64_t>()] = s;
    }
    for (const json& x : rec_.value("excerpt", json::array())) {
      shown[x.at(0).get<uint64_t>()] = x;
    }
    for (const json& p : rec_.value("pinned_out", json::array())) {
      pinned_out[p.at(0).get<uint64_t>()] = p;
    }
    std::map<std::string, bool> dropped;
    for (const json& d : rec_.value("dropped", json::array())) {
      dropped[d.at(3).get<std::string>()] = true;
    }
    for (uint64_t i = 0; i < chat.size(); ++i) {
      const ChatMessage& m = chat[i];
      if (m.role != "tool") continue;
      CTXKIT_ASSIGN_OR_RETURN(Ref at, ParseRef(m.ref));
      const uint64_t rel = i - first;
      auto s = i >= first ? shown.find(rel) : shown.end();
      // A later version shown: [i, ref] or [i, head, tail, ref].
      if (s != shown.end() && s->second.size() % 2 == 0) {
        CTXKIT_ASSIGN_OR_RETURN(at, RecordRef(s->second.back()));
      }
      CTXKIT_ASSIGN_OR_RETURN(PoolEntry * e, EntryFor(at));
      e->from_chat = true;
      e->compacted = i < first;
      if (i < first) {
        e->collapsed = true;  // As a compaction hides its outputs.
        continue;
      }
      if (s != shown.end() || dropped.count(m.ref) != 0) {
        Activate(e, /*by_policy=*/true);
      } else if (auto p = pinned_out.find(rel); p != pinned_out.end()) {
        e->pinned_version = p->second.at(1).get<uint64_t>();
      } else {
        e->collapsed = true;
      }
    }
    return Status::Ok();
  }

  Status AddPinned() {
    for (const json& p : rec_.value("pinned", json::array())) {
      CTXKIT_ASSIGN_OR_RETURN(Ref ref, RecordRef(p.at(0)));
      auto it = entries_.find(ref.id);
      PoolEntry* e = it != entries_.end() ? &it->second : nullptr;
      if (e == nullptr) {
        CTXKIT_ASSIGN_OR_RETURN(e, EntryFor(ref));
      }
      e->pinned_version = ref.version;
    }
    return Status::Ok();
  }

  // Objects shown after the chat (active, outside it), and those the
  // budget dropped there.
  Status AddTail() {
    for (const json& t : rec_.value("tail", json::array())) {
      if (t.size() != 4) continue;
      CTXKIT_ASSIGN_OR_RETURN(Ref ref, RecordRef(t.at(0)));
      CTXKIT_ASSIGN_OR_RETURN(PoolEntry * e, EntryFor(ref));
      Activate(e, /*by_policy=*/false);
    }
    for (const json& d : rec_.value("dropped", json::array())) {
      CTXKIT_ASSIGN_OR_RETURN(Ref ref, RecordRef(d.at(3)));
      auto it = entries_.find(ref.id);
      if (it != entries_.end() && it->second.from_chat) continue;
      ref.version = d.at(1).get<uint64_t>();
      Result<Ref> at = session::VersionRef(view_, ref, ref.version);
      if (!at.ok()) return BadForkRecord(n_, at.status().message());
      CTXKIT_ASSIGN_OR_RETURN(PoolEntry * e, EntryFor(*at));
      Activate(e, /*by_policy=*/false);
    }
    return Status::Ok();
  }

  View& view_;
  const View& child_;
  const session::State& parent_;
  const json& rec_;
  uint64_t n_;
  uint64_t next_seq_ = 1;
  std::map<std::string, PoolEntry> entries_;
};

// The compactions record `rec` shows, from their objects; `hold` gets them
// and the chat versions they read.
Result<std::vector<CompactionInfo>> RecordCompactions(View& view,
                                                      const json& rec,
                                                      uint64_t n,
                                                      std::vector<Ref>* hold) {
  std::vector<CompactionInfo> out;
  for (const json& c : rec.value("compactions", json::array())) {
    CTXKIT_ASSIGN_OR_RETURN(Ref ref, RecordRef(c));
    CTXKIT_ASSIGN_OR_RETURN(std::string text, view.Resolve(ref));
    const json content = ctxkit::text::ParseJsonOrDiscarded(text);
    if (!content.is_object() || !content.contains("chat")) {
      return BadForkRecord(n,
                           "compaction " + FormatRef(ref) + " names no chat");
    }
    CTXKIT_ASSIGN_OR_RETURN(Ref chat, RecordRef(content["chat"]));
    hold->push_back(ref);
    hold->push_back(chat);
    out.push_back({FormatRef(ref), ctxkit::text::UintOr(content, "first", 0),
                   ctxkit::text::UintOr(content, "end", 0),
                   ctxkit::text::UintOr(content, "turns", 0)});
  }
  const uint64_t first = ctxkit::text::UintOr(rec, "first", 0);
  if ((out.empty() ? 0 : out.back().end_message) != first) {
    return BadForkRecord(n, "its compactions do not end where its chat starts");
  }
  return out;
}

// The ingest cursor render n was built to (records of earlier builds have
// none: then the child's next whole log rebuilds the chat, as after a
// rewritten log, and appends continue the chat).
void SetCursor(const json& rec, const session::State& parent, bool has_chat,
               session::State* st) {
  const json cursor = rec.value("cursor", json());
  if (cursor.is_array() && cursor.size() == 3 && cursor[0].is_string() &&
      cursor[1].is_number_unsigned() && cursor[2].is_string()) {
    st->ingest_format = cursor[0].get<std::string>();
    st->ingested_items = cursor[1].get<uint64_t>();
    st->ingest_hash = cursor[2].get<std::string>();
    return;
  }
  st->ingest_format = has_chat ? parent.ingest_format : "";
  st->ingested_items = 0;
  st->ingest_hash.clear();
}

// What the child is made of, read before anything is written.
struct ForkSource {
  json rec;
  std::vector<ChatMessage> chat;
  std::optional<std::string> system;
  std::vector<CompactionInfo> compactions;
  std::vector<Ref> hold;  // Beyond the entries' refs.
  std::map<std::string, PoolEntry> entries;
  uint64_t next_seq = 1;
  session::State parent;
};

Result<ForkSource> ReadForkSource(SessionImpl& parent, uint64_t n,
                                  const View& child) {
  ForkSource src;
  CTXKIT_ASSIGN_OR_RETURN(src.rec, session::LoadRecord(parent, n));
  View& view = parent.view();
  try {
    CTXKIT_ASSIGN_OR_RETURN(src.chat, session::RecordChat(view, src.rec));
    const std::string system = ctxkit::text::StringOr(src.rec, "system", "");
    if (!system.empty()) {
      CTXKIT_ASSIGN_OR_RETURN(Ref ref, ParseRef(system));
      CTXKIT_ASSIGN_OR_RETURN(src.system, view.Resolve(ref));
    }
    CTXKIT_ASSIGN_OR_RETURN(src.compactions,
                            RecordCompactions(view, src.rec, n, &src.hold));
    ForkPool pool(view, child, parent.state(), src.rec, n);
    CTXKIT_RETURN_IF_ERROR(pool.Build(src.chat));
    src.entries = std::move(pool.entries());
    src.next_seq = pool.next_seq();
  } catch (const json::exception& e) {
    return BadForkRecord(n, e.what());
  }
  src.parent = parent.state();
  return src;
}

// Writes the child's chat and system prompt and gives it the state and
// entries of `src` (one mutation of the new, empty session).
Status Populate(SessionImpl& child, const ForkSource& src) {
  return child.Mutate([&](SessionChanges& ch) -> Status {
    session::State& st = child.state();
    if (!src.chat.empty()) {
      bool whole = false;
      CTXKIT_ASSIGN_OR_RETURN(Ref chat,
                              child.WriteChat(src.chat, false, &whole));
      st.chat_version = st.chat_whole_version = chat.version;
      st.chat_messages = src.chat.size();
      ch.hold.push_back(chat);
    }
    if (src.system) {
      SetOptions opts{.scope = "session", .producer = "session:" + child.id()};
      CTXKIT_ASSIGN_OR_RETURN(
          Ref system, child.view().Set(session::kSystemKey, *src.system, opts));
      st.system_version = system.version;
      ch.hold.push_back(system);
    }
    SetCursor(src.rec, src.parent, !src.chat.empty(), &st);
    st.compactions = src.compactions;
    st.next_seq = src.next_seq;
    for (const auto& [id, e] : src.entries) {
      st.entries[id] = e;
      st.by_seq[e.seq] = id;
      ch.dirty.insert(id);
    }
    child.TouchEntries();
    ch.hold.insert(ch.hold.end(), src.hold.begin(), src.hold.end());
    ch.state = true;
    return Status::Ok();
  });
}

}  // namespace

Result<std::unique_ptr<Session>> Session::Fork(Store& store,
                                               std::string_view parent,
                                               uint64_t record,
                                               std::string_view child) {
  CTXKIT_RETURN_IF_ERROR(ValidateScopeId(parent).WithContext("session id"));
  CTXKIT_RETURN_IF_ERROR(ValidateScopeId(child).WithContext("new session id"));
  if (record == 0) {
    return Status::InvalidArgument("render records count from 1");
  }
  CTXKIT_ASSIGN_OR_RETURN(std::unique_ptr<Session> from, Open(store, parent));
  CTXKIT_RETURN_IF_ERROR(from->Snapshot().status());  // Every entry loaded.
  CTXKIT_ASSIGN_OR_RETURN(View child_view, store.OpenView("", child));
  CTXKIT_ASSIGN_OR_RETURN(ForkSource src,
                          ReadForkSource(*from->impl_, record, child_view));
  CTXKIT_ASSIGN_OR_RETURN(std::unique_ptr<Session> made,
                          Create(store, child, src.parent.policy));
  Status populated = Populate(*made->impl_, src);
  if (!populated.ok()) {
    made.reset();
    (void)Remove(store, child);  // Undo the empty session.
    return populated.WithContext("fork of session '" + std::string(parent) +
                                 "' at record " + std::to_string(record));
  }
  return made;
}

}  // namespace ctxkit
