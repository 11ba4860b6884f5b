// Required literals of an RE2 pattern: a byte string every match must
// contain, so a search can look for it with a fast literal scan and run the
// regex only on the lines where it occurs (as ripgrep does).
//
// The analysis is deliberately conservative: it reads only the top-level
// concatenation of the pattern, treats every group, class, escape other
// than escaped punctuation, and quantified atom as a break, and gives up
// (returns "") on a top-level alternation or any case-insensitive flag.
// A wrong "" only costs speed; a wrong literal would lose matches, so when
// in doubt it returns "".

#ifndef CTXKIT_EXPLORE_REGEX_LITERALS_H_
#define CTXKIT_EXPLORE_REGEX_LITERALS_H_

#include <string>
#include <string_view>

namespace ctxkit::explore {

// The best literal every match of `pattern` (RE2 syntax, case-sensitive)
// must contain, or "" when none is known. "Best" is the run whose two
// rarest bytes are rarest (text::ByteFrequencyRank), then the longest.
std::string RequiredLiteral(std::string_view pattern);

}  // namespace ctxkit::explore

#endif  // CTXKIT_EXPLORE_REGEX_LITERALS_H_
