#include "explore/regex_matcher.h"

#include <re2/re2.h>

#include <string>

namespace ctxkit::explore {

Result<std::unique_ptr<Re2Matcher>> Re2Matcher::Create(std::string_view pattern,
                                                       bool literal,
                                                       bool case_insensitive) {
  if (pattern.find('\n') != std::string_view::npos) {
    return Status::InvalidArgument(
        "a search pattern matches within one line; it may not contain a "
        "newline");
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
    return Status::InvalidArgument("bad regex '" + std::string(pattern) +
                                   "': " + re->error());
  }
  return std::unique_ptr<Re2Matcher>(new Re2Matcher(std::move(re)));
}

Re2Matcher::Re2Matcher(std::unique_ptr<RE2> re) : re_(std::move(re)) {}
Re2Matcher::~Re2Matcher() = default;

bool Re2Matcher::Find(std::string_view text, size_t from, size_t* begin,
                      size_t* end) const {
  if (from > text.size()) return false;
  re2::StringPiece match;
  if (!re_->Match(re2::StringPiece(text.data(), text.size()), from, text.size(),
                  RE2::UNANCHORED, &match, 1)) {
    return false;
  }
  *begin = match.data() - text.data();
  *end = *begin + match.size();
  return true;
}

}  // namespace ctxkit::explore
