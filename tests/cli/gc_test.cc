// `ctxkit gc` through the real binary: what a session pins and what a spawn
// manifest names survives; unreferenced superseded versions go.

#include <chrono>
#include <string>
#include <thread>

#include "cli/cli_test_util.h"

namespace ctxkit::cli::testing {
namespace {

TEST_F(CliTest, GcKeepsWhatSessionsAndManifestsNameAndCollectsTheRest) {
  for (const char* key : {"pinned", "passed", "plain"}) {
    Ok({"set", key, std::string(key) + " v1"});
    Ok({"set", key, std::string(key) + " v2"});
  }
  const std::string passed_v1 = Chomp(Ok({"ref", "passed", "--version", "1"}));
  Ok({"session", "new", "s1"});
  Ok({"session", "pin", "s1", "pinned", "--version", "1"});
  // The child sets no result (exit 1); its manifest stays.
  Run({"spawn", "--ref", "data=" + passed_v1, "--", "true"});
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));

  nlohmann::json dry = Json({"gc", "--older-than", "1s"});
  EXPECT_FALSE(dry["applied"]);
  EXPECT_GE(dry["versions"], 1);
  EXPECT_GE(dry["kept_by_ref"], 2);
  EXPECT_EQ(Ok({"get", "plain", "--version", "1"}), "plain v1");  // Dry.

  nlohmann::json done = Json({"gc", "--older-than", "1s", "--apply"});
  EXPECT_TRUE(done["applied"]);
  EXPECT_EQ(done["versions"], dry["versions"]);
  EXPECT_EQ(Ok({"get", "pinned", "--version", "1"}), "pinned v1");
  EXPECT_EQ(Ok({"resolve", passed_v1}), "passed v1");
  ProcessResult gone = Run({"get", "plain", "--version", "1"});
  EXPECT_EQ(gone.exit_code, 1) << gone.err;
  EXPECT_EQ(Ok({"get", "plain"}), "plain v2");

  ProcessResult bad = Run({"gc", "--older-than", "soon"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("--older-than"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace ctxkit::cli::testing
