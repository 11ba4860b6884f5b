// Source code: an outline of definitions found by simple line patterns.
//
// No parser: each language has a few prefixes that start a definition
// (def/class, fn/struct/impl, func/type, function/class/interface, ...) and
// C-like languages get a heuristic for function definitions. The language
// comes from the name's extension, else a shebang, else whichever pattern
// set matches most lines.

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

#include "core/format.h"
#include "text/summarize_budget.h"
#include "text/summarize_structural.h"

namespace ctxkit::text {

namespace {

enum class Lang { kNone, kC, kPython, kJs, kGo, kRust, kShell, kJava };

const char* LangName(Lang l) {
  switch (l) {
    case Lang::kC:
      return "c/c++";
    case Lang::kPython:
      return "python";
    case Lang::kJs:
      return "javascript/typescript";
    case Lang::kGo:
      return "go";
    case Lang::kRust:
      return "rust";
    case Lang::kShell:
      return "shell";
    case Lang::kJava:
      return "java-like";
    case Lang::kNone:
      break;
  }
  return "unknown";
}

Lang FromExtension(std::string_view name) {
  size_t slash = name.rfind('/');
  if (slash != std::string_view::npos) name.remove_prefix(slash + 1);
  size_t dot = name.rfind('.');
  if (dot == std::string_view::npos) return Lang::kNone;
  std::string ext(name.substr(dot + 1));
  for (char& c : ext) c = static_cast<char>(std::tolower(c));
  static constexpr std::pair<std::string_view, Lang> kExt[] = {
      {"c", Lang::kC},        {"h", Lang::kC},        {"cc", Lang::kC},
      {"cpp", Lang::kC},      {"cxx", Lang::kC},      {"hpp", Lang::kC},
      {"hh", Lang::kC},       {"hxx", Lang::kC},      {"py", Lang::kPython},
      {"pyi", Lang::kPython}, {"js", Lang::kJs},      {"mjs", Lang::kJs},
      {"cjs", Lang::kJs},     {"jsx", Lang::kJs},     {"ts", Lang::kJs},
      {"tsx", Lang::kJs},     {"go", Lang::kGo},      {"rs", Lang::kRust},
      {"sh", Lang::kShell},   {"bash", Lang::kShell}, {"java", Lang::kJava},
      {"kt", Lang::kJava},    {"cs", Lang::kJava},    {"swift", Lang::kJava},
      {"scala", Lang::kJava}};
  for (auto [e, l] : kExt) {
    if (ext == e) return l;
  }
  return Lang::kNone;
}

std::string_view TrimLeft(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  return s;
}

std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

// Removes any of `prefixes` (repeatedly) from the front of `s`.
std::string_view StripWords(std::string_view s,
                            std::initializer_list<std::string_view> words) {
  bool again = true;
  while (again) {
    again = false;
    for (std::string_view w : words) {
      if (s.starts_with(w)) {
        s.remove_prefix(w.size());
        s = TrimLeft(s);
        again = true;
      }
    }
  }
  return s;
}

bool StartsWithAny(std::string_view s,
                   std::initializer_list<std::string_view> prefixes) {
  for (std::string_view p : prefixes) {
    if (s.starts_with(p)) return true;
  }
  return false;
}

bool IsIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// "int Foo::bar(int x) const {" at shallow indentation, not a call or a
// control statement.
bool LooksLikeCFunction(std::string_view t, size_t indent) {
  if (indent > 4 || t.empty()) return false;
  if (StartsWithAny(t, {"if",
                        "for",
                        "while",
                        "switch",
                        "return",
                        "else",
                        "case",
                        "do ",
                        "}",
                        "#",
                        "//",
                        "/*",
                        "*",
                        "catch",
                        "using ",
                        "typedef",
                        "static_assert",
                        "throw",
                        "delete",
                        "new "})) {
    if (!t.starts_with("return_") && !t.starts_with("for_")) return false;
  }
  size_t paren = t.find('(');
  if (paren == std::string_view::npos || paren == 0) return false;
  if (t.back() == ';') return false;
  // A signature continued on the next line: only at the top level, where
  // calls split over lines are rare.
  if (t.back() == ',' &&
      (indent > 0 || t.find(')') != std::string_view::npos)) {
    return false;
  }
  std::string_view before = TrimRight(t.substr(0, paren));
  if (before.empty() || !IsIdentChar(before.back())) return false;
  if (before.find('=') != std::string_view::npos) return false;
  // A return type or qualifier before the name: "int f(", "Foo::f(",
  // "static void f(". A bare call "f(" has none.
  if (before.find(' ') == std::string_view::npos &&
      before.find("::") == std::string_view::npos) {
    return false;
  }
  return t.back() == '{' || t.back() == ')' || t.back() == ',' ||
         t.ends_with("const") || t.ends_with("override") ||
         t.ends_with("noexcept");
}

bool IsDefinition(Lang lang, std::string_view line, size_t indent) {
  std::string_view t = TrimRight(TrimLeft(line));
  if (t.empty()) return false;
  switch (lang) {
    case Lang::kPython:
      t = StripWords(t, {"async "});
      return (t.starts_with("def ") || t.starts_with("class ")) &&
             t.size() > 6 && IsIdentChar(t[t.find(' ') + 1]);
    case Lang::kGo:
      return t.starts_with("func ") ||
             (t.starts_with("type ") &&
              (t.find(" struct") != std::string_view::npos ||
               t.find(" interface") != std::string_view::npos || indent == 0));
    case Lang::kRust:
      t = StripWords(t, {"pub(crate) ", "pub(super) ", "pub ", "async ",
                         "unsafe ", "const ", "extern \"C\" "});
      return StartsWithAny(
          t, {"fn ", "struct ", "enum ", "trait ", "impl ", "impl<", "mod ",
              "macro_rules!", "type ", "union "});
    case Lang::kJs: {
      t = StripWords(
          t, {"export ", "default ", "declare ", "abstract ", "async "});
      if (StartsWithAny(t, {"function ", "function*", "class ", "interface ",
                            "enum ", "namespace ", "module "})) {
        return true;
      }
      if (t.starts_with("type ") && t.find('=') != std::string_view::npos) {
        return true;
      }
      if (StartsWithAny(t, {"const ", "let ", "var "}) &&
          (t.find("=>") != std::string_view::npos ||
           t.find("= function") != std::string_view::npos ||
           t.find("= async") != std::string_view::npos)) {
        return indent <= 2;
      }
      // Class methods: "  name(args) {".
      if (indent > 0 && indent <= 4 && t.back() == '{' &&
          IsIdentChar(t.front())) {
        t = StripWords(t, {"static ", "get ", "set ", "public ", "private ",
                           "protected ", "async ", "readonly "});
        size_t paren = t.find('(');
        if (paren != std::string_view::npos && paren > 0 &&
            !StartsWithAny(t, {"if", "for", "while", "switch", "catch",
                               "return", "else", "function"})) {
          std::string_view name = t.substr(0, paren);
          return std::all_of(name.begin(), name.end(), IsIdentChar);
        }
      }
      return false;
    }
    case Lang::kShell:
      return t.starts_with("function ") ||
             (t.ends_with("{") && t.find("()") != std::string_view::npos &&
              IsIdentChar(t.front()));
    case Lang::kJava:
      t = StripWords(t, {"public ", "private ", "protected ", "internal ",
                         "static ", "final ", "abstract ", "sealed ",
                         "override ", "open ", "data ", "async "});
      return StartsWithAny(
                 t, {"class ", "interface ", "enum ", "record ", "struct ",
                     "fun ", "func ", "object ", "def "}) ||
             LooksLikeCFunction(t, std::min<size_t>(indent, 4));
    case Lang::kC: {
      std::string_view u =
          StripWords(t, {"export ", "inline ", "static ", "extern ",
                         "constexpr ", "template <", "template<"});
      if (StartsWithAny(
              u, {"class ", "struct ", "union ", "enum ", "namespace "})) {
        // Forward declarations end with ';'.
        return t.back() != ';' && u.find(' ') + 1 < u.size() &&
               IsIdentChar(u[u.find(' ') + 1]);
      }
      if (t.starts_with("#define ")) return indent == 0;
      return LooksLikeCFunction(t, indent);
    }
    case Lang::kNone:
      break;
  }
  return false;
}

size_t IndentOf(std::string_view line) {
  size_t n = 0;
  for (char c : line) {
    if (c == ' ') {
      ++n;
    } else if (c == '\t') {
      n += 4;
    } else {
      break;
    }
  }
  return n;
}

}  // namespace

bool SummarizeCode(const Tokenizer& tok, const StructuralInput& in,
                   size_t max_tokens, std::string* out) {
  std::vector<std::string_view> lines = SplitLines(in.head);
  if (in.sampled && !lines.empty() && !in.head.ends_with('\n')) {
    lines.pop_back();
  }
  Lang lang = FromExtension(in.name);
  const bool by_name = lang != Lang::kNone;
  if (!by_name && !lines.empty() && lines[0].starts_with("#!")) {
    std::string_view s = lines[0];
    if (s.find("python") != std::string_view::npos) lang = Lang::kPython;
    if (s.find("node") != std::string_view::npos) lang = Lang::kJs;
    if (s.find("sh") != std::string_view::npos && lang == Lang::kNone) {
      lang = Lang::kShell;
    }
  }
  if (lang == Lang::kNone) {
    // Whichever language's patterns match most of the first lines, if the
    // text looks like code at all (braces, semicolons, colons at line end).
    size_t probe = std::min<size_t>(lines.size(), 4000);
    size_t codey = 0;
    size_t nonblank = 0;
    for (size_t i = 0; i < probe; ++i) {
      std::string_view t = TrimRight(lines[i]);
      if (TrimLeft(t).empty()) continue;
      ++nonblank;
      char c = t.back();
      if (c == '{' || c == '}' || c == ';' || c == ':' || c == ')' ||
          c == ',' || TrimLeft(t).starts_with("//") ||
          TrimLeft(t).starts_with("#") || TrimLeft(t).starts_with("import ")) {
        ++codey;
      }
    }
    if (nonblank == 0 || codey * 2 < nonblank) return false;
    size_t best = 0;
    for (Lang l :
         {Lang::kPython, Lang::kRust, Lang::kGo, Lang::kJs, Lang::kC}) {
      size_t hits = 0;
      for (size_t i = 0; i < probe; ++i) {
        if (IsDefinition(l, lines[i], IndentOf(lines[i]))) ++hits;
      }
      if (hits > best) {
        best = hits;
        lang = l;
      }
    }
    if (best < 2) return false;
  }

  struct Def {
    size_t line;
    size_t indent;
  };
  std::vector<Def> defs;
  size_t imports = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string_view t = TrimLeft(lines[i]);
    if (StartsWithAny(t, {"#include", "import ", "from ", "use ", "require(",
                          "package "}) ||
        (t.starts_with("const ") && t.find("require(") != std::string::npos)) {
      ++imports;
    }
    size_t indent = IndentOf(lines[i]);
    if (IsDefinition(lang, lines[i], indent)) defs.push_back({i, indent});
  }
  if (!by_name && defs.size() < 2) return false;

  TextCounts counts = EffectiveCounts(tok, in);
  std::string header = std::string("code (") + LangName(lang) +
                       "): " + CountsPhrase(counts) + ", " +
                       core::GroupedNumber(defs.size()) +
                       (defs.size() == 1 ? " definition" : " definitions");
  if (imports > 0) header += ", " + core::GroupedNumber(imports) + " imports";
  if (in.sampled)
    header += " (sampled: outline of the first " +
              core::HumanBytes(in.head.size()) + ")";

  // With many definitions, the top-level ones (the least indented) first.
  size_t min_indent = SIZE_MAX;
  for (const Def& d : defs) min_indent = std::min(min_indent, d.indent);
  std::vector<Def> shown;
  if (defs.size() > 150) {
    for (const Def& d : defs) {
      if (d.indent == min_indent) shown.push_back(d);
    }
  } else {
    shown = defs;
  }
  SummaryBlock outline{"outline (line: definition):", {}, 4, false};
  if (shown.size() < defs.size()) {
    outline.heading = "outline of " + core::GroupedNumber(shown.size()) +
                      " top-level definitions (line: definition):";
  }
  for (const Def& d : shown) {
    size_t rel = std::min<size_t>(d.indent - std::min(d.indent, min_indent), 8);
    std::string text =
        std::string(rel, ' ') + std::string(TrimRight(TrimLeft(lines[d.line])));
    // Built by appends: GCC 12 at -O3 reports a false -Wrestrict on the
    // equivalent chain of operator+ (GCC bug 105329).
    std::string entry = "L";
    entry += std::to_string(d.line + 1);
    entry += ": ";
    entry += ClipLine(text, 160);
    outline.lines.push_back(std::move(entry));
  }
  SummaryBlock head{"head:", {}, 1, false};
  for (size_t i = 0; i < lines.size() && head.lines.size() < 12; ++i) {
    if (TrimLeft(lines[i]).empty()) continue;
    head.lines.push_back(ClipLine(lines[i], 160));
  }
  *out = RenderWithinBudget(tok, header, {outline, head}, max_tokens);
  return true;
}

}  // namespace ctxkit::text
