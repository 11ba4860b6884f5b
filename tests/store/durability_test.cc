// Durability: a real child process writing durable values is killed with
// SIGKILL mid-stream; every write it acknowledged must survive, byte-exact.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>

#include "store/test_util.h"

namespace ctxkit::testing {
namespace {

struct KillResult {
  std::set<uint64_t> acked;
  std::string errors;
};

// Runs a "writer" child on `home`, SIGKILLs it as soon as `kill_after` acks
// have arrived, then collects every ack it wrote before dying.
KillResult RunAndKill(const std::string& home, const std::string& durability,
                      const std::string& prefix, uint64_t seed,
                      size_t kill_after, const std::string& job = "writer") {
  KillResult out;
  Child c = SpawnChild({{job, home, durability, prefix, std::to_string(seed)}});
  if (c.pid <= 0) return out;
  std::string buf;
  char chunk[4096];
  bool killed = false;
  while (true) {
    ssize_t n = read(c.result_fd, chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EOF: the child died (killed or failed).
    buf.append(chunk, static_cast<size_t>(n));
    size_t lines =
        static_cast<size_t>(std::count(buf.begin(), buf.end(), '\n'));
    if (!killed && lines >= kill_after) {
      // The child is, with high probability, inside its next Set now.
      kill(c.pid, SIGKILL);
      killed = true;
      // Keep reading: acks written before death are acknowledged writes.
    }
  }
  close(c.result_fd);
  int status = WaitChild(c.pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
      << "child was expected to die of SIGKILL; wait status " << status
      << "; output tail: "
      << buf.substr(buf.size() > 500 ? buf.size() - 500 : 0);
  std::istringstream lines(buf);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    if (line[0] == 'E') {
      out.errors += line + "\n";
      continue;
    }
    if (lines.eof()) break;  // A partial last line (killed mid-write).
    out.acked.insert(std::stoull(line));
  }
  return out;
}

void VerifyAcked(const std::string& home, const std::string& prefix,
                 uint64_t seed, const KillResult& kr,
                 std::string (*payload)(uint64_t) = &Payload) {
  auto store = Store::Open(OptionsFor(home));
  ASSERT_OK(store);
  auto view = (*store)->OpenView("", "");
  ASSERT_OK(view);
  ASSERT_FALSE(kr.acked.empty());
  uint64_t max_acked = *kr.acked.rbegin();
  // Acks are in order; every index up to the last one was acknowledged.
  EXPECT_EQ(kr.acked.size(), max_acked + 1);
  size_t lost = 0;
  for (uint64_t i : kr.acked) {
    auto got = view->Get(prefix + "/" + std::to_string(i));
    if (!got.ok() || *got != payload(seed + i)) {
      ++lost;
      ADD_FAILURE() << "acknowledged write " << prefix << "/" << i
                    << " lost or corrupt: "
                    << (got.ok() ? "wrong content" : got.status().ToString());
      if (lost > 5) break;
    }
  }
  // Writes in flight at the kill may or may not exist, but never torn.
  for (uint64_t i = max_acked + 1; i < max_acked + 4; ++i) {
    auto got = view->Get(prefix + "/" + std::to_string(i));
    if (got.ok()) {
      EXPECT_TRUE(*got == payload(seed + i)) << "torn write at " << i;
    } else {
      EXPECT_THAT(got, StatusIs(StatusCode::kNotFound));
    }
  }
  // The store is fully usable afterwards.
  ASSERT_OK(view->Set(prefix + "/after", "still works"));
  ASSERT_OK_AND_ASSIGN(std::string v, view->Get(prefix + "/after"));
  EXPECT_EQ(v, "still works");
  StoreStats s = *(*store)->Stats();
  EXPECT_GE(s.live_objects, kr.acked.size());
}

TEST(DurabilityTest, SigkillDuringDurableSetsLosesNoAcknowledgedWrite) {
  TempDir dir;
  const std::string home = dir.path() + "/home";
  // Several rounds on the same store, killed at different points; values
  // include blob-file sized ones (every 16th).
  const std::vector<size_t> kill_points = {1, 37, 150};
  for (size_t round = 0; round < kill_points.size(); ++round) {
    std::string prefix = "r" + std::to_string(round);
    uint64_t seed = 1000000 * (round + 1);
    KillResult kr = RunAndKill(home, "full", prefix, seed, kill_points[round]);
    EXPECT_EQ(kr.errors, "");
    ASSERT_GE(kr.acked.size(), kill_points[round]);
    VerifyAcked(home, prefix, seed, kr);
    // Earlier rounds are still intact.
    auto store = Store::Open(OptionsFor(home));
    ASSERT_OK(store);
    auto view = (*store)->OpenView("", "");
    ASSERT_OK(view);
    for (size_t r = 0; r < round; ++r) {
      auto got = view->Get("r" + std::to_string(r) + "/0");
      ASSERT_OK(got);
      EXPECT_EQ(*got, Payload(1000000 * (r + 1)));
    }
  }
}

TEST(DurabilityTest, SigkillWithProcessDurabilityLosesNoAcknowledgedWrite) {
  // Durability::kProcess promises exactly this: survive kill -9.
  TempDir dir;
  const std::string home = dir.path() + "/home";
  KillResult kr = RunAndKill(home, "process", "p", 5000000, 200);
  EXPECT_EQ(kr.errors, "");
  ASSERT_GE(kr.acked.size(), 200u);
  VerifyAcked(home, "p", 5000000, kr);
}

TEST(DurabilityTest, SigkillDuringLargeBlobWritesLosesNoAcknowledgedWrite) {
  // Every 4th value is ~1.5 MiB, so the kill often lands inside a blob
  // file write (temp file, fsync, rename).
  TempDir dir;
  const std::string home = dir.path() + "/home";
  for (size_t kill_after : {size_t{3}, size_t{10}}) {
    std::string prefix = "big" + std::to_string(kill_after);
    KillResult kr =
        RunAndKill(home, "full", prefix, 9000000, kill_after, "bigwriter");
    EXPECT_EQ(kr.errors, "");
    ASSERT_GE(kr.acked.size(), kill_after);
    VerifyAcked(home, prefix, 9000000, kr, &BigPayload);
  }
  // Blob files on disk are only complete ones: every blob the database
  // names reads back (checked above) and stats agree with the directory
  // apart from at most the in-flight temp file.
  auto store = Store::Open(OptionsFor(home));
  ASSERT_OK(store);
  uint64_t files = 0;
  for (const auto& e :
       std::filesystem::recursive_directory_iterator(home + "/blobs")) {
    if (e.is_regular_file()) ++files;
  }
  EXPECT_LE(files, (*store)->Stats()->blob_files + 2);
}

TEST(DurabilityTest, SigkillDuringAppendsLosesNoAcknowledgedChunk) {
  TempDir dir;
  const std::string home = dir.path() + "/home";
  KillResult kr = RunAndKill(home, "full", "stream", 300, 40, "appender");
  EXPECT_EQ(kr.errors, "");
  ASSERT_GE(kr.acked.size(), 40u);
  auto store = Store::Open(OptionsFor(home));
  ASSERT_OK(store);
  auto view = (*store)->OpenView("", "");
  ASSERT_OK(view);
  std::string acked;
  for (uint64_t i : kr.acked) acked += Chunk(300 + i);
  ASSERT_OK_AND_ASSIGN(std::string got, view->Get("stream"));
  ASSERT_GE(got.size(), acked.size());
  EXPECT_TRUE(got.compare(0, acked.size(), acked) == 0)
      << "the stream does not start with every acknowledged chunk";
  // At most the one in-flight chunk beyond, and then whole.
  if (got.size() > acked.size()) {
    EXPECT_EQ(got.substr(acked.size()), Chunk(300 + kr.acked.size()));
  }
  ASSERT_OK_AND_ASSIGN(std::vector<VersionMeta> vs, view->Versions("stream"));
  EXPECT_GE(vs.size(), kr.acked.size());
  EXPECT_LE(vs.size(), kr.acked.size() + 1);
  // Appending continues from there.
  ASSERT_OK(view->Append("stream", "tail"));
  ASSERT_OK_AND_ASSIGN(std::string after, view->Get("stream"));
  EXPECT_EQ(after, got + "tail");
}

TEST(DurabilityTest, SigkillWhileAnotherInstanceHasTheStoreOpen) {
  // The parent keeps an instance open (and reading) while the child is
  // killed: the survivor keeps working and sees every acknowledged write.
  TempDir dir;
  const std::string home = dir.path() + "/home";
  auto store = Store::Open(OptionsFor(home));
  ASSERT_OK(store);
  auto view = (*store)->OpenView("", "");
  ASSERT_OK(view);
  ASSERT_OK(view->Set("parent", "value"));
  KillResult kr = RunAndKill(home, "full", "c", 7000000, 60);
  EXPECT_EQ(kr.errors, "");
  ASSERT_FALSE(kr.acked.empty());
  for (uint64_t i : kr.acked) {
    auto got = view->Get("c/" + std::to_string(i));
    ASSERT_OK(got) << i;
    ASSERT_EQ(*got, Payload(7000000 + i)) << i;
  }
  ASSERT_OK(view->Set("parent", "value 2"));
  VerifyAcked(home, "c", 7000000, kr);
}

TEST(DurabilityTest, DurableValuesSurviveReopen) {
  TempDir dir;
  Options o = OptionsFor(dir.path() + "/home");
  std::string big = RandomBytes(11, 300000);
  {
    auto store = Store::Open(o);
    ASSERT_OK(store);
    auto view = (*store)->OpenView("a", "s");
    ASSERT_OK(view);
    SetOptions so;
    so.scope = "agent";
    so.type = ValueType::kJson;
    so.tags = {"t1"};
    ASSERT_OK(view->Set("cfg", "{\"a\": 1}", so));
    ASSERT_OK(view->Set("big", big));
    ASSERT_OK(view->Append("log", "line1\n"));
    ASSERT_OK(view->Append("log", "line2\n"));
  }
  auto store = Store::Open(o);
  ASSERT_OK(store);
  auto view = (*store)->OpenView("a", "s");
  ASSERT_OK(view);
  ASSERT_OK_AND_ASSIGN(std::string v, view->Get("cfg"));
  EXPECT_EQ(v, "{\"a\": 1}");
  ASSERT_OK_AND_ASSIGN(ObjectMeta m, view->Stat("cfg"));
  EXPECT_EQ(m.type, ValueType::kJson);
  EXPECT_EQ(m.scope, Scope::Agent("a"));
  EXPECT_THAT(m.tags, ::testing::ElementsAre("t1"));
  ASSERT_OK_AND_ASSIGN(v, view->Get("big"));
  EXPECT_EQ(v, big);
  ASSERT_OK_AND_ASSIGN(v, view->Get("log"));
  EXPECT_EQ(v, "line1\nline2\n");
}

}  // namespace
}  // namespace ctxkit::testing
