// SHA-256, HMAC-SHA-256 and base64 against their published test vectors:
// refs and session ids made by any build must verify in every later one,
// whichever library computes them.

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "core/encoding.h"
#include "core/hmac.h"
#include "core/sha256.h"

namespace ctxkit::core {
namespace {

TEST(Sha256Test, MatchesFips180Vectors) {
  EXPECT_EQ(ToHex(Sha256("")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(ToHex(Sha256("abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  // Fed in pieces of every size, the same digest.
  const std::string msg =
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
  for (size_t piece = 1; piece <= msg.size(); ++piece) {
    Sha256Hasher hasher;
    for (size_t at = 0; at < msg.size(); at += piece) {
      hasher.Update(std::string_view(msg).substr(at, piece));
    }
    EXPECT_EQ(
        ToHex(hasher.Finish()),
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        << piece;
  }
}

TEST(HmacSha256Test, MatchesRfc4231Vectors) {
  // Test case 2: a short key.
  HmacSha256 jefe("Jefe");
  EXPECT_EQ(ToHex(jefe.Mac("what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
  // Test case 6: a key longer than the block, hashed first.
  HmacSha256 long_key(std::string(131, '\xaa'));
  EXPECT_EQ(
      ToHex(long_key.Mac("Test Using Larger Than Block-Size Key - Hash Key "
                         "First")),
      "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

TEST(HmacSha256Test, OneKeyServesManyThreadsAtOnce) {
  HmacSha256 mac("Jefe");
  std::vector<std::thread> threads;
  std::vector<int> wrong(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&mac, &wrong, t] {
      for (int i = 0; i < 2000; ++i) {
        if (ToHex(mac.Mac("what do ya want for nothing?")) !=
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec384"
            "3") {
          ++wrong[t];
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int w : wrong) EXPECT_EQ(w, 0);
}

TEST(Base64Test, MatchesRfc4648Vectors) {
  const std::vector<std::pair<std::string, std::string>> vectors = {
      {"", ""},
      {"f", "Zg=="},
      {"fo", "Zm8="},
      {"foo", "Zm9v"},
      {"foob", "Zm9vYg=="},
      {"fooba", "Zm9vYmE="},
      {"foobar", "Zm9vYmFy"}};
  for (const auto& [in, out] : vectors) EXPECT_EQ(Base64(in), out) << in;
  // base64url: '-' and '_' for '+' and '/', no padding.
  EXPECT_EQ(Base64(std::string("\xfb\xff", 2)), "+/8=");
  EXPECT_EQ(Base64Url(std::string("\xfb\xff", 2)), "-_8");
  EXPECT_EQ(Base64Url("f"), "Zg");
}

TEST(CryptoTest, ConstantTimeEqualsAndRandomBytes) {
  EXPECT_TRUE(ConstantTimeEquals("abc", "abc"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "abd"));
  EXPECT_FALSE(ConstantTimeEquals("abc", "ab"));
  EXPECT_TRUE(ConstantTimeEquals("", ""));
  Result<std::string> a = SecureRandomBytes(32);
  Result<std::string> b = SecureRandomBytes(32);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->size(), 32u);
  EXPECT_NE(*a, *b);
  EXPECT_EQ(SecureRandomBytes(0)->size(), 0u);
}

}  // namespace
}  // namespace ctxkit::core
