// The peek, search and len verbs through the real binary.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "common/cli_shell_test.h"

namespace ctxkit::testing {
namespace {

class CliExploreTest : public CliShellTest {
 protected:
  CliExploreTest() : CliShellTest("ctxkit-explore-cli") {}
};

TEST_F(CliExploreTest, PeekSearchLen) {
  int code = 0;
  Run("set notes", &code, "zero\\none\\ntwo\\nthree\\n");
  ASSERT_EQ(code, 0);
  EXPECT_EQ(Run("peek notes 1 3", &code), "one\ntwo\n");
  EXPECT_EQ(code, 0);
  EXPECT_EQ(Run("peek notes --start -1", &code), "three\n");
  EXPECT_EQ(Run("peek notes --start 1 --end 4 --unit bytes", &code), "ero");
  nlohmann::json j = nlohmann::json::parse(Run("peek notes 0 2 --json", &code));
  EXPECT_EQ(j["text"], "zero\none\n");
  EXPECT_EQ(j["unit"], "lines");
  EXPECT_EQ(j["end"], 2);

  Run("set list --type json", &code, R"([10, 20, 30])");
  ASSERT_EQ(code, 0);
  EXPECT_EQ(Run("peek list 1 3", &code), "[20, 30]");
  j = nlohmann::json::parse(Run("peek list 0 1 --unit items --json", &code));
  EXPECT_EQ(j["parts"], nlohmann::json::array({"10"}));
  Run("peek notes 0 1 --unit items", &code);
  EXPECT_EQ(code, 4);  // failed_precondition
  Run("peek nope", &code);
  EXPECT_EQ(code, 1);
  Run("peek notes --unit pages", &code);
  EXPECT_EQ(code, 2);

  EXPECT_EQ(Run("search TWO -i", &code), "notes:3:two\n");
  EXPECT_EQ(code, 0);
  EXPECT_EQ(Run("search '^t.*e$' --regex --key notes", &code),
            "notes:4:three\n");
  EXPECT_EQ(Run("search one -C 1", &code),
            "notes-1-zero\nnotes:2:one\nnotes-3-two\n");
  j = nlohmann::json::parse(Run("search 0 --json", &code));
  ASSERT_EQ(j["matches"].size(), 1u);
  EXPECT_EQ(j["matches"][0]["key"], "list");
  EXPECT_EQ(j["matches"][0]["byte_offset"], 2);
  Run("search 'a(' --regex", &code);
  EXPECT_EQ(code, 2);
  EXPECT_EQ(Run("search o --max 1", &code),
            "notes:1:zero\n-- stopped at --max 1; more matches may exist\n");

  j = nlohmann::json::parse(Run("len notes --json", &code));
  EXPECT_EQ(j["size_bytes"], 19);
  EXPECT_EQ(j["lines"], 4);
  EXPECT_TRUE(j["chunks"].is_null());
  j = nlohmann::json::parse(Run("len list --json", &code));
  EXPECT_EQ(j["items"], 3);
}

}  // namespace
}  // namespace ctxkit::testing
