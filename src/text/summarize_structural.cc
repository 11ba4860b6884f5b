// Dispatch to the structural summarizers, plus streams and binary data.

#include "text/summarize_structural.h"

#include <algorithm>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "core/format.h"
#include "text/summarize_budget.h"

namespace ctxkit::text {

namespace {

std::string_view Magic(std::string_view b) {
  static constexpr std::pair<std::string_view, std::string_view> kMagic[] = {
      {"\x89PNG", "PNG image"},
      {"\xFF\xD8\xFF", "JPEG image"},
      {"GIF8", "GIF image"},
      {"%PDF", "PDF document"},
      {"PK\x03\x04", "ZIP archive"},
      {"\x1F\x8B", "gzip data"},
      {"\x7F"
       "ELF",
       "ELF executable"},
      {"SQLite format 3", "SQLite database"},
      {"\x28\xB5\x2F\xFD", "zstd data"},
      {"BZh", "bzip2 data"},
      {"\xFD"
       "7zXZ",
       "xz data"},
  };
  for (auto [magic, name] : kMagic) {
    if (b.starts_with(magic)) return name;
  }
  return "";
}

}  // namespace

std::string SummarizeBinary(const Tokenizer& tok, const StructuralInput& in,
                            size_t max_tokens) {
  std::string header = "binary: " + core::HumanBytes(in.total_bytes);
  std::string_view magic = Magic(in.head);
  if (!magic.empty()) header += ", " + std::string(magic);
  SummaryBlock hex{"first bytes (hex):", {}, 1, false};
  std::string_view b = in.head.substr(0, 64);
  for (size_t row = 0; row < b.size(); row += 16) {
    std::string line;
    char buf[4];
    for (size_t i = row; i < std::min(b.size(), row + 16); ++i) {
      std::snprintf(buf, sizeof buf, "%02x", static_cast<unsigned char>(b[i]));
      if (i > row) line += ' ';
      line += buf;
    }
    hex.lines.push_back(std::move(line));
  }
  return RenderWithinBudget(tok, header, {hex}, max_tokens);
}

std::string SummarizeStream(const Tokenizer& tok, const StructuralInput& in,
                            size_t max_tokens) {
  const uint64_t chunks = std::max<uint64_t>(in.chunk_count, in.chunks.size());
  TextCounts counts = EffectiveCounts(tok, in);
  std::string header = "stream: " + core::GroupedNumber(chunks) +
                       (chunks == 1 ? " chunk, " : " chunks, ") +
                       CountsPhrase(counts);
  auto line_of = [](const StreamChunk& c) {
    std::string preview = c.preview;
    for (char& ch : preview) {
      if (ch == '\n' || ch == '\r' || ch == '\t') ch = ' ';
    }
    return "#" + std::to_string(c.index) + " @" + std::to_string(c.offset) +
           " +" + core::HumanBytes(c.length) + ": " + ClipLine(preview, 100);
  };
  // The first and the last chunks; the middle ones go first when short.
  size_t half = (in.chunks.size() + 1) / 2;
  SummaryBlock first{"chunks (index @offset +length: start):", {}, 2, false};
  SummaryBlock last{"", {}, 2, true};
  for (size_t i = 0; i < in.chunks.size(); ++i) {
    (i < half ? first : last).lines.push_back(line_of(in.chunks[i]));
  }
  if (chunks > in.chunks.size()) {
    last.heading = "... " + core::GroupedNumber(chunks - in.chunks.size()) +
                   " chunks not listed; the last ones:";
  }
  // The latest lines, as for text.
  SummaryBlock latest{"latest lines:", {}, 1, true};
  std::string_view src = in.sampled ? in.tail : in.head;
  std::vector<std::string_view> lines = SplitLines(src);
  if (in.sampled && !lines.empty()) lines.erase(lines.begin());
  size_t from = lines.size() > 10 ? lines.size() - 10 : 0;
  for (size_t i = from; i < lines.size(); ++i) {
    if (lines[i].empty()) continue;
    latest.lines.push_back(ClipLine(lines[i], 160));
  }
  return RenderWithinBudget(tok, header, {first, last, latest}, max_tokens);
}

StructuralSummary SummarizeStructural(const Tokenizer& tok,
                                      const StructuralInput& in,
                                      size_t max_tokens) {
  StructuralSummary s;
  if (in.total_bytes == 0 && in.head.empty()) {
    s.kind = "empty";
    s.text = FitToTokens(tok, "empty (0 bytes)", max_tokens);
    return s;
  }
  if (!LooksLikeText(in.head)) {
    s.kind = "binary";
    s.text = SummarizeBinary(tok, in, max_tokens);
    return s;
  }
  if (in.type == ValueType::kStream) {
    s.kind = "stream";
    s.text = SummarizeStream(tok, in, max_tokens);
    return s;
  }
  if (SummarizeJson(tok, in, max_tokens, &s.text)) {
    s.kind = "json";
    return s;
  }
  if (SummarizeCode(tok, in, max_tokens, &s.text)) {
    s.kind = "code";
    return s;
  }
  s.kind = "text";
  s.text = SummarizeText(tok, in, max_tokens);
  return s;
}

}  // namespace ctxkit::text
