// The structural summarizers as pure functions: each kind, and the hard
// rule that no summary is longer than max_tokens.

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "ctxkit/tokenizer.h"
#include "text/summarize_budget.h"
#include "text/summarize_structural.h"

namespace ctxkit::text {
namespace {

const Tokenizer& Tok() { return **Tokenizer::Get(Encoding::kO200kBase); }

StructuralSummary Summ(std::string_view value, size_t max_tokens,
                       ValueType type = ValueType::kText,
                       std::string_view name = "") {
  StructuralInput in;
  in.head = value;
  in.total_bytes = value.size();
  in.type = type;
  in.name = name;
  return SummarizeStructural(Tok(), in, max_tokens);
}

std::string Prose(size_t paragraphs, uint32_t seed) {
  static const char* kWords[] = {
      "the",     "store",  "agent", "handle",    "context", "version",
      "summary", "token",  "value", "reference", "scope",   "session",
      "durable", "memory", "tier",  "spill",     "budget",  "model",
      "reads",   "writes", "range", "stream",    "key",     "of",
      "and",     "a",      "to",    "in",        "is",      "for"};
  std::mt19937 rng(seed);
  std::string out;
  for (size_t p = 0; p < paragraphs; ++p) {
    for (int s = 0; s < 4; ++s) {
      int n = 6 + static_cast<int>(rng() % 10);
      for (int w = 0; w < n; ++w) {
        out += kWords[rng() % (sizeof kWords / sizeof *kWords)];
        out += w + 1 < n ? " " : ". ";
      }
    }
    out += "\n";
  }
  return out;
}

std::string PythonCode() {
  std::string s = "#!/usr/bin/env python3\nimport os\nimport sys\n\n";
  for (int i = 0; i < 30; ++i) {
    s += "class Handler" + std::to_string(i) + "(Base):\n";
    s += "    def handle_" + std::to_string(i) + "(self, request):\n";
    s += "        return request.value * " + std::to_string(i) + "\n\n";
  }
  s += "def main():\n    print('hi')\n";
  return s;
}

std::string CppCode() {
  std::string s =
      "#include <string>\n#include <vector>\n\nnamespace demo {\n\n";
  for (int i = 0; i < 20; ++i) {
    s += "class Widget" + std::to_string(i) + " {\n public:\n";
    s += "  int Size() const { return " + std::to_string(i) + "; }\n};\n\n";
    s += "int Compute" + std::to_string(i) + "(int x, int y) {\n";
    s += "  return x + y;\n}\n\n";
  }
  s += "}  // namespace demo\n";
  return s;
}

std::string RustCode() {
  std::string s = "use std::io;\n\n";
  for (int i = 0; i < 10; ++i) {
    s += "pub struct Item" + std::to_string(i) + " {\n    v: u32,\n}\n\n";
    s += "impl Item" + std::to_string(i) +
         " {\n    pub fn new() -> Self {\n"
         "        Self { v: 0 }\n    }\n}\n\n";
  }
  return s;
}

std::string GoCode() {
  std::string s = "package main\n\nimport \"fmt\"\n\n";
  for (int i = 0; i < 10; ++i) {
    s += "type Server" + std::to_string(i) + " struct {\n\tport int\n}\n\n";
    s += "func (s *Server" + std::to_string(i) +
         ") Summ() error {\n"
         "\treturn nil\n}\n\n";
  }
  return s;
}

std::string TsCode() {
  std::string s = "import { x } from './x';\n\n";
  for (int i = 0; i < 10; ++i) {
    s += "export interface Props" + std::to_string(i) +
         " {\n  a: number;\n}\n\n";
    s += "export function render" + std::to_string(i) +
         "(p: Props) {\n  return p.a;\n}\n\n";
    s += "export const make" + std::to_string(i) + " = (a: number) => a;\n\n";
  }
  return s;
}

std::string JsonDoc(int items) {
  std::string s =
      R"({"name":"ctxkit","version":"0.1.0","tags":["a","b"],"items":[)";
  for (int i = 0; i < items; ++i) {
    if (i > 0) s += ",";
    s += R"({"id":)" + std::to_string(i) + R"(,"title":"item )" +
         std::to_string(i) + R"(","price":)" + std::to_string(i) +
         R"(.5,"ok":true,"meta":{"owner":"agent-)" + std::to_string(i % 3) +
         R"(","extra":null}})";
  }
  s += R"(],"weird key!":{"x":1}})";
  return s;
}

std::vector<std::pair<std::string, std::string>> Corpus() {
  std::vector<std::pair<std::string, std::string>> c;
  c.push_back({"prose", Prose(60, 1)});
  c.push_back({"python", PythonCode()});
  c.push_back({"cpp", CppCode()});
  c.push_back({"rust", RustCode()});
  c.push_back({"go", GoCode()});
  c.push_back({"ts", TsCode()});
  c.push_back({"json", JsonDoc(80)});
  c.push_back({"json-array", "[1,2,3,\"x\",{\"a\":[true,false,null]}]"});
  c.push_back(
      {"cjk-emoji",
       std::string(300, ' ') +
           "\xE4\xBD\xA0\xE5\xA5\xBD\xE4\xB8\x96"
           "\xE7\x95\x8C \xF0\x9F\x98\x80\xF0\x9F\x8E\x89\n"
           "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E\xE3\x81\xAE\xE6\x96\x87"
           "\n"});
  c.push_back({"digits", std::string(5000, '7')});
  c.push_back({"one-long-line", std::string(20000, 'a')});
  c.push_back(
      {"spaces", std::string(3000, ' ') + "x" + std::string(3000, '\n')});
  c.push_back({"invalid-utf8",
               "ok \xC3\x28 bad \xFF\xFE\n\xE2\x82 tail\n" + Prose(3, 7)});
  c.push_back({"binary", std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16) +
                             std::string(500, '\0')});
  c.push_back({"ndjson", "{\"a\":1}\n{\"a\":2}\n{\"a\":3}\n"});
  c.push_back(
      {"markdown", "# Title\n\nIntro text.\n\n## Install\n\n" + Prose(20, 3) +
                       "## Errors\n\nERROR: disk full\n" + Prose(20, 4)});
  c.push_back({"single-char", "x"});
  return c;
}

TEST(StructuralSummaryTest, NeverOverBudget) {
  const std::vector<size_t> budgets = {1, 2, 3, 5, 8, 13, 20, 34, 50, 100, 500};
  for (const auto& [name, value] : Corpus()) {
    for (size_t budget : budgets) {
      StructuralSummary s = Summ(value, budget);
      size_t n = Tok().Count(s.text);
      EXPECT_LE(n, budget) << name << " budget " << budget << ":\n" << s.text;
      EXPECT_FALSE(s.text.empty()) << name << " budget " << budget;
    }
  }
}

TEST(StructuralSummaryTest, NeverOverBudgetRandomBytes) {
  std::mt19937 rng(42);
  for (int round = 0; round < 40; ++round) {
    std::string value(1 + rng() % 3000, '\0');
    // Mostly printable, some newlines, some high bytes.
    for (char& c : value) {
      uint32_t r = rng() % 100;
      c = r < 80   ? static_cast<char>('a' + rng() % 26)
          : r < 90 ? '\n'
          : r < 95 ? ' '
                   : static_cast<char>(0x80 + rng() % 128);
    }
    size_t budget = 1 + rng() % 120;
    StructuralSummary s = Summ(value, budget);
    EXPECT_LE(Tok().Count(s.text), budget) << "round " << round;
  }
}

TEST(StructuralSummaryTest, ZeroBudgetIsEmpty) {
  EXPECT_EQ(Summ("hello", 0).text, "");
}

TEST(StructuralSummaryTest, JsonShowsShapePathsCountsAndSamples) {
  StructuralSummary s = Summ(JsonDoc(80), 400, ValueType::kJson);
  EXPECT_EQ(s.kind, "json");
  EXPECT_NE(s.text.find("json: object with 5 keys"), std::string::npos)
      << s.text;
  EXPECT_NE(s.text.find("$.items  array"), std::string::npos) << s.text;
  EXPECT_NE(s.text.find("80 items"), std::string::npos) << s.text;
  EXPECT_NE(s.text.find("$.items[].title  string x80"), std::string::npos)
      << s.text;
  EXPECT_NE(s.text.find("e.g. \"item 0\""), std::string::npos) << s.text;
  EXPECT_NE(s.text.find("$.items[].meta.owner"), std::string::npos) << s.text;
  EXPECT_NE(s.text.find("$[\"weird key!\"]"), std::string::npos) << s.text;
}

TEST(StructuralSummaryTest, JsonDetectedFromContent) {
  StructuralSummary s = Summ("[1, 2, 3]", 100);
  EXPECT_EQ(s.kind, "json");
  EXPECT_NE(s.text.find("array of 3 items"), std::string::npos) << s.text;
  // NDJSON and malformed JSON are text.
  EXPECT_EQ(Summ("{\"a\":1}\n{\"a\":2}\n", 100).kind, "text");
  EXPECT_EQ(Summ("{\"a\":", 100).kind, "text");
}

TEST(StructuralSummaryTest, JsonSampledCutStillGivesShape) {
  std::string doc = JsonDoc(200);
  StructuralInput in;
  in.head = std::string_view(doc).substr(0, doc.size() / 2);
  in.sampled = true;
  in.total_bytes = doc.size();
  in.type = ValueType::kJson;
  StructuralSummary s = SummarizeStructural(Tok(), in, 300);
  EXPECT_EQ(s.kind, "json");
  EXPECT_NE(s.text.find("sampled"), std::string::npos) << s.text;
  EXPECT_NE(s.text.find("$.items[].id"), std::string::npos) << s.text;
}

TEST(StructuralSummaryTest, DeepJsonDoesNotBlowUp) {
  std::string deep(100000, '[');
  deep += std::string(100000, ']');
  StructuralSummary s = Summ(deep, 50, ValueType::kJson);
  EXPECT_EQ(s.kind, "json");
  EXPECT_LE(Tok().Count(s.text), 50u);
}

TEST(StructuralSummaryTest, CodeOutlines) {
  struct Case {
    std::string name, value, lang, def;
  };
  std::vector<Case> cases = {
      {"tool.py", PythonCode(), "python", "class Handler7(Base):"},
      {"", PythonCode(), "python", "def handle_3(self, request):"},
      {"w.cc", CppCode(), "c/c++", "int Compute4(int x, int y) {"},
      {"", CppCode(), "c/c++", "class Widget2 {"},
      {"lib.rs", RustCode(), "rust", "pub struct Item3 {"},
      {"main.go", GoCode(), "go", "func (s *Server1) Summ() error {"},
      {"ui.tsx", TsCode(), "javascript/typescript",
       "export interface Props2 {"},
  };
  for (const Case& c : cases) {
    StructuralSummary s = Summ(c.value, 2000, ValueType::kText, c.name);
    EXPECT_EQ(s.kind, "code") << c.name << "\n" << s.text;
    EXPECT_NE(s.text.find("code (" + c.lang + ")"), std::string::npos)
        << c.name << "\n"
        << s.text;
    EXPECT_NE(s.text.find(c.def), std::string::npos) << c.name << "\n"
                                                     << s.text;
    EXPECT_NE(s.text.find("definitions"), std::string::npos);
  }
  // Line numbers point into the value.
  StructuralSummary py = Summ(PythonCode(), 2000, ValueType::kText, "a.py");
  EXPECT_NE(py.text.find("L5: class Handler0(Base):"), std::string::npos)
      << py.text;
}

TEST(StructuralSummaryTest, ProseIsNotCode) {
  EXPECT_EQ(Summ(Prose(30, 9), 200).kind, "text");
}

TEST(StructuralSummaryTest, TextHeadKeyLinesTailAndCounts) {
  std::string value = "# Deployment report\n\nAll systems nominal.\n";
  for (int i = 0; i < 200; ++i) {
    value += "routine heartbeat from worker " + std::to_string(i % 7) + " ok\n";
  }
  value += "ERROR: replica quorum lost on shard zeta-7\n";
  for (int i = 0; i < 200; ++i) {
    value += "routine heartbeat from worker " + std::to_string(i % 7) + " ok\n";
  }
  value += "final line: shutdown complete\n";
  StructuralSummary s = Summ(value, 300);
  EXPECT_EQ(s.kind, "text");
  EXPECT_NE(s.text.find("405 lines"), std::string::npos) << s.text;
  EXPECT_NE(s.text.find("tokens"), std::string::npos) << s.text;
  EXPECT_NE(s.text.find("# Deployment report"), std::string::npos) << s.text;
  EXPECT_NE(s.text.find("L204: ERROR: replica quorum lost"), std::string::npos)
      << s.text;
  EXPECT_NE(s.text.find("final line: shutdown complete"), std::string::npos)
      << s.text;
}

TEST(StructuralSummaryTest, SampledTextSaysSo) {
  std::string head = Prose(50, 2);
  std::string tail = "partial line\nthe very last line\n";
  StructuralInput in;
  in.head = head;
  in.tail = tail;
  in.sampled = true;
  in.total_bytes = 100u << 20;
  in.counts = {100u << 20, 2000000, 15000000, 20000000, false};
  StructuralSummary s = SummarizeStructural(Tok(), in, 200);
  EXPECT_NE(s.text.find("(sampled"), std::string::npos) << s.text;
  EXPECT_NE(s.text.find("~20,000,000 tokens"), std::string::npos) << s.text;
  EXPECT_NE(s.text.find("the very last line"), std::string::npos) << s.text;
  EXPECT_EQ(s.text.find("partial line"), std::string::npos) << s.text;
}

TEST(StructuralSummaryTest, StreamIndexOfChunks) {
  std::string value;
  StructuralInput in;
  for (int i = 1; i <= 30; ++i) {
    std::string part = "event " + std::to_string(i) + " arrived\n";
    in.chunks.push_back(
        {static_cast<uint64_t>(i), value.size(), part.size(), part});
    value += part;
  }
  in.chunk_count = 30;
  in.head = value;
  in.total_bytes = value.size();
  in.type = ValueType::kStream;
  StructuralSummary s = SummarizeStructural(Tok(), in, 2000);
  EXPECT_EQ(s.kind, "stream");
  EXPECT_NE(s.text.find("stream: 30 chunks"), std::string::npos) << s.text;
  EXPECT_NE(s.text.find("#1 @0 +16 B: event 1 arrived"), std::string::npos)
      << s.text;
  EXPECT_NE(s.text.find("#30 @"), std::string::npos) << s.text;
  EXPECT_NE(s.text.find("latest lines:"), std::string::npos) << s.text;
  for (size_t budget : {1, 5, 20, 60}) {
    EXPECT_LE(Tok().Count(SummarizeStructural(Tok(), in, budget).text), budget);
  }
}

TEST(StructuralSummaryTest, BinaryAndEmpty) {
  StructuralSummary b =
      Summ(std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16), 100);
  EXPECT_EQ(b.kind, "binary");
  EXPECT_NE(b.text.find("PNG image"), std::string::npos) << b.text;
  EXPECT_NE(b.text.find("89 50 4e 47"), std::string::npos) << b.text;
  StructuralSummary e = Summ("", 100);
  EXPECT_EQ(e.kind, "empty");
  EXPECT_EQ(e.text, "empty (0 bytes)");
}

TEST(StructuralSummaryTest, FitToTokensKeepsPrefixAndValidUtf8) {
  std::string s =
      "\xE4\xBD\xA0\xE5\xA5\xBD\xE4\xB8\x96\xE7\x95\x8C hello "
      "world, this is a test of trimming";
  for (size_t budget = 1; budget < 15; ++budget) {
    std::string fit = FitToTokens(Tok(), s, budget);
    EXPECT_LE(Tok().Count(fit), budget);
    EXPECT_EQ(s.compare(0, fit.size(), fit), 0) << fit;
  }
  EXPECT_EQ(FitToTokens(Tok(), "short", 10), "short");
}

TEST(StructuralSummaryTest, CountsBuilderMatchesTokenizer) {
  std::string value = Prose(10, 5);
  TextCountsBuilder b(Tok());
  for (size_t i = 0; i < value.size(); i += 7) b.Append(value.substr(i, 7));
  TextCounts c = b.Finish();
  EXPECT_EQ(c.tokens, Tok().Count(value));
  EXPECT_EQ(c.bytes, value.size());
  EXPECT_EQ(c.lines, 10u);
}

}  // namespace
}  // namespace ctxkit::text
