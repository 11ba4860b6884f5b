#include "index/query_terms.h"

#include <algorithm>
#include <array>
#include <string>

namespace ctxkit::index {

namespace {

// Words so frequent that ORing them in would make nearly every chunk a
// candidate (slow) while adding almost nothing to BM25.
constexpr std::array<std::string_view, 48> kStopWords = {
    "a",    "an",  "and",  "are",  "as",    "at",    "be",    "by",
    "can",  "did", "do",   "does", "for",   "from",  "had",   "has",
    "have", "how", "i",    "in",   "is",    "it",    "its",   "of",
    "on",   "or",  "that", "the",  "their", "there", "these", "this",
    "to",   "was", "we",   "were", "what",  "when",  "where", "which",
    "who",  "why", "will", "with", "you",   "your",  "about", "into"};

bool IsWordByte(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
         (c >= 'A' && c <= 'Z') || c >= 0x80;
}

}  // namespace

std::vector<std::string> QueryTerms(std::string_view query) {
  std::vector<std::string> all;
  size_t i = 0;
  while (i < query.size()) {
    while (i < query.size() && !IsWordByte(query[i])) ++i;
    size_t start = i;
    while (i < query.size() && IsWordByte(query[i])) ++i;
    if (i == start) continue;
    std::string w(query.substr(start, i - start));
    for (char& c : w) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    if (std::find(all.begin(), all.end(), w) == all.end()) {
      all.push_back(std::move(w));
    }
  }
  std::vector<std::string> kept;
  for (const std::string& w : all) {
    if (std::find(kStopWords.begin(), kStopWords.end(), w) ==
        kStopWords.end()) {
      kept.push_back(w);
    }
  }
  return kept.empty() ? all : kept;
}

std::string MatchExpression(const std::vector<std::string>& terms) {
  std::string out;
  for (const std::string& t : terms) {
    if (!out.empty()) out += " OR ";
    out += '"';
    for (char c : t) {
      if (c == '"') out += '"';  // FTS5 escapes a quote by doubling it.
      out += c;
    }
    out += '"';
  }
  return out;
}

}  // namespace ctxkit::index
