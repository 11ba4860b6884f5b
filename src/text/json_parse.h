// Parsing JSON that a user supplied (a flag, a file, stdin), with an error
// that says where the text goes wrong.
//
// nlohmann's non-throwing parse only says "discarded"; these report the
// parser's own message with its line and column, e.g.
//   --args is not valid JSON: syntax error at line 1, column 9: ...
// Every place ctxkit validates or parses user JSON goes through here so the
// messages agree.
//
// Thread safety: nothing shared.

#ifndef CTXKIT_TEXT_JSON_PARSE_H_
#define CTXKIT_TEXT_JSON_PARSE_H_

#include <nlohmann/json.hpp>
#include <string_view>

#include "ctxkit/status.h"

namespace ctxkit::text {

// OK when `text` is one complete JSON document; otherwise InvalidArgument
// "<what> is not valid JSON: <reason> at line L, column C ...". Builds no
// document.
Status CheckJson(std::string_view text, std::string_view what);

// The parsed document, or CheckJson's error.
Result<nlohmann::json> ParseJson(std::string_view text, std::string_view what);

}  // namespace ctxkit::text

#endif  // CTXKIT_TEXT_JSON_PARSE_H_
