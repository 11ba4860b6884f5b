// `ctxkit demo` on a temporary CTXKIT_HOME: exits 0, stays short (one
// screen per capability), is re-runnable, and leaves what it claims in the
// store.

#include <algorithm>
#include <string>

#include "cli/cli_test_util.h"

namespace ctxkit::cli::testing {
namespace {

TEST_F(CliTest, DemoRunsTwiceOnDefaultHome) {
  RunOptions o;
  o.pass_home = false;
  o.env = {"CTXKIT_HOME=" + home_};
  ProcessResult first = Run({"demo"}, o);
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  EXPECT_EQ(first.err, "");
  EXPECT_LE(std::count(first.out.begin(), first.out.end(), '\n'), 60)
      << first.out;
  for (const char* want :
       {"ck:", "smaller", "Sub-agent", "permission_denied", "Static ref",
        "separate process", "exit 0", "session-only", "exit 5", "chunks",
        "context manager", "is locked", "adds 0 messages", "File watchers",
        "'missing'", "Tool-output capture", "(bm25)", "notes search",
        "Done."}) {
    EXPECT_NE(first.out.find(want), std::string::npos) << want << "\n"
                                                       << first.out;
  }

  nlohmann::json versions = Json({"versions", "demo/corpus"});
  ASSERT_EQ(versions["versions"].size(), 2u);
  EXPECT_EQ(versions["versions"][0]["size_bytes"], 4u << 20);

  ProcessResult again = Run({"demo"}, o);
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_EQ(Json({"versions", "demo/corpus"})["versions"].size(), 4u);
  // The session-only value never reached the disk.
  EXPECT_EQ(Run({"get", "demo/scratch"}).exit_code, 1);
}

}  // namespace
}  // namespace ctxkit::cli::testing
