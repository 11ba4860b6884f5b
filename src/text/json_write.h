// Writing JSON: the one serializer ctxkit's own documents go through (MCP
// messages, render requests, CLI output, stored records). Its bytes are
// exactly those of nlohmann's dump(-1, ' ', false, error_handler_t::replace)
// — compact, keys in the document's order, UTF-8 written as is, control
// characters, '"' and '\' escaped, ill-formed UTF-8 in a string replaced by
// U+FFFD as nlohmann replaces it — but strings, most of a typical document's
// bytes, are copied in runs instead of decoded character by character.
//
// Thread safety: nothing shared.

#ifndef CTXKIT_TEXT_JSON_WRITE_H_
#define CTXKIT_TEXT_JSON_WRITE_H_

#include <nlohmann/json.hpp>
#include <string>

namespace ctxkit::text {

// `j` as compact JSON text.
std::string DumpJson(const nlohmann::json& j);

// Appends DumpJson(j) to `*out`.
void AppendJson(const nlohmann::json& j, std::string* out);

}  // namespace ctxkit::text

#endif  // CTXKIT_TEXT_JSON_WRITE_H_
