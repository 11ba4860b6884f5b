// Several processes writing one store at once lose nothing.

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "store/test_util.h"

namespace ctxkit::testing {
namespace {

constexpr int kProcesses = 4;
constexpr int kSetsPerProcess = 1000;
constexpr int kSharedKeys = 25;

void RunConcurrentWriters(const std::string& home,
                          const std::string& durability) {
  // Children open the store, then wait for the go pipe to close so that
  // all four really write at the same time.
  int go[2];
  ASSERT_EQ(pipe2(go, O_CLOEXEC), 0);
  std::vector<Child> children;
  auto start = std::chrono::steady_clock::now();
  for (int p = 0; p < kProcesses; ++p) {
    ChildSpec spec;
    spec.args = {"multi",
                 home,
                 durability,
                 std::to_string(p),
                 std::to_string(kSetsPerProcess),
                 std::to_string(kSharedKeys)};
    spec.go_fd = go[0];
    children.push_back(SpawnChild(spec));
    ASSERT_GT(children.back().pid, 0);
  }
  close(go[0]);
  close(go[1]);  // Go.
  for (int p = 0; p < kProcesses; ++p) {
    std::string out = ReadAll(children[p].result_fd);
    int status = WaitChild(children[p].pid, 240);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "child " << p << " wait status " << status << ": " << out;
    EXPECT_EQ(out, "done\n") << "child " << p;
  }
  auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::chrono::steady_clock::now() - start);
  std::printf("[ info ] %d processes x %d sets (%s): %lld ms\n", kProcesses,
              kSetsPerProcess + kSharedKeys, durability.c_str(),
              static_cast<long long>(elapsed.count()));

  auto store = Store::Open(OptionsFor(home));
  ASSERT_OK(store);
  auto view = (*store)->OpenView("", "");
  ASSERT_OK(view);
  int bad = 0;
  for (int p = 0; p < kProcesses; ++p) {
    for (int i = 0; i < kSetsPerProcess; ++i) {
      std::string key = "p" + std::to_string(p) + "/" + std::to_string(i);
      auto got = view->Get(key);
      if (!got.ok() || *got != Payload(p * 1'000'000ull + i)) {
        ADD_FAILURE() << key << ": "
                      << (got.ok() ? "wrong content" : got.status().ToString());
        if (++bad > 10) return;
      }
    }
  }
  // Shared keys: every process's write is one version; numbers are 1..4
  // with no gap or duplicate, and each process's content is there once.
  for (int j = 0; j < kSharedKeys; ++j) {
    std::string key = "shared/" + std::to_string(j);
    ASSERT_OK_AND_ASSIGN(std::vector<VersionMeta> vs, view->Versions(key));
    ASSERT_EQ(vs.size(), static_cast<size_t>(kProcesses)) << key;
    std::set<std::string> hashes;
    for (size_t i = 0; i < vs.size(); ++i) {
      EXPECT_EQ(vs[i].version, i + 1) << key;
      hashes.insert(vs[i].content_hash);
    }
    std::set<std::string> want;
    for (int p = 0; p < kProcesses; ++p) {
      want.insert(Sha256Hex("p" + std::to_string(p) + "-" + std::to_string(j)));
    }
    EXPECT_EQ(hashes, want) << key;
  }
  StoreStats s = *(*store)->Stats();
  EXPECT_EQ(s.objects,
            static_cast<uint64_t>(kProcesses * kSetsPerProcess + kSharedKeys));
  EXPECT_EQ(s.versions, static_cast<uint64_t>(kProcesses * kSetsPerProcess +
                                              kProcesses * kSharedKeys));
  ListFilter f;
  f.key_prefix = "p";
  EXPECT_EQ(ListAll(*view, f, 1000).size(),
            static_cast<size_t>(kProcesses * kSetsPerProcess));
}

TEST(MultiProcessTest, FourProcessesTimesThousandFullDurabilitySets) {
  TempDir dir;
  RunConcurrentWriters(dir.path() + "/home", "full");
}

TEST(MultiProcessTest, ConcurrentInstanceSeesOtherProcessesWrites) {
  // A long-lived instance opened before the writers start sees their
  // objects afterwards (no stale in-memory state).
  TempDir dir;
  const std::string home = dir.path() + "/home";
  auto store = Store::Open(OptionsFor(home));
  ASSERT_OK(store);
  auto view = (*store)->OpenView("", "");
  ASSERT_OK(view);
  ASSERT_OK(view->Set("shared/0", "parent-first"));
  ASSERT_OK_AND_ASSIGN(Ref dynamic, view->RefOf("shared/0"));
  ChildSpec spec;
  spec.args = {"multi", home, "process", "9", "20", "1"};
  Child c = SpawnChild(spec);
  ASSERT_GT(c.pid, 0);
  EXPECT_EQ(ReadAll(c.result_fd), "done\n");
  int status = WaitChild(c.pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  for (int i = 0; i < 20; ++i) {
    ASSERT_OK_AND_ASSIGN(std::string v, view->Get("p9/" + std::to_string(i)));
    EXPECT_EQ(v, Payload(9'000'000ull + i));
  }
  // The child appended version 2 to an object this instance created (and
  // may have cached): the parent sees the new version.
  ASSERT_OK_AND_ASSIGN(std::string latest, view->Resolve(dynamic));
  EXPECT_EQ(latest, "p9-0");
  ASSERT_OK_AND_ASSIGN(std::string got, view->Get("shared/0"));
  EXPECT_EQ(got, "p9-0");
  ASSERT_OK_AND_ASSIGN(ObjectMeta m, view->Stat("shared/0"));
  EXPECT_EQ(m.version, 2u);
  ASSERT_OK_AND_ASSIGN(Ref r, view->RefOf("shared/0"));
  EXPECT_EQ(r.size_bytes, 4u);
}

}  // namespace
}  // namespace ctxkit::testing
