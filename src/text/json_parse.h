// Parsing JSON that a user supplied (a flag, a file, stdin), with an error
// that says where the text goes wrong.
//
// nlohmann's non-throwing parse only says "discarded"; these report the
// parser's own message with its line and column, e.g.
//   --args is not valid JSON: syntax error at line 1, column 9: ...
// Every place ctxkit validates or parses user JSON goes through here so the
// messages agree.
//
// Depth: nlohmann's serializer (and ctxkit's own walkers) recurse once per
// nesting level, so a 65,000-deep document from outside would overflow the
// stack. Every parse of outside JSON goes through these functions, which
// refuse documents nested deeper than kMaxJsonDepth before building them.
//
// Thread safety: nothing shared.

#ifndef CTXKIT_TEXT_JSON_PARSE_H_
#define CTXKIT_TEXT_JSON_PARSE_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/ref.h"
#include "ctxkit/status.h"

namespace ctxkit::text {

// The deepest nesting of arrays and objects ctxkit accepts in JSON from
// outside (the MCP protocol core allows less in its messages).
inline constexpr int kMaxJsonDepth = 512;

// The deepest bracket nesting of `text` (strings skipped), counting no
// further once past `limit`. Linear, allocation-free; `text` need not be
// valid JSON.
int JsonNestingDepth(std::string_view text, int limit);

// The offset of the first raw NUL byte in `text`, or npos. JSON text never
// holds one (a NUL in a string is written \u0000), but nlohmann's parsers
// stop at one as at the end of the input, which would accept anything
// after it: every entry point here refuses such text.
size_t JsonNulByte(std::string_view text);

// OK when `text` is one complete JSON document nested at most
// kMaxJsonDepth deep; otherwise InvalidArgument "<what> is not valid JSON:
// <reason> at line L, column C ..." or "<what> is nested deeper than 512
// levels". Builds no document.
Status CheckJson(std::string_view text, std::string_view what);

// The parsed document, or CheckJson's error.
Result<nlohmann::json> ParseJson(std::string_view text, std::string_view what);

// For stored or received JSON that is only used when it parses: the
// document, or a discarded value (is_discarded()) when `text` is not JSON
// (a raw NUL byte included) or is nested deeper than kMaxJsonDepth.
nlohmann::json ParseJsonOrDiscarded(std::string_view text);

// Field `key` of a stored document read leniently, for documents ctxkit
// wrote that may since have been damaged: the field when `j` is an object
// holding a value of the asked type there, else `fallback`. Never throws
// (nlohmann's value() throws for a field of another type).
uint64_t UintOr(const nlohmann::json& j, std::string_view key,
                uint64_t fallback);
std::string StringOr(const nlohmann::json& j, std::string_view key,
                     std::string_view fallback);

// Appends every ref named in `j`: each string, at any depth, that starts
// with "ck:" (Target::IsRefText) and parses as a ref (manifests, render
// records).
void RefsInJson(const nlohmann::json& j, std::vector<Ref>* out);

}  // namespace ctxkit::text

#endif  // CTXKIT_TEXT_JSON_PARSE_H_
