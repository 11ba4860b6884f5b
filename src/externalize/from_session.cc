// ExternalizedContext::FromSession: a session's pools turned into the
// spec's variables, collections materialized as manifests of static refs.

#include <algorithm>
#include <filesystem>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/format.h"
#include "core/status_macros.h"
#include "ctxkit/externalize.h"
#include "ctxkit/session.h"
#include "externalize/internal.h"
#include "store/store_internals.h"
#include "text/json_parse.h"
#include "text/summarize_budget.h"

namespace ctxkit {

namespace {

constexpr char kChatKey[] = "ctxkit.session/chat";
constexpr char kSessionPrefix[] = "ctxkit.session/";
// The conversation is read to count roles only up to this size; above it
// the summary gives the message count alone.
constexpr uint64_t kChatReadLimit = 8ull << 20;
// The variables FromSession builds, whose names custom ones cannot take.
constexpr const char* kSessionVariables[] = {"conversation", "files",
                                             "tool_outputs", "working_memory"};

bool SameStore(const std::string& a, const std::string& b) {
  std::error_code ec1;
  std::error_code ec2;
  auto ca = std::filesystem::weakly_canonical(a, ec1);
  auto cb = std::filesystem::weakly_canonical(b, ec2);
  if (ec1 || ec2) return a == b;
  return ca == cb;
}

std::string ToolOf(const ObjectMeta& meta) {
  for (const std::string& t : meta.tags) {
    if (t.starts_with("tool:")) return t.substr(5);
  }
  return "tool";
}

// The member for one pool entry at the object's current version; nullopt
// when the object is gone (removed since it joined the session).
Result<std::optional<VariableMember>> MemberOf(View& view, const PoolEntry& e) {
  VariableMember m;
  Result<ObjectMeta> meta = view.Stat(e.key, {.scope = e.scope});
  if (meta.ok()) {
    m.ref = StaticRefOf(*meta);
    m.label = e.kind == "toolcall" ? ToolOf(*meta)
                                   : std::string(ValueTypeName(meta->type));
  } else if (meta.status().IsNotFound()) {
    return std::optional<VariableMember>();
  } else if (meta.status().code() == StatusCode::kPermissionDenied) {
    // Another agent's scope: the session's static ref is a capability.
    CTXKIT_ASSIGN_OR_RETURN(m.ref, ParseRef(e.ref));
    m.label =
        e.kind == "toolcall" ? "tool" : std::string(ValueTypeName(m.ref.type));
  } else {
    return meta.status();
  }
  m.name = e.key;
  m.size_bytes = m.ref.size_bytes;
  CTXKIT_ASSIGN_OR_RETURN(m.tokens, view.CountTokens(m.ref));
  return std::optional<VariableMember>(std::move(m));
}

// Writes the manifest unless the latest version already holds these bytes;
// returns a static ref to the version holding them.
Result<Ref> WriteManifest(View& view, const std::string& name,
                          const std::string& text) {
  const std::string key = std::string(externalize::kManifestPrefix) + name;
  Result<std::string> old = view.Get(key, {.scope = "session"});
  if (!old.ok() && !old.status().IsNotFound()) return old.status();
  // What the manifest names is held for the session before the manifest
  // is written, and the manifest's own version after: gc keeps both.
  std::vector<Ref> held;
  ctxkit::text::RefsInJson(ctxkit::text::ParseJsonOrDiscarded(text), &held);
  Store& store = *view.store();
  CTXKIT_RETURN_IF_ERROR(
      StoreInternals::HoldForSession(store, view.session_id(), held));
  Result<Ref> written = Status::NotFound(key);
  if (!old.ok() || *old != text) {
    SetOptions so;
    so.scope = "session";
    so.type = ValueType::kJson;
    so.tags = {"kind:externalize"};
    so.producer = "ctxkit:externalize";
    written = view.Set(key, text, so);
  } else {
    written = view.Pin(key, {.scope = "session"});
  }
  if (!written.ok()) return written.status();
  const Ref manifest[] = {*written};
  CTXKIT_RETURN_IF_ERROR(
      StoreInternals::HoldForSession(store, view.session_id(), manifest));
  return written;
}

uint64_t SumSizes(const std::vector<VariableMember>& ms, uint64_t* tokens) {
  uint64_t bytes = 0;
  *tokens = 0;
  for (const VariableMember& m : ms) {
    bytes += m.size_bytes;
    *tokens += m.tokens;
  }
  return bytes;
}

// "a (1.2 KiB, 300 tok), b (...) ... and N more".
std::string ListMembers(const std::vector<VariableMember>& ms, size_t max,
                        bool with_label) {
  std::string out;
  const size_t shown = std::min(ms.size(), max);
  for (size_t i = 0; i < shown; ++i) {
    if (i > 0) out += ", ";
    out += ms[i].name + " (";
    if (with_label) out += ms[i].label + ", ";
    out += core::HumanBytes(ms[i].size_bytes) + ", " +
           core::GroupedNumber(ms[i].tokens) + " tok)";
  }
  if (ms.size() > shown)
    out += " ... and " + core::GroupedNumber(ms.size() - shown) + " more";
  return out;
}

std::string ToolCounts(const std::vector<VariableMember>& ms) {
  std::map<std::string, uint64_t> counts;
  for (const VariableMember& m : ms) ++counts[m.label];
  std::vector<std::pair<std::string, uint64_t>> v(counts.begin(), counts.end());
  std::stable_sort(v.begin(), v.end(), [](const auto& a, const auto& b) {
    return a.second > b.second;
  });
  std::string out;
  for (size_t i = 0; i < v.size() && i < 12; ++i) {
    if (i > 0) out += ", ";
    out += v[i].first + " x" + std::to_string(v[i].second);
  }
  if (v.size() > 12) out += ", ...";
  return out;
}

// The chat's messages, in either stored form (docs/sessions.md): one JSON
// object per line, or one JSON array (earlier builds). nullopt when the
// text is neither.
std::optional<std::vector<nlohmann::json>> ChatMessages(
    const std::string& chat) {
  const size_t first = chat.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && chat[first] == '[') {
    nlohmann::json j = ctxkit::text::ParseJsonOrDiscarded(chat);
    if (!j.is_array()) return std::nullopt;
    return std::vector<nlohmann::json>(j.begin(), j.end());
  }
  std::vector<nlohmann::json> out;
  for (size_t at = 0; at < chat.size();) {
    size_t nl = chat.find('\n', at);
    if (nl == std::string::npos) nl = chat.size();
    out.push_back(ctxkit::text::ParseJsonOrDiscarded(
        std::string_view(chat).substr(at, nl - at)));
    if (out.back().is_discarded()) return std::nullopt;
    at = nl + 1;
  }
  return out;
}

Result<ContextVariable> BuildConversation(View& sv,
                                          const SessionSnapshot& snap) {
  ContextVariable v;
  v.name = "conversation";
  v.type = VariableType::kConversation;
  v.shape = VariableShape::kList;
  if (snap.chat_version == 0) {
    CTXKIT_ASSIGN_OR_RETURN(v.ref, WriteManifest(sv, "conversation", "[]"));
    v.item_count = 0;
    v.summary = "empty: nothing ingested yet";
    return v;
  }
  CTXKIT_ASSIGN_OR_RETURN(
      v.ref,
      sv.RefOf(kChatKey, {.scope = "session", .version = snap.chat_version}));
  v.size_bytes = v.ref.size_bytes;
  CTXKIT_ASSIGN_OR_RETURN(v.tokens, sv.CountTokens(v.ref));
  v.item_count = snap.chat_messages;
  v.summary = core::GroupedNumber(snap.chat_messages) + " messages";
  if (v.size_bytes <= kChatReadLimit) {
    CTXKIT_ASSIGN_OR_RETURN(std::string chat, sv.Resolve(v.ref));
    std::optional<std::vector<nlohmann::json>> messages = ChatMessages(chat);
    if (messages.has_value()) {
      const std::vector<nlohmann::json>& j = *messages;
      v.item_count = j.size();
      v.summary = core::GroupedNumber(j.size()) + " messages";
      std::map<std::string, uint64_t> roles;
      uint64_t calls = 0;
      for (const nlohmann::json& m : j) {
        if (!m.is_object()) continue;
        if (m.contains("role") && m["role"].is_string()) {
          ++roles[m["role"].get<std::string>()];
        }
        if (m.contains("tool_calls") && m["tool_calls"].is_array()) {
          calls += m["tool_calls"].size();
        }
      }
      std::string parts;
      for (const auto& [role, n] : roles) {
        parts +=
            (parts.empty() ? "" : ", ") + role + " " + core::GroupedNumber(n);
      }
      if (!parts.empty()) v.summary += " (" + parts + ")";
      if (calls > 0)
        v.summary += ", " + core::GroupedNumber(calls) + " tool calls";
    }
  }
  v.summary +=
      "; each item is {role, text, tool_calls}; tool messages hold a ref to "
      "their output in tool_outputs, not the output";
  return v;
}

// Every custom variable, resolved and its name checked against the
// session's variables and the others; nothing is written.
Result<std::vector<ContextVariable>> ResolveCustom(
    View& view, const std::vector<CustomVariable>& custom) {
  std::set<std::string> names(std::begin(kSessionVariables),
                              std::end(kSessionVariables));
  std::vector<ContextVariable> out;
  out.reserve(custom.size());
  for (const CustomVariable& c : custom) {
    CTXKIT_RETURN_IF_ERROR(externalize::ValidateVariableName(c.name));
    if (!names.insert(c.name).second) {
      return Status::AlreadyExists("variable '" + c.name + "' already exists");
    }
    Result<ContextVariable> v = externalize::ResolveCustomVariable(view, c);
    if (!v.ok()) return v.status().WithContext("variable " + c.name);
    out.push_back(*std::move(v));
  }
  return out;
}

}  // namespace

Result<ExternalizedContext> ExternalizedContext::FromSession(
    View& view, const std::string& home, std::string_view session_id,
    std::string query, const ExternalizeOptions& options,
    const std::vector<CustomVariable>& custom) {
  if (!home.empty() && !SameStore(home, view.store()->home())) {
    return Status::InvalidArgument("home '" + home +
                                   "' is not the store of the view ('" +
                                   view.store()->home() + "')");
  }
  CTXKIT_RETURN_IF_ERROR(ValidateScopeId(session_id).WithContext("session id"));
  CTXKIT_ASSIGN_OR_RETURN(ExternalizedContext ctx,
                          Empty(std::move(query), options));
  ctx.session_id_ = std::string(session_id);
  CTXKIT_ASSIGN_OR_RETURN(View sv, externalize::SessionView(view, session_id));
  CTXKIT_ASSIGN_OR_RETURN(std::unique_ptr<Session> session,
                          Session::Open(*view.store(), session_id));
  CTXKIT_ASSIGN_OR_RETURN(SessionSnapshot snap, session->Snapshot());
  // Custom variables are resolved before anything is written.
  CTXKIT_ASSIGN_OR_RETURN(std::vector<ContextVariable> customs,
                          ResolveCustom(view, custom));

  // Sort the pool into the three collections, in join order.
  std::vector<VariableMember> files, outputs, memory;
  std::set<std::string> seen_ids;
  std::set<std::string> memory_names;
  for (const PoolEntry& e : snap.entries) {
    if (e.locked || e.kind == "chat" || e.kind == "system") continue;
    if (e.key.starts_with(externalize::kManifestPrefix) ||
        e.key.starts_with(kSessionPrefix) || e.key.ends_with("#meta")) {
      continue;
    }
    CTXKIT_ASSIGN_OR_RETURN(std::optional<VariableMember> m, MemberOf(sv, e));
    if (!m.has_value()) continue;
    seen_ids.insert(m->ref.id);
    if (e.kind == "toolcall") {
      outputs.push_back(std::move(*m));
    } else if (e.kind == "file") {
      if (m->name.starts_with("file:")) m->name = m->name.substr(5);
      files.push_back(std::move(*m));
    } else {
      if (!memory_names.insert(m->name).second) {
        m->name += " @" + m->ref.scope.ToString();
        memory_names.insert(m->name);
      }
      memory.push_back(std::move(*m));
    }
  }
  // Working memory also holds the session scope's `memory` values.
  ListFilter filter;
  filter.scope = "session";
  filter.type = ValueType::kMemory;
  filter.limit = 1000;
  while (true) {
    CTXKIT_ASSIGN_OR_RETURN(ListPage page, sv.List(filter));
    for (const ObjectMeta& meta : page.items) {
      if (seen_ids.count(meta.id) != 0) continue;
      VariableMember m;
      m.ref = StaticRefOf(meta);
      m.name = meta.key;
      if (!memory_names.insert(m.name).second) {
        m.name += " @" + meta.scope.ToString();
        memory_names.insert(m.name);
      }
      m.label = "memory";
      m.size_bytes = m.ref.size_bytes;
      CTXKIT_ASSIGN_OR_RETURN(m.tokens, sv.CountTokens(m.ref));
      memory.push_back(std::move(m));
    }
    if (page.next_cursor.empty()) break;
    filter.cursor = page.next_cursor;
  }

  CTXKIT_ASSIGN_OR_RETURN(ContextVariable conversation,
                          BuildConversation(sv, snap));

  auto collection =
      [&](std::string name, VariableType type, VariableShape shape,
          std::vector<VariableMember> members, std::string singular,
          std::string what) -> Result<ContextVariable> {
    ContextVariable v;
    v.name = std::move(name);
    v.type = type;
    v.shape = shape;
    v.size_bytes = SumSizes(members, &v.tokens);
    v.item_count = members.size();
    nlohmann::json manifest = shape == VariableShape::kDict
                                  ? nlohmann::json::object()
                                  : nlohmann::json::array();
    for (const VariableMember& m : members) {
      if (shape == VariableShape::kDict) {
        manifest[m.name] = FormatRef(m.ref);
      } else {
        manifest.push_back(FormatRef(m.ref));
      }
    }
    CTXKIT_ASSIGN_OR_RETURN(v.ref, WriteManifest(sv, v.name, manifest.dump()));
    if (members.empty()) {
      v.summary = "empty";
    } else {
      v.summary = core::GroupedNumber(members.size()) + " " +
                  (members.size() == 1 ? singular : what);
      if (type == VariableType::kToolOutputs) {
        v.summary += " (" + ToolCounts(members) + "): " +
                     ListMembers(members, options.summary_max_members, true);
      } else {
        v.summary += ": " + ListMembers(members, options.summary_max_members,
                                        type == VariableType::kWorkingMemory);
      }
    }
    v.members = std::move(members);
    return v;
  };

  CTXKIT_ASSIGN_OR_RETURN(
      ContextVariable files_var,
      collection("files", VariableType::kFiles, VariableShape::kDict,
                 std::move(files), "file", "files"));
  CTXKIT_ASSIGN_OR_RETURN(ContextVariable outputs_var,
                          collection("tool_outputs", VariableType::kToolOutputs,
                                     VariableShape::kList, std::move(outputs),
                                     "tool output", "tool outputs"));
  CTXKIT_ASSIGN_OR_RETURN(
      ContextVariable memory_var,
      collection("working_memory", VariableType::kWorkingMemory,
                 VariableShape::kDict, std::move(memory), "entry", "entries"));
  CTXKIT_RETURN_IF_ERROR(ctx.AddBuilt(std::move(conversation)));
  CTXKIT_RETURN_IF_ERROR(ctx.AddBuilt(std::move(files_var)));
  CTXKIT_RETURN_IF_ERROR(ctx.AddBuilt(std::move(outputs_var)));
  CTXKIT_RETURN_IF_ERROR(ctx.AddBuilt(std::move(memory_var)));
  for (ContextVariable& v : customs) {
    CTXKIT_RETURN_IF_ERROR(ctx.AddBuilt(std::move(v)));
  }
  return ctx;
}

}  // namespace ctxkit
