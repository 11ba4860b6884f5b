// Entry descriptions (object_info.h).

#include "session/object_info.h"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status_macros.h"
#include "ctxkit/summary.h"
#include "ctxkit/tokenizer.h"
#include "ctxkit/toolcall.h"
#include "text/json_parse.h"
#include "text/utf8.h"

namespace ctxkit::session {
namespace {

constexpr size_t kTitleBytes = 120;
// Values up to this size are read whole to describe them; larger ones are
// counted by streaming and titled from their head.
constexpr uint64_t kReadWholeBytes = 1 << 20;
constexpr uint64_t kHeadBytes = 4096;

// `bytes` with each ill-formed UTF-8 sequence replaced by U+FFFD: a title
// is JSON text (the pool entry's row, the index line).
std::string Repaired(std::string_view bytes) {
  std::string out;
  text::AppendRepairedUtf8(bytes, /*final=*/true, &out);
  return out;
}

// `text` on one line, whitespace runs as one space, cut to kTitleBytes on
// a character boundary ("..." appended).
std::string CutLine(std::string_view text) {
  std::string out;
  bool space = false;
  for (char c : text) {
    const bool ws = c == ' ' || c == '\t' || c == '\r' || c == '\n';
    if (ws) {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
    if (out.size() > kTitleBytes) break;
  }
  if (out.size() <= kTitleBytes) return Repaired(out);
  size_t end = kTitleBytes;
  while (end > 0 && (static_cast<unsigned char>(out[end]) & 0xC0) == 0x80) {
    --end;
  }
  return Repaired(std::string_view(out).substr(0, end)) + "...";
}

}  // namespace

std::string OneLineSummary(std::string_view content) {
  size_t first = content.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return "(empty)";
  if ((content[first] == '{' || content[first] == '[') &&
      content.size() <= kReadWholeBytes) {
    nlohmann::json j = ctxkit::text::ParseJsonOrDiscarded(content);
    if (j.is_array()) {
      return "JSON array of " + std::to_string(j.size()) + " items";
    }
    if (j.is_object()) {
      std::string keys;
      size_t shown = 0;
      for (auto it = j.begin(); it != j.end() && shown < 6; ++it, ++shown) {
        if (!keys.empty()) keys += ", ";
        keys += it.key();
      }
      if (j.size() > shown) keys += ", +" + std::to_string(j.size() - shown);
      return CutLine("JSON object: " + keys);
    }
  }
  size_t line_end = content.find('\n', first);
  std::string line = CutLine(content.substr(
      first, line_end == std::string_view::npos ? content.size() - first
                                                : line_end - first));
  size_t lines =
      static_cast<size_t>(std::count(content.begin(), content.end(), '\n'));
  if (!content.empty() && content.back() != '\n') ++lines;
  if (lines > 1) line += " (" + std::to_string(lines) + " lines)";
  return line;
}

uint64_t CountTokens(std::string_view text) {
  static const Tokenizer* tok = *Tokenizer::Get(kDefaultEncoding);
  return tok->Count(text);
}

bool ViewSeesScope(const View& view, std::string_view scope) {
  return ResolveScopeName(std::string(scope), view.agent_id(),
                          view.session_id())
      .ok();
}

Result<Ref> VersionRef(View& view, const Ref& object, uint64_t version) {
  const std::string scope = object.scope.ToString();
  if (ViewSeesScope(view, scope)) {
    return view.RefOf(object.key, {.scope = scope, .version = version});
  }
  if (version == object.version) return object;
  CTXKIT_ASSIGN_OR_RETURN(std::vector<VersionMeta> history,
                          view.Versions(object));
  for (const VersionMeta& v : history) {
    if (v.version == version && v.state == VersionState::kPresent) {
      return StaticRefOf(object, v);
    }
  }
  return Status::NotFound("no version " + std::to_string(version) + " of " +
                          FormatRef(object));
}

Status DescribeObject(View& view, const ObjectMeta& meta, uint64_t version,
                      PoolEntry* e) {
  const ScopeName scope = meta.scope.ToString();
  const uint64_t v = version == 0 ? meta.version : version;
  CTXKIT_ASSIGN_OR_RETURN(Ref ref, VersionRef(view, StaticRefOf(meta), v));
  e->id = meta.id;
  e->key = meta.key;
  e->scope = scope;
  e->version = v;
  e->size_bytes = ref.size_bytes;
  e->ref = FormatRef(ref);
  const bool toolcall = std::find(meta.tags.begin(), meta.tags.end(),
                                  "kind:toolcall") != meta.tags.end();
  if (toolcall) {
    e->kind = "toolcall";
  } else if (meta.key.starts_with("file:") || meta.type == ValueType::kFile) {
    e->kind = "file";
  } else {
    e->kind = std::string(ValueTypeName(meta.type));
  }
  std::string head;
  if (ref.size_bytes <= kReadWholeBytes) {
    CTXKIT_ASSIGN_OR_RETURN(head, view.Resolve(ref));
    e->tokens = CountTokens(head);
  } else {
    CTXKIT_ASSIGN_OR_RETURN(e->tokens, CountValueTokens(view, FormatRef(ref)));
    CTXKIT_ASSIGN_OR_RETURN(head, view.ReadRange(ref, 0, kHeadBytes));
  }
  std::string title = OneLineSummary(head);
  if (toolcall && meta.key.starts_with("toolcall:")) {
    Result<ToolCall> call =
        LoadToolCall(view, std::string_view(meta.key).substr(9));
    if (call.ok()) title = call->tool + " " + call->status + ": " + title;
  }
  e->title = std::move(title);
  return Status::Ok();
}

}  // namespace ctxkit::session
