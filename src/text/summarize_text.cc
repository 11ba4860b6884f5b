// Plain text: counts, head, most informative lines, tail.

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/format.h"
#include "text/summarize_budget.h"
#include "text/summarize_structural.h"

namespace ctxkit::text {

namespace {

constexpr size_t kHeadLines = 40;
constexpr size_t kTailLines = 20;
constexpr size_t kKeyLines = 60;
constexpr size_t kLineBytes = 200;

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' ||
         c == '\v';
}

bool IsBlank(std::string_view line) {
  return std::all_of(line.begin(), line.end(), IsSpace);
}

// FNV-1a of the lower-cased ASCII word.
uint64_t WordHash(std::string_view word) {
  uint64_t h = 1469598103934665603ull;
  for (char c : word) {
    h ^=
        static_cast<unsigned char>(std::tolower(static_cast<unsigned char>(c)));
    h *= 1099511628211ull;
  }
  return h;
}

template <typename F>
void ForEachWord(std::string_view line, F&& f) {
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() &&
           !std::isalnum(static_cast<unsigned char>(line[i])) &&
           static_cast<unsigned char>(line[i]) < 0x80) {
      ++i;
    }
    size_t start = i;
    while (i < line.size() &&
           (std::isalnum(static_cast<unsigned char>(line[i])) ||
            line[i] == '_' || static_cast<unsigned char>(line[i]) >= 0x80)) {
      ++i;
    }
    if (i > start) f(line.substr(start, i - start));
  }
}

bool IsHeading(std::string_view line, std::string_view next) {
  std::string_view t = line;
  while (!t.empty() && IsSpace(t.front())) t.remove_prefix(1);
  if (t.starts_with("#") && t.size() > 1 && (t[1] == ' ' || t[1] == '#')) {
    return true;
  }
  if (!next.empty() && next.size() >= 3 &&
      (next.find_first_not_of('=') == std::string_view::npos ||
       next.find_first_not_of('-') == std::string_view::npos)) {
    return !IsBlank(t);
  }
  // Short all-caps lines ("INTRODUCTION", "ERRORS:").
  if (t.size() >= 4 && t.size() <= 60) {
    bool has_alpha = false;
    for (char c : t) {
      if (std::islower(static_cast<unsigned char>(c))) return false;
      if (std::isalpha(static_cast<unsigned char>(c))) has_alpha = true;
    }
    return has_alpha;
  }
  return false;
}

bool HasAlert(std::string_view line) {
  static constexpr std::string_view kWords[] = {
      "error",     "ERROR",   "Error", "fail",  "FAIL",
      "Fail",      "panic",   "fatal", "FATAL", "exception",
      "Exception", "warning", "WARN",  "TODO",  "Traceback"};
  for (std::string_view w : kWords) {
    if (line.find(w) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace

std::vector<std::string_view> SplitLines(std::string_view text) {
  std::vector<std::string_view> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    size_t end = nl == std::string_view::npos ? text.size() : nl;
    std::string_view line = text.substr(pos, end - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    lines.push_back(line);
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  return lines;
}

void TextCountsBuilder::Append(std::string_view bytes) {
  counts_.bytes += bytes.size();
  for (char c : bytes) {
    if (c == '\n') ++counts_.lines;
    bool space = IsSpace(c);
    if (!space && !in_word_) ++counts_.words;
    in_word_ = !space;
  }
  if (!bytes.empty()) last_ = bytes.back();
  if (count_tokens_) tokens_.Append(bytes);
}

TextCounts TextCountsBuilder::Finish() {
  if (counts_.bytes > 0 && last_ != '\n') ++counts_.lines;
  counts_.tokens = count_tokens_ ? tokens_.Finish() : 0;
  counts_.tokens_exact = count_tokens_;
  TextCounts out = counts_;
  counts_ = TextCounts{};
  in_word_ = false;
  last_ = '\n';
  return out;
}

std::string CountsPhrase(const TextCounts& c) {
  std::string s =
      core::GroupedNumber(c.lines) + (c.lines == 1 ? " line, " : " lines, ") +
      core::GroupedNumber(c.words) + (c.words == 1 ? " word, " : " words, ") +
      core::HumanBytes(c.bytes);
  if (c.tokens > 0 || c.tokens_exact) {
    s += std::string(", ") + (c.tokens_exact ? "" : "~") +
         core::GroupedNumber(c.tokens) + " tokens";
  }
  return s;
}

TextCounts EffectiveCounts(const Tokenizer& tok, const StructuralInput& in) {
  TextCounts c = in.counts;
  if (c.lines == 0 && c.words == 0 && c.tokens == 0) {
    TextCountsBuilder b(tok);
    b.Append(in.head);
    TextCounts sample = b.Finish();
    if (!in.sampled) return sample;
    // Extrapolate from the sample.
    double scale = in.head.empty() ? 0.0
                                   : static_cast<double>(in.total_bytes) /
                                         static_cast<double>(in.head.size());
    c.bytes = in.total_bytes;
    c.lines = static_cast<uint64_t>(sample.lines * scale);
    c.words = static_cast<uint64_t>(sample.words * scale);
    c.tokens = static_cast<uint64_t>(sample.tokens * scale);
    c.tokens_exact = false;
  }
  if (c.bytes == 0) c.bytes = in.total_bytes;
  return c;
}

std::string SummarizeText(const Tokenizer& tok, const StructuralInput& in,
                          size_t max_tokens) {
  TextCounts counts = EffectiveCounts(tok, in);
  std::string header = "text: " + CountsPhrase(counts);
  if (in.sampled) {
    header += " (sampled: key lines from the first " +
              core::HumanBytes(in.head.size()) + ")";
  }

  std::vector<std::string_view> lines = SplitLines(in.head);
  // A sampled head may end inside a line: drop that partial line.
  if (in.sampled && !lines.empty() && !in.head.ends_with('\n')) {
    lines.pop_back();
  }
  std::vector<std::string_view> tail_lines;
  if (in.sampled) {
    tail_lines = SplitLines(in.tail);
    if (!tail_lines.empty() && !in.tail.empty()) {
      tail_lines.erase(tail_lines.begin());  // Starts inside a line.
    }
  }

  // Head: the first non-blank lines.
  // Runs of identical lines are shown once with their count.
  SummaryBlock head{"head:", {}, 3, false};
  size_t head_end = 0;
  while (head_end < lines.size() && head.lines.size() < kHeadLines) {
    std::string_view line = lines[head_end];
    size_t run = 1;
    while (head_end + run < lines.size() && lines[head_end + run] == line) {
      ++run;
    }
    head_end += run;
    if (IsBlank(line)) continue;
    std::string shown = ClipLine(line, kLineBytes);
    if (run > 1) shown += "  [x" + core::GroupedNumber(run) + "]";
    head.lines.push_back(std::move(shown));
  }

  // Tail: the last non-blank lines, from the tail sample or the head.
  SummaryBlock tail{"tail:", {}, 2, true};
  size_t tail_begin = lines.size();
  {
    const std::vector<std::string_view>& src = in.sampled ? tail_lines : lines;
    size_t stop = in.sampled ? 0 : head_end;
    std::vector<std::string> rev;
    size_t i = src.size();
    while (i > stop && rev.size() < kTailLines) {
      --i;
      size_t run = 1;
      while (i > stop && src[i - 1] == src[i]) {
        --i;
        ++run;
      }
      if (IsBlank(src[i])) continue;
      std::string shown = ClipLine(src[i], kLineBytes);
      if (run > 1) shown += "  [x" + core::GroupedNumber(run) + "]";
      rev.push_back(std::move(shown));
    }
    if (!in.sampled) tail_begin = i;
    tail.lines.assign(rev.rbegin(), rev.rend());
  }

  // Informative lines between head and tail: rare terms, headings, alerts.
  SummaryBlock key{"key lines:", {}, 4, false};
  if (tail_begin > head_end) {
    std::unordered_map<uint64_t, uint32_t> df;
    size_t considered = 0;
    for (size_t i = head_end; i < tail_begin; ++i) {
      if (IsBlank(lines[i])) continue;
      ++considered;
      std::vector<uint64_t> seen;
      ForEachWord(lines[i].substr(0, 1000), [&](std::string_view w) {
        uint64_t h = WordHash(w);
        if (std::find(seen.begin(), seen.end(), h) == seen.end()) {
          seen.push_back(h);
          ++df[h];
        }
      });
    }
    struct Scored {
      double score;
      size_t index;
    };
    std::vector<Scored> scored;
    const double n = static_cast<double>(std::max<size_t>(considered, 1));
    for (size_t i = head_end; i < tail_begin; ++i) {
      std::string_view line = lines[i];
      if (IsBlank(line)) continue;
      double sum = 0;
      size_t words = 0;
      ForEachWord(line.substr(0, 1000), [&](std::string_view w) {
        ++words;
        if (w.size() < 3) return;
        uint32_t f = df[WordHash(w)];
        sum += std::log(1.0 + n / static_cast<double>(f));
      });
      if (words == 0) continue;
      double score = sum / std::sqrt(static_cast<double>(words) + 4.0);
      std::string_view next = i + 1 < lines.size() ? lines[i + 1] : "";
      if (IsHeading(line, next)) score *= 2.5;
      if (HasAlert(line)) score *= 1.8;
      scored.push_back({score, i});
    }
    size_t keep = std::min(kKeyLines * 8, scored.size());
    std::partial_sort(scored.begin(), scored.begin() + keep, scored.end(),
                      [](const Scored& a, const Scored& b) {
                        return a.score > b.score ||
                               (a.score == b.score && a.index < b.index);
                      });
    scored.resize(keep);
    // Best first, so a small budget keeps the best; each line carries its
    // line number so the reader can peek around it. Repeats are dropped.
    std::vector<std::string_view> shown;
    for (const Scored& s : scored) {
      std::string_view line = lines[s.index];
      if (key.lines.size() >= kKeyLines) break;
      if (std::find(shown.begin(), shown.end(), line) != shown.end()) continue;
      shown.push_back(line);
      key.lines.push_back("L" + std::to_string(s.index + 1) + ": " +
                          ClipLine(line, kLineBytes));
    }
  }

  return RenderWithinBudget(tok, header, {head, key, tail}, max_tokens);
}

}  // namespace ctxkit::text
