// Context names: the identifiers a child knows its refs by.

#include <array>
#include <string>
#include <string_view>

#include "ctxkit/spawn.h"

namespace ctxkit {

namespace {

// Python's keywords: the Python face binds names as variables, and a
// keyword cannot be one.
constexpr std::array<std::string_view, 35> kPythonKeywords = {
    "False",  "None",   "True",    "and",      "as",       "assert", "async",
    "await",  "break",  "class",   "continue", "def",      "del",    "elif",
    "else",   "except", "finally", "for",      "from",     "global", "if",
    "import", "in",     "is",      "lambda",   "nonlocal", "not",    "or",
    "pass",   "raise",  "return",  "try",      "while",    "with",   "yield"};

bool IsIdentStart(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

bool IsIdentChar(char c) { return IsIdentStart(c) || (c >= '0' && c <= '9'); }

}  // namespace

Status ValidateContextName(std::string_view name) {
  if (name.empty() || name.size() > 64) {
    return Status::InvalidArgument("a context name must be 1-64 bytes");
  }
  bool ok = IsIdentStart(name[0]);
  for (size_t i = 1; ok && i < name.size(); ++i) ok = IsIdentChar(name[i]);
  if (!ok) {
    return Status::InvalidArgument(
        "context name '" + std::string(name) +
        "' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)");
  }
  for (std::string_view kw : kPythonKeywords) {
    if (name == kw) {
      return Status::InvalidArgument("context name '" + std::string(name) +
                                     "' is a Python keyword");
    }
  }
  return Status::Ok();
}

}  // namespace ctxkit
