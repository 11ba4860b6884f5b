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
  if (records.ok()) {
    std::set<std::string> seen;
    std::vector<Ref> named;
    for (std::string_view rest = *records; !rest.empty();) {
      size_t end = rest.find('\n');
      std::string_view line = rest.substr(0, end);
      rest = end == std::string_view::npos ? std::string_view()
                                           : rest.substr(end + 1);
      named.clear();
      ctxkit::text::RefsInJson(ctxkit::text::ParseJsonOrDiscarded(line),
                               &named);
      for (Ref& ref : named) {
        if (seen.insert(FormatRef(ref)).second) out.push_back(std::move(ref));
      }
    }
  }
  return out;
}

}  // namespace ctxkit
