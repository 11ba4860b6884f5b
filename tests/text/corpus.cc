#include "text/corpus.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string_view>
#include <system_error>

#include "common/utf8.h"

namespace ctxkit::text_test {
namespace {

using ::ctxkit::testing::AppendUtf8;

// A small fixed PRNG (splitmix64) so the corpus is the same everywhere,
// independent of the standard library's distributions.
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n).
  size_t Below(size_t n) { return static_cast<size_t>(Next() % n); }
  bool OneIn(size_t n) { return Below(n) == 0; }

 private:
  uint64_t state_;
};

std::string Utf8(std::initializer_list<char32_t> cps) {
  std::string s;
  for (char32_t cp : cps) AppendUtf8(cp, &s);
  return s;
}

// Concatenates regular files under `roots` (sorted walk, so the order is
// stable) until `budget` bytes. Skips files that look binary.
std::string ReadFiles(const std::vector<std::string>& roots,
                      const std::vector<std::string>& suffixes, size_t budget) {
  std::vector<std::filesystem::path> files;
  for (const std::string& root : roots) {
    std::error_code ec;
    std::filesystem::recursive_directory_iterator it(
        root, std::filesystem::directory_options::skip_permission_denied, ec);
    for (; !ec && it != std::filesystem::recursive_directory_iterator();
         it.increment(ec)) {
      if (!it->is_regular_file(ec) || it->is_symlink(ec)) continue;
      const std::string name = it->path().filename().string();
      bool match = suffixes.empty();
      for (const std::string& s : suffixes) {
        match =
            match || (name.size() >= s.size() &&
                      name.compare(name.size() - s.size(), s.size(), s) == 0);
      }
      if (match) files.push_back(it->path());
    }
  }
  std::sort(files.begin(), files.end());
  // Spread the picks over the whole sorted list rather than taking the
  // first directory only, for variety.
  std::string out;
  const size_t stride = std::max<size_t>(1, files.size() / 4000);
  for (size_t pass = 0; pass < stride && out.size() < budget; ++pass) {
    for (size_t i = pass; i < files.size() && out.size() < budget;
         i += stride) {
      std::ifstream in(files[i], std::ios::binary);
      std::string content((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
      if (content.find('\0') != std::string::npos) continue;
      out += content;
    }
  }
  if (out.size() > budget) out.resize(budget);
  return out;
}

std::string Pick(Rng& rng, const std::vector<std::string>& options) {
  return options[rng.Below(options.size())];
}

const std::vector<std::string>& Words() {
  static const std::vector<std::string> words = {
      "the",
      "context",
      "store",
      "Agent",
      "handle",
      "token",
      "HTTP",
      "JSON",
      "isn't",
      "we'll",
      "THEY'RE",
      "you've",
      "I'm",
      "she'd",
      "it's",
      "IT'S",
      "naïve",
      "café",
      "Straße",
      "Ωmega",
      "ǅemal",
      "Ǆ",
      "ﬁne",
      "x86_64",
      "café",
      "e\xCC\x81",
      "über",
      "ÉCOLE",
      "don't",
      "o'clock",
      "rock'n'roll",
      "'tis",
      "ʼn",
      "ʰello",
      "MiXeD",
      "camelCaseWord",
      "snake_case_word",
      "SCREAMING_CASE",
      "ABCdef",
      "aBC",
  };
  return words;
}

std::string Prose(Rng& rng, size_t size) {
  std::string s;
  while (s.size() < size) {
    s += Pick(rng, Words());
    switch (rng.Below(12)) {
      case 0:
        s += ". ";
        break;
      case 1:
        s += ", ";
        break;
      case 2:
        s += "\n";
        break;
      case 3:
        s += "  ";
        break;
      default:
        s += " ";
        break;
    }
  }
  return s;
}

std::string Json(Rng& rng, size_t size) {
  std::string s = "[\n";
  int id = 0;
  while (s.size() < size) {
    s += "  {\"id\": " + std::to_string(id++) + ", \"name\": \"" +
         Pick(rng, Words()) +
         "\", \"score\": " + std::to_string(rng.Below(100000)) + "." +
         std::to_string(rng.Below(1000)) + ", \"tags\": [\"" +
         Pick(rng, Words()) + "\", \"" + Pick(rng, Words()) +
         "\"], \"nested\": {\"ok\": true, \"v\": null, \"path\": "
         "\"/usr/lib/x86_64-linux-gnu/\", \"esc\": \"\\u00e9\\n\\t\"}},\n";
    if (rng.OneIn(20)) s += "{\"a\":{\"b\":{\"c\":[1,2,3,{\"d\":\"e\"}]}}},";
  }
  return s + "  {}\n]\n";
}

std::string Cjk(Rng& rng, size_t size) {
  std::string s;
  while (s.size() < size) {
    switch (rng.Below(8)) {
      case 0:
        AppendUtf8(0x4E00 + rng.Below(0x5200), &s);
        break;  // Han
      case 1:
        AppendUtf8(0x3041 + rng.Below(0x56), &s);
        break;  // Hiragana
      case 2:
        AppendUtf8(0x30A1 + rng.Below(0x5A), &s);
        break;  // Katakana
      case 3:
        AppendUtf8(0xAC00 + rng.Below(0x2BA4), &s);
        break;  // Hangul
      case 4:
        s += Pick(rng, {"。", "、", "「", "」", "！", "？", "・", "ー", "（",
                        "）", "　", "\n", " ", "１２３", "ＡＢｃ"});
        break;
      case 5:
        AppendUtf8(0x20000 + rng.Below(0xA6E0), &s);
        break;  // Ext B
      case 6:
        s += Pick(rng, {"東京", "日本語", "中文", "한국어", "テスト",
                        "ひらがな", "漢字", "2024年", "3月"});
        break;
      default:
        s += Pick(rng, Words());
        s += ' ';
        break;
    }
  }
  return s;
}

std::string Emoji(Rng& rng, size_t size) {
  const std::vector<std::string> emoji = {
      Utf8({0x1F600}),
      Utf8({0x1F44D, 0x1F3FD}),
      Utf8({0x1F468, 0x200D, 0x1F469, 0x200D, 0x1F467, 0x200D, 0x1F466}),
      Utf8({0x1F1EF, 0x1F1F5}),
      Utf8({0x2764, 0xFE0F}),
      Utf8({0x1F525}),
      Utf8({0x1F3F3, 0xFE0F, 0x200D, 0x1F308}),
      Utf8({0x0031, 0xFE0F, 0x20E3}),
      Utf8({0x1F9D1, 0x200D, 0x1F4BB}),
      Utf8({0x2728}),
      Utf8({0x1FAE0}),
      Utf8({0x1F44B, 0x1F3FB}),
      Utf8({0x1F3F4, 0xE0067, 0xE0062, 0xE0065, 0xE006E, 0xE0067, 0xE007F})};
  std::string s;
  while (s.size() < size) {
    const size_t n = 1 + rng.Below(4);
    for (size_t i = 0; i < n; ++i) s += Pick(rng, emoji);
    s += Pick(rng, {" ", "", "\n", "!", " great ", "ok", ". ", "'s "});
    if (rng.OneIn(3)) s += Pick(rng, Words());
  }
  return s;
}

std::string Whitespace(Rng& rng, size_t size) {
  const std::vector<std::string> spaces = {" ",
                                           "\t",
                                           "\n",
                                           "\r\n",
                                           "\r",
                                           "\v",
                                           "\f",
                                           Utf8({0xA0}),
                                           Utf8({0x3000}),
                                           Utf8({0x2028}),
                                           Utf8({0x2029}),
                                           Utf8({0x85}),
                                           Utf8({0x2003}),
                                           Utf8({0x200B}),
                                           Utf8({0x1680}),
                                           Utf8({0x202F})};
  std::string s;
  while (s.size() < size) {
    const size_t run = rng.OneIn(10) ? rng.Below(400) : rng.Below(6);
    const std::string unit =
        rng.OneIn(2) ? std::string(" ") : Pick(rng, spaces);
    for (size_t i = 0; i < run; ++i) {
      s += rng.OneIn(8) ? Pick(rng, spaces) : unit;
    }
    s += Pick(rng, {"x", "Word", "1", "12345", ".", "...", "//", "'s", "é",
                    "中", "#", "\n", ""});
  }
  return s;
}

std::string Digits(Rng& rng, size_t size) {
  const std::vector<std::string> other_digits = {
      Utf8({0x0661, 0x0662, 0x0663}), Utf8({0xFF11, 0xFF12}),
      Utf8({0x00B2, 0x00B3}),         Utf8({0x2163, 0x216B}),  // Nl
      Utf8({0x0966, 0x0967}),         Utf8({0x00BD}),
      Utf8({0x2460, 0x2461}),         Utf8({0x1D7CE, 0x1D7CF})};
  std::string s;
  while (s.size() < size) {
    const size_t run = rng.OneIn(20) ? rng.Below(2000) : 1 + rng.Below(12);
    for (size_t i = 0; i < run; ++i) s.push_back('0' + rng.Below(10));
    s += Pick(rng, {" ", ".", ",", "-", "e", "x", "\n", "", "_", "/"});
    if (rng.OneIn(4)) s += Pick(rng, other_digits);
    if (rng.OneIn(6)) s += "3.14159 1,000,000 0xDEADBEEF 1e-9 v1.2.3 ";
  }
  return s;
}

std::string Contractions(Rng& rng, size_t size) {
  const std::vector<std::string> parts = {"'s",
                                          "'S",
                                          "'t",
                                          "'T",
                                          "'re",
                                          "'RE",
                                          "'rE",
                                          "'ve",
                                          "'VE",
                                          "'m",
                                          "'M",
                                          "'ll",
                                          "'LL",
                                          "'lL",
                                          "'d",
                                          "'D",
                                          "'",
                                          "''",
                                          "'x",
                                          "'r",
                                          "'v",
                                          "'l",
                                          Utf8({'\'', 0x17F}),
                                          Utf8({'\'', 0x212A}),
                                          Utf8({'\'', 0x212B}),
                                          Utf8({0x2019, 's'}),
                                          " '",
                                          "' ",
                                          "\n'"};
  const std::vector<std::string> stems = {"dog",
                                          "DOG",
                                          "Dog",
                                          "é",
                                          "Ǆ",
                                          "ǅ",
                                          "ʰ",
                                          "中",
                                          "1",
                                          " ",
                                          "",
                                          "e\xCC\x81",
                                          Utf8({0x0301}),
                                          Utf8({0x0903}),
                                          Utf8({0x20DD}),
                                          "A",
                                          "a",
                                          "!"};
  std::string s;
  while (s.size() < size) {
    s += Pick(rng, stems);
    s += Pick(rng, parts);
    if (rng.OneIn(2)) s += Pick(rng, stems);
  }
  return s;
}

// Every code point, each followed by a context character, so that each
// one is classified (letter case, mark, number, space, other) the same way
// tiktoken's Unicode tables do. All of planes 0-3 and 14; every 7th code
// point of the other planes.
std::string UnicodeSweep() {
  const std::vector<std::string> contexts = {
      "a", "A", " ", "'s", "1", ".", "\n", "", "ab", "AB", Utf8({0x0301})};
  std::string s;
  size_t k = 0;
  for (char32_t cp = 0; cp <= 0x10FFFF; ++cp) {
    if (cp >= 0xD800 && cp <= 0xDFFF) continue;
    const uint32_t plane = cp >> 16;
    if (plane > 3 && plane != 14 && cp % 7 != 0) continue;
    AppendUtf8(cp, &s);
    s += contexts[k++ % contexts.size()];
  }
  return s;
}

// Random strings over a small alphabet that has one member of each class
// the patterns distinguish, to hit branch combinations at random.
std::string ClassMix(Rng& rng, size_t size) {
  const std::vector<std::string> alphabet = {"a",
                                             "Z",
                                             "ǅ" /*Lt*/,
                                             "ʰ" /*Lm*/,
                                             "中" /*Lo*/,
                                             Utf8({0x0301}) /*Mn*/,
                                             Utf8({0x0903}) /*Mc*/,
                                             Utf8({0x20DD}) /*Me*/,
                                             "7",
                                             "Ⅻ" /*Nl*/,
                                             "½" /*No*/,
                                             " ",
                                             "  ",
                                             "\t",
                                             "\n",
                                             "\r",
                                             Utf8({0xA0}),
                                             Utf8({0x3000}),
                                             "'",
                                             "s",
                                             "t",
                                             "re",
                                             "ll",
                                             "/",
                                             ".",
                                             "-",
                                             "\"",
                                             "#",
                                             Utf8({0x17F}),
                                             "é",
                                             "É",
                                             Utf8({0x1F600}),
                                             Utf8({0x2028}),
                                             "\r\n",
                                             "\n\n"};
  std::string s;
  while (s.size() < size) s += Pick(rng, alphabet);
  return s;
}

std::string LongRuns(Rng& rng, size_t size) {
  std::string s;
  while (s.size() < size) {
    const size_t n = 64 + rng.Below(6000);
    switch (rng.Below(7)) {
      case 0:
        s.append(n, 'a');
        break;
      case 1:
        for (size_t i = 0; i < n; ++i) s.push_back('a' + rng.Below(26));
        break;
      case 2:
        s.append(n, '=');
        break;
      case 3:
        s.append(n, ' ');
        break;
      case 4:
        for (size_t i = 0; i < n; ++i) s.push_back("ACGT"[rng.Below(4)]);
        break;
      case 5:
        for (size_t i = 0; i < n / 3; ++i)
          AppendUtf8(0x4E00 + rng.Below(300), &s);
        break;
      default:
        for (size_t i = 0; i < n; ++i) {
          s.push_back(
              "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
              "+/="[rng.Below(55)]);
        }
        break;
    }
    s += Pick(rng, {" ", "\n", "", "1", ".", "'s"});
  }
  return s;
}

// Ill-formed UTF-8 of every kind between valid text.
std::string Invalid(Rng& rng, size_t size) {
  const std::vector<std::string> bad = {"\x80",
                                        "\xBF",
                                        "\xC0\xAF",
                                        "\xC1\xBF",
                                        "\xC2",
                                        "\xE0\x80\x80",
                                        "\xE0\xA0",
                                        "\xED\xA0\x80",
                                        "\xED\xBF\xBF",
                                        "\xEF\xBF",
                                        "\xF0\x80",
                                        "\xF0\x90\x80",
                                        "\xF4\x90\x80\x80",
                                        "\xF5\x80\x80\x80",
                                        "\xFE",
                                        "\xFF",
                                        "\xC3\x28",
                                        "\xE2\x82\x28",
                                        "\xF0\x28\x8C\xBC",
                                        "\xF8\x88\x80\x80\x80",
                                        "\xC3\xA9\xA9",
                                        "\xE4\xB8"};
  std::string s;
  while (s.size() < size) {
    switch (rng.Below(4)) {
      case 0:
        s += Pick(rng, bad);
        break;
      case 1:
        s.push_back(static_cast<char>(rng.Below(256)));
        break;
      default:
        s += Pick(rng, Words());
        s += Pick(rng, {" ", "", "\n", "'s", "é", "中"});
        break;
    }
  }
  return s;
}

}  // namespace

std::vector<CorpusCase> BuildCorpus(size_t total_bytes) {
  Rng rng(20250601);
  const size_t unit = total_bytes / 100;  // Shares below are percentages.
  std::vector<CorpusCase> cases;
  auto add = [&](std::string name, std::string bytes) {
    if (!bytes.empty()) cases.push_back({std::move(name), std::move(bytes)});
  };
  add("licenses", ReadFiles({"/usr/share/common-licenses"}, {}, 5 * unit));
  add("headers",
      ReadFiles({"/usr/include"}, {".h", ".hpp", ".tcc", ".inc"}, 18 * unit));
  add("docs",
      ReadFiles({"/usr/share/doc"},
                {"copyright", ".txt", ".md", ".html", ".rst"}, 10 * unit));
  add("prose", Prose(rng, 5 * unit));
  add("json", Json(rng, 6 * unit));
  add("cjk", Cjk(rng, 6 * unit));
  add("emoji", Emoji(rng, 4 * unit));
  add("whitespace", Whitespace(rng, 6 * unit));
  add("digits", Digits(rng, 4 * unit));
  add("contractions", Contractions(rng, 3 * unit));
  add("class_mix", ClassMix(rng, 8 * unit));
  add("long_runs", LongRuns(rng, 5 * unit));
  add("invalid_utf8", Invalid(rng, 4 * unit));
  add("unicode_sweep", UnicodeSweep());
  // Real files may be missing on a minimal machine: top up with generated
  // text so the corpus still reaches its size.
  size_t have = 0;
  for (const CorpusCase& c : cases) have += c.bytes.size();
  if (have < total_bytes) {
    add("prose_topup", Prose(rng, total_bytes - have));
  }
  return cases;
}

}  // namespace ctxkit::text_test
