#include "index/query_terms.h"

#include <algorithm>
#include <array>
#include <string>

#include "index/thesaurus.h"

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

bool IsStopWord(std::string_view w) {
  return std::find(kStopWords.begin(), kStopWords.end(), w) != kStopWords.end();
}

bool IsWordByte(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
         (c >= 'A' && c <= 'Z') || c >= 0x80;
}

}  // namespace

std::vector<std::string> QueryWords(std::string_view query) {
  std::vector<std::string> words;
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
    words.push_back(std::move(w));
  }
  return words;
}

std::vector<std::string> QueryTerms(std::string_view query) {
  std::vector<std::string> all;
  for (std::string& w : QueryWords(query)) {
    if (std::find(all.begin(), all.end(), w) == all.end()) {
      all.push_back(std::move(w));
    }
  }
  std::vector<std::string> kept;
  for (const std::string& w : all) {
    if (!IsStopWord(w)) kept.push_back(w);
  }
  return kept.empty() ? all : kept;
}

std::vector<WeightedTerm> WidenedTerms(std::string_view query,
                                       const Thesaurus* thesaurus) {
  std::vector<WeightedTerm> out;
  const std::vector<std::string> terms = QueryTerms(query);
  for (size_t i = 0; i < terms.size(); ++i) {
    out.push_back({terms[i], static_cast<int>(i), 1.0});
  }
  if (thesaurus == nullptr) return out;
  size_t stand_ins = 0;
  // A stand-in that is a stop word or one of the query's own words (which
  // counts in its own group) is left out.
  auto widen = [&](const std::string& text, int group) {
    for (Thesaurus::RelatedWord& r :
         thesaurus->Related(text, kRelatedPerTerm)) {
      if (stand_ins == kMaxStandIns) return;
      if (IsStopWord(r.word) ||
          std::find(terms.begin(), terms.end(), r.word) != terms.end()) {
        continue;
      }
      out.push_back({std::move(r.word), group,
                     kRelationWeights[static_cast<size_t>(r.relation)]});
      ++stand_ins;
    }
  };
  for (size_t i = 0; i < terms.size(); ++i) {
    if (!IsStopWord(terms[i])) widen(terms[i], static_cast<int>(i));
  }
  const std::vector<std::string> words = QueryWords(query);
  int group = static_cast<int>(terms.size());
  std::vector<std::string> runs;
  for (size_t i = 0; i < words.size(); ++i) {
    if (IsStopWord(words[i])) continue;
    std::string run = words[i];
    for (size_t n = 2; n <= 3 && i + n <= words.size(); ++n) {
      run += ' ' + words[i + n - 1];
      if (IsStopWord(words[i + n - 1]) ||
          std::find(runs.begin(), runs.end(), run) != runs.end() ||
          !thesaurus->Knows(run)) {
        continue;
      }
      runs.push_back(run);
      out.push_back({run, group, 1.0});
      widen(run, group);
      ++group;
    }
  }
  return out;
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
