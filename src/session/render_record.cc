// Render records (render_record.h). One JSON line per render in the
// session's record stream (State::records_key, format in docs/sessions.md):
// the static refs of every block's source and the decisions (which chat
// outputs were shown, pinned or hidden; which tail objects), never the
// rendered text. Version N of the stream ends with record N.

#include "session/render_record.h"

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "core/status_macros.h"
#include "session/render_json.h"
#include "store/store_internals.h"
#include "text/json_parse.h"

namespace ctxkit::session {
namespace {

using nlohmann::json;

RenderBreakdown BreakdownOf(const json& j) {
  RenderBreakdown b;
  b.system = ctxkit::text::UintOr(j, "system", 0);
  b.pinned = ctxkit::text::UintOr(j, "pinned", 0);
  b.index = ctxkit::text::UintOr(j, "index", 0);
  b.compactions = ctxkit::text::UintOr(j, "compactions", 0);
  b.chat = ctxkit::text::UintOr(j, "chat", 0);
  b.active_outputs = ctxkit::text::UintOr(j, "active_outputs", 0);
  b.placeholders = ctxkit::text::UintOr(j, "placeholders", 0);
  return b;
}

// The static ref of the stored snapshot `key` (the index block, the tools)
// holding `text`, writing a new version only when the text changed.
// Static: the record must name the version it showed, not whichever is
// latest when it is replayed.
Result<std::string> StoredSnapshot(SessionImpl& s, const char* key,
                                   const std::string& text,
                                   SessionImpl::Snapshot& cache) {
  if (!cache.ref.empty() && cache.text == text) return cache.ref;
  View& view = s.view();
  Result<Ref> latest = view.Pin(key, {.scope = s.session_scope()});
  if (latest.ok()) {
    CTXKIT_ASSIGN_OR_RETURN(std::string stored, view.Resolve(*latest));
    if (stored == text) {
      cache = {text, FormatRef(*latest)};
      return cache.ref;
    }
  } else if (!latest.status().IsNotFound()) {
    return latest.status();
  }
  SetOptions opts{.scope = "session", .producer = "session:" + s.id()};
  CTXKIT_ASSIGN_OR_RETURN(Ref ref, view.Set(key, text, opts));
  cache = {text, FormatRef(ref)};
  return cache.ref;
}

Result<json> EncodeRecord(SessionImpl& s, const Layout& layout,
                          const RenderOptions& options,
                          const RenderResult& result) {
  json pinned = json::array();
  for (const PinnedSpec& p : layout.pinned_specs) {
    pinned.push_back({p.ref, p.key, p.kind});
  }
  std::string index_ref;
  if (layout.metadata_index.present) {
    CTXKIT_ASSIGN_OR_RETURN(
        index_ref,
        StoredSnapshot(s, kIndexKey, layout.metadata_index.block.text,
                       s.index_snapshot()));
  }
  std::string tools_ref;
  if (!layout.tools.text.empty()) {
    CTXKIT_ASSIGN_OR_RETURN(
        tools_ref,
        StoredSnapshot(s, kToolsKey, layout.tools.text, s.tools_snapshot()));
  }
  json shown = json::array(), pinned_out = json::array(),
       excerpt = json::array();
  for (size_t rel = 0; rel < layout.modes.size(); ++rel) {
    if (layout.modes[rel] == ToolMode::kExcerpt) {
      // [i, head, tail] or [i, head, tail, ref], as `shown`.
      const ExcerptSpec& e = layout.excerpts[rel];
      json x = json::array({rel, e.head, e.tail});
      if (!layout.shown_refs[rel].empty()) x.push_back(layout.shown_refs[rel]);
      excerpt.push_back(std::move(x));
    } else if (layout.modes[rel] == ToolMode::kShown) {
      // [i]: the version the chat's reference line names, which the
      // session held when it ingested the output; [i, ref]: a later one.
      shown.push_back(layout.shown_refs[rel].empty()
                          ? json::array({rel})
                          : json::array({rel, layout.shown_refs[rel]}));
    } else if (layout.modes[rel] == ToolMode::kPinned) {
      const ChatMessage& m = layout.message(rel);
      pinned_out.push_back(
          {rel, s.state().entries.at(m.object_id).pinned_version});
    }
  }
  json tail = json::array();
  for (const TailBlock& t : layout.tail) {
    tail.push_back(t.shown ? json::array({t.ref, t.key, t.kind, t.printed_ref})
                           : json::array({"", t.block.text}));
  }
  json dropped = json::array();
  for (const RenderDrop& d : result.dropped) {
    dropped.push_back({d.key, d.version, d.tokens, d.ref});
  }
  json conflicts = json::array();
  for (const RenderConflict& c : result.conflicts) {
    conflicts.push_back({c.key, c.pinned_version, c.active_version});
  }
  const CompactionInfo& made = result.compacted;
  json compacted = made.ref.empty()
                       ? json()
                       : json::array({made.ref, made.first_message,
                                      made.end_message, made.turns});
  json rec{
      {"v", 1},
      {"format", LogFormatName(options.format)},
      {"budget", options.budget_tokens},
      {"tokens", result.tokens},
      {"breakdown", BreakdownToJson(result.breakdown)},
      {"system", layout.system_ref},
      {"pinned", std::move(pinned)},
      {"index", index_ref},
      {"index_listed", result.index_listed},
      {"index_total", result.index_total},
      {"compactions", layout.compaction_refs},
      {"chat", layout.chat_ref},
      {"first", layout.first},
      {"shown", std::move(shown)},
      {"excerpt", std::move(excerpt)},
      {"texts", static_cast<int>(layout.texts)},
      {"pinned_out", std::move(pinned_out)},
      {"tail", std::move(tail)},
      {"dropped", std::move(dropped)},
      {"conflicts", std::move(conflicts)},
      {"collapsed", result.collapsed},
      {"compacted", std::move(compacted)},
      {"bytes", result.bytes},
      {"prefix", result.prefix_bytes ? json(*result.prefix_bytes) : json()}};
  // Only records of renders that carried tools have the field.
  if (!tools_ref.empty()) rec["tools"] = tools_ref;
  // The ingest cursor the chat was built to (a fork continues from it);
  // records of earlier builds, and of sessions that ingested nothing, lack
  // it.
  const State& st = s.state();
  if (!st.ingest_format.empty()) {
    rec["cursor"] = {st.ingest_format, st.ingested_items, st.ingest_hash};
  }
  return rec;
}

// The refs record `rec` (as EncodeRecord made it) names in its own
// fields: what its replay reads, and what its placeholders offered the
// model. Text blocks are not searched: a ref a message quotes is not the
// session's to hold.
std::vector<Ref> RecordRefs(const json& rec) {
  std::vector<std::string> texts;
  auto add = [&](const json& v) {
    if (v.is_string() && !v.get_ref<const std::string&>().empty()) {
      texts.push_back(v.get<std::string>());
    }
  };
  add(rec.at("system"));
  add(rec.at("index"));
  add(rec.value("tools", json()));
  add(rec.at("chat"));
  for (const json& p : rec.at("pinned")) add(p.at(0));
  for (const json& c : rec.at("compactions")) add(c);
  for (const json& s : rec.at("shown")) {
    if (s.size() > 1) add(s.at(1));
  }
  for (const json& x : rec.value("excerpt", json::array())) {
    if (x.size() > 3) add(x.at(3));
  }
  for (const json& t : rec.at("tail")) {
    if (t.size() == 4) {
      add(t.at(0));
      add(t.at(3));
    }
  }
  for (const json& d : rec.at("dropped")) add(d.at(3));
  if (const json& made = rec.at("compacted"); made.is_array()) add(made.at(0));
  std::vector<Ref> refs;
  for (const std::string& text : texts) {
    if (Result<Ref> ref = ParseRef(text); ref.ok()) refs.push_back(*ref);
  }
  return refs;
}

Status BadRecord(uint64_t n, const std::string& what) {
  return Status::Corruption("render record " + std::to_string(n) + ": " + what);
}

}  // namespace

Result<json> LoadRecord(SessionImpl& s, uint64_t n) {
  CTXKIT_ASSIGN_OR_RETURN(uint64_t count, RecordCount(s));
  if (n == 0 || n > count) {
    return Status::NotFound("session '" + s.id() + "' has no render record " +
                            std::to_string(n) + " (it has " +
                            std::to_string(count) + ")");
  }
  View& view = s.view();
  const LookupOptions at{.scope = s.session_scope(), .version = n};
  const std::string& key = s.state().records_key;
  CTXKIT_ASSIGN_OR_RETURN(Ref ref, view.RefOf(key, at));
  uint64_t offset = 0;
  if (n > 1) {
    CTXKIT_ASSIGN_OR_RETURN(
        Ref prev,
        view.RefOf(key, {.scope = s.session_scope(), .version = n - 1}));
    offset = prev.size_bytes;
  }
  CTXKIT_ASSIGN_OR_RETURN(std::string line,
                          view.ReadRange(ref, offset, ref.size_bytes - offset));
  json j = ctxkit::text::ParseJsonOrDiscarded(line);
  if (ctxkit::text::UintOr(j, "v", 0) != 1) {
    return BadRecord(n, "not a record this build reads");
  }
  return j;
}

namespace {

Result<std::string> ReadRef(View& view, const std::string& wire) {
  CTXKIT_ASSIGN_OR_RETURN(Ref ref, ParseRef(wire));
  return view.Resolve(ref);
}

}  // namespace

Result<std::vector<ChatMessage>> RecordChat(View& view, const json& rec) {
  const std::string ref = ctxkit::text::StringOr(rec, "chat", "");
  if (ref.empty()) return std::vector<ChatMessage>();
  CTXKIT_ASSIGN_OR_RETURN(std::string text, ReadRef(view, ref));
  return DecodeChat(text);
}

namespace {

Status RebuildChat(View& view, const json& rec, uint64_t n, Layout* layout) {
  CTXKIT_ASSIGN_OR_RETURN(layout->owned_chat, RecordChat(view, rec));
  layout->chat = nullptr;
  layout->first = ctxkit::text::UintOr(rec, "first", 0);
  if (layout->first > layout->owned_chat.size()) {
    return BadRecord(n, "first message past the chat's end");
  }
  const size_t count = layout->owned_chat.size() - layout->first;
  layout->chat_text.resize(count);
  layout->modes.assign(count, ToolMode::kText);
  for (size_t rel = 0; rel < count; ++rel) {
    const ChatMessage& m = layout->message(rel);
    if (m.role != "tool") {
      layout->chat_text[rel].text = m.text;
      continue;
    }
    layout->modes[rel] = ToolMode::kHidden;
    layout->chat_text[rel].text = ToolText(
        m, layout->first + rel, ToolMode::kHidden, 0, "", layout->texts);
  }
  for (const json& e : rec.at("shown")) {
    const size_t rel = e.at(0).get<size_t>();
    if (rel >= count) return BadRecord(n, "a shown output past the chat");
    const ChatMessage& m = layout->message(rel);
    const std::string ref = e.size() > 1 ? e.at(1).get<std::string>() : m.ref;
    CTXKIT_ASSIGN_OR_RETURN(Ref parsed, ParseRef(ref));
    CTXKIT_ASSIGN_OR_RETURN(std::string content, view.Resolve(parsed));
    layout->modes[rel] = ToolMode::kShown;
    layout->chat_text[rel].text =
        ToolText(m, layout->first + rel, ToolMode::kShown, parsed.version,
                 content, layout->texts);
  }
  for (const json& e : rec.value("excerpt", json::array())) {
    const size_t rel = e.at(0).get<size_t>();
    if (rel >= count) return BadRecord(n, "an excerpt past the chat");
    const ChatMessage& m = layout->message(rel);
    const std::string ref = e.size() > 3 ? e.at(3).get<std::string>() : m.ref;
    CTXKIT_ASSIGN_OR_RETURN(Ref parsed, ParseRef(ref));
    CTXKIT_ASSIGN_OR_RETURN(std::string content, view.Resolve(parsed));
    layout->modes[rel] = ToolMode::kExcerpt;
    layout->chat_text[rel].text = ExcerptText(
        m, layout->first + rel, parsed.version, ref, content,
        {e.at(1).get<uint64_t>(), e.at(2).get<uint64_t>()}, layout->texts);
  }
  for (const json& e : rec.at("pinned_out")) {
    const size_t rel = e.at(0).get<size_t>();
    if (rel >= count) return BadRecord(n, "a pinned output past the chat");
    layout->modes[rel] = ToolMode::kPinned;
    layout->chat_text[rel].text =
        ToolText(layout->message(rel), layout->first + rel, ToolMode::kPinned,
                 e.at(1).get<uint64_t>(), "");
  }
  return Status::Ok();
}

// The layout record `rec` describes, its texts read by static ref.
Result<Layout> RebuildLayout(SessionImpl& s, const json& rec, uint64_t n) {
  View& view = s.view();
  Layout layout;
  // Records without "texts" were written with the first placeholder.
  const uint64_t texts = ctxkit::text::UintOr(rec, "texts", 1);
  if (texts < 1 || texts > 4) return BadRecord(n, "unknown texts form");
  layout.texts = static_cast<ToolTexts>(texts);
  const std::string system = ctxkit::text::StringOr(rec, "system", "");
  if (!system.empty()) {
    CTXKIT_ASSIGN_OR_RETURN(layout.system.text, ReadRef(view, system));
  }
  for (const json& p : rec.at("pinned")) {
    PinnedSpec spec{p.at(0).get<std::string>(), p.at(1).get<std::string>(),
                    p.at(2).get<std::string>()};
    CTXKIT_ASSIGN_OR_RETURN(Ref ref, ParseRef(spec.ref));
    CTXKIT_ASSIGN_OR_RETURN(std::string content, view.Resolve(ref));
    layout.pinned.push_back({PinnedBlockText(spec, ref.version, content), 0});
  }
  const std::string index = ctxkit::text::StringOr(rec, "index", "");
  if (!index.empty()) {
    layout.metadata_index.present = true;
    CTXKIT_ASSIGN_OR_RETURN(layout.metadata_index.block.text,
                            ReadRef(view, index));
  }
  const std::string tools = ctxkit::text::StringOr(rec, "tools", "");
  if (!tools.empty()) {
    CTXKIT_ASSIGN_OR_RETURN(layout.tools.text, ReadRef(view, tools));
  }
  for (const json& c : rec.at("compactions")) {
    CTXKIT_ASSIGN_OR_RETURN(
        const std::string* text,
        s.CompactionText(c.get<std::string>(), layout.texts));
    layout.compactions.push_back({*text, 0});
  }
  CTXKIT_RETURN_IF_ERROR(RebuildChat(view, rec, n, &layout));
  for (const json& t : rec.at("tail")) {
    TailBlock b;
    const std::string ref = t.at(0).get<std::string>();
    if (ref.empty()) {
      b.block.text = t.at(1).get<std::string>();
    } else {
      CTXKIT_ASSIGN_OR_RETURN(Ref parsed, ParseRef(ref));
      CTXKIT_ASSIGN_OR_RETURN(std::string content, view.Resolve(parsed));
      b.block.text = TailShownText(t.at(1).get<std::string>(), parsed.version,
                                   t.at(2).get<std::string>(),
                                   t.at(3).get<std::string>(), content);
    }
    layout.tail.push_back(std::move(b));
  }
  return layout;
}

// Keys of the content record `rec` shows (chat outputs by toolcall key),
// and of the chat outputs it hides, given its chat.
struct ShownSets {
  std::set<std::string> shown;
  std::set<std::string> hidden_in_chat;
};

ShownSets ShownOf(const json& rec, const std::vector<ChatMessage>& chat) {
  ShownSets sets;
  const size_t first = ctxkit::text::UintOr(rec, "first", 0);
  std::set<size_t> shown_rel;
  for (const json& e : rec.at("shown")) shown_rel.insert(e.at(0).get<size_t>());
  for (const json& e : rec.value("excerpt", json::array())) {
    shown_rel.insert(e.at(0).get<size_t>());
  }
  for (size_t i = first; i < chat.size(); ++i) {
    if (chat[i].role != "tool") continue;
    const std::string key = "toolcall:" + chat[i].call_id;
    if (shown_rel.count(i - first) != 0) {
      sets.shown.insert(key);
    } else {
      sets.hidden_in_chat.insert(key);
    }
  }
  for (const json& t : rec.at("tail")) {
    if (!t.at(0).get<std::string>().empty()) {
      sets.shown.insert(t.at(1).get<std::string>());
    }
  }
  for (const json& p : rec.at("pinned")) {
    sets.shown.insert(p.at(1).get<std::string>());
  }
  return sets;
}

}  // namespace

Result<uint64_t> RecordCount(SessionImpl& s) {
  Result<ObjectMeta> meta =
      s.view().Stat(s.state().records_key, {.scope = s.session_scope()});
  if (meta.status().IsNotFound()) return uint64_t{0};
  if (!meta.ok()) return meta.status();
  return meta->version;
}

Result<std::optional<int64_t>> LastRecordTime(SessionImpl& s) {
  Result<ObjectMeta> meta =
      s.view().Stat(s.state().records_key, {.scope = s.session_scope()});
  if (meta.status().IsNotFound()) return std::optional<int64_t>();
  if (!meta.ok()) return meta.status();
  return std::optional<int64_t>(meta->updated_unix_ns);
}

Status FillRecordFigures(SessionImpl& s, SessionSnapshot* snap) {
  CTXKIT_ASSIGN_OR_RETURN(snap->renders, RecordCount(s));
  if (snap->renders == 0) return Status::Ok();
  Result<json> loaded = LoadRecord(s, snap->renders);
  // The figures are a convenience: a record that cannot be read (collected
  // by gc, or damaged) must not make the session unreadable.
  if (loaded.status().IsNotFound() ||
      loaded.status().code() == StatusCode::kCorruption) {
    return Status::Ok();
  }
  CTXKIT_ASSIGN_OR_RETURN(json rec, std::move(loaded));
  snap->last_render_tokens = ctxkit::text::UintOr(rec, "tokens", 0);
  snap->last_render_budget = ctxkit::text::UintOr(rec, "budget", 0);
  snap->last_render_breakdown = BreakdownOf(rec.value("breakdown", json()));
  return Status::Ok();
}

namespace {

// The request of record `n` (>= 1), from the instance's last one or
// replayed; nullopt when it does not replay (gc collected a version, a
// damaged record, an unreachable store): the prefix is a figure, and a
// render never fails for want of it.
std::optional<std::string> RequestOf(SessionImpl& s, uint64_t n) {
  SessionImpl::LastRequest& last = s.last_request();
  if (last.record == n) return last.text;
  Result<RenderResult> replayed = ReplayRender(s, n);
  if (!replayed.ok()) return std::nullopt;
  return std::move(replayed->request_json);
}

}  // namespace

Status RecordRender(SessionImpl& s, const Layout& layout,
                    const RenderOptions& options, RenderResult* result) {
  SetOptions opts{.scope = "session",
                  .type = ValueType::kStream,
                  .producer = "session:" + s.id()};
  // Another process may append a record between the count and the
  // append: the append is conditional, and the prefix is computed again
  // against the record that then precedes it. Should others keep winning,
  // the last attempt appends wherever the stream ends, without a prefix.
  constexpr int kAttempts = 8;
  for (int attempt = 1;; ++attempt) {
    const bool last_attempt = attempt == kAttempts;
    CTXKIT_ASSIGN_OR_RETURN(uint64_t count, RecordCount(s));
    result->prefix_bytes.reset();
    if (count > 0 && !last_attempt) {
      if (std::optional<std::string> previous = RequestOf(s, count)) {
        result->prefix_bytes =
            RequestPrefixBytes(*previous, result->request_json);
      }
    }
    CTXKIT_ASSIGN_OR_RETURN(json rec,
                            EncodeRecord(s, layout, options, *result));
    // Held before the record is published: a collection that ran in
    // between makes the hold fail, never the record name a lost version.
    CTXKIT_RETURN_IF_ERROR(
        StoreInternals::HoldForSession(*s.store(), s.id(), RecordRefs(rec)));
    opts.expected_version = last_attempt ? 0 : count;
    Result<Ref> ref =
        s.view().Append(s.state().records_key, rec.dump() + "\n", opts);
    if (ref.status().code() == StatusCode::kFailedPrecondition && count > 0 &&
        !last_attempt) {
      continue;
    }
    if (!ref.ok()) return ref.status();
    result->record = ref->version;
    s.last_request() = {ref->version, result->request_json};
    return Status::Ok();
  }
}

namespace {

// One record's figures; throws json::exception for a field of the wrong
// type.
Result<RenderFigures> FiguresOf(const json& rec, uint64_t n) {
  if (ctxkit::text::UintOr(rec, "v", 0) != 1) {
    return BadRecord(n, "not a record this build reads");
  }
  RenderFigures f;
  f.record = n;
  Result<LogFormat> format =
      ParseLogFormat(ctxkit::text::StringOr(rec, "format", ""));
  if (!format.ok()) return BadRecord(n, format.status().message());
  f.format = *format;
  f.budget_tokens = ctxkit::text::UintOr(rec, "budget", 0);
  f.tokens = ctxkit::text::UintOr(rec, "tokens", 0);
  f.breakdown = BreakdownOf(rec.value("breakdown", json()));
  f.bytes = ctxkit::text::UintOr(rec, "bytes", 0);
  const json prefix = rec.value("prefix", json());
  if (prefix.is_number_unsigned()) f.prefix_bytes = prefix.get<uint64_t>();
  return f;
}

}  // namespace

Result<std::vector<RenderFigures>> RenderHistory(SessionImpl& s) {
  CTXKIT_ASSIGN_OR_RETURN(uint64_t count, RecordCount(s));
  std::vector<RenderFigures> out;
  if (count == 0) return out;
  View& view = s.view();
  CTXKIT_ASSIGN_OR_RETURN(
      Ref ref, view.RefOf(s.state().records_key,
                          {.scope = s.session_scope(), .version = count}));
  CTXKIT_ASSIGN_OR_RETURN(std::string stream, view.Resolve(ref));
  out.reserve(count);
  size_t at = 0;
  while (at < stream.size() && out.size() < count) {
    size_t nl = stream.find('\n', at);
    if (nl == std::string::npos) nl = stream.size();
    const uint64_t n = out.size() + 1;
    json rec = ctxkit::text::ParseJsonOrDiscarded(
        std::string_view(stream).substr(at, nl - at));
    Result<RenderFigures> f = Status::Internal("record not read");
    try {
      f = FiguresOf(rec, n);
    } catch (const json::exception& e) {
      return BadRecord(n, e.what());
    }
    if (!f.ok()) return f.status();
    out.push_back(std::move(*f));
    at = nl + 1;
  }
  if (out.size() != count) {
    return BadRecord(count, "the record stream holds " +
                                std::to_string(out.size()) + " records");
  }
  return out;
}

namespace {

// What record `rec` says its render reported besides the request: the
// figures, what it dropped, its conflicts, what budget pressure did.
// Records of earlier builds carry no conflicts, collapses or compaction.
// Throws json::exception for a field of the wrong type.
void ReadReport(const json& rec, RenderResult* r) {
  r->tokens = ctxkit::text::UintOr(rec, "tokens", 0);
  r->budget_tokens = ctxkit::text::UintOr(rec, "budget", 0);
  r->breakdown = BreakdownOf(rec.value("breakdown", json()));
  r->index_listed = ctxkit::text::UintOr(rec, "index_listed", 0);
  r->index_total = ctxkit::text::UintOr(rec, "index_total", 0);
  r->compacted_messages = ctxkit::text::UintOr(rec, "first", 0);
  for (const json& d : rec.value("dropped", json::array())) {
    r->dropped.push_back({d.at(0).get<std::string>(), d.at(1).get<uint64_t>(),
                          d.at(2).get<uint64_t>(), d.at(3).get<std::string>()});
  }
  for (const json& c : rec.value("conflicts", json::array())) {
    r->conflicts.push_back({c.at(0).get<std::string>(), c.at(1).get<uint64_t>(),
                            c.at(2).get<uint64_t>()});
  }
  for (const json& key : rec.value("collapsed", json::array())) {
    r->collapsed.push_back(key.get<std::string>());
  }
  const json made = rec.value("compacted", json());
  if (!made.is_null()) {
    r->compacted = {made.at(0).get<std::string>(), made.at(1).get<uint64_t>(),
                    made.at(2).get<uint64_t>(), made.at(3).get<uint64_t>()};
  }
  const json prefix = rec.value("prefix", json());
  if (prefix.is_number_unsigned()) r->prefix_bytes = prefix.get<uint64_t>();
}

}  // namespace

Result<RenderResult> ReplayRender(SessionImpl& s, uint64_t n) {
  CTXKIT_ASSIGN_OR_RETURN(json rec, LoadRecord(s, n));
  RenderResult r;
  Result<Layout> layout = Status::Internal("record not read");
  std::string format;
  try {
    layout = RebuildLayout(s, rec, n);
    ReadReport(rec, &r);
    format = ctxkit::text::StringOr(rec, "format", "");
  } catch (const json::exception& e) {
    return BadRecord(n, e.what());
  }
  if (!layout.ok()) return layout.status();
  CTXKIT_ASSIGN_OR_RETURN(r.format, ParseLogFormat(format));
  uint64_t emitted = 0;
  std::string request = BuildRequest(
      *layout, r.format, [&](std::string_view t) { return s.Tokens(t); },
      &emitted);
  if (emitted != r.tokens) {
    return BadRecord(n, "replay emitted " + std::to_string(emitted) +
                            " tokens, recorded " + std::to_string(r.tokens));
  }
  r.request_json = std::move(request);
  r.record = n;
  r.bytes = r.request_json.size();
  s.last_request() = {n, r.request_json};
  return r;
}

Result<RenderDiff> DiffRenders(SessionImpl& s, uint64_t from, uint64_t to) {
  CTXKIT_ASSIGN_OR_RETURN(json a, LoadRecord(s, from));
  CTXKIT_ASSIGN_OR_RETURN(json b, LoadRecord(s, to));
  RenderDiff d;
  d.from = from;
  d.to = to;
  try {
    CTXKIT_ASSIGN_OR_RETURN(auto chat_a, RecordChat(s.view(), a));
    CTXKIT_ASSIGN_OR_RETURN(auto chat_b, RecordChat(s.view(), b));
    const ShownSets sa = ShownOf(a, chat_a), sb = ShownOf(b, chat_b);
    for (const std::string& k : sb.shown) {
      if (sa.shown.count(k) == 0) d.entered.push_back(k);
    }
    for (const std::string& k : sa.shown) {
      if (sb.shown.count(k) != 0) continue;
      (sb.hidden_in_chat.count(k) != 0 ? d.collapsed : d.left).push_back(k);
    }
    std::set<std::string> before;
    for (const json& c : a.at("compactions"))
      before.insert(c.get<std::string>());
    for (const json& c : b.at("compactions")) {
      const std::string ref = c.get<std::string>();
      if (before.count(ref) != 0) continue;
      CTXKIT_ASSIGN_OR_RETURN(std::string text, ReadRef(s.view(), ref));
      json content = ctxkit::text::ParseJsonOrDiscarded(text);
      if (!content.is_object()) return BadRecord(to, "a bad compaction");
      d.compacted.push_back({ref, ctxkit::text::UintOr(content, "first", 0),
                             ctxkit::text::UintOr(content, "end", 0),
                             ctxkit::text::UintOr(content, "turns", 0)});
    }
  } catch (const json::exception& e) {
    return BadRecord(to, e.what());
  }
  d.from_tokens = ctxkit::text::UintOr(a, "tokens", 0);
  d.to_tokens = ctxkit::text::UintOr(b, "tokens", 0);
  d.from_breakdown = BreakdownOf(a.value("breakdown", json()));
  d.to_breakdown = BreakdownOf(b.value("breakdown", json()));
  return d;
}

}  // namespace ctxkit::session
