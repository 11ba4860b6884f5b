// The find verb through the real binary.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "common/cli_shell_test.h"

namespace ctxkit::testing {
namespace {

class CliIndexTest : public CliShellTest {
 protected:
  CliIndexTest() : CliShellTest("ctxkit-index-cli") {}
};

TEST_F(CliIndexTest, FindPrintsRefsAndJson) {
  int code = 0;
  Run("set docs/auth 'tokens are refreshed by the refresh endpoint'", &code);
  ASSERT_EQ(code, 0);
  Run("set docs/db 'the database uses a write-ahead log'", &code);
  ASSERT_EQ(code, 0);
  std::string out = Run("find 'refresh tokens'", &code);
  EXPECT_EQ(code, 0);
  EXPECT_EQ(out.rfind("ck:", 0), 0u) << out;
  EXPECT_NE(out.find(":docs/auth @0+"), std::string::npos) << out;

  auto j =
      nlohmann::json::parse(Run("find 'write-ahead' --json --top 1", &code));
  EXPECT_EQ(code, 0);
  ASSERT_EQ(j["hits"].size(), 1u);
  EXPECT_EQ(j["hits"][0]["key"], "docs/db");
  EXPECT_EQ(j["hits"][0]["method"], "bm25");
  EXPECT_EQ(j["method"], "bm25");
  EXPECT_EQ(j["hits"][0]["byte_offset"], 0);

  j = nlohmann::json::parse(
      Run("find-relevant database --key docs/auth --json", &code));
  EXPECT_EQ(code, 0);
  EXPECT_TRUE(j["hits"].empty());

  Run("find '?!'", &code);
  EXPECT_EQ(code, 2);
  Run("find x --key nope", &code);
  EXPECT_EQ(code, 1);
  Run("find x --top 0", &code);
  EXPECT_EQ(code, 2);
}

TEST_F(CliIndexTest, FindWidensWithRelatedWordsUnlessLiteral) {
  int code = 0;
  Run("set garage 'an automobile dealer sells tyres'", &code);
  ASSERT_EQ(code, 0);
  Run("set kitchen 'the oven was mended on Monday'", &code);
  ASSERT_EQ(code, 0);
  // "car" and "repaired" are in neither value; WordNet relates them to
  // "automobile" and "mended".
  auto j = nlohmann::json::parse(Run("find 'car' --json", &code));
  EXPECT_EQ(code, 0);
  ASSERT_EQ(j["hits"].size(), 1u) << j.dump();
  EXPECT_EQ(j["hits"][0]["key"], "garage");
  j = nlohmann::json::parse(Run("find 'who repaired it' --json", &code));
  ASSERT_EQ(j["hits"].size(), 1u) << j.dump();
  EXPECT_EQ(j["hits"][0]["key"], "kitchen");
  j = nlohmann::json::parse(Run("find 'car' --literal --json", &code));
  EXPECT_EQ(code, 0);
  EXPECT_TRUE(j["hits"].empty()) << j.dump();
}

TEST_F(CliIndexTest, ChunkPrintsRangesAndJson) {
  int code = 0;
  Run("set notes 'first paragraph line one\nline two\n\nsecond paragraph\n'",
      &code);
  ASSERT_EQ(code, 0);
  std::string out = Run("chunk notes --max-tokens 6", &code);
  EXPECT_EQ(code, 0);
  // INDEX  REF @OFFSET+LENGTH  lines B-E  N tokens
  EXPECT_EQ(out.rfind("0  ck:", 0), 0u) << out;
  EXPECT_NE(out.find(":notes @0+"), std::string::npos) << out;
  EXPECT_NE(out.find("  lines 0-"), std::string::npos) << out;
  EXPECT_NE(out.find(" tokens\n"), std::string::npos) << out;

  auto j = nlohmann::json::parse(Run("chunk notes -t 6 --json", &code));
  EXPECT_EQ(code, 0);
  ASSERT_TRUE(j.is_array());
  ASSERT_GE(j.size(), 2u);
  uint64_t at = 0;
  for (size_t i = 0; i < j.size(); ++i) {
    EXPECT_EQ(j[i]["index"], i);
    EXPECT_EQ(j[i]["byte_offset"], at);
    EXPECT_LE(j[i]["tokens"].get<int>(), 6);
    EXPECT_TRUE(j[i]["valid_utf8"].get<bool>());
    at += j[i]["byte_length"].get<uint64_t>();
    // The ref is static and readable by range.
    std::string got =
        Run("resolve " + j[i]["ref"].get<std::string>() + " --offset " +
                std::to_string(j[i]["byte_offset"].get<int>()) + " --length " +
                std::to_string(j[i]["byte_length"].get<int>()),
            &code);
    EXPECT_EQ(code, 0);
    EXPECT_EQ(got.size(), j[i]["byte_length"].get<size_t>());
  }
  EXPECT_EQ(at, 52u);

  // Empty value: no chunks.
  Run("set empty ''", &code);
  ASSERT_EQ(code, 0);
  EXPECT_EQ(Run("chunk empty --max-tokens 5 --json", &code), "[]\n");
  EXPECT_EQ(code, 0);
  EXPECT_EQ(Run("chunk empty --max-tokens 5", &code), "");

  Run("chunk notes --max-tokens 0", &code);
  EXPECT_EQ(code, 2);
  Run("chunk notes --max-tokens -3", &code);
  EXPECT_EQ(code, 2);
  Run("chunk notes", &code);  // --max-tokens is required.
  EXPECT_EQ(code, 2);
  Run("chunk missing --max-tokens 5", &code);
  EXPECT_EQ(code, 1);
  Run("chunk ck:bad --max-tokens 5", &code);
  EXPECT_EQ(code, 2);
  Run("chunk notes --max-tokens 5 --version 7", &code);
  EXPECT_EQ(code, 1);
}

}  // namespace
}  // namespace ctxkit::testing
