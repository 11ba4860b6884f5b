#include "explore/regex_matcher.h"

#include <re2/re2.h>

#include <cstring>
#include <string>

#include "explore/regex_literals.h"
#include "text/utf8.h"

namespace ctxkit::explore {
namespace {

// The start of `s` for a message (RE2's errors quote the pattern).
std::string Abbreviated(std::string_view s) {
  constexpr size_t kMax = 80;
  if (s.size() <= kMax) return std::string(s);
  std::string_view head = s.substr(0, kMax);
  head = head.substr(0, text::ValidUtf8Prefix(head));
  return std::string(head) + "...";
}

}  // namespace

Result<std::unique_ptr<Re2Matcher>> Re2Matcher::Create(std::string_view pattern,
                                                       bool literal,
                                                       bool case_insensitive) {
  if (pattern.find('\n') != std::string_view::npos) {
    return Status::InvalidArgument(
        "a search pattern matches within one line; it may not contain a "
        "newline");
  }
  if ((!literal || case_insensitive) && pattern.size() > kMaxRegexBytes) {
    return Status::InvalidArgument(
        std::string(literal ? "a case-insensitive pattern" : "a regex") +
        " may be at most " + std::to_string(kMaxRegexBytes) +
        " bytes (this one is " + std::to_string(pattern.size()) +
        "): search for an exact literal string, or for shorter patterns one "
        "by one");
  }
  RE2::Options options;
  options.set_log_errors(false);
  options.set_literal(literal);
  options.set_case_sensitive(!case_insensitive);
  options.set_never_nl(true);
  // Room for big DFAs on large inputs; RE2 falls back to the NFA (still
  // linear) when it runs out.
  options.set_max_mem(64 << 20);
  // Multi-line mode is a flag group in RE2's syntax; a literal has no
  // anchors to care.
  std::string source =
      literal ? std::string(pattern) : "(?m)" + std::string(pattern);
  auto re = std::make_unique<RE2>(source, options);
  if (!re->ok()) {
    return Status::InvalidArgument("bad regex '" + Abbreviated(pattern) +
                                   "': " + Abbreviated(re->error()));
  }
  // Case folding is Unicode-wide ('k' also matches U+212A), so a literal
  // prefilter would need the same folding: only exact patterns get one.
  std::string prefilter;
  if (!case_insensitive) {
    prefilter = literal ? std::string(pattern) : RequiredLiteral(pattern);
  }
  return std::unique_ptr<Re2Matcher>(new Re2Matcher(
      std::move(re), std::move(prefilter), literal && !case_insensitive));
}

Re2Matcher::Re2Matcher(std::unique_ptr<RE2> re, std::string prefilter,
                       bool exact)
    : re_(std::move(re)),
      prefilter_(std::move(prefilter)),
      has_prefilter_(!prefilter_.needle().empty()),
      exact_(exact) {}
Re2Matcher::~Re2Matcher() = default;

bool Re2Matcher::Match(std::string_view text, size_t from, size_t to,
                       size_t* begin, size_t* end) const {
  re2::StringPiece match;
  // The whole text stays the context, so '^', '$' and '\b' at `from` and
  // `to` see the bytes around them.
  if (!re_->Match(re2::StringPiece(text.data(), text.size()), from, to,
                  RE2::UNANCHORED, &match, 1)) {
    return false;
  }
  *begin = match.data() - text.data();
  *end = *begin + match.size();
  return true;
}

bool Re2Matcher::Find(std::string_view text, size_t from, size_t* begin,
                      size_t* end) const {
  if (from > text.size()) return false;
  if (!has_prefilter_) return Match(text, from, text.size(), begin, end);
  if (exact_) {
    // An exact literal's leftmost match is its first occurrence: no RE2,
    // whose matching time would grow with the literal's length.
    const size_t hit = prefilter_.Find(text, from);
    if (hit == std::string_view::npos) return false;
    *begin = hit;
    *end = hit + prefilter_.needle().size();
    return true;
  }
  // Matches never span lines, and every match contains the literal: the
  // first line from `from` that holds the literal and matches holds the
  // leftmost match.
  size_t pos = from;
  size_t misses = 0;
  while (pos <= text.size()) {
    const size_t hit = prefilter_.Find(text, pos);
    if (hit == std::string_view::npos) return false;
    const void* nl = memrchr(text.data() + pos, '\n', hit - pos);
    const size_t line_begin =
        nl == nullptr ? pos : static_cast<const char*>(nl) - text.data() + 1;
    const void* eol = memchr(text.data() + hit, '\n', text.size() - hit);
    const size_t line_end = eol == nullptr
                                ? text.size()
                                : static_cast<const char*>(eol) - text.data();
    if (Match(text, line_begin, line_end, begin, end)) return true;
    pos = line_end + 1;
    // A literal on most lines makes the prefilter pure overhead.
    if (++misses >= 16 && (pos - from) / misses < 4096) {
      return pos <= text.size() && Match(text, pos, text.size(), begin, end);
    }
  }
  return false;
}

}  // namespace ctxkit::explore
