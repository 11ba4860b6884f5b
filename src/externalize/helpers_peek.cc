// peek(var, start, end) and len(var) on variables (SPEC-25.03).

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>

#include "core/status_macros.h"
#include "ctxkit/explore.h"
#include "ctxkit/externalize.h"
#include "externalize/internal.h"
#include "text/json_parse.h"

namespace ctxkit {

namespace {

// Python slice bounds on a sequence of n items.
std::pair<uint64_t, uint64_t> Clamp(int64_t start, int64_t end, uint64_t n) {
  auto fix = [n](int64_t i) -> uint64_t {
    if (i < 0) {
      const uint64_t back = static_cast<uint64_t>(-(i + 1)) + 1;
      return back >= n ? 0 : n - back;
    }
    return std::min<uint64_t>(static_cast<uint64_t>(i), n);
  };
  const uint64_t s = fix(start);
  const uint64_t e = fix(end);
  return {s, std::max(s, e)};
}

// Splits an object member `"key": value` as explore returns it.
Status SplitMember(const std::string& part, std::string* key,
                   std::string* value) {
  // The key is the leading JSON string: find its closing quote.
  size_t i = 1;
  bool escaped = false;
  for (; i < part.size(); ++i) {
    if (escaped) {
      escaped = false;
    } else if (part[i] == '\\') {
      escaped = true;
    } else if (part[i] == '"') {
      break;
    }
  }
  if (part.empty() || part[0] != '"' || i >= part.size()) {
    return Status::Corruption("malformed JSON object member");
  }
  nlohmann::json k = ctxkit::text::ParseJsonOrDiscarded(part.substr(0, i + 1));
  if (!k.is_string()) return Status::Corruption("malformed JSON object key");
  *key = k.get<std::string>();
  size_t colon = part.find(':', i + 1);
  if (colon == std::string::npos) {
    return Status::Corruption("malformed JSON object member");
  }
  size_t v = part.find_first_not_of(" \t\r\n", colon + 1);
  *value = v == std::string::npos ? "" : part.substr(v);
  return Status::Ok();
}

Status CheckPeekOptions(const VariablePeekOptions& o) {
  if (o.max_bytes == 0 || o.max_bytes > (1ull << 30)) {
    return Status::InvalidArgument("peek max_bytes must be 1 B - 1 GiB");
  }
  if (o.unit != PeekUnit::kAuto && o.unit != PeekUnit::kLines &&
      o.unit != PeekUnit::kBytes) {
    return Status::InvalidArgument(
        "peek unit for a variable must be auto, lines or bytes");
  }
  return Status::Ok();
}

}  // namespace

Result<VariablePeek> ExternalizedContext::Peek(
    View& view, std::string_view name,
    const VariablePeekOptions& options) const {
  CTXKIT_RETURN_IF_ERROR(CheckPeekOptions(options));
  CTXKIT_ASSIGN_OR_RETURN(const ContextVariable* v, Find(name));
  VariablePeek out;
  out.variable = v->name;
  out.shape = v->shape;

  if (!v->members.empty() || (v->shape != VariableShape::kString &&
                              v->type != VariableType::kConversation &&
                              v->type != VariableType::kCustom)) {
    // A collection held by ref: each item is one element's content, read
    // by range up to what is left of max_bytes.
    out.unit = PeekUnit::kItems;
    auto [s, e] = Clamp(options.start, options.end, v->members.size());
    out.start = s;
    out.end = e;
    out.total = v->members.size();
    uint64_t budget = options.max_bytes;
    for (uint64_t i = s; i < e; ++i) {
      const VariableMember& m = v->members[i];
      PeekedItem item;
      item.index = i;
      item.key = m.name;
      item.ref = m.ref;
      item.size_bytes = m.size_bytes;
      const uint64_t want = std::min(m.size_bytes, budget);
      if (want > 0) {
        CTXKIT_ASSIGN_OR_RETURN(item.text, view.ReadRange(m.ref, 0, want));
      }
      budget -= std::min<uint64_t>(budget, item.text.size());
      item.truncated = item.text.size() < m.size_bytes;
      out.truncated = out.truncated || item.truncated;
      out.items.push_back(std::move(item));
    }
    return out;
  }

  PeekOptions po;
  po.start = options.start;
  po.end = options.end;
  po.max_bytes = options.max_bytes;
  if (v->shape == VariableShape::kString) {
    po.unit =
        options.unit == PeekUnit::kBytes ? PeekUnit::kBytes : PeekUnit::kLines;
    CTXKIT_ASSIGN_OR_RETURN(PeekResult r, ctxkit::Peek(view, v->ref, po));
    out.unit = r.unit;
    out.start = r.start;
    out.end = r.end;
    out.total = r.total;
    out.text = std::move(r.text);
    out.truncated = r.truncated;
    return out;
  }
  // Items inside one JSON value (the conversation, a custom array/object).
  if (v->item_count.has_value() && *v->item_count == 0) {
    out.unit = PeekUnit::kItems;
    out.total = 0;
    return out;
  }
  po.unit = PeekUnit::kItems;
  CTXKIT_ASSIGN_OR_RETURN(PeekResult r, ctxkit::Peek(view, v->ref, po));
  out.unit = PeekUnit::kItems;
  out.start = r.start;
  out.end = r.end;
  out.total = r.total.has_value() ? r.total : v->item_count;
  out.truncated = r.truncated;
  for (size_t i = 0; i < r.parts.size(); ++i) {
    PeekedItem item;
    item.index = r.start + i;
    item.ref = r.ref;
    if (v->shape == VariableShape::kDict) {
      Status split = SplitMember(r.parts[i], &item.key, &item.text);
      // A member cut by max_bytes may not split; it is shown as it is.
      if (!split.ok() && !(r.truncated && i + 1 == r.parts.size())) {
        return split;
      }
      if (!split.ok()) item.text = r.parts[i];
    } else {
      item.text = std::move(r.parts[i]);
    }
    item.size_bytes = item.text.size();
    item.truncated = r.truncated && i + 1 == r.parts.size();
    out.items.push_back(std::move(item));
  }
  return out;
}

Result<VariableLen> ExternalizedContext::Len(std::string_view name) const {
  CTXKIT_ASSIGN_OR_RETURN(const ContextVariable* v, Find(name));
  VariableLen out;
  out.variable = v->name;
  out.shape = v->shape;
  out.items = v->item_count;
  out.bytes = v->size_bytes;
  out.tokens = v->tokens;
  return out;
}

}  // namespace ctxkit
