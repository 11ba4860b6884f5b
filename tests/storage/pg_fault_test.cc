// The PostgreSQL engine under faults and contention, against the real test
// server (cmake/pg_tests.cmake runs these alone, as pg.PgFaultTest.*):
//   - the server crash-restarted (pg_ctl restart -m immediate) in the middle
//     of a stream of durable writes: every acknowledged write survives, a
//     failed one is absent or whole, failures are Unavailable, and the
//     client goes on writing once the server is back;
//   - 8 clients, each with its own connection, x 1,000 mixed operations on
//     one store: no write lost, versions strictly increasing.
// Skipped outside the "pg." variant (no server).

#include <gtest/gtest.h>
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
#include "storage/backend.h"

namespace ctxkit::storage {
namespace {

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

  static PutRequest PutOf(const std::string& key, const std::string& content,
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

TEST_F(PgFaultTest, EightClientsTimesAThousandMixedOperationsLoseNothing) {
  constexpr int kClients = 8;
  constexpr int kOps = 1000;
  std::vector<std::unique_ptr<Backend>> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.push_back(Open());
    ASSERT_NE(clients.back(), nullptr);
  }
  ASSERT_TRUE(clients[0]->Put(PutOf("counter", "0")).ok());
  std::atomic<int> increments{0};
  std::vector<std::string> errors[kClients];
  std::vector<std::thread> threads;
  for (int c = 0; c < kClients; ++c) {
    threads.emplace_back([&, c] {
      Backend& b = *clients[c];
      uint64_t last_own_version = 0;
      for (int i = 0; i < kOps; ++i) {
        const std::string own =
            "c" + std::to_string(c) + "/" + std::to_string(i % 5);
        switch (i % 4) {
          case 0: {  // A write of its own key: versions only grow.
            auto w = b.Put(PutOf(own, std::to_string(i)));
            if (!w.ok()) errors[c].push_back(w.status().ToString());
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
                increments.fetch_add(1);
                break;
              }
              if (w.status().code() != StatusCode::kFailedPrecondition) {
                errors[c].push_back(w.status().ToString());
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
            if (!w.ok()) errors[c].push_back(w.status().ToString());
            break;
          }
          default: {  // A read of its own key's history.
            auto obj =
                b.FindObject(Scope::Global(), "c" + std::to_string(c) + "/0");
            if (!obj.ok()) break;
            if (obj->latest_version < last_own_version) {
              errors[c].push_back("version went back");
            }
            last_own_version = obj->latest_version;
          }
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  for (int c = 0; c < kClients; ++c) {
    for (const std::string& e : errors[c])
      ADD_FAILURE() << "client " << c << ": " << e;
  }
  Backend& b = *clients[0];
  EXPECT_EQ(Content(b, "counter"), std::to_string(increments.load()));
  EXPECT_EQ(increments.load(), kClients * kOps / 4);
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
