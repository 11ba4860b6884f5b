#include "face/agent_tool_defs.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/format.h"
#include "core/status_macros.h"
#include "ctxkit/explore.h"
#include "ctxkit/index.h"
#include "ctxkit/target.h"
#include "text/preview.h"
#include "text/utf8.h"

namespace ctxkit::face {

namespace {

// The keys of a session's own objects (its chat, records, index, ...):
// the model sees them rendered, so searches skip them.
constexpr char kSessionObjects[] = "ctxkit.session/";
// find_relevant ranks this many more chunks than asked, for the session's
// own objects it drops.
constexpr size_t kFindSlack = 16;

constexpr char kRefHelp[] =
    "A handle (#12) or ref (ck:...) as a placeholder, excerpt or earlier "
    "result shows it, or a key.";

// The chat message a handle names: "#" and its 0-based index in decimal.
std::optional<uint64_t> HandleMessage(std::string_view text) {
  if (text.size() < 2 || text.size() > 20 || text[0] != '#') {
    return std::nullopt;
  }
  uint64_t n = 0;
  const char* end = text.data() + text.size();
  auto [at, ec] = std::from_chars(text.data() + 1, end, n);
  if (ec != std::errc() || at != end) return std::nullopt;
  return n;
}

// The version `a[field]` names (a handle, a ref or a key), pinned in the
// session's view.
Result<Ref> PinnedArg(Session& s, const Json& a, const char* field) {
  const std::string text = a.at(field).get<std::string>();
  if (std::optional<uint64_t> message = HandleMessage(text)) {
    return s.ToolOutputRef(*message);
  }
  CTXKIT_ASSIGN_OR_RETURN(Target target, Target::Parse(text));
  return s.view().Pin(target);
}

// `a[field]` as Session::Activate and Pin take it: a handle as the ref it
// names, anything else as given.
Result<std::string> ObjectArg(Session& s, const Json& a, const char* field) {
  std::string text = a.at(field).get<std::string>();
  if (std::optional<uint64_t> message = HandleMessage(text)) {
    CTXKIT_ASSIGN_OR_RETURN(Ref ref, s.ToolOutputRef(*message));
    return FormatRef(ref);
  }
  return text;
}

uint64_t U64(const Json& a, const char* field, uint64_t fallback) {
  auto it = a.find(field);
  return it == a.end() ? fallback : it->get<uint64_t>();
}

// `bytes` shown to a model: valid UTF-8 (ill-formed sequences as U+FFFD).
std::string Shown(std::string_view bytes) {
  std::string out;
  text::AppendRepairedUtf8(bytes, true, &out);
  return out;
}

// `text`'s lines, each after its 1-based number and a tab, from `first`.
std::string Numbered(std::string_view text, uint64_t first) {
  std::string out;
  uint64_t n = first;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    out += std::to_string(n++) + "\t";
    out += Shown(text.substr(pos, end - pos));
    pos = end;
  }
  if (!out.empty() && out.back() != '\n') out += '\n';
  return out;
}

// Lines [start, end) (0-based) of `ref`, numbered, within `max_bytes`.
Result<std::string> ReadLines(Session& s, const Ref& ref, int64_t start,
                              int64_t end, size_t max_bytes) {
  PeekOptions o{.start = start,
                .end = end,
                .unit = PeekUnit::kLines,
                .max_bytes = max_bytes,
                .count_total = true};
  CTXKIT_ASSIGN_OR_RETURN(PeekResult p, Peek(s.view(), ref, o));
  const std::string wire = FormatRef(p.ref);
  std::string head = wire + " lines " + std::to_string(p.start + 1) + "-" +
                     std::to_string(p.end) + " of " +
                     core::GroupedNumber(p.total.value_or(0)) + " (" +
                     core::HumanBytes(p.total_bytes) + ")\n";
  if (p.start >= p.end) head = wire + ": no lines there\n";
  std::string out = head + Numbered(p.text, p.start + 1);
  if (p.truncated || p.end < p.total.value_or(p.end)) {
    out += "[more: ctxkit_read ref=" + wire +
           " start_line=" + std::to_string(p.end + (p.truncated ? 0 : 1)) +
           "]\n";
  }
  return out;
}

// Bytes [offset, offset + length) of `ref`.
Result<std::string> ReadBytes(Session& s, const Ref& ref, uint64_t offset,
                              uint64_t length) {
  PeekOptions o{.start = static_cast<int64_t>(offset),
                .end = static_cast<int64_t>(offset + length),
                .unit = PeekUnit::kBytes,
                .max_bytes = std::max<uint64_t>(length, 1)};
  CTXKIT_ASSIGN_OR_RETURN(PeekResult p, Peek(s.view(), ref, o));
  const std::string wire = FormatRef(p.ref);
  std::string out = wire + " bytes " + std::to_string(p.byte_begin) + "-" +
                    std::to_string(p.byte_end) + " of " +
                    std::to_string(p.total_bytes) + "\n" + Shown(p.text);
  if (!out.empty() && out.back() != '\n') out += '\n';
  if (p.byte_end < p.total_bytes) {
    out += "[more: ctxkit_read ref=" + wire +
           " offset=" + std::to_string(p.byte_end) + "]\n";
  }
  return out;
}

Result<std::string> RunRead(Session& s, const Json& a,
                            const AgentToolOptions& o) {
  CTXKIT_ASSIGN_OR_RETURN(Ref ref, PinnedArg(s, a, "ref"));
  const bool lines = a.contains("start_line") || a.contains("end_line");
  const bool bytes = a.contains("offset") || a.contains("length");
  if (lines && bytes) {
    return Status::InvalidArgument(
        "give a line range (start_line, end_line) or a byte range (offset, "
        "length), not both");
  }
  if (bytes) {
    const uint64_t length = std::min<uint64_t>(
        U64(a, "length", o.max_result_bytes), o.max_result_bytes);
    return ReadBytes(s, ref, U64(a, "offset", 0), length);
  }
  const uint64_t first = U64(a, "start_line", 1);
  const uint64_t last = U64(a, "end_line", UINT64_MAX / 2);
  if (last < first) {
    return Status::InvalidArgument("end_line " + std::to_string(last) +
                                   " is before start_line " +
                                   std::to_string(first));
  }
  return ReadLines(s, ref, static_cast<int64_t>(first - 1),
                   static_cast<int64_t>(last), o.max_result_bytes);
}

Result<std::string> RunPeek(Session& s, const Json& a,
                            const AgentToolOptions& o) {
  CTXKIT_ASSIGN_OR_RETURN(Ref ref, PinnedArg(s, a, "ref"));
  return ReadLines(s, ref, 0, static_cast<int64_t>(U64(a, "lines", 20)),
                   o.max_result_bytes);
}

Result<std::string> RunSearch(Session& s, const Json& a,
                              const AgentToolOptions& o) {
  SearchOptions so;
  so.regex = a.value("regex", false);
  so.case_insensitive = a.value("case_insensitive", false);
  so.max_results = U64(a, "max_results", 20);
  so.skip_key_prefix = kSessionObjects;
  if (a.contains("ref")) {
    CTXKIT_ASSIGN_OR_RETURN(Ref ref, PinnedArg(s, a, "ref"));
    so.refs.push_back(std::move(ref));
  }
  CTXKIT_ASSIGN_OR_RETURN(
      SearchResult r, Search(s.view(), a.at("pattern").get<std::string>(), so));
  std::string out;
  for (const SearchMatch& m : r.matches) {
    out += FormatRef(m.ref) + ":" + std::to_string(m.line) + "\t" + m.preview +
           "\n";
    if (out.size() > o.max_result_bytes) break;
  }
  out += "# " + std::to_string(r.matches.size()) + " match" +
         (r.matches.size() == 1 ? "" : "es") + " in " +
         std::to_string(r.variables_searched) + " object" +
         (r.variables_searched == 1 ? "" : "s") +
         (r.truncated ? "; more exist (raise max_results or narrow the "
                        "pattern)"
                      : "") +
         "\n";
  return out;
}

Result<std::string> RunFindRelevant(Session& s, const Json& a,
                                    const AgentToolOptions& o) {
  FindOptions fo;
  const size_t top_k = U64(a, "top_k", 5);
  fo.top_k = top_k + kFindSlack;
  fo.embeddings = o.embeddings;
  if (a.contains("ref")) {
    CTXKIT_ASSIGN_OR_RETURN(Ref ref, PinnedArg(s, a, "ref"));
    fo.ref = std::move(ref);
  }
  CTXKIT_ASSIGN_OR_RETURN(
      FindResult r,
      FindRelevant(s.view(), a.at("query").get<std::string>(), fo));
  std::string out;
  size_t shown = 0;
  for (const FindHit& h : r.hits) {
    if (h.key.starts_with(kSessionObjects)) continue;
    if (shown++ == top_k) break;
    out += FormatRef(h.ref) + " offset=" + std::to_string(h.byte_offset) +
           " length=" + std::to_string(h.byte_length) + " (" + h.key + ")\n" +
           Shown(h.preview) + "\n---\n";
    if (out.size() > o.max_result_bytes) break;
  }
  if (shown == 0) out = "no relevant passage found\n";
  return out;
}

Result<std::string> RunActivate(Session& s, const Json& a,
                                const AgentToolOptions&) {
  CTXKIT_ASSIGN_OR_RETURN(const std::string object, ObjectArg(s, a, "ref"));
  CTXKIT_RETURN_IF_ERROR(s.Activate(object));
  return "activated " + a.at("ref").get<std::string>() +
         ": shown whole from the next turn on\n";
}

Result<std::string> RunPin(Session& s, const Json& a, const AgentToolOptions&) {
  CTXKIT_ASSIGN_OR_RETURN(const std::string object, ObjectArg(s, a, "ref"));
  if (a.value("unpin", false)) {
    CTXKIT_RETURN_IF_ERROR(s.Unpin(object));
    return "unpinned " + a.at("ref").get<std::string>() + "\n";
  }
  CTXKIT_RETURN_IF_ERROR(s.Pin(object));
  return "pinned " + a.at("ref").get<std::string>() +
         ": kept in view from the next turn on\n";
}

Result<std::string> RunExpand(Session& s, const Json& a,
                              const AgentToolOptions& o) {
  CTXKIT_ASSIGN_OR_RETURN(std::string chat,
                          s.Expand(a.at("compaction").get<std::string>()));
  std::string out = Shown(chat);
  if (out.size() > o.max_result_bytes) {
    out.resize(text::Utf8SafeCut(out, o.max_result_bytes));
    out += "\n[cut at " + std::to_string(o.max_result_bytes) +
           " bytes; each tool output above reads whole with ctxkit_read]\n";
  }
  return out;
}

Result<std::string> RunCompact(Session& s, const Json& a,
                               const AgentToolOptions&) {
  CTXKIT_RETURN_IF_ERROR(
      s.RequestCompaction(a.value("instructions", std::string())));
  return std::string(
      "the older turns are folded into a compaction at the next turn; "
      "ctxkit_expand reads them back\n");
}

Json RefArg() { return StringProp(kRefHelp, 1, 1024); }

std::vector<AgentToolDef> Define() {
  std::vector<AgentToolDef> tools = {
      {"ctxkit_read",
       "Read a tool output or object by its ref: whole (up to a cap; the "
       "result says how to read on), a line range (1-based, inclusive) or a "
       "byte range. Lines come numbered.",
       ObjectSchema(
           {{"ref", RefArg()},
            {"start_line", IntProp("First line (1-based).", 1, INT64_MAX)},
            {"end_line", IntProp("Last line (inclusive).", 1, INT64_MAX)},
            {"offset", IntProp("First byte (0-based).", 0, INT64_MAX)},
            {"length", IntProp("Bytes to read.", 1, INT64_MAX)}},
           {"ref"}),
       RunRead},
      {"ctxkit_peek",
       "The first lines of an object and its size, to decide what to read.",
       ObjectSchema(
           {{"ref", RefArg()},
            {"lines", IntProp("How many lines (default 20).", 1, 1000)}},
           {"ref"}),
       RunPeek},
      {"ctxkit_search",
       "Lines matching a pattern (literal, or a regex), in one object or in "
       "every object of the session. Each match: ref:line and the line.",
       ObjectSchema(
           {{"pattern", StringProp("What to find (one line).", 1, 4096)},
            {"ref", StringProp("Only this object (a ref or key).", 1, 1024)},
            {"regex", BoolProp("The pattern is an RE2 regular expression.")},
            {"case_insensitive", BoolProp("Ignore case.")},
            {"max_results",
             IntProp("At most this many (default 20).", 1, 1000)}},
           {"pattern"}),
       RunSearch},
      {"ctxkit_find_relevant",
       "The passages most relevant to a question (ranked search over every "
       "object, or one), each with the ref, offset and length to read it.",
       ObjectSchema(
           {{"query", StringProp("The question or topic.", 1, 4096)},
            {"ref", StringProp("Only this object (a ref or key).", 1, 1024)},
            {"top_k", IntProp("How many passages (default 5).", 1, 50)}},
           {"query"}),
       RunFindRelevant},
      {"ctxkit_activate",
       "Show an object whole in your context from the next turn on (until "
       "the budget needs the room).",
       ObjectSchema({{"ref", RefArg()}}, {"ref"}), RunActivate},
      {"ctxkit_pin",
       "Keep an object, at its current version, in your context from the "
       "next turn on; unpin=true releases it.",
       ObjectSchema(
           {{"ref", RefArg()}, {"unpin", BoolProp("Release a pinned object.")}},
           {"ref"}),
       RunPin},
      {"ctxkit_expand",
       "The messages a compaction summary replaced, as they were.",
       ObjectSchema({{"compaction",
                      StringProp("The compaction's ref (its block shows it).",
                                 1, 1024)}},
                    {"compaction"}),
       RunExpand},
      {"ctxkit_compact",
       "Fold the older turns of this conversation into a summary at the "
       "next turn, to free room. The turns stay readable (ctxkit_expand).",
       ObjectSchema(
           {{"instructions",
             StringProp("What the summary must keep (optional).", 0, 2000)}},
           {}),
       RunCompact},
  };
  std::sort(tools.begin(), tools.end(),
            [](const AgentToolDef& x, const AgentToolDef& y) {
              return x.name < y.name;
            });
  return tools;
}

}  // namespace

const std::vector<AgentToolDef>& AgentTools() {
  static const std::vector<AgentToolDef> tools = Define();
  return tools;
}

const AgentToolDef* FindAgentTool(std::string_view name) {
  for (const AgentToolDef& t : AgentTools()) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

}  // namespace ctxkit::face
