// Contracts of include/ctxkit/tokenizer.h that the agreement test does not
// pin down by itself: names, errors, decoding, the ill-formed UTF-8 policy,
// special-token text, and streaming counts.

#include "ctxkit/tokenizer.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "text/byte_pair_merge.h"
#include "text/pretokenizer.h"
#include "text/utf8.h"

namespace ctxkit {
namespace {

const Tokenizer& O200k() { return **Tokenizer::Get(Encoding::kO200kBase); }
const Tokenizer& Cl100k() { return **Tokenizer::Get(Encoding::kCl100kBase); }

TEST(TokenizerTest, GetByEnumAndName) {
  Result<const Tokenizer*> a = Tokenizer::Get();
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ((*a)->encoding(), Encoding::kO200kBase);
  EXPECT_EQ((*a)->name(), "o200k_base");
  Result<const Tokenizer*> b = Tokenizer::Get(std::string_view("cl100k_base"));
  ASSERT_TRUE(b.ok());
  EXPECT_EQ((*b)->encoding(), Encoding::kCl100kBase);
  EXPECT_EQ(*a, *Tokenizer::Get(std::string_view("o200k_base")));  // Shared.
  EXPECT_EQ((*a)->n_vocab(), 200019u);
  EXPECT_EQ((*b)->n_vocab(), 100277u);
}

TEST(TokenizerTest, UnknownEncodingIsInvalidArgument) {
  Result<const Tokenizer*> t = Tokenizer::Get(std::string_view("gpt2"));
  ASSERT_FALSE(t.ok());
  EXPECT_TRUE(t.status().IsInvalidArgument());
  EXPECT_NE(t.status().message().find("o200k_base"), std::string::npos);
  EXPECT_FALSE(ParseEncoding("").ok());
}

TEST(TokenizerTest, KnownTokens) {
  // Ids as tiktoken returns them.
  EXPECT_EQ(O200k().Encode("hello world"),
            (std::vector<uint32_t>{24912, 2375}));
  EXPECT_EQ(Cl100k().Encode("hello world"),
            (std::vector<uint32_t>{15339, 1917}));
  EXPECT_EQ(O200k().Count("hello world"), 2u);
  EXPECT_TRUE(O200k().Encode("").empty());
  EXPECT_EQ(O200k().Count(""), 0u);
}

TEST(TokenizerTest, DecodeRoundTripsValidUtf8) {
  for (const Tokenizer* tok : {&O200k(), &Cl100k()}) {
    for (const std::string& s : std::vector<std::string>{
             "", "a", "Hello, world!\n",
             "naïve café — 東京 👋🏽\r\n\t  x",
             std::string("nul\0byte", 8), "<|endoftext|>", "it's WE'LL"}) {
      Result<std::string> back = tok->Decode(tok->Encode(s));
      ASSERT_TRUE(back.ok());
      EXPECT_EQ(*back, s) << tok->name();
    }
  }
}

TEST(TokenizerTest, SpecialTokenTextIsOrdinaryText) {
  const std::vector<uint32_t> ids = O200k().Encode("<|endoftext|>");
  EXPECT_GT(ids.size(), 1u);
  for (uint32_t id : ids) EXPECT_NE(id, 199999u);
  // But the special id itself decodes to its text.
  const uint32_t eot = 199999;
  EXPECT_EQ(*O200k().Decode(std::span(&eot, 1)), "<|endoftext|>");
}

TEST(TokenizerTest, DecodeRejectsUnknownIds) {
  const std::vector<uint32_t> ids = {24912, 199998, 2375};  // 199998 unused.
  Result<std::string> r = O200k().Decode(ids);
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument());
  EXPECT_NE(r.status().message().find("position 1"), std::string::npos);
  const uint32_t huge = 4000000000u;
  EXPECT_FALSE(Cl100k().Decode(std::span(&huge, 1)).ok());
}

TEST(TokenizerTest, IllFormedUtf8BecomesReplacementCharacters) {
  // Each maximal ill-formed subpart is one U+FFFD, as TextDecoder does:
  // "\xF0\x90\x80" is one truncated sequence, "\xC0" and "\xAF" are two.
  struct Case {
    std::string bad;
    std::string repaired;
  };
  const std::string r(text::kReplacementUtf8);
  const std::vector<Case> cases = {
      {"a\xFF"
       "b",
       "a" + r + "b"},
      {"\xF0\x90\x80"
       "x",
       r + "x"},
      {"\xC0\xAF", r + r},
      {"\xED\xA0\x80", r + r + r},  // An encoded surrogate.
      {"\xF4\x90\x80\x80", r + r + r + r},
      {"end\xE4\xB8", "end" + r},
      {"\xE2\x82\x28", r + "("},
  };
  for (const Case& c : cases) {
    for (const Tokenizer* tok : {&O200k(), &Cl100k()}) {
      EXPECT_EQ(tok->Encode(c.bad), tok->Encode(c.repaired));
      EXPECT_EQ(tok->Count(c.bad), tok->Count(c.repaired));
      EXPECT_EQ(*tok->Decode(tok->Encode(c.bad)), c.repaired);
    }
  }
}

std::vector<std::string> Pieces(text::SplitPattern pattern,
                                std::string_view s) {
  std::vector<std::string> out;
  text::PreTokenizer(pattern).Split(
      s, /*final=*/true, [&](std::string_view p) { out.emplace_back(p); });
  return out;
}

using Strings = std::vector<std::string>;

TEST(PreTokenizerTest, O200kPieces) {
  const auto o = text::SplitPattern::kO200k;
  EXPECT_EQ(Pieces(o, "hello   world"), (Strings{"hello", "  ", " world"}));
  EXPECT_EQ(Pieces(o, "dog's DOG'S"), (Strings{"dog's", " DOG'S"}));
  // (?i:'s) also matches U+017F LATIN SMALL LETTER LONG S.
  EXPECT_EQ(Pieces(o, "dog'\xC5\xBF"), (Strings{"dog'\xC5\xBF"}));
  EXPECT_EQ(Pieces(o, "camelCaseHTTPServer"),
            (Strings{"camel", "Case", "HTTPServer"}));
  EXPECT_EQ(Pieces(o, "12345"), (Strings{"123", "45"}));
  EXPECT_EQ(Pieces(o, "a.\n\n/b"), (Strings{"a", ".\n\n/", "b"}));
  EXPECT_EQ(Pieces(o, "x \t\r\n\r\n  y"),
            (Strings{"x", " \t\r\n\r\n", " ", " y"}));
  EXPECT_EQ(Pieces(o, "end  "), (Strings{"end", "  "}));
}

TEST(PreTokenizerTest, Cl100kPieces) {
  const auto c = text::SplitPattern::kCl100k;
  EXPECT_EQ(Pieces(c, "dog's DOG'S"), (Strings{"dog", "'s", " DOG", "'S"}));
  EXPECT_EQ(Pieces(c, "dog'\xC5\xBF"), (Strings{"dog", "'\xC5\xBF"}));
  EXPECT_EQ(Pieces(c, "camelCase"), (Strings{"camelCase"}));
  EXPECT_EQ(Pieces(c, "a./b"), (Strings{"a", "./", "b"}));
}

TEST(PreTokenizerTest, NotFinalStopsBeforeOpenPiece) {
  const text::PreTokenizer pre(text::SplitPattern::kO200k);
  Strings pieces;
  const std::string_view s = "one two thr";
  const size_t used = pre.Split(
      s, /*final=*/false, [&](std::string_view p) { pieces.emplace_back(p); });
  EXPECT_EQ(pieces, (Strings{"one", " two"}));
  EXPECT_EQ(used, 7u);
}

TEST(TokenizerTest, LinearScanAndHeapMergeAgree) {
  // Pieces just below and above the linear-scan limit take different merge
  // paths; a prefix-consistent check: encoding a long piece equals the
  // agreement-tested result, here cross-checked by counting.
  const Tokenizer& tok = O200k();
  for (size_t n = text::kLinearScanMergeLimit - 2;
       n <= text::kLinearScanMergeLimit + 2; ++n) {
    std::string piece;
    for (size_t i = 0; i < n; ++i) piece.push_back("abcab"[i % 5]);
    const std::vector<uint32_t> ids = tok.Encode(piece);
    EXPECT_EQ(ids.size(), tok.Count(piece));
    EXPECT_EQ(*tok.Decode(ids), piece);
  }
}

TEST(TokenizerTest, OneThreadAlternatingEncodingsGetsEachOnesTokens) {
  // A thread remembers pair ranks between merges (the pair memo in
  // byte_pair_merge.cc); switching encodings must not answer one
  // encoding's pairs from the other's. Runs of CJK characters without a
  // break are long pieces full of merges, in both merge paths.
  std::string text;
  for (int i = 0; i < 40; ++i) text += "日本語の文章を東京で書いた漢字";
  text += " ";
  for (int i = 0; i < 3; ++i) text += "中文字符串处理和自然语言";
  auto alone = [&](const Tokenizer& tok) {
    std::vector<uint32_t> ids;
    std::thread([&] { ids = tok.Encode(text); }).join();
    return ids;
  };
  const std::vector<uint32_t> o200k = alone(O200k());
  const std::vector<uint32_t> cl100k = alone(Cl100k());
  ASSERT_NE(o200k, cl100k);
  std::thread([&] {
    for (int round = 0; round < 3; ++round) {
      EXPECT_EQ(O200k().Encode(text), o200k) << round;
      EXPECT_EQ(Cl100k().Encode(text), cl100k) << round;
      EXPECT_EQ(Cl100k().Count(text), cl100k.size()) << round;
    }
  }).join();
  EXPECT_EQ(*O200k().Decode(o200k), text);
}

TEST(TokenCounterTest, MatchesCountForAnyChunking) {
  std::string text = "Hello  world's END\r\n\n   \t x 12345 中文字 ";
  text += "\xF0\x9F\x91\x8B\xF0\x9F\x8F\xBD \xFF\xC3 caf\xC3\xA9 ";
  text += std::string(300, ' ') + "tail" + std::string(5000, 'q') + "'ll";
  for (const Tokenizer* tok : {&O200k(), &Cl100k()}) {
    const size_t want = tok->Count(text);
    for (size_t chunk : {1u, 2u, 3u, 7u, 64u, 4096u, 100000u}) {
      TokenCounter counter(*tok);
      for (size_t i = 0; i < text.size(); i += chunk) {
        counter.Append(std::string_view(text).substr(i, chunk));
      }
      EXPECT_EQ(counter.Finish(), want) << tok->name() << " chunk " << chunk;
    }
    TokenCounter counter(*tok);
    EXPECT_EQ(counter.Finish(), 0u);
    counter.Append("again");
    EXPECT_EQ(counter.Finish(), tok->Count("again"));  // Reusable.
  }
}

}  // namespace
}  // namespace ctxkit
