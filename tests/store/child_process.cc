// The child side of the multi-process tests.
//
// Tests that need another process (durability_test.cc, multiprocess_test.cc,
// tiers_test.cc) re-execute this very binary through SpawnChild() with
// --gtest_filter=ChildProcessEntry.Run and the job in an environment
// variable. A fresh process image is safer than fork() without exec in a
// process that may already run store threads. In a normal test run the entry
// is skipped.
//
// Jobs (arguments after the job name):
//   writer  HOME DURABILITY PREFIX SEED
//       Loops forever: Set PREFIX/<i> = Payload(SEED + i) in global scope and,
//       after Set returns OK, writes "<i>\n" to the result fd. The parent
//       kills it with SIGKILL.
//   bigwriter HOME DURABILITY PREFIX SEED
//       As writer, with BigPayload (every 4th value ~1.5 MiB: blob files).
//   appender HOME DURABILITY KEY SEED
//       Loops forever: Append KEY += Chunk(SEED + i); writes "<i>\n" after
//       each Append returns OK.
//   multi   HOME DURABILITY INDEX COUNT SHARED
//       Waits for the go fd, then Set p<INDEX>/<i> = Payload(INDEX*1e6 + i)
//       for i < COUNT, then Set shared/<j> = "p<INDEX>-<j>" for j < SHARED.
//       Writes "done\n" at the end, "E <status>\n" on the first error.
//   resolve HOME REF
//       Resolves REF through a view ("bob", "") and writes
//       "<status code name>\n<sha256 of the value, or the message>".

#include <unistd.h>

#include <cstdlib>
#include <string>

#include "store/test_util.h"

namespace ctxkit::testing {
namespace {

Durability ParseDurability(const std::string& s) {
  return s == "process" ? Durability::kProcess : Durability::kFull;
}

std::unique_ptr<Store> OpenOrDie(const std::string& home,
                                 Durability durability) {
  Options o = OptionsFor(home);  // The parent's store, on either engine.
  o.durability = durability;
  auto store = Store::Open(o);
  if (!store.ok()) {
    ChildWrite("E open: " + store.status().ToString() + "\n");
    _exit(3);
  }
  return std::move(store).value();
}

void RunWriter(const std::vector<std::string>& a) {
  ASSERT_EQ(a.size(), 5u);
  const bool big = a[0] == "bigwriter";
  auto store = OpenOrDie(a[1], ParseDurability(a[2]));
  auto view = store->OpenView("", "");
  ASSERT_TRUE(view.ok()) << view.status().ToString();
  const uint64_t seed = std::stoull(a[4]);
  for (uint64_t i = 0; i < 10'000'000; ++i) {
    std::string key = a[3] + "/" + std::to_string(i);
    auto ref = view->Set(key, big ? BigPayload(seed + i) : Payload(seed + i));
    if (!ref.ok()) {
      ChildWrite("E " + ref.status().ToString() + "\n");
      _exit(4);
    }
    ChildWrite(std::to_string(i) + "\n");
  }
}

void RunAppender(const std::vector<std::string>& a) {
  ASSERT_EQ(a.size(), 5u);
  auto store = OpenOrDie(a[1], ParseDurability(a[2]));
  auto view = store->OpenView("", "");
  ASSERT_TRUE(view.ok()) << view.status().ToString();
  const uint64_t seed = std::stoull(a[4]);
  for (uint64_t i = 0; i < 10'000'000; ++i) {
    auto ref = view->Append(a[3], Chunk(seed + i));
    if (!ref.ok()) {
      ChildWrite("E " + ref.status().ToString() + "\n");
      _exit(4);
    }
    ChildWrite(std::to_string(i) + "\n");
  }
}

void RunMulti(const std::vector<std::string>& a) {
  ASSERT_EQ(a.size(), 6u);
  auto store = OpenOrDie(a[1], ParseDurability(a[2]));
  auto view = store->OpenView("", "");
  ASSERT_TRUE(view.ok()) << view.status().ToString();
  const uint64_t index = std::stoull(a[3]);
  const uint64_t count = std::stoull(a[4]);
  const uint64_t shared = std::stoull(a[5]);
  ChildWaitForGo();
  for (uint64_t i = 0; i < count; ++i) {
    std::string key = "p" + std::to_string(index) + "/" + std::to_string(i);
    auto ref = view->Set(key, Payload(index * 1'000'000 + i));
    if (!ref.ok()) {
      ChildWrite("E " + key + ": " + ref.status().ToString() + "\n");
      _exit(4);
    }
  }
  for (uint64_t j = 0; j < shared; ++j) {
    std::string key = "shared/" + std::to_string(j);
    auto ref =
        view->Set(key, "p" + std::to_string(index) + "-" + std::to_string(j));
    if (!ref.ok()) {
      ChildWrite("E " + key + ": " + ref.status().ToString() + "\n");
      _exit(4);
    }
  }
  ChildWrite("done\n");
}

void RunResolve(const std::vector<std::string>& a) {
  ASSERT_EQ(a.size(), 3u);
  auto store = OpenOrDie(a[1], Durability::kFull);
  auto view = store->OpenView("bob", "");
  ASSERT_TRUE(view.ok()) << view.status().ToString();
  auto ref = ParseRef(a[2]);
  if (!ref.ok()) {
    ChildWrite("parse_error\n" + ref.status().ToString());
    return;
  }
  auto value = view->Resolve(*ref);
  if (value.ok()) {
    ChildWrite("ok\n" + Sha256Hex(*value));
  } else {
    ChildWrite(std::string(StatusCodeName(value.status().code())) + "\n" +
               value.status().ToString());
  }
}

TEST(ChildProcessEntry, Run) {
  std::vector<std::string> args = ChildArgs();
  if (args.empty()) {
    GTEST_SKIP() << "runs only as a child process started by other tests";
  }
  if (args[0] == "writer" || args[0] == "bigwriter") {
    RunWriter(args);
  } else if (args[0] == "appender") {
    RunAppender(args);
  } else if (args[0] == "multi") {
    RunMulti(args);
  } else if (args[0] == "resolve") {
    RunResolve(args);
  } else {
    FAIL() << "unknown child job " << args[0];
  }
}

}  // namespace
}  // namespace ctxkit::testing
