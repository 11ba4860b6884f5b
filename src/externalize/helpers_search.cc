// search(var, pattern, regex, max_results) on variables (SPEC-25.03).
//
// Elements held by ref (files, tool outputs, working memory) and string
// variables go through ctxkit::Search (one match per matching line, read
// by range). Items inside one JSON value (the conversation's messages, a
// custom array or object) are paged through Peek and matched item by item
// (one match per matching item, its first), as the spec's search does.

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "core/status_macros.h"
#include "ctxkit/explore.h"
#include "ctxkit/externalize.h"
#include "explore/regex_matcher.h"
#include "externalize/internal.h"

namespace ctxkit {

namespace {

constexpr int64_t kPageItems = 512;
constexpr uint64_t kPageBytes = 16ull << 20;

bool IsContinuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// The line holding [mb, me) of `text`, or a window of it of at most
// `max_bytes` around the match, cut on UTF-8 boundaries.
std::string Preview(std::string_view text, size_t mb, size_t me,
                    size_t max_bytes) {
  size_t ls = text.rfind('\n', mb == 0 ? 0 : mb - 1);
  ls = (ls == std::string_view::npos || mb == 0) ? 0 : ls + 1;
  if (mb > 0 && text[mb - 1] == '\n') ls = mb;
  size_t le = text.find('\n', me);
  if (le == std::string_view::npos) le = text.size();
  size_t s = ls;
  size_t e = le;
  if (e - s > max_bytes) {
    s = std::max(ls, mb > max_bytes / 4 ? mb - max_bytes / 4 : 0);
    e = std::min(le, s + max_bytes);
    while (s < e && IsContinuation(text[s])) ++s;
    while (e > s && e < text.size() && IsContinuation(text[e])) --e;
  }
  return std::string(text.substr(s, e - s));
}

Status CheckSearchOptions(std::string_view pattern,
                          const VariableSearchOptions& o) {
  if (pattern.empty()) return Status::InvalidArgument("empty search pattern");
  if (pattern.find('\n') != std::string_view::npos) {
    return Status::InvalidArgument(
        "search pattern must not contain a newline (matches are per line)");
  }
  if (o.max_results < 1 || o.max_results > 1000000) {
    return Status::InvalidArgument("max_results must be 1-1000000");
  }
  if (o.preview_bytes < 16 || o.preview_bytes > 65536) {
    return Status::InvalidArgument("preview_bytes must be 16-65536");
  }
  return Status::Ok();
}

}  // namespace

Result<VariableSearch> ExternalizedContext::Search(
    View& view, std::string_view name, std::string_view pattern,
    const VariableSearchOptions& options) const {
  CTXKIT_RETURN_IF_ERROR(CheckSearchOptions(pattern, options));
  CTXKIT_ASSIGN_OR_RETURN(const ContextVariable* v, Find(name));
  VariableSearch out;
  out.variable = v->name;

  const bool in_value = v->members.empty() &&
                        v->shape != VariableShape::kString &&
                        (v->type == VariableType::kConversation ||
                         v->type == VariableType::kCustom);
  if (!in_value) {
    if (v->members.empty() && v->shape != VariableShape::kString) {
      return out;  // An empty collection.
    }
    SearchOptions so;
    so.regex = options.regex;
    so.case_insensitive = options.case_insensitive;
    so.max_results = options.max_results;
    so.preview_bytes = options.preview_bytes;
    std::map<std::pair<std::string, uint64_t>, uint64_t> index;
    if (v->members.empty()) {
      so.refs.push_back(v->ref);
    } else {
      for (uint64_t i = 0; i < v->members.size(); ++i) {
        so.refs.push_back(v->members[i].ref);
        index.emplace(
            std::make_pair(v->members[i].ref.id, v->members[i].ref.version), i);
      }
    }
    CTXKIT_ASSIGN_OR_RETURN(SearchResult r, ctxkit::Search(view, pattern, so));
    out.truncated = r.truncated;
    for (SearchMatch& m : r.matches) {
      VariableMatch vm;
      auto it = index.find({m.ref.id, m.ref.version});
      if (it != index.end()) {
        vm.index = it->second;
        vm.key = v->members[it->second].name;
      }
      vm.ref = m.ref;
      vm.line = m.line;
      vm.byte_offset = m.byte_offset;
      vm.preview = std::move(m.preview);
      out.matches.push_back(std::move(vm));
    }
    return out;
  }

  CTXKIT_ASSIGN_OR_RETURN(
      std::unique_ptr<explore::Re2Matcher> matcher,
      explore::Re2Matcher::Create(pattern, !options.regex,
                                  options.case_insensitive));
  if (v->item_count.has_value() && *v->item_count == 0) return out;
  int64_t next = 0;
  while (true) {
    PeekOptions po;
    po.unit = PeekUnit::kItems;
    po.start = next;
    po.end = next + kPageItems;
    po.max_bytes = kPageBytes;
    CTXKIT_ASSIGN_OR_RETURN(PeekResult page, ctxkit::Peek(view, v->ref, po));
    for (size_t i = 0; i < page.parts.size(); ++i) {
      const std::string& item = page.parts[i];
      size_t b = 0;
      size_t e = 0;
      if (!matcher->Find(item, 0, &b, &e)) continue;
      if (out.matches.size() == options.max_results) {
        out.truncated = true;
        return out;
      }
      VariableMatch vm;
      vm.index = page.start + i;
      vm.ref = page.ref;
      vm.line = 1 + static_cast<uint64_t>(
                        std::count(item.begin(), item.begin() + b, '\n'));
      vm.byte_offset = b;
      vm.preview = Preview(item, b, e, options.preview_bytes);
      if (v->shape == VariableShape::kDict && item.starts_with("\"")) {
        const size_t colon = item.find("\":");
        if (colon != std::string::npos) vm.key = item.substr(1, colon - 1);
      }
      out.matches.push_back(std::move(vm));
    }
    if (page.end <= page.start ||
        (page.total.has_value() && page.end >= *page.total)) {
      break;
    }
    next = static_cast<int64_t>(page.end);
  }
  return out;
}

}  // namespace ctxkit
