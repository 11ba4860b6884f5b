#include "explore/json_forms.h"

#include <optional>
#include <string>
#include <vector>

namespace ctxkit::explore {

using nlohmann::json;

namespace {

json CountJson(const std::optional<uint64_t>& v) {
  return v ? json(*v) : json(nullptr);
}

json LinesJson(const std::vector<SearchLine>& lines) {
  json out = json::array();
  for (const SearchLine& l : lines) {
    out.push_back({{"line", l.line}, {"text", l.text}});
  }
  return out;
}

}  // namespace

json PeekToJson(const PeekResult& p) {
  return json{{"ref", FormatRef(p.ref)},
              {"key", p.ref.key},
              {"unit", std::string(PeekUnitName(p.unit))},
              {"start", p.start},
              {"end", p.end},
              {"total", CountJson(p.total)},
              {"total_bytes", p.total_bytes},
              {"byte_offset", p.byte_begin},
              {"byte_end", p.byte_end},
              {"cut_at_max_bytes", p.truncated},
              {"chunk_bytes", p.unit == PeekUnit::kChunks ? json(p.chunk_bytes)
                                                          : json(nullptr)},
              {"bytes_read", p.bytes_read}};
}

json SearchMatchToJson(const SearchMatch& m) {
  return json{{"ref", FormatRef(m.ref)},
              {"key", m.key},
              {"line", m.line},
              {"byte_offset", m.byte_offset},
              {"line_offset", m.line_offset},
              {"length", m.match_length},
              {"preview", m.preview},
              {"preview_truncated", m.preview_truncated},
              {"before", LinesJson(m.before)},
              {"after", LinesJson(m.after)}};
}

json SearchResultToJson(const SearchResult& r) {
  json matches = json::array();
  for (const SearchMatch& m : r.matches) {
    matches.push_back(SearchMatchToJson(m));
  }
  return json{{"matches", std::move(matches)},
              {"max_results_reached", r.truncated},
              {"variables_searched", r.variables_searched},
              {"bytes_read", r.bytes_read},
              {"skipped", r.skipped}};
}

json LenToJson(const LenResult& r) {
  return json{{"ref", FormatRef(r.ref)},
              {"key", r.ref.key},
              {"type", std::string(ValueTypeName(r.type))},
              {"size_bytes", r.bytes},
              {"lines", CountJson(r.lines)},
              {"items", CountJson(r.items)},
              {"chunks", CountJson(r.chunks)},
              {"bytes_read", r.bytes_read}};
}

}  // namespace ctxkit::explore
