// Value tools: set, get, ref, list, versions, remove, promote, tokens — the
// store's verbs, acting through the client's view.

#include <string>
#include <utility>
#include <vector>

#include "ctxkit/explore.h"
#include "ctxkit/store.h"
#include "ctxkit/summary.h"
#include "mcp/result_limit.h"
#include "mcp/tool_registry.h"
#include "mcp/tool_util.h"
#include "store/json_forms.h"
#include "summary/json_forms.h"

namespace ctxkit::mcp {

namespace {

ToolResult JsonResult(std::string text, Json structured) {
  ToolResult r;
  r.content.push_back(TextContent(std::move(text)));
  r.structured = std::move(structured);
  return r;
}

Result<ToolResult> RunSet(ClientState& c, const Json& a,
                          const ProgressOptions&) {
  SetOptions o;
  o.scope = StrArg(a, "scope", "global");
  Result<ValueType> type = ParseValueType(StrArg(a, "type", "text"));
  if (!type.ok()) return type.status();
  o.type = *type;
  o.persist = BoolArg(a, "persist", true);
  o.tags = StrListArg(a, "tags");
  o.producer = "mcp:" + c.binding.agent;
  o.expected_version = U64Arg(a, "if_version", 0);
  std::string value = StrArg(a, "value");
  Result<Ref> ref = BoolArg(a, "append", false)
                        ? c.view.Append(StrArg(a, "key"), value, o)
                        : c.view.Set(StrArg(a, "key"), value, o);
  if (!ref.ok()) return ref.status();
  // The version this call wrote, even when other clients write the key.
  c.Log(LogLevel::kInfo, "ctxkit.set",
        {{"key", ref->key}, {"ref", FormatRef(*ref)}});
  Json s = store::RefToJson(*ref);
  s["dynamic_ref"] = FormatRef(ref->Dynamic());
  return JsonResult(FormatRef(*ref), std::move(s));
}

// get's text is the value, and its structured facts (ref, sizes, range)
// do not hold it: they go with a cut result only, where they say how to
// page on. A value returned whole is its text alone, so a client that
// hands the model text and structuredContent together (LangChain's
// adapter) does not wrap the value in JSON.
Result<ToolResult> ValueText(Result<ToolResult> r) {
  if (r.ok() && !r->structured.contains("truncated")) r->structured = Json();
  return r;
}

Result<ToolResult> RunGet(ClientState& c, const Json& a,
                          const ProgressOptions&) {
  Result<Ref> ref = ResolveTarget(c, a);
  if (!ref.ok()) return ref.status();
  bool bytes = a.contains("byte_offset") || a.contains("byte_length");
  bool lines = a.contains("line_start") || a.contains("line_end");
  if (bytes && lines) {
    return Status::InvalidArgument(
        "give a byte range (byte_offset/byte_length) or a line range "
        "(line_start/line_end), not both");
  }
  Json s = {{"ref", FormatRef(*ref)},
            {"key", ref->key},
            {"type", std::string(ValueTypeName(ref->type))},
            {"total_bytes", ref->size_bytes}};
  if (bytes) {
    uint64_t offset = U64Arg(a, "byte_offset", 0);
    uint64_t length = U64Arg(a, "byte_length", 64ull << 10);
    Result<std::string> text = c.view.ReadRange(*ref, offset, length);
    if (!text.ok()) return text.status();
    s["byte_offset"] = offset;
    s["byte_end"] = offset + text->size();
    s["more"] = offset + text->size() < ref->size_bytes;
    return ValueText(
        LimitedTextResult(c, std::move(*text), std::move(s), *ref, offset));
  }
  if (lines) {
    PeekOptions o;
    o.unit = PeekUnit::kLines;
    o.start = I64Arg(a, "line_start", 0);
    o.end =
        a.contains("line_end") ? I64Arg(a, "line_end", kPeekToEnd) : kPeekToEnd;
    o.max_bytes = 16ull << 20;
    Result<PeekResult> p = Peek(c.view, *ref, o);
    if (!p.ok()) return p.status();
    s["line_start"] = p->start;
    s["line_end"] = p->end;
    if (p->total) s["total_lines"] = *p->total;
    s["byte_offset"] = p->byte_begin;
    s["byte_end"] = p->byte_end;
    s["cut_at_bytes"] = p->truncated;
    return ValueText(LimitedTextResult(c, std::move(p->text), std::move(s),
                                       *ref, p->byte_begin));
  }
  return ValueText(WholeValueResult(c, *ref, std::move(s)));
}

Result<ToolResult> RunRef(ClientState& c, const Json& a,
                          const ProgressOptions&) {
  Result<Target> t = ParseTarget(a);
  if (!t.ok()) return t.status();
  Result<Ref> ref = ResolveTarget(c, a);
  if (!ref.ok()) return ref.status();
  // A version (or a static ref) pins; otherwise the ref follows the latest.
  Ref out = t->pins_version() ? *ref : ref->Dynamic();
  return JsonResult(FormatRef(out), store::RefToJson(out));
}

Result<ToolResult> RunList(ClientState& c, const Json& a,
                           const ProgressOptions&) {
  ListFilter f;
  f.scope = StrArg(a, "scope");
  if (a.contains("type")) {
    Result<ValueType> t = ParseValueType(StrArg(a, "type"));
    if (!t.ok()) return t.status();
    f.type = *t;
  }
  f.key_prefix = StrArg(a, "key_prefix");
  f.tags = StrListArg(a, "tags");
  f.limit = U64Arg(a, "limit", 50);
  f.cursor = StrArg(a, "cursor");
  Result<ListPage> page = c.view.List(f);
  if (!page.ok()) return page.status();
  Json items = Json::array();
  std::string text;
  for (const ObjectMeta& m : page->items) {
    items.push_back(store::ObjectMetaToJson(m));
    text += FormatRef(StaticRefOf(m)) + "  " + std::to_string(m.size_bytes) +
            " bytes" +
            (m.tokens ? ", " + std::to_string(*m.tokens) + " tokens" : "") +
            "\n";
  }
  if (page->items.empty()) text = "(no variables)\n";
  Json s = {{"items", std::move(items)}};
  if (!page->next_cursor.empty()) {
    s["next_cursor"] = page->next_cursor;
    text +=
        "More: call list again with cursor \"" + page->next_cursor + "\".\n";
  }
  return LimitedTextResult(c, std::move(text), std::move(s), std::nullopt, 0);
}

// The history of the object a key or a ref names, and its dynamic ref
// while it still resolves (null once it does not: no static refs then).
Result<std::vector<VersionMeta>> VersionsOf(ClientState& c, const Target& t,
                                            Result<Ref>* dynamic) {
  Result<Ref> object =
      c.view.RefOf(t.is_ref() ? Target(t.ref()->Dynamic()) : t);
  *dynamic = object.ok() ? Result<Ref>(object->Dynamic()) : object;
  return c.view.Versions(t);
}

Result<ToolResult> RunVersions(ClientState& c, const Json& a,
                               const ProgressOptions&) {
  Result<Target> t = ParseTarget(a);
  if (!t.ok()) return t.status();
  Result<Ref> dyn = Status::NotFound("");
  Result<std::vector<VersionMeta>> vs = VersionsOf(c, *t, &dyn);
  if (!vs.ok()) return vs.status();
  Json s = store::VersionListToJson(t->key(), *vs, dyn.ok() ? &*dyn : nullptr);
  std::string text;
  for (const Json& v : s["versions"]) {
    text += "v" + std::to_string(v["version"].get<uint64_t>()) + "  " +
            v["state"].get<std::string>() + "  " +
            std::to_string(v["size_bytes"].get<uint64_t>()) + " bytes" +
            (v["ref"].is_string() ? "  " + v["ref"].get<std::string>() : "") +
            "\n";
  }
  return LimitedTextResult(c, std::move(text), std::move(s), std::nullopt, 0);
}

Result<ToolResult> RunRemove(ClientState& c, const Json& a,
                             const ProgressOptions&) {
  LookupOptions o;
  o.scope = StrArg(a, "scope");
  std::string key = StrArg(a, "key");
  Status s = c.view.Remove(key, o);
  if (!s.ok()) return s;
  c.Log(LogLevel::kInfo, "ctxkit.remove", {{"key", key}});
  return JsonResult("removed " + key +
                        " (a tombstone version; earlier versions stay "
                        "readable by static ref)",
                    {{"key", key}, {"removed", true}});
}

Result<ToolResult> RunPromote(ClientState& c, const Json& a,
                              const ProgressOptions&) {
  Result<Ref> ref = c.view.Promote(StrArg(a, "key"));
  if (!ref.ok()) return ref.status();
  return JsonResult(FormatRef(*ref), store::RefToJson(*ref));
}

Result<ToolResult> RunTokens(ClientState& c, const Json& a,
                             const ProgressOptions&) {
  std::string encoding = StrArg(a, "encoding", "o200k_base");
  Result<Ref> ref = ResolveTarget(c, a);
  if (!ref.ok()) return ref.status();
  Result<uint64_t> n = CountValueTokens(c.view, FormatRef(*ref), encoding);
  if (!n.ok()) return n.status();
  return JsonResult(std::to_string(*n) + " tokens (" + encoding + ")",
                    summary::TokenCountToJson(*ref, encoding, *n));
}

}  // namespace

void AddValueTools(std::vector<ToolDef>& tools) {
  Json types =
      EnumProp("What the value holds (default text). json values must parse.",
               {"text", "json", "memory", "result", "stream"});
  tools.push_back(
      {"set", "Store a value",
       "Store a value under a key and get back its ref (a compact handle "
       "such as ck:2s:1:t:14729:g:logs/build). Keep the ref instead of the "
       "content: pass it to get, peek, search or summarize, or to another "
       "agent, which can read it with the ref alone. Setting an existing key "
       "appends a new version; earlier versions stay readable. Use this for "
       "large tool outputs, documents and intermediate results you do not "
       "need in your context right now.",
       ObjectSchema(
           {{"key", KeyProp()},
            {"value", StringProp("The content to store (any size).")},
            {"type", types},
            {"scope",
             ScopeProp("Where to store it: global (default; every agent of "
                       "this store), agent (only you) or session (only this "
                       "session).")},
            {"tags", StringListProp("Labels to filter list by (1-64 bytes "
                                    "each); replaces earlier tags.",
                                    32)},
            {"persist", BoolProp("false: keep it only for this server "
                                 "process (never written to disk). Default "
                                 "true.")},
            {"append", BoolProp("true: append value to a stream (created "
                                "when missing) instead of replacing.")},
            {"if_version",
             IntProp("Compare-and-set: write only while the key's latest "
                     "version is this one (from the ref you read); "
                     "otherwise nothing is written and the error says the "
                     "version it is at. Omit to write unconditionally.",
                     1, INT64_MAX)}},
           {"key", "value"}),
       false, false, false, RunSet});
  tools.push_back(
      {"get", "Read a value (or a range of it)",
       "Read the value a key or ref names. Without a range, small values "
       "come back whole; a value over the result limit comes back as its "
       "head and tail with instructions to page with "
       "byte_offset/byte_length or line_start/line_end. Prefer a range, "
       "peek or search for large values so your context stays small.",
       ObjectSchema(
           {{"key", KeyProp()},
            {"ref", RefProp()},
            {"scope", ScopeProp(kScopeLookup)},
            {"version", VersionProp()},
            {"byte_offset",
             IntProp("First byte to read (0-based).", 0, INT64_MAX)},
            {"byte_length",
             IntProp("Bytes to read (default 65536).", 1, 16 << 20)},
            {"line_start",
             IntProp("First line (0-based; negative counts from the end).",
                     INT64_MIN, INT64_MAX)},
            {"line_end", IntProp("Line to stop before (exclusive; negative "
                                 "counts from the end). Omit for the end.",
                                 INT64_MIN, INT64_MAX)}},
           {}),
       true, false, true, RunGet});
  tools.push_back(
      {"ref", "Get a ref (handle) for a key",
       "Return the ref (handle) of a stored value (named by key or by a ref "
       "you hold, e.g. to check it still resolves) without reading it: id, "
       "version, type, size, scope and key in one short string. A version "
       "pins the ref to that version forever (a static ref); without one the "
       "ref follows the latest version. Hand refs to other agents instead of "
       "content.",
       ObjectSchema({{"key", KeyProp()},
                     {"ref", RefProp()},
                     {"scope", ScopeProp(kScopeLookup)},
                     {"version", VersionProp()}},
                    {}),
       true, false, true, RunRef});
  tools.push_back(
      {"list", "List stored values",
       "List the values you can see (global, your agent scope, your "
       "session), as refs with size and token counts, ordered by key. "
       "Filter by scope, type, key prefix or tags; page with cursor.",
       ObjectSchema(
           {{"scope", ScopeProp("Only this scope. Omit for all you see.")},
            {"type", EnumProp("Only values of this type.",
                              {"text", "json", "memory", "result", "stream",
                               "toolcall", "file", "note", "chat"})},
            {"key_prefix", StringProp("Only keys starting with this.", 0, 256)},
            {"tags", StringListProp("Only values carrying every one of "
                                    "these tags.",
                                    32)},
            {"limit", IntProp("Page size (default 50).", 1, 1000)},
            {"cursor",
             StringProp("next_cursor from the previous page.", 0, 4096)}},
           {}),
       true, false, true, RunList});
  tools.push_back(
      {"versions", "List a value's versions",
       "The version history of a key (or of the object a ref names), "
       "oldest first: each version's state, size, hash and a static ref "
       "that reads exactly that version.",
       ObjectSchema({{"key", KeyProp()},
                     {"ref", RefProp()},
                     {"scope", ScopeProp(kScopeLookup)}},
                    {}),
       true, false, true, RunVersions});
  tools.push_back(
      {"remove", "Remove a value",
       "Remove the value under a key (a tombstone version: the key stops "
       "resolving, static refs to earlier versions still read them).",
       ObjectSchema({{"key", KeyProp()}, {"scope", ScopeProp(kScopeLookup)}},
                    {"key"}),
       false, true, false, RunRemove});
  tools.push_back(
      {"promote", "Promote a value to global",
       "Move a value from your agent scope to the global scope (id and "
       "history kept), so every agent of the store sees it by key.",
       ObjectSchema({{"key", KeyProp()}}, {"key"}), false, false, false,
       RunPromote});
  tools.push_back(
      {"tokens", "Count a value's tokens",
       "Exact token count of a stored value (o200k_base by default, or "
       "cl100k_base) without returning its content. Use it to decide "
       "whether to read a value whole or by range.",
       ObjectSchema({{"key", KeyProp()},
                     {"ref", RefProp()},
                     {"scope", ScopeProp(kScopeLookup)},
                     {"version", VersionProp()},
                     {"encoding", EnumProp("Tokenizer (default o200k_base).",
                                           {"o200k_base", "cl100k_base"})}},
                    {}),
       true, false, true, RunTokens});
}

}  // namespace ctxkit::mcp
