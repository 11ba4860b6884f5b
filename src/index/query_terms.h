// Turning a free-text query into an FTS5 MATCH expression.

#ifndef CTXKIT_INDEX_QUERY_TERMS_H_
#define CTXKIT_INDEX_QUERY_TERMS_H_

#include <string>
#include <string_view>
#include <vector>

namespace ctxkit::index {

// The words of `query`: maximal runs of ASCII letters, digits and bytes
// >= 0x80 (so any non-ASCII text stays whole; FTS5's unicode61 splits it
// the same way it split the chunks), ASCII lower-cased, duplicates and
// common English stop words dropped (unless nothing else is left).
std::vector<std::string> QueryTerms(std::string_view query);

// `"t1" OR "t2" ...`: any term may match, BM25 weighs them. Quoting makes
// every term a literal (no FTS5 operator or column syntax from users).
std::string MatchExpression(const std::vector<std::string>& terms);

}  // namespace ctxkit::index

#endif  // CTXKIT_INDEX_QUERY_TERMS_H_
