// Numbers past 2^64 - 1 are usage errors naming the flag, never saturated
// to the largest value.

#include <string>
#include <vector>

#include "cli/cli_test_util.h"

namespace ctxkit::cli::testing {
namespace {

using NumberFlagsTest = CliTest;

TEST_F(NumberFlagsTest, NumbersPastTwoToTheSixtyFourAreUsageErrors) {
  Ok({"set", "k", "value"});
  const std::string huge = "18446744073709551616";  // 2^64
  for (const std::vector<std::string>& args :
       std::vector<std::vector<std::string>>{
           {"get", "k", "--offset", huge},
           {"get", "k", "--length", huge},
           {"get", "k", "--version", huge},
           {"set", "k", "v2", "--if-version", huge},
           {"peek", "k", "--max-bytes", huge},
           {"search", "x", "--max", huge}}) {
    ProcessResult r = Run(args);
    EXPECT_EQ(r.exit_code, 2) << Describe(args, r);
    EXPECT_NE(r.err.find("larger than 18446744073709551615"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find(args[args.size() - 2]), std::string::npos) << r.err;
  }
  // The largest value itself is accepted where it makes sense.
  EXPECT_EQ(Ok({"get", "k", "--length", "18446744073709551615"}), "value");
  EXPECT_EQ(Ok({"get", "k"}), "value");  // Nothing was written.
}

}  // namespace
}  // namespace ctxkit::cli::testing
