// Agreement with tiktoken: on several megabytes of mixed text, every token
// sequence must equal what the pinned npm package produces.
//
// Size: 5 MB of generated/collected cases plus a sweep over every Unicode
// code point (about 2.4 MB), for both encodings. Under a sanitizer build
// (Debug, ASan+UBSan, several times slower) the scaled cases shrink to
// 1 MB; the code-point sweep is always complete. The release run covers
// the full size.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "ctxkit/tokenizer.h"
#include "text/corpus.h"
#include "text/reference.h"

namespace ctxkit {
namespace {

#if defined(__SANITIZE_ADDRESS__) || !defined(NDEBUG)
constexpr size_t kCorpusBytes = size_t{1} << 20;
#else
constexpr size_t kCorpusBytes = 5u << 20;
#endif

// Describes the first difference with the text around it.
std::string Explain(const Tokenizer& tok, std::string_view text,
                    const std::vector<uint32_t>& got,
                    const std::vector<uint32_t>& want) {
  size_t i = 0;
  while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
  auto show = [&](const std::vector<uint32_t>& ids) {
    std::string out;
    const size_t from = i >= 4 ? i - 4 : 0;
    for (size_t k = from; k < std::min(ids.size(), i + 6); ++k) {
      Result<std::string> piece = tok.Decode(std::span(&ids[k], 1));
      out += (k == i ? " >>" : " ") + std::to_string(ids[k]) + "=\"" +
             (piece.ok() ? *piece : "?") + "\"";
    }
    return out;
  };
  // The byte offset of the difference, and the bytes there in hex.
  Result<std::string> prefix = tok.Decode(std::span(want.data(), i));
  const size_t offset = prefix.ok() ? prefix->size() : 0;
  std::string hex;
  char buf[4];
  for (size_t k = offset >= 8 ? offset - 8 : 0;
       k < std::min(text.size(), offset + 8); ++k) {
    std::snprintf(buf, sizeof(buf), "%02x",
                  static_cast<unsigned char>(text[k]));
    hex += (k == offset ? " >>" : " ") + std::string(buf);
  }
  return "first difference at token " + std::to_string(i) + " of " +
         std::to_string(want.size()) + ", byte " + std::to_string(offset) +
         ":" + hex + "\n  ctxkit:  " + show(got) + "\n  tiktoken:" + show(want);
}

void ExpectAgreement(Encoding encoding) {
  Result<const Tokenizer*> tok = Tokenizer::Get(encoding);
  ASSERT_TRUE(tok.ok()) << tok.status().ToString();
  const std::vector<text_test::CorpusCase> corpus =
      text_test::BuildCorpus(kCorpusBytes);
  std::vector<std::string> inputs;
  size_t total = 0;
  for (const auto& c : corpus) {
    inputs.push_back(c.bytes);
    total += c.bytes.size();
  }
  ASSERT_GE(total, kCorpusBytes);
  Result<std::vector<std::vector<uint32_t>>> want =
      text_test::ReferenceEncode(EncodingName(encoding), inputs);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  ASSERT_EQ(want->size(), corpus.size());
  size_t tokens = 0;
  for (size_t i = 0; i < corpus.size(); ++i) {
    const std::vector<uint32_t> got = (*tok)->Encode(corpus[i].bytes);
    tokens += got.size();
    EXPECT_TRUE(got == (*want)[i])
        << EncodingName(encoding) << " case " << corpus[i].name << " ("
        << corpus[i].bytes.size()
        << " bytes): " << Explain(**tok, corpus[i].bytes, got, (*want)[i]);
    EXPECT_EQ((*tok)->Count(corpus[i].bytes), (*want)[i].size())
        << corpus[i].name;
  }
  testing::Test::RecordProperty("corpus_bytes", std::to_string(total));
  testing::Test::RecordProperty("tokens", std::to_string(tokens));
  std::printf("%s: %zu bytes, %zu tokens compared with tiktoken\n",
              std::string(EncodingName(encoding)).c_str(), total, tokens);
}

TEST(TokenizerAgreementTest, O200kBaseMatchesTiktoken) {
  ExpectAgreement(Encoding::kO200kBase);
}

TEST(TokenizerAgreementTest, Cl100kBaseMatchesTiktoken) {
  ExpectAgreement(Encoding::kCl100kBase);
}

}  // namespace
}  // namespace ctxkit
