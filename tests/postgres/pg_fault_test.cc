// The PostgreSQL engine under faults and contention, against the real test
// server (cmake/pg_tests.cmake runs these alone, as pg.PgFaultTest.*):
//   - the server crash-restarted (pg_ctl restart -m immediate) in the middle
//     of a stream of durable writes: every acknowledged write survives, a
//     failed one is absent or whole, failures are Unavailable, and the
//     client goes on writing once the server is back;
//   - 8 processes, each with its own connection, x 1,000 mixed operations
//     on one store: no write lost, versions strictly increasing.
// Skipped outside the "pg." variant (no server).

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/pg_store.h"
#include "core/sha256.h"
#include "postgres/pg_backend.h"
#include "storage/backend.h"

namespace ctxkit::storage {
namespace {

PutRequest PutOf(const std::string& key, const std::string& content,
                 uint64_t expected = 0) {
  PutRequest req;
  req.scope = Scope::Global();
  req.key = key;
  req.content = content;
  req.hash = core::Sha256(content);
  req.now_unix_ns = 1;
  req.expected_version = expected;
  return req;
}

class PgFaultTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (testing::PgTestUrl().empty()) GTEST_SKIP() << "no PostgreSQL server";
    Result<std::string> url = testing::PgStoreUrl(
        "fault-" + std::to_string(::getpid()) + "-" +
        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    ASSERT_TRUE(url.ok()) << url.status().ToString();
    url_ = *url;
  }

  std::unique_ptr<Backend> Open() {
    PostgresOptions options;
    options.url = url_;
    options.durability = Durability::kFull;
    auto backend = OpenPostgresBackend(options);
    EXPECT_TRUE(backend.ok()) << backend.status().ToString();
    return backend.ok() ? std::move(*backend) : nullptr;
  }

  static std::string Payload(int i) {
    // Some values span several storage pieces.
    const size_t size = i % 10 == 0 ? (300 << 10) + i : 100 + i;
    std::string out(size, '\0');
    for (size_t j = 0; j < size; ++j)
      out[j] = static_cast<char>('a' + (i + j) % 26);
    return out;
  }

  // The latest content at `key`, or "" when it is missing.
  static std::string Content(Backend& b, const std::string& key) {
    auto obj = b.FindObject(Scope::Global(), key);
    if (!obj.ok()) return "";
    auto v = b.GetVersion(obj->id, 0);
    if (!v.ok()) return "";
    auto text = b.Read(*v, 0, v->size_bytes);
    EXPECT_TRUE(text.ok()) << key << ": " << text.status().ToString();
    return text.ok() ? *text : "";
  }

  std::string url_;
};

TEST_F(PgFaultTest, ServerCrashMidStreamLosesNoAcknowledgedWrite) {
  // The server's directory is its socket's: the URL's host.
  const std::string base = testing::PgTestUrl();
  const size_t host = base.find("host=/");
  if (host == std::string::npos) GTEST_SKIP() << "not a local test server";
  const std::string dir =
      base.substr(host + 5, base.find('&', host) - host - 5);
  std::unique_ptr<Backend> b = Open();
  ASSERT_NE(b, nullptr);

  std::atomic<int> acked{0};
  std::atomic<bool> restarted{false};
  std::vector<int> acknowledged;
  std::vector<int> failed;
  std::vector<Status> failures;
  std::thread writer([&] {
    int after_restart = 0;
    for (int i = 0; i < 100000 && after_restart < 100; ++i) {
      Result<WriteResult> w =
          b->Put(PutOf("k/" + std::to_string(i), Payload(i)));
      if (w.ok()) {
        acknowledged.push_back(i);
        acked.store(static_cast<int>(acknowledged.size()));
        if (restarted.load()) ++after_restart;
      } else {
        failed.push_back(i);
        failures.push_back(w.status());
        usleep(20000);  // The server is starting again.
      }
    }
  });
  while (acked.load() < 100) usleep(1000);
  const std::string cmd = std::string("bash ") + CTXKIT_SOURCE_DIR +
                          "/tests/pg/server.sh crash-restart " + dir;
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  restarted.store(true);
  writer.join();

  EXPECT_GE(acknowledged.size(), 200u);
  EXPECT_FALSE(failed.empty()) << "the restart interrupted no write";
  for (const Status& s : failures) {
    EXPECT_EQ(s.code(), StatusCode::kUnavailable) << s.ToString();
    EXPECT_EQ(s.message().find("password"), std::string::npos);
  }
  std::unique_ptr<Backend> reader = Open();
  ASSERT_NE(reader, nullptr);
  for (int i : acknowledged) {
    ASSERT_EQ(Content(*reader, "k/" + std::to_string(i)), Payload(i))
        << "acknowledged write " << i << " lost";
  }
  for (int i : failed) {
    const std::string got = Content(*reader, "k/" + std::to_string(i));
    EXPECT_TRUE(got.empty() || got == Payload(i))
        << "write " << i << " partial";
  }
}

// One client's 1,000 operations: own-key writes, compare-and-set
// increments of the shared counter, appends to the shared log, reads of its
// own key's versions. Returns the increments it made; adds to *errors.
int RunClient(Backend& b, int c, int ops, std::vector<std::string>* errors) {
  int increments = 0;
  uint64_t last_own_version = 0;
  for (int i = 0; i < ops; ++i) {
    const std::string own =
        "c" + std::to_string(c) + "/" + std::to_string(i % 5);
    switch (i % 4) {
      case 0: {  // A write of its own key: versions only grow.
        auto w = b.Put(PutOf(own, std::to_string(i)));
        if (!w.ok()) errors->push_back(w.status().ToString());
        break;
      }
      case 1: {  // Compare-and-set of the shared counter, retried.
        for (int attempt = 0; attempt < 1000; ++attempt) {
          auto obj = b.FindObject(Scope::Global(), "counter");
          if (!obj.ok()) break;
          auto v = b.GetVersion(obj->id, 0);
          auto text = b.Read(*v, 0, v->size_bytes);
          const int n = std::stoi(*text);
          auto w = b.Put(
              PutOf("counter", std::to_string(n + 1), obj->latest_version));
          if (w.ok()) {
            ++increments;
            break;
          }
          if (w.status().code() != StatusCode::kFailedPrecondition) {
            errors->push_back(w.status().ToString());
            break;
          }
        }
        break;
      }
      case 2: {  // An append to the shared log.
        const std::string bytes =
            "c" + std::to_string(c) + "i" + std::to_string(i) + "\n";
        AppendRequest req;
        req.scope = Scope::Global();
        req.key = "log";
        req.bytes = bytes;
        req.hash = core::Sha256(bytes);
        req.now_unix_ns = 1;
        auto w = b.Append(req);
        if (!w.ok()) errors->push_back(w.status().ToString());
        break;
      }
      default: {  // A read of its own key's history.
        auto obj =
            b.FindObject(Scope::Global(), "c" + std::to_string(c) + "/0");
        if (!obj.ok()) break;
        if (obj->latest_version < last_own_version) {
          errors->push_back("version went back");
        }
        last_own_version = obj->latest_version;
      }
    }
  }
  return increments;
}

// 8 processes, each its own connection, as 8 machines would be.
TEST_F(PgFaultTest, EightProcessesTimesAThousandMixedOperationsLoseNothing) {
  constexpr int kClients = 8;
  constexpr int kOps = 1000;
  {
    auto first = Open();
    ASSERT_NE(first, nullptr);
    ASSERT_TRUE(first->Put(PutOf("counter", "0")).ok());
  }
  // Each child reports "<increments>\n" then one line per error on a pipe.
  struct ChildRun {
    pid_t pid = -1;
    int out = -1;
  };
  std::vector<ChildRun> children;
  for (int c = 0; c < kClients; ++c) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      ::close(fds[0]);
      std::string report;
      std::vector<std::string> errors;
      PostgresOptions options;
      options.url = url_;
      options.durability = Durability::kFull;
      auto backend = OpenPostgresBackend(options);
      int increments = 0;
      if (backend.ok()) {
        increments = RunClient(**backend, c, kOps, &errors);
      } else {
        errors.push_back(backend.status().ToString());
      }
      report = std::to_string(increments) + "\n";
      for (const std::string& e : errors) report += e + "\n";
      for (size_t off = 0; off < report.size();) {
        const ssize_t n =
            ::write(fds[1], report.data() + off, report.size() - off);
        if (n <= 0) break;
        off += static_cast<size_t>(n);
      }
      ::_exit(0);
    }
    ::close(fds[1]);
    children.push_back({pid, fds[0]});
  }
  int increments = 0;
  for (int c = 0; c < kClients; ++c) {
    std::string report;
    char buf[4096];
    for (ssize_t n; (n = ::read(children[c].out, buf, sizeof buf)) > 0;) {
      report.append(buf, static_cast<size_t>(n));
    }
    ::close(children[c].out);
    int status = 0;
    ASSERT_EQ(::waitpid(children[c].pid, &status, 0), children[c].pid);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << c;
    const size_t nl = report.find('\n');
    ASSERT_NE(nl, std::string::npos) << "client " << c << " reported nothing";
    increments += std::stoi(report.substr(0, nl));
    for (size_t start = nl + 1; start < report.size();) {
      size_t end = report.find('\n', start);
      ADD_FAILURE() << "client " << c << ": "
                    << report.substr(start, end - start);
      start = end + 1;
    }
  }
  auto reader = Open();
  ASSERT_NE(reader, nullptr);
  Backend& b = *reader;
  EXPECT_EQ(Content(b, "counter"), std::to_string(increments));
  EXPECT_EQ(increments, kClients * kOps / 4);
  const std::string log = Content(b, "log");
  for (int c = 0; c < kClients; ++c) {
    for (int i = 2; i < kOps; i += 4) {
      const std::string line =
          "c" + std::to_string(c) + "i" + std::to_string(i) + "\n";
      EXPECT_NE(log.find(line), std::string::npos) << line << " lost";
    }
    // Every version of an own key is there, numbered 1..n without a gap.
    for (int k = 0; k < 5; ++k) {
      auto obj = b.FindObject(
          Scope::Global(), "c" + std::to_string(c) + "/" + std::to_string(k));
      ASSERT_TRUE(obj.ok());
      auto versions = b.ListVersions(obj->id);
      ASSERT_TRUE(versions.ok());
      for (size_t j = 0; j < versions->size(); ++j) {
        EXPECT_EQ((*versions)[j].version, j + 1);
      }
      EXPECT_EQ(versions->size(), static_cast<size_t>(kOps / 4 / 5));
    }
  }
  EXPECT_EQ(static_cast<int>(std::count(log.begin(), log.end(), '\n')),
            kClients * kOps / 4);
}

}  // namespace
}  // namespace ctxkit::storage
