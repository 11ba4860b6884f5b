// `ctxkit notes`, `ctxkit log` and `ctxkit --describe` as scripts use them,
// including concurrent writers in several processes.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cli/cli_test_util.h"

namespace ctxkit::cli::testing {
namespace {

namespace fs = std::filesystem;

class NotesCliTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    notes_ = tmp_.path() + "/context";
  }
  RunOptions Opts(std::string input = "", std::vector<std::string> env = {}) {
    RunOptions o;
    o.input = std::move(input);
    o.env = {"SFA_CONTEXT_STORE=" + notes_};
    o.env.insert(o.env.end(), env.begin(), env.end());
    return o;
  }
  std::string notes_;
};

TEST_F(NotesCliTest, DescribeReportsTheRetention) {
  ProcessResult r = Run({"--describe"}, Opts());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["contextRetention"], "30d");
  EXPECT_EQ(j["contextStore"], notes_);
  EXPECT_EQ(j["name"], "ctxkit");
}

TEST_F(NotesCliTest, RootResolutionOrder) {
  // The shared config's contextStore.path when SFA_CONTEXT_STORE is unset.
  fs::create_directories(user_home_ + "/.config/single-file-agents");
  std::ofstream(user_home_ + "/.config/single-file-agents/config.json")
      << R"({"contextStore": {"path": "~/from-config"}})";
  // With the default store home, the spec's defaults apply.
  RunOptions o;
  o.pass_home = false;
  ProcessResult r = Run({"--describe"}, o);
  EXPECT_EQ(nlohmann::json::parse(r.out)["contextStore"],
            user_home_ + "/from-config");
  // An explicit store home keeps the notes under it unless a spec variable
  // (SFA_CONTEXT_STORE, SFA_CONFIG) names a place.
  r = Run({"--describe"});
  EXPECT_EQ(nlohmann::json::parse(r.out)["contextStore"],
            home_ + "/notes-root");
  r = Run({"--describe"},
          RunOptions{.env = {"SFA_CONFIG=" + user_home_ +
                             "/.config/single-file-agents/config.json"}});
  EXPECT_EQ(nlohmann::json::parse(r.out)["contextStore"],
            user_home_ + "/from-config");
  o.env = {"CTXKIT_HOME=" + home_};
  r = Run({"--describe"}, o);
  EXPECT_EQ(nlohmann::json::parse(r.out)["contextStore"],
            home_ + "/notes-root");
  o.env.clear();
  fs::remove(user_home_ + "/.config/single-file-agents/config.json");
  r = Run({"--describe"}, o);
  EXPECT_EQ(nlohmann::json::parse(r.out)["contextStore"],
            user_home_ + "/.local/share/single-file-agents/context");
}

TEST_F(NotesCliTest, AddSearchLogAndSessionLayout) {
  ProcessResult r =
      Run({"notes", "add", "--agent", "code-reviewer", "--type", "finding",
           "--tag", "security", "--slug", "Auth vulnerability"},
          Opts("Tokens never expire.\n", {"SFA_SESSION_ID=a1b2c3d4-session"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string file = r.out.substr(0, r.out.size() - 1);
  EXPECT_TRUE(file.starts_with(fs::canonical(notes_).string() +
                               "/code-reviewer/a1b2c3d4-session/"))
      << file;
  EXPECT_TRUE(file.ends_with("-auth-vulnerability.md"));
  r = Run(
      {"--json", "notes", "search", "--session", "a1b2c3d4-session", "tokens"},
      Opts());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json hits = nlohmann::json::parse(r.out);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0]["file"], file);
  EXPECT_EQ(hits[0]["type"], "finding");
  r = Run({"notes", "update", file, "--agent", "code-fixer", "-m",
           "Raised severity"},
          Opts());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Run({"--json", "log"}, Opts());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json log = nlohmann::json::parse(r.out);
  ASSERT_EQ(log.size(), 3u);
  EXPECT_EQ(log[0]["command"], "notes add");
  EXPECT_EQ(log[0]["agent"], "code-reviewer");
  std::string rel = file.substr(fs::canonical(notes_).string().size() + 1);
  EXPECT_EQ(log[0]["meta"]["contextFiles"], nlohmann::json::array({rel}));
  EXPECT_EQ(log[1]["command"], "notes search");
  EXPECT_EQ(log[2]["command"], "notes update");
  EXPECT_EQ(log[2]["meta"]["contextFiles"], nlohmann::json::array({rel}));
  // Each log line is short: summaries are capped.
  std::string big(5000, 'm');
  Run({"notes", "update", file, "--agent", "x", "-m", big}, Opts());
  r = Run({"--json", "log"}, Opts());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  log = nlohmann::json::parse(r.out);
  ASSERT_EQ(log.size(), 4u);
  for (const nlohmann::json& entry : log) {
    EXPECT_LT(entry.dump().size(), 700u) << entry.dump();
  }
  // The log is the store's, not a file of this home's.
  EXPECT_FALSE(fs::exists(home_ + "/logs/execution.jsonl"));
}

TEST_F(NotesCliTest, BadNamesAndPathsAreUsageErrors) {
  EXPECT_EQ(Run({"notes", "add", "--agent", "../x", "--type", "finding",
                 "--slug", "s"},
                Opts("b"))
                .exit_code,
            2);
  EXPECT_EQ(
      Run({"notes", "add", "--agent", "a", "--type", "finding", "--slug", "s"},
          Opts("b", {"SFA_SESSION_ID=../../etc"}))
          .exit_code,
      2);
  EXPECT_EQ(
      Run({"notes", "add", "--agent", "a", "--type", "opinion", "--slug", "s"},
          Opts("b"))
          .exit_code,
      2);
  EXPECT_EQ(Run({"notes", "show", "../../etc/passwd"}, Opts()).exit_code, 2);
  EXPECT_EQ(Run({"notes", "show", "/etc/passwd"}, Opts()).exit_code, 2);
  EXPECT_EQ(Run({"notes", "show", "a/missing.md"}, Opts()).exit_code, 1);
  EXPECT_EQ(Run({"notes", "gc", "--older-than", "soon"}, Opts()).exit_code, 2);
  EXPECT_FALSE(fs::exists(tmp_.path() + "/etc"));
}

TEST_F(NotesCliTest, ConcurrentWritersInSeveralProcesses) {
  constexpr int kProcs = 8;
  std::vector<ProcessResult> results(kProcs);
  std::vector<std::thread> threads;
  for (int i = 0; i < kProcs; ++i) {
    threads.emplace_back([&, i] {
      results[i] = Run({"notes", "add", "--agent", "worker", "--type",
                        "artifact", "--tag", "race", "--slug", "same slug"},
                       Opts("body " + std::to_string(i) + "\n"));
    });
  }
  for (auto& t : threads) t.join();
  std::set<std::string> files;
  for (const auto& r : results) {
    ASSERT_EQ(r.exit_code, 0) << r.err;
    files.insert(r.out);
  }
  EXPECT_EQ(files.size(), static_cast<size_t>(kProcs));
  ProcessResult r = Run({"--json", "notes", "search", "--tag", "race"}, Opts());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out).size(), static_cast<size_t>(kProcs));
  // Concurrent updates of one note: every changelog line survives.
  std::string target = *files.begin();
  target.pop_back();
  threads.clear();
  for (int i = 0; i < kProcs; ++i) {
    threads.emplace_back([&, i] {
      results[i] = Run({"notes", "update", target, "--agent", "w", "-m",
                        "change " + std::to_string(i)},
                       Opts());
    });
  }
  for (auto& t : threads) t.join();
  for (const auto& r2 : results) ASSERT_EQ(r2.exit_code, 0) << r2.err;
  std::ifstream in(target);
  std::string content((std::istreambuf_iterator<char>(in)), {});
  for (int i = 0; i < kProcs; ++i) {
    EXPECT_NE(content.find("[w]: change " + std::to_string(i) + "\n"),
              std::string::npos);
  }
  ProcessResult gc = Run({"notes", "gc"}, Opts());
  ASSERT_EQ(gc.exit_code, 0) << gc.err;
  EXPECT_NE(gc.out.find("0 notes older than 30d"), std::string::npos) << gc.out;
}

}  // namespace
}  // namespace ctxkit::cli::testing
