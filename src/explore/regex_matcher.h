// RE2 behind text::LineMatcher: linear-time regex (and case-insensitive
// literal) search confined to single lines.
//
// When the pattern has a required literal (explore/regex_literals.h), Find
// looks for that literal with text::LiteralFinder and runs RE2 only on the
// lines holding it; lines without it cannot match. If the literal turns out
// to be common (most candidates fail), Find hands the rest of the text to
// RE2 directly, so the prefilter never costs more than a small factor.

#ifndef CTXKIT_EXPLORE_REGEX_MATCHER_H_
#define CTXKIT_EXPLORE_REGEX_MATCHER_H_

#include <memory>
#include <string>
#include <string_view>

#include "ctxkit/status.h"
#include "text/byte_scan.h"
#include "text/line_search.h"

namespace re2 {
class RE2;
}  // namespace re2

namespace ctxkit::explore {

// The longest pattern Create hands to RE2: a regex, or a case-insensitive
// literal. RE2 compiles in time that grows with the program a pattern
// makes (superlinearly for some, such as "a?" chains), and matches in time
// up to text size x pattern size (a long self-overlapping literal without
// case makes its DFA thrash), so a bound on the pattern bounds both. Exact
// literals have no limit: they are found by a plain string search.
inline constexpr size_t kMaxRegexBytes = 4096;

class Re2Matcher : public text::LineMatcher {
 public:
  // `literal`: the pattern is a plain string. The regex is compiled with
  // RE2's never_nl (no match contains '\n') and in multi-line mode ('^'
  // and '$' match at line boundaries), so a match lies within one line.
  // InvalidArgument with RE2's message for a bad pattern, or for a regex or
  // case-insensitive literal longer than kMaxRegexBytes.
  static Result<std::unique_ptr<Re2Matcher>> Create(std::string_view pattern,
                                                    bool literal,
                                                    bool case_insensitive);
  ~Re2Matcher() override;

  bool Find(std::string_view text, size_t from, size_t* begin,
            size_t* end) const override;

  // The literal the prefilter looks for; "" when there is none.
  const std::string& prefilter() const { return prefilter_.needle(); }

 private:
  // `exact`: the pattern is a literal matched with case, which is then
  // the prefilter itself.
  Re2Matcher(std::unique_ptr<re2::RE2> re, std::string prefilter, bool exact);
  // RE2 over text[from, to): the leftmost match.
  bool Match(std::string_view text, size_t from, size_t to, size_t* begin,
             size_t* end) const;

  std::unique_ptr<re2::RE2> re_;
  text::LiteralFinder prefilter_;
  bool has_prefilter_ = false;
  bool exact_ = false;
};

}  // namespace ctxkit::explore

#endif  // CTXKIT_EXPLORE_REGEX_MATCHER_H_
