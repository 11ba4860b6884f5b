// A store this process may not write (file modes, a read-only mount) is
// still read: reads answer as before, writes fail with exit 3 and a message
// that says the store is read-only, and nothing under the store changes.
//
// Tests usually run as root, who may write anything; then the store is
// handed to the unprivileged user "nobody" (uid 65534) and the CLI runs as
// that user through setpriv(1), so the permission checks are the kernel's.

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "cli/cli_test_util.h"
#include "common/files.h"
#include "ctxkit/store.h"

namespace ctxkit::cli::testing {
namespace {

namespace fs = std::filesystem;

constexpr uid_t kNobody = 65534;

// Removes write permission from everything under (and including) `root`;
// as root, also gives it to "nobody", whom the CLI then runs as.
void MakeReadOnly(const std::string& root, bool chown_to_nobody) {
  std::vector<fs::path> paths = {root};
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    paths.push_back(entry.path());
  }
  for (const fs::path& p : paths) {
    if (chown_to_nobody) {
      ASSERT_EQ(::lchown(p.c_str(), kNobody, kNobody), 0) << p;
    }
    fs::permissions(p,
                    fs::perms::owner_write | fs::perms::group_write |
                        fs::perms::others_write,
                    fs::perm_options::remove);
  }
}

class ReadOnlyStoreTest : public CliTest {
 protected:
  void SetUp() override {
    CliTest::SetUp();
    as_root_ = ::geteuid() == 0;
  }

  // Runs the CLI as "nobody" when the test runs as root.
  ProcessResult RunReadOnly(const std::vector<std::string>& args) {
    std::vector<std::string> argv;
    if (as_root_) {
      argv = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
              "--"};
    }
    argv.push_back(CTXKIT_BINARY);
    argv.push_back("--home");
    argv.push_back(home_);
    argv.insert(argv.end(), args.begin(), args.end());
    Result<ProcessResult> r = RunProcess(argv, "", Env({"HOME=" + user_home_}));
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : ProcessResult{};
  }

  std::string ReadOk(const std::vector<std::string>& args) {
    ProcessResult r = RunReadOnly(args);
    EXPECT_EQ(r.exit_code, 0) << Describe(args, r);
    return r.out;
  }

  bool as_root_ = false;
};

TEST_F(ReadOnlyStoreTest, ReadsWorkWritesAreRefusedAndNothingChanges) {
  std::string big(300000, 'x');
  for (size_t i = 0; i < big.size(); i += 97) big[i] = '\n';
  Ok({"set", "small", "--tag", "t1"}, "hello read-only world\n");
  Ok({"set", "small"}, "second version\n");
  Ok({"set", "big"}, big);
  // The state a writer's clean exit leaves, and the tree the test's temp
  // directory hands over.
  MakeReadOnly(tmp_.path(), as_root_);
  const std::string before = ctxkit::testing::TreeState(tmp_.path());

  EXPECT_EQ(ReadOk({"get", "small"}), "second version\n");
  EXPECT_EQ(ReadOk({"get", "small", "--version", "1"}),
            "hello read-only world\n");
  EXPECT_TRUE(ReadOk({"get", "big"}) == big);
  EXPECT_EQ(ReadOk({"get", "big", "--offset", "1000", "--length", "50"}),
            big.substr(1000, 50));
  EXPECT_NE(ReadOk({"ls"}).find("small"), std::string::npos);
  EXPECT_NE(ReadOk({"versions", "small"}).find("2"), std::string::npos);
  EXPECT_NE(ReadOk({"search", "version", "small"}).find("second"),
            std::string::npos);
  // find keeps its index in memory when it may not write index.db.
  EXPECT_NE(ReadOk({"find", "second version"}).find("small"),
            std::string::npos);
  // Counting tokens would cache the count: in a read-only store it is
  // counted and not kept.
  EXPECT_FALSE(ReadOk({"tokens", "small"}).empty());

  for (const std::vector<std::string>& write :
       std::vector<std::vector<std::string>>{{"set", "small", "x"},
                                             {"set", "new", "x"},
                                             {"append", "log", "x"},
                                             {"rm", "small"}}) {
    ProcessResult r = RunReadOnly(write);
    EXPECT_EQ(r.exit_code, 3) << Describe(write, r);
    EXPECT_NE(r.err.find("read-only"), std::string::npos) << r.err;
  }
  EXPECT_EQ(ctxkit::testing::TreeState(tmp_.path()), before)
      << "a read changed the store";
}

// A writer still open (or killed) keeps its last commits in ctxkit.db-wal,
// indexed by ctxkit.db-shm: a reader that may write neither reads them.
TEST_F(ReadOnlyStoreTest, ReadsCommitsStillInTheWriteAheadLog) {
  Ok({"set", "old"}, "checkpointed\n");
  auto writer = Store::Open(Options{.home = home_});
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  auto view = (*writer)->OpenView("", "");
  ASSERT_TRUE(view.ok());
  ASSERT_TRUE(view->Set("fresh", "only in the log\n").ok());
  ASSERT_TRUE(fs::exists(home_ + "/ctxkit.db-wal"));
  ASSERT_TRUE(fs::exists(home_ + "/ctxkit.db-shm"));
  MakeReadOnly(tmp_.path(), as_root_);
  const std::string before = ctxkit::testing::TreeState(tmp_.path());
  EXPECT_EQ(ReadOk({"get", "fresh"}), "only in the log\n");
  EXPECT_EQ(ReadOk({"get", "old"}), "checkpointed\n");
  EXPECT_EQ(ctxkit::testing::TreeState(tmp_.path()), before);
}

TEST_F(ReadOnlyStoreTest, MissingStoreIsNotFoundNotCreated) {
  fs::create_directories(home_);
  MakeReadOnly(tmp_.path(), as_root_);
  ProcessResult r = RunReadOnly({"get", "anything"});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("no store"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(home_ + "/ctxkit.db"));
}

}  // namespace
}  // namespace ctxkit::cli::testing
