#include "explore/regex_literals.h"

#include <cstring>
#include <vector>

#include "text/byte_scan.h"

namespace ctxkit::explore {
namespace {

constexpr size_t kNpos = std::string_view::npos;

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool IsAsciiPunct(char c) {
  return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') ||
         (c >= '[' && c <= '`') || (c >= '{' && c <= '~');
}

// Does a "(?flags)" or "(?flags:" group anywhere turn on case folding?
// Scanned anywhere (even where "(?" is escaped): a false alarm costs only
// the prefilter.
bool MayFoldCase(std::string_view p) {
  for (size_t at = p.find("(?"); at != kNpos; at = p.find("(?", at + 2)) {
    for (size_t i = at + 2; i < p.size(); ++i) {
      const char c = p[i];
      if (c == 'i') return true;
      if (c == '-') break;  // Flags after '-' are turned off.
      if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) break;
    }
  }
  return false;
}

// The position after the class starting at p[i] == '[', or kNpos.
size_t SkipClass(std::string_view p, size_t i) {
  ++i;
  if (i < p.size() && p[i] == '^') ++i;
  if (i < p.size() && p[i] == ']') ++i;  // A leading ']' is a member.
  while (i < p.size()) {
    if (p[i] == '\\') {
      i += 2;
      continue;
    }
    if (p[i] == '[' && i + 1 < p.size() && p[i + 1] == ':') {
      const size_t e = p.find(":]", i + 2);
      if (e != kNpos) {
        i = e + 2;
        continue;
      }
    }
    if (p[i] == ']') return i + 1;
    ++i;
  }
  return kNpos;
}

// The position after the group starting at p[i] == '(', or kNpos.
size_t SkipGroup(std::string_view p, size_t i) {
  int depth = 0;
  while (i < p.size()) {
    const char c = p[i];
    if (c == '\\') {
      i += 2;
      continue;
    }
    if (c == '[') {
      i = SkipClass(p, i);
      if (i == kNpos) return kNpos;
      continue;
    }
    if (c == '(') ++depth;
    if (c == ')' && --depth == 0) return i + 1;
    ++i;
  }
  return kNpos;
}

// The position after the escape starting at p[i] == '\\'.
size_t SkipEscape(std::string_view p, size_t i) {
  if (i + 1 >= p.size()) return p.size();
  const char d = p[i + 1];
  if ((d == 'p' || d == 'P' || d == 'x') && i + 2 < p.size() &&
      p[i + 2] == '{') {
    const size_t e = p.find('}', i + 3);
    return e == kNpos ? p.size() : e + 1;
  }
  if (d == 'p' || d == 'P') return std::min(p.size(), i + 3);  // \pN
  if (d == 'x') return std::min(p.size(), i + 4);
  if (d == 'Q') {
    const size_t e = p.find("\\E", i + 2);
    return e == kNpos ? p.size() : e + 2;
  }
  size_t j = i + 2;
  if (IsDigit(d)) {
    while (j < p.size() && IsDigit(p[j])) ++j;  // Octal.
  }
  return j;
}

// A repetition operator at p[i]: sets its length (with a trailing '?'
// that makes it lazy) and whether it allows zero repetitions.
bool Quantifier(std::string_view p, size_t i, size_t* len, bool* optional) {
  if (i >= p.size()) return false;
  const char c = p[i];
  size_t j = i + 1;
  if (c == '*' || c == '?') {
    *optional = true;
  } else if (c == '+') {
    *optional = false;
  } else if (c == '{') {
    const size_t digits = j;
    while (j < p.size() && IsDigit(p[j])) ++j;
    if (j == digits) return false;  // Not a repetition: a literal '{'.
    bool zero = true;
    for (size_t k = digits; k < j; ++k) zero = zero && p[k] == '0';
    if (j < p.size() && p[j] == ',') {
      ++j;
      while (j < p.size() && IsDigit(p[j])) ++j;
    }
    if (j >= p.size() || p[j] != '}') return false;
    ++j;
    *optional = zero;
  } else {
    return false;
  }
  if (j < p.size() && p[j] == '?') ++j;
  *len = j - i;
  return true;
}

size_t Utf8Length(unsigned char c) {
  if (c < 0x80) return 1;
  if ((c >> 5) == 0x6) return 2;
  if ((c >> 4) == 0xe) return 3;
  if ((c >> 3) == 0x1e) return 4;
  return 1;
}

// Lower is better: the ranks of the two rarest bytes.
int Score(const std::string& run) {
  int a = 256;
  int b = 256;
  for (char c : run) {
    const int r = text::ByteFrequencyRank(static_cast<uint8_t>(c));
    if (r < a) {
      b = a;
      a = r;
    } else if (r < b) {
      b = r;
    }
  }
  return a + b;
}

}  // namespace

std::string RequiredLiteral(std::string_view p) {
  if (MayFoldCase(p)) return "";
  std::vector<std::string> runs;
  std::string cur;
  auto end_run = [&] {
    if (!cur.empty()) runs.push_back(std::move(cur));
    cur.clear();
  };
  // Skips a repetition operator after a non-literal atom.
  auto skip_quantifier = [&](size_t i) {
    size_t len = 0;
    bool optional = false;
    return Quantifier(p, i, &len, &optional) ? i + len : i;
  };
  size_t i = 0;
  while (i < p.size()) {
    const char c = p[i];
    if (c == '|' || c == ')') return "";  // Alternation, or unbalanced.
    if (c == '(' || c == '[') {
      end_run();
      const size_t j = c == '(' ? SkipGroup(p, i) : SkipClass(p, i);
      if (j == kNpos) return "";
      i = skip_quantifier(j);
      continue;
    }
    std::string unit;
    size_t unit_len = 0;
    if (c == '\\') {
      if (i + 1 < p.size() && IsAsciiPunct(p[i + 1])) {
        unit.assign(1, p[i + 1]);
        unit_len = 2;
      } else {
        end_run();
        i = skip_quantifier(SkipEscape(p, i));
        continue;
      }
    } else if (std::strchr(".^$*+?{}]", c) != nullptr) {
      end_run();
      i = skip_quantifier(i + 1);
      continue;
    } else {
      unit_len =
          std::min(Utf8Length(static_cast<unsigned char>(c)), p.size() - i);
      unit.assign(p.substr(i, unit_len));
    }
    i += unit_len;
    size_t len = 0;
    bool optional = false;
    if (Quantifier(p, i, &len, &optional)) {
      // "ab+" requires "ab" but not "abb"; "ab?" requires only "a".
      if (!optional) cur += unit;
      end_run();
      i += len;
      continue;
    }
    cur += unit;
  }
  end_run();
  std::string best;
  int best_score = 1 << 20;
  for (std::string& run : runs) {
    const int score = Score(run);
    if (score < best_score ||
        (score == best_score && run.size() > best.size())) {
      best_score = score;
      best = std::move(run);
    }
  }
  return best;
}

}  // namespace ctxkit::explore
