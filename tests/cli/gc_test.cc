// `ctxkit gc` through the real binary: what a session pins and what a spawn
// manifest names survives; unreferenced superseded versions go; a pin made
// by another process while gc runs is refused or kept; a store whose
// sessions predate holds has them recorded by its first gc (render records
// included).

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_test_util.h"
#include "cli/output.h"
#include "session/log_builders.h"

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

// A dry run reports the bytes --apply then frees on disk, the same way: a
// blob a kept version shares is not freed, so it is not counted either.
// `--older-than 0s` collects every superseded version now.
TEST_F(CliTest, GcDryRunReportsWhatApplyFrees) {
  const std::string big(100 << 10, 'a');    // Over the inline limit: a blob.
  const std::string other(100 << 10, 'b');  // Another blob.
  Ok({"set", "shared"}, big);               // v1 and v2 share one blob
  Ok({"set", "shared"}, big);
  Ok({"set", "copy"}, big);  // and so does this v1,
  Ok({"set", "copy", "small"});
  Ok({"set", "unique"}, other);  // whose blob goes with v1.
  Ok({"set", "unique", "small"});
  Ok({"set", "inline", "one"});
  Ok({"set", "inline", "two"});

  nlohmann::json dry = Json({"gc", "--older-than", "0s"});
  EXPECT_FALSE(dry["applied"]);
  EXPECT_EQ(dry["versions"], 4);
  EXPECT_EQ(dry["blob_files"], 1);
  EXPECT_GT(dry["bytes"].get<uint64_t>(), dry["freed_bytes"].get<uint64_t>());
  EXPECT_GE(dry["freed_bytes"].get<uint64_t>(), 3u);  // "one", the blob.
  const std::string text = Ok({"gc", "--older-than", "0s"});
  EXPECT_EQ(Ok({"get", "unique", "--version", "1"}), other);  // Dry.

  nlohmann::json done = Json({"gc", "--older-than", "0s", "--apply"});
  EXPECT_TRUE(done["applied"]);
  EXPECT_EQ(done["versions"], dry["versions"]);
  EXPECT_EQ(done["freed_bytes"], dry["freed_bytes"]);
  EXPECT_EQ(done["blob_files"], dry["blob_files"]);
  const std::string freed = ExactBytes(done["freed_bytes"].get<uint64_t>());
  EXPECT_NE(text.find("would free " + freed), std::string::npos) << text;
  EXPECT_EQ(Ok({"get", "shared"}), big);
}

// The race of issue reports: `gc --apply` in one process, `session pin` in
// another. An acknowledged pin never names a collected version, and the
// session keeps rendering.
TEST_F(CliTest, APinRacingGcInAnotherProcessIsRefusedOrKept) {
  constexpr int kKeys = 8;
  for (int i = 0; i < kKeys; ++i) {
    const std::string key = "k" + std::to_string(i);
    Ok({"set", key, "one"});
    Ok({"set", key, "two"});
  }
  Ok({"session", "new", "s"});
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  for (int i = 0; i < kKeys; ++i) {
    const std::string key = "k" + std::to_string(i);
    ProcessResult gc;
    std::thread collector([&] {
      gc = Run({"gc", "--older-than", "1s", "--apply"});
    });
    ProcessResult pin = Run({"session", "pin", "s", key, "--version", "1"});
    collector.join();
    EXPECT_EQ(gc.exit_code, 0) << gc.err;
    if (pin.exit_code == 0) {
      EXPECT_EQ(Ok({"get", key, "--version", "1"}), "one") << key;
    } else {
      EXPECT_EQ(pin.exit_code, 1) << pin.err;  // not_found: collected first.
    }
  }
  ProcessResult render = Run({"render", "s", "--budget", "10000"});
  EXPECT_EQ(render.exit_code, 0) << render.err;
}

// A store written by a build that recorded no holds: its first gc reads
// the sessions and keeps what they name.
TEST_F(CliTest, GcRecordsWhatSessionsOfAnEarlierBuildNameBeforeCollecting) {
  Ok({"set", "doc", "one"});
  Ok({"set", "doc", "two"});
  Ok({"set", "plain", "one"});
  Ok({"set", "plain", "two"});
  Ok({"session", "new", "s"});
  Ok({"session", "pin", "s", "doc", "--version", "1"});
  // What an earlier build leaves: no holds, and the migration's flag.
  Result<ProcessResult> forget =
      RunProcess({"sqlite3", home_ + "/ctxkit.db",
                  "DELETE FROM holds; INSERT INTO meta(name, value) "
                  "VALUES ('holds_pending', '1');"});
  ASSERT_TRUE(forget.ok()) << forget.status().ToString();
  ASSERT_EQ(forget->exit_code, 0) << forget->err;
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  nlohmann::json done = Json({"gc", "--older-than", "1s", "--apply"});
  EXPECT_EQ(done["versions"], 1);  // plain@1
  EXPECT_EQ(done["kept_by_ref"], 1);
  EXPECT_EQ(Ok({"get", "doc", "--version", "1"}), "one");
  Result<ProcessResult> state = RunProcess(
      {"sqlite3", home_ + "/ctxkit.db",
       "SELECT count(*) FROM holds; SELECT count(*) FROM meta WHERE name = "
       "'holds_pending';"});
  ASSERT_TRUE(state.ok());
  EXPECT_NE(state->out, "0\n0\n") << "no holds were recorded";
  EXPECT_EQ(state->out.substr(state->out.size() - 2), "0\n");
}

// A store of a build that kept spawn manifests only as files under
// <home>/spawn and recorded no holds: its first gc imports the manifest
// into the store and keeps what it names.
TEST_F(CliTest, FirstGcOfAnEarlierBuildsStoreKeepsWhatItsManifestFilesName) {
  Ok({"set", "passed", "one"});
  Ok({"set", "passed", "two"});
  const std::string passed_v1 = Chomp(Ok({"ref", "passed", "--version", "1"}));
  Run({"spawn", "--ref", "data=" + passed_v1, "--", "true"});
  // What an earlier build leaves: the file alone, no record, no holds.
  Result<ProcessResult> forget = RunProcess(
      {"sqlite3", home_ + "/ctxkit.db",
       "DELETE FROM holds; DELETE FROM records; INSERT INTO meta(name, "
       "value) VALUES ('holds_pending', '1');"});
  ASSERT_TRUE(forget.ok()) << forget.status().ToString();
  ASSERT_EQ(forget->exit_code, 0) << forget->err;
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  nlohmann::json done = Json({"gc", "--older-than", "1s", "--apply"});
  EXPECT_EQ(done["versions"], 0);
  EXPECT_EQ(Ok({"resolve", passed_v1}), "one");
  Result<ProcessResult> state = RunProcess(
      {"sqlite3", home_ + "/ctxkit.db",
       "SELECT count(*) FROM records WHERE kind = 'spawn'; SELECT count(*) "
       "FROM holds WHERE holder LIKE 'spawn:%';"});
  ASSERT_TRUE(state.ok());
  EXPECT_EQ(state->out, "1\n1\n");
}

// A render record shows a chat output at the version the chat names ([i]).
// In a store of an earlier build, once the output moved on (a new version
// and the pool's entry with it, or a rewritten log), only a chat names that
// version: the first gc holds it too, so the record still replays.
TEST_F(CliTest, FirstGcOfAnEarlierBuildsStoreKeepsTheOutputsRecordsShowed) {
  const std::string log = tmp_.path() + "/log.json";
  std::ofstream(log) << ctxkit::testing::OpenAILog(1).dump();
  nlohmann::json rewritten = ctxkit::testing::OpenAILog(1);
  rewritten["messages"][1]["content"] = "Please look for another thing";
  rewritten["messages"][3]["content"] = "another output";
  const std::string other_log = tmp_.path() + "/rewritten.json";
  std::ofstream(other_log) << rewritten.dump();
  nlohmann::json first[2];
  for (int i = 0; i < 2; ++i) {
    const std::string id = i == 0 ? "moved" : "rewritten";
    Ok({"session", "new", id});
    Ok({"session", "ingest", id, log, "--format", "openai"});
    first[i] = nlohmann::json::parse(Ok({"render", id, "--budget", "100000"}));
  }
  Ok({"--session", "moved", "set", "toolcall:call_0", "moved on", "--scope",
      "session"});
  Ok({"session", "track", "moved", "toolcall:call_0"});  // The entry too.
  Ok({"session", "ingest", "rewritten", other_log, "--format", "openai"});
  Result<ProcessResult> forget =
      RunProcess({"sqlite3", home_ + "/ctxkit.db",
                  "DELETE FROM holds; INSERT INTO meta(name, value) "
                  "VALUES ('holds_pending', '1');"});
  ASSERT_TRUE(forget.ok()) << forget.status().ToString();
  ASSERT_EQ(forget->exit_code, 0) << forget->err;
  std::this_thread::sleep_for(std::chrono::milliseconds(1100));
  Json({"gc", "--older-than", "1s", "--apply"});
  for (int i = 0; i < 2; ++i) {
    const std::string id = i == 0 ? "moved" : "rewritten";
    const nlohmann::json replay =
        nlohmann::json::parse(Ok({"render", id, "--at", "1"}));
    EXPECT_EQ(replay["request"], first[i]["request"]) << id;
  }
}

}  // namespace
}  // namespace ctxkit::cli::testing
