// Reading by handle without loading whole values: View.peek/search/len/
// chunk, and the tokenizer as module functions (count_tokens, encode,
// decode).
#include <vector>

#include "binding.h"
#include "ctxkit/chunk.h"
#include "ctxkit/explore.h"
#include "ctxkit/tokenizer.h"

namespace ctxkit::python {
namespace {

void BindResults(py::module_& m) {
  py::class_<PeekResult>(m, "PeekResult", "A window of a value (View.peek).")
      .def_readonly("ref", &PeekResult::ref)
      .def_property_readonly(
          "unit",
          [](const PeekResult& r) { return std::string(PeekUnitName(r.unit)); },
          "The unit used: 'lines', 'bytes', 'items' or 'chunks'.")
      .def_property_readonly("text",
                             [](const PeekResult& r) { return Text(r.text); })
      .def_property_readonly(
          "parts", [](const PeekResult& r) { return TextList(r.parts); })
      .def_readonly("start", &PeekResult::start)
      .def_readonly("end", &PeekResult::end)
      .def_readonly("total", &PeekResult::total,
                    "Units in the value, when counted.")
      .def_readonly("total_bytes", &PeekResult::total_bytes)
      .def_readonly("byte_begin", &PeekResult::byte_begin)
      .def_readonly("byte_end", &PeekResult::byte_end)
      .def_readonly("truncated", &PeekResult::truncated)
      .def_readonly("bytes_read", &PeekResult::bytes_read);
  py::class_<SearchMatch>(m, "SearchMatch", "One match of View.search.")
      .def_readonly("key", &SearchMatch::key)
      .def_readonly("ref", &SearchMatch::ref)
      .def_readonly("line", &SearchMatch::line, "1-based.")
      .def_readonly("byte_offset", &SearchMatch::byte_offset)
      .def_readonly("match_length", &SearchMatch::match_length)
      .def_property_readonly(
          "preview", [](const SearchMatch& s) { return Text(s.preview); })
      .def_readonly("preview_truncated", &SearchMatch::preview_truncated)
      .def_property_readonly("before",
                             [](const SearchMatch& s) {
                               std::vector<std::string> lines;
                               for (const SearchLine& l : s.before)
                                 lines.push_back(l.text);
                               return lines;
                             })
      .def_property_readonly("after", [](const SearchMatch& s) {
        std::vector<std::string> lines;
        for (const SearchLine& l : s.after) lines.push_back(l.text);
        return lines;
      });
  py::class_<SearchResult>(m, "SearchResult",
                           "Matches of View.search, in order.")
      .def_readonly("matches", &SearchResult::matches)
      .def_readonly("truncated", &SearchResult::truncated)
      .def_readonly("variables_searched", &SearchResult::variables_searched)
      .def_readonly("bytes_read", &SearchResult::bytes_read)
      .def_readonly("skipped", &SearchResult::skipped);
  py::class_<LenResult>(m, "LenResult", "Sizes of a value (View.len).")
      .def_readonly("ref", &LenResult::ref)
      .def_property_readonly(
          "type",
          [](const LenResult& r) { return std::string(ValueTypeName(r.type)); })
      .def_readonly("bytes", &LenResult::bytes)
      .def_readonly("lines", &LenResult::lines)
      .def_readonly("items", &LenResult::items)
      .def_readonly("chunks", &LenResult::chunks)
      .def_readonly("bytes_read", &LenResult::bytes_read);
  py::class_<ChunkRange>(m, "ChunkRange", "One chunk of View.chunk.")
      .def_readonly("index", &ChunkRange::index)
      .def_readonly("byte_begin", &ChunkRange::byte_begin)
      .def_readonly("byte_end", &ChunkRange::byte_end)
      .def_readonly("line_begin", &ChunkRange::line_begin)
      .def_readonly("line_end", &ChunkRange::line_end)
      .def_readonly("tokens", &ChunkRange::tokens)
      .def_readonly("valid_utf8", &ChunkRange::valid_utf8);
  py::class_<ChunkList>(m, "ChunkList",
                        "A value cut into token-bounded chunks.")
      .def_readonly("ref", &ChunkList::ref)
      .def_readonly("total_bytes", &ChunkList::total_bytes)
      .def_readonly("total_tokens", &ChunkList::total_tokens)
      .def_readonly("chunks", &ChunkList::chunks);
}

void BindViewCalls(py::class_<View>& view) {
  view.def(
          "peek",
          [](View& v, const KeyOrRef& target, int64_t start,
             std::optional<int64_t> end, const std::string& unit,
             uint64_t max_bytes, bool count_total, uint64_t version,
             const std::string& scope) {
            PeekOptions options;
            options.start = start;
            options.end = end.value_or(kPeekToEnd);
            options.unit = Unwrap(ParsePeekUnit(unit));
            options.max_bytes = max_bytes;
            options.count_total = count_total;
            Target t = TargetOf(target, Lookup(version, scope));
            return Call([&] { return Peek(v, t, options); });
          },
          py::arg("target"), py::arg("start") = 0, py::arg("end") = 10,
          py::kw_only(), py::arg("unit") = "auto",
          py::arg("max_bytes") = PeekOptions{}.max_bytes,
          py::arg("count_total") = false, py::arg("version") = 0,
          py::arg("scope") = "",
          "Units [start, end) of a value (end=None: to the end; negative: from "
          "the\n"
          "end); reads only the bytes it returns. unit: auto, lines, bytes, "
          "items, chunks.")
      .def(
          "search",
          [](View& v, const std::string& pattern, bool regex,
             bool case_insensitive, size_t max_results, uint32_t context_lines,
             size_t preview_bytes, std::vector<std::string> keys,
             std::vector<Ref> refs, const std::string& scope,
             const std::optional<std::string>& type,
             const std::string& prefix) {
            SearchOptions options;
            options.regex = regex;
            options.case_insensitive = case_insensitive;
            options.max_results = max_results;
            options.context_lines = context_lines;
            options.preview_bytes = preview_bytes;
            options.keys = std::move(keys);
            options.refs = std::move(refs);
            options.scope = scope;
            options.type = ParseOptionalType(type);
            options.key_prefix = prefix;
            return Call([&] { return Search(v, pattern, options); });
          },
          py::arg("pattern"), py::kw_only(), py::arg("regex") = false,
          py::arg("case_insensitive") = false, py::arg("max_results") = 10,
          py::arg("context_lines") = 0, py::arg("preview_bytes") = 200,
          py::arg("keys") = std::vector<std::string>{},
          py::arg("refs") = std::vector<Ref>{}, py::arg("scope") = "",
          py::arg("type") = py::none(), py::arg("key_prefix") = "",
          "Literal (or RE2 regex) matches in the named values, or in every "
          "value\n"
          "the view sees (filtered by scope/type/key_prefix), streamed, not "
          "loaded.")
      .def(
          "len",
          [](View& v, const KeyOrRef& target, bool count, uint64_t version,
             const std::string& scope) {
            LenOptions options;
            options.count = count;
            Target t = TargetOf(target, Lookup(version, scope));
            Ref pinned = Call([&] { return v.Pin(t); });
            return Call([&] { return Len(v, pinned, options); });
          },
          py::arg("target"), py::kw_only(), py::arg("count") = false,
          py::arg("version") = 0, py::arg("scope") = "",
          "Size in bytes from metadata; count=True also counts "
          "lines/items/chunks.")
      .def(
          "chunk",
          [](View& v, const KeyOrRef& target, uint32_t max_tokens,
             uint64_t version, const std::string& scope) {
            ChunkOptions options;
            options.lookup = Lookup(version, scope);
            std::string text = KeyOrRefText(v, target, scope);
            return Call([&] { return Chunk(v, text, max_tokens, options); });
          },
          py::arg("target"), py::arg("max_tokens") = 256, py::kw_only(),
          py::arg("version") = 0, py::arg("scope") = "",
          "Cuts a value into chunks of at most max_tokens exact o200k tokens.");
}

const Tokenizer& TokenizerFor(const std::string& encoding) {
  return *Unwrap(Tokenizer::Get(std::string_view(encoding)));
}

void BindTokenizer(py::module_& m) {
  m.def(
      "count_tokens",
      [](const py::object& text_arg, const std::string& encoding) {
        const Tokenizer& tokenizer = TokenizerFor(encoding);
        BytesArg text(text_arg);
        return WithoutGil([&] { return tokenizer.Count(text.view()); });
      },
      py::arg("text"), py::kw_only(), py::arg("encoding") = "o200k_base",
      "Exact token count of text (str or bytes): o200k_base or cl100k_base.");
  m.def(
      "encode",
      [](const py::object& text_arg, const std::string& encoding) {
        const Tokenizer& tokenizer = TokenizerFor(encoding);
        BytesArg text(text_arg);
        return WithoutGil([&] { return tokenizer.Encode(text.view()); });
      },
      py::arg("text"), py::kw_only(), py::arg("encoding") = "o200k_base",
      "Token ids of text, as tiktoken gives them.");
  m.def(
      "decode",
      [](const std::vector<uint32_t>& tokens, const std::string& encoding) {
        const Tokenizer& tokenizer = TokenizerFor(encoding);
        std::string text = Unwrap(tokenizer.Decode(tokens));
        return py::bytes(text.data(), text.size());
      },
      py::arg("tokens"), py::kw_only(), py::arg("encoding") = "o200k_base",
      "The bytes token ids stand for (may end inside a UTF-8 sequence).");
}

}  // namespace

void BindExplore(py::module_& m, py::class_<View>& view) {
  BindResults(m);
  BindViewCalls(view);
  BindTokenizer(m);
}

}  // namespace ctxkit::python
