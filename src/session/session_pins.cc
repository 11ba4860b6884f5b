// Session::PinnedRefs: what garbage collection must keep for a session.

#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>

#include "core/status_macros.h"
#include "ctxkit/session.h"
#include "session/session_impl.h"
#include "session/session_state.h"
#include "text/json_parse.h"

namespace ctxkit {
namespace {

// Adds the refs of the tool outputs `chat`'s reference lines name (each at
// the version it was ingested at) that `seen` does not hold yet.
void AddChatOutputs(const std::vector<session::ChatMessage>& chat,
                    std::set<std::string>* seen, std::vector<Ref>* out) {
  for (const session::ChatMessage& m : chat) {
    if (m.role != "tool" || m.ref.empty() || !seen->insert(m.ref).second) {
      continue;
    }
    Result<Ref> ref = ParseRef(m.ref);
    if (ref.ok()) out->push_back(std::move(*ref));
  }
}

// The tool outputs the session's chats name: the chat at the state's
// version, and each chat version `record_chats` (named by render records)
// that is not a prefix of it. A record shows an output at the version its
// chat's reference line names without naming that version itself, and the
// pool's entry may have moved on from it.
Status AddRecordedChatOutputs(SessionImpl& impl,
                              const std::set<std::string>& record_chats,
                              std::set<std::string>* seen,
                              std::vector<Ref>* out) {
  const session::State& st = impl.state();
  if (st.chat_version != 0) {
    CTXKIT_ASSIGN_OR_RETURN(const auto* chat, impl.Chat());
    AddChatOutputs(*chat, seen, out);
  }
  for (const std::string& wire : record_chats) {
    CTXKIT_ASSIGN_OR_RETURN(Ref ref, ParseRef(wire));
    // The versions of the chain the last whole write started are prefixes
    // of the state's (SessionImpl::LoadChat reads them so too).
    if (ref.version >= st.chat_whole_version &&
        ref.version <= st.chat_version && st.chat_whole_version != 0) {
      continue;
    }
    Result<std::string> text = impl.view().Resolve(ref);
    if (text.status().IsNotFound()) continue;  // That record cannot replay.
    if (!text.ok()) return text.status();
    CTXKIT_ASSIGN_OR_RETURN(auto chat, session::DecodeChat(*text));
    AddChatOutputs(chat, seen, out);
  }
  return Status::Ok();
}

}  // namespace

Result<std::vector<Ref>> Session::PinnedRefs() {
  CTXKIT_ASSIGN_OR_RETURN(SessionSnapshot snap, Snapshot());
  std::vector<Ref> out;
  for (const PoolEntry& e : snap.entries) {
    CTXKIT_ASSIGN_OR_RETURN(Ref ref, ParseRef(e.ref));
    out.push_back(ref);
    if (e.pinned_version != 0 && e.pinned_version != ref.version) {
      ref.version = e.pinned_version;
      out.push_back(ref);
    }
  }
  const std::pair<const char*, uint64_t> own[] = {
      {session::kChatKey, snap.chat_version},
      {session::kSystemKey, snap.system_version}};
  for (const auto& [key, version] : own) {
    if (version == 0) continue;
    CTXKIT_ASSIGN_OR_RETURN(
        Ref ref, impl_->view().Pin(key, {.scope = impl_->session_scope(),
                                         .version = version}));
    out.push_back(std::move(ref));
  }
  // Compactions, and the chat versions their messages are read from.
  for (const CompactionInfo& c : snap.compactions) {
    CTXKIT_ASSIGN_OR_RETURN(Ref ref, ParseRef(c.ref));
    CTXKIT_ASSIGN_OR_RETURN(std::string text, impl_->view().Resolve(ref));
    out.push_back(std::move(ref));
    nlohmann::json content = ctxkit::text::ParseJsonOrDiscarded(text);
    if (!content.is_object() || !content.contains("chat") ||
        !content["chat"].is_string()) {
      return Status::Corruption("compaction " + c.ref + " names no chat");
    }
    CTXKIT_ASSIGN_OR_RETURN(Ref chat,
                            ParseRef(content["chat"].get<std::string>()));
    out.push_back(std::move(chat));
  }
  // Everything a render record names, so every recorded render replays
  // (records are what the model saw; gc keeps them until the session goes).
  Result<std::string> records = impl_->view().Get(
      impl_->state().records_key, {.scope = impl_->session_scope()});
  if (!records.ok() && !records.status().IsNotFound()) return records.status();
  std::set<std::string> seen, record_chats;
  if (records.ok()) {
    std::vector<Ref> named;
    for (std::string_view rest = *records; !rest.empty();) {
      size_t end = rest.find('\n');
      std::string_view line = rest.substr(0, end);
      rest = end == std::string_view::npos ? std::string_view()
                                           : rest.substr(end + 1);
      named.clear();
      const nlohmann::json rec = ctxkit::text::ParseJsonOrDiscarded(line);
      ctxkit::text::RefsInJson(rec, &named);
      for (Ref& ref : named) {
        if (seen.insert(FormatRef(ref)).second) out.push_back(std::move(ref));
      }
      if (rec.is_object() && rec.contains("chat") && rec["chat"].is_string() &&
          !rec["chat"].get_ref<const std::string&>().empty()) {
        record_chats.insert(rec["chat"].get<std::string>());
      }
    }
  }
  CTXKIT_RETURN_IF_ERROR(
      AddRecordedChatOutputs(*impl_, record_chats, &seen, &out));
  return out;
}

}  // namespace ctxkit
