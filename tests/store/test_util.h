// Shared helpers for the store's behavioural tests (tests/store/*.cc).
//
// Everything here goes through the public API in include/ctxkit/ only; the
// tests are a client's view of the contract, not of the implementation.

#ifndef CTXKIT_TESTS_STORE_TEST_UTIL_H_
#define CTXKIT_TESTS_STORE_TEST_UTIL_H_

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/pg_store.h"
#include "ctxkit/ref.h"
#include "ctxkit/status.h"
#include "ctxkit/store.h"

namespace ctxkit::testing {

// ---------------------------------------------------------------------------
// Status helpers.

inline const Status& GetStatus(const Status& s) { return s; }
template <typename T>
Status GetStatus(const Result<T>& r) {
  return r.status();
}

inline std::string CodeName(StatusCode code) {
  return std::string(StatusCodeName(code));
}

// EXPECT_THAT(view.Get("x"), StatusIs(StatusCode::kNotFound));
MATCHER_P(StatusIs, code,
          std::string(negation ? "does not have" : "has") + " status code " +
              CodeName(code)) {
  Status s = ::ctxkit::testing::GetStatus(arg);
  *result_listener << "status is " << s.ToString();
  return s.code() == code;
}

// Matches a failed Status/Result whose code is any of the given ones.
MATCHER_P(StatusIsOneOf, codes, "has one of the expected error codes") {
  Status s = ::ctxkit::testing::GetStatus(arg);
  *result_listener << "status is " << s.ToString();
  for (StatusCode c : codes) {
    if (s.code() == c) return true;
  }
  return false;
}

MATCHER(IsOk, "is OK") {
  Status s = ::ctxkit::testing::GetStatus(arg);
  *result_listener << "status is " << s.ToString();
  return s.ok();
}

#define CTXKIT_CONCAT_INNER_(a, b) a##b
#define CTXKIT_CONCAT_(a, b) CTXKIT_CONCAT_INNER_(a, b)

#define ASSERT_OK(expr) ASSERT_THAT((expr), ::ctxkit::testing::IsOk())
#define EXPECT_OK(expr) EXPECT_THAT((expr), ::ctxkit::testing::IsOk())

// ASSERT_OK_AND_ASSIGN(auto ref, view.Set("k", "v"));
#define ASSERT_OK_AND_ASSIGN(lhs, expr) \
  ASSERT_OK_AND_ASSIGN_IMPL_(CTXKIT_CONCAT_(result_, __LINE__), lhs, expr)
#define ASSERT_OK_AND_ASSIGN_IMPL_(tmp, lhs, expr)                   \
  auto tmp = (expr);                                                 \
  ASSERT_TRUE(tmp.ok()) << #expr << ": " << tmp.status().ToString(); \
  lhs = std::move(tmp).value()

// ---------------------------------------------------------------------------
// Temporary store homes.

// A fresh directory under $TMPDIR (or /tmp), removed with everything in it
// when the object dies.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // A not-yet-existing path inside the directory.
  std::string Sub(std::string_view name) const;

 private:
  std::string path_;
};

// Options for a store rooted at `home` with the library defaults otherwise.
inline Options OptionsFor(const std::string& home) {
  Options o;
  o.home = home;
  o.store_url = PgStoreUrlFor(home);  // "" but in the "pg." variants.
  return o;
}

// Fixture base: a temp home, one open store and a view ("alice", "s1").
class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;

  // Re-opens store_ (dropping the old instance first) with `options`
  // (options.home is forced to home()).
  void Reopen(Options options);
  void Reopen() { Reopen(options_); }

  // Opens a second, independent instance on the same home.
  std::unique_ptr<Store> OpenSecond(Options options) const;
  std::unique_ptr<Store> OpenSecond() const { return OpenSecond(options_); }

  // A view of store_; fails the test when OpenView fails.
  View MakeView(std::string_view agent, std::string_view session);

  // The store root (options_.home), inside the temp dir.
  const std::string& home() const { return options_.home; }

  // Subclasses may change options_ in their constructor before SetUp.
  Options options_;
  TempDir dir_;
  std::unique_ptr<Store> store_;
  std::optional<View> view_;  // ("alice", "s1")
  View& view() { return *view_; }
};

// ---------------------------------------------------------------------------
// Data.

// Deterministic pseudo-random bytes (all 256 values, NUL included).
std::string RandomBytes(uint64_t seed, size_t n);
// Deterministic printable ASCII text.
std::string RandomText(uint64_t seed, size_t n);
// The value the child-process writers store under their i-th key.
std::string Payload(uint64_t seed);
// Like Payload, but every 4th value is ~1.5 MiB.
std::string BigPayload(uint64_t seed);
// The bytes the child-process appenders append as their i-th chunk.
std::string Chunk(uint64_t seed);
// Lower-case hex SHA-256 computed independently (OpenSSL).
std::string Sha256Hex(std::string_view data);

// ---------------------------------------------------------------------------
// Snapshots of everything a view can observe, to prove "the store is
// unchanged" after a rejected call.

std::string DescribeMeta(const ObjectMeta& m);
std::string DescribeVersion(const VersionMeta& v);

// Every object the view lists (all of its scopes, every page), then the
// version history of each, then the durable and session counters of Stats.
std::string Snapshot(View& view);

// Lists every object visible with `filter` by following cursors with pages of
// `page_size`; fails the test on an error.
std::vector<ObjectMeta> ListAll(View& view, ListFilter filter,
                                size_t page_size = 100);

// ---------------------------------------------------------------------------
// Child processes. The test binary re-executes itself with
// --gtest_filter=ChildProcessEntry.Run and an environment variable naming
// the job (see child_process.cc); nothing is forked into a child that keeps
// the parent's threads.

struct ChildSpec {
  // Job name and arguments, e.g. {"writer", home, "full", "r1"}.
  std::vector<std::string> args;
  // The parent's read end receives what the child writes to its result fd.
  bool capture_result = true;
  // When >= 0, the child gets this fd as its "go" fd: it blocks reading it
  // (EOF releases it) after opening the store and before working.
  int go_fd = -1;
};

struct Child {
  pid_t pid = -1;
  int result_fd = -1;  // Parent's read end, or -1.
};

// Starts the child; fails the test (and returns pid -1) on error.
Child SpawnChild(const ChildSpec& spec);

// Waits up to `timeout_s` (then SIGKILLs it); returns the raw wait status.
int WaitChild(pid_t pid, int timeout_s = 120);

// Reads every byte from `fd` until EOF; closes it.
std::string ReadAll(int fd);

// For the child side: the job arguments, or empty when this process is not
// a child.
std::vector<std::string> ChildArgs();
// For the child side: writes `data` fully to the result fd.
void ChildWrite(std::string_view data);
// For the child side: blocks until the go fd reaches EOF (if there is one).
void ChildWaitForGo();

}  // namespace ctxkit::testing

#endif  // CTXKIT_TESTS_STORE_TEST_UTIL_H_
