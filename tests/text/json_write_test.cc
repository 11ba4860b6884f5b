// text::DumpJson writes exactly nlohmann's dump(-1, ' ', false, replace):
// checked on hand-picked documents and on random ones with every kind of
// value and every byte in strings, ill-formed UTF-8 included.

#include "text/json_write.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>

namespace ctxkit::text {
namespace {

using Json = nlohmann::json;

std::string Reference(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

TEST(JsonWriteTest, MatchesNlohmannOnEveryKindOfValue) {
  const Json docs[] = {
      nullptr,
      true,
      false,
      0,
      -1,
      std::numeric_limits<int64_t>::min(),
      std::numeric_limits<uint64_t>::max(),
      1.5,
      -0.0,
      1e300,
      "",
      "plain",
      "quote \" backslash \\ slash / tab \t nl \n cr \r bs \b ff \f",
      std::string("nul \0 and \x01 \x1f \x7f", 15),
      "caf\xC3\xA9 \xE6\x97\xA5\xE6\x9C\xAC \xF0\x9F\x98\x80",
      "bad \xC3 cut, \xFF byte, \xED\xA0\x80 surrogate, \xC0\xAF overlong",
      Json::array(),
      Json::object(),
      {{"b", 1}, {"a", {1, 2, "x"}}, {"k\"ey\n", {{"z", nullptr}}}},
      Json::binary({1, 2, 3}),
  };
  for (const Json& j : docs) {
    EXPECT_EQ(DumpJson(j), Reference(j)) << Reference(j);
  }
}

Json RandomValue(std::mt19937_64& rng, int depth) {
  std::uniform_int_distribution<int> kind(0, depth > 3 ? 5 : 7);
  switch (kind(rng)) {
    case 0:
      return nullptr;
    case 1:
      return rng() % 2 == 0;
    case 2:
      return static_cast<int64_t>(rng());
    case 3:
      return static_cast<uint64_t>(rng());
    case 4:
      return std::ldexp(static_cast<double>(rng() % 100000) - 50000,
                        static_cast<int>(rng() % 40) - 20);
    case 5: {
      std::string s(rng() % 40, '\0');
      for (char& c : s) {
        // Mostly text, some controls and quotes, some high bytes.
        const uint64_t r = rng() % 10;
        c = static_cast<char>(r < 6   ? 'a' + rng() % 26
                              : r < 8 ? rng() % 0x30
                                      : 0x80 + rng() % 0x80);
      }
      return s;
    }
    case 6: {
      Json a = Json::array();
      for (uint64_t i = rng() % 5; i > 0; --i) {
        a.push_back(RandomValue(rng, depth + 1));
      }
      return a;
    }
    default: {
      Json o = Json::object();
      for (uint64_t i = rng() % 5; i > 0; --i) {
        o[std::string(1, static_cast<char>('a' + rng() % 26))] =
            RandomValue(rng, depth + 1);
      }
      return o;
    }
  }
}

TEST(JsonWriteTest, MatchesNlohmannOnRandomDocuments) {
  std::mt19937_64 rng(20261205);
  for (int i = 0; i < 20000; ++i) {
    const Json j = RandomValue(rng, 0);
    ASSERT_EQ(DumpJson(j), Reference(j)) << "document " << i;
  }
}

TEST(JsonWriteTest, AnOrderedDocumentKeepsItsKeyOrder) {
  nlohmann::ordered_json j = {{"z", 1}, {"a", {{"y", "\n"}, {"b", nullptr}}}};
  EXPECT_EQ(DumpJson(j), R"({"z":1,"a":{"y":"\n","b":null}})");
  EXPECT_EQ(
      DumpJson(j),
      j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
}

TEST(JsonWriteTest, AppendsToWhatIsThere) {
  std::string out = "x=";
  AppendJson(nlohmann::json{{"a", "b"}}, &out);
  EXPECT_EQ(out, R"(x={"a":"b"})");
}

}  // namespace
}  // namespace ctxkit::text
