// Small shared helpers: names, numbers, token fitting, session views.

#include <array>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "core/status_macros.h"
#include "ctxkit/tokenizer.h"
#include "externalize/internal.h"

namespace ctxkit::externalize {

namespace {

// Python 3.12 keywords (hard ones only: soft keywords such as `match` are
// valid names) plus the helpers a REPL defines, which a variable must not
// shadow.
constexpr std::array<std::string_view, 41> kReserved = {
    "False",  "None",      "True",
    "and",    "as",        "assert",
    "async",  "await",     "break",
    "class",  "continue",  "def",
    "del",    "elif",      "else",
    "except", "finally",   "for",
    "from",   "global",    "if",
    "import", "in",        "is",
    "lambda", "nonlocal",  "not",
    "or",     "pass",      "raise",
    "return", "try",       "while",
    "with",   "yield",     "peek",
    "search", "summarize", "find_relevant",
    "len",    "SUBMIT"};

bool IsIdentStart(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
bool IsIdentChar(char c) { return IsIdentStart(c) || (c >= '0' && c <= '9'); }

// Drops a trailing incomplete UTF-8 sequence (a decode of a token prefix
// may end inside a character).
void TrimPartialUtf8(std::string* s) {
  size_t i = s->size();
  size_t back = 0;
  while (i > 0 && back < 4 &&
         (static_cast<unsigned char>((*s)[i - 1]) & 0xC0) == 0x80) {
    --i;
    ++back;
  }
  if (i == 0) return;
  const unsigned char lead = static_cast<unsigned char>((*s)[i - 1]);
  size_t need = 1;
  if (lead >= 0xF0) {
    need = 4;
  } else if (lead >= 0xE0) {
    need = 3;
  } else if (lead >= 0xC0) {
    need = 2;
  }
  if (need > 1 && back + 1 < need) s->resize(i - 1);
}

}  // namespace

Status ValidateVariableName(std::string_view name) {
  if (name.empty()) {
    return Status::InvalidArgument("variable name must not be empty");
  }
  if (name.size() > 64) {
    return Status::InvalidArgument("variable name '" +
                                   std::string(name.substr(0, 64)) +
                                   "...' is longer than 64 bytes");
  }
  bool ok = IsIdentStart(name[0]);
  for (char c : name) ok = ok && IsIdentChar(c);
  if (!ok) {
    return Status::InvalidArgument(
        "variable name '" + std::string(name) +
        "' is not a Python identifier ([A-Za-z_][A-Za-z0-9_]*)");
  }
  for (std::string_view r : kReserved) {
    if (name == r) {
      return Status::InvalidArgument("variable name '" + std::string(name) +
                                     "' is a Python keyword or a helper name");
    }
  }
  return Status::Ok();
}

std::string PythonTypeName(const ContextVariable& v) {
  switch (v.type) {
    case VariableType::kConversation:
      return "List[Message]";
    case VariableType::kFiles:
      return "Dict[str, str]";
    case VariableType::kToolOutputs:
      return "List[ToolOutput]";
    case VariableType::kWorkingMemory:
      return "Dict[str, Any]";
    case VariableType::kCustom:
      break;
  }
  switch (v.shape) {
    case VariableShape::kList:
      return "List[Any]";
    case VariableShape::kDict:
      return "Dict[str, Any]";
    case VariableShape::kString:
      break;
  }
  return "str";
}

uint64_t CountTextTokens(std::string_view text) {
  Result<const Tokenizer*> tok = Tokenizer::Get(Encoding::kO200kBase);
  return tok.ok() ? (*tok)->Count(text) : 0;
}

std::string FitTokens(std::string text, uint64_t max_tokens) {
  if (CountTextTokens(text) <= max_tokens) return text;
  static constexpr std::string_view kMark = " [...]";
  // Whole lines first: drop from the end while over.
  while (true) {
    const size_t nl = text.rfind('\n');
    if (nl == std::string::npos) break;
    text.resize(nl);
    if (CountTextTokens(text) + CountTextTokens(kMark) <= max_tokens) {
      return text + std::string(kMark);
    }
  }
  // One long line: keep a token prefix.
  Result<const Tokenizer*> tok = Tokenizer::Get(Encoding::kO200kBase);
  if (!tok.ok()) return "";
  std::vector<uint32_t> ids = (*tok)->Encode(text);
  const uint64_t mark = CountTextTokens(kMark);
  size_t keep = max_tokens > mark ? max_tokens - mark : 0;
  while (true) {
    if (keep > ids.size()) keep = ids.size();
    Result<std::string> head =
        (*tok)->Decode(std::span<const uint32_t>(ids.data(), keep));
    std::string out = head.ok() ? *head : "";
    TrimPartialUtf8(&out);
    out += kMark;
    if (CountTextTokens(out) <= max_tokens || keep == 0) {
      return CountTextTokens(out) <= max_tokens ? out : "";
    }
    --keep;
  }
}

Result<View> SessionView(View& view, std::string_view session_id) {
  if (session_id.empty() || view.session_id() == session_id) return view;
  return view.store()->OpenView(view.agent_id(), session_id);
}

}  // namespace ctxkit::externalize
