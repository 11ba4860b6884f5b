// The store under injected I/O faults (os/fault_injection.h), in the
// LevelDB style: a whole set/append/remove/promote sequence is run once per
// I/O operation it performs, failing that operation (a write, an fsync, a
// rename; a failing write every other time writes half first). After each,
// the store must reopen consistent: PRAGMA integrity_check ok, every
// acknowledged write readable with exactly its bytes, the failed write
// either wholly there or wholly absent, and the next write working.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/sqlite_integrity.h"
#include "ctxkit/store.h"
#include "os/fault_injection.h"

namespace ctxkit {
namespace {

namespace fault = storage::fault;

// What a view sees under each key: its bytes, or nothing.
using Model = std::map<std::string, std::optional<std::string>>;

struct Step {
  std::string key;
  std::function<Status(View&)> run;
  std::function<void(Model&)> apply;
};

std::string Bytes(char c, size_t n) {
  std::string s(n, c);
  for (size_t i = 0; i < n; i += 97) s[i] = static_cast<char>('a' + i % 26);
  return s;
}

Status SetIn(View& v, const std::string& key, const std::string& value,
             const std::string& scope = "") {
  SetOptions o;
  o.scope = scope;
  return v.Set(key, value, o).status();
}

std::vector<Step> Sequence() {
  const std::string big = Bytes('b', 200'000);
  const std::string chunk = Bytes('c', 100'000);
  const std::string big2 = Bytes('d', 300'000);
  const std::string file = Bytes('f', 1'500'000);
  auto append = [](const std::string& key, const std::string& bytes) {
    return [key, bytes](View& v) {
      SetOptions o;
      o.type = ValueType::kStream;
      return v.Append(key, bytes, o).status();
    };
  };
  return {
      {"small", [](View& v) { return SetIn(v, "small", "s1"); },
       [](Model& m) { m["small"] = "s1"; }},
      {"big", [big](View& v) { return SetIn(v, "big", big); },
       [big](Model& m) { m["big"] = big; }},
      {"log", append("log", "line 1\n"),
       [](Model& m) { m["log"] = "line 1\n"; }},
      {"log", append("log", chunk),
       [chunk](Model& m) { m["log"] = *m["log"] + chunk; }},
      {"small", [](View& v) { return SetIn(v, "small", "s2"); },
       [](Model& m) { m["small"] = "s2"; }},
      {"big", [](View& v) { return v.Remove("big"); },
       [](Model& m) { m["big"] = std::nullopt; }},
      {"sess",
       [](View& v) { return SetIn(v, "sess", "session value", "agent"); },
       [](Model& m) { m["sess"] = "session value"; }},
      {"sess", [](View& v) { return v.Promote("sess").status(); },
       [](Model&) {}},  // Same bytes, now global.
      {"big2", [big2](View& v) { return SetIn(v, "big2", big2); },
       [big2](Model& m) { m["big2"] = big2; }},
      // A file large enough to be staged (copied in the kernel, then
      // renamed into place as its blob).
      {"file",
       [file](View& v) {
         const std::string path = ::testing::TempDir() + "/fault_walk_file";
         std::ofstream(path, std::ios::binary) << file;
         return v.SetFile("file", path).status();
       },
       [file](Model& m) { m["file"] = file; }},
  };
}

class FaultWalkTest : public ::testing::Test {
 protected:
  void SetUp() override {
    fault::InstallSqliteShim();
    const char* base = ::getenv("TMPDIR");
    std::string pattern =
        std::string(base && *base ? base : "/tmp") + "/ctxkit-faults-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    fault::Disarm();
    std::filesystem::remove_all(dir_);
  }

  Options StoreOptions(const std::string& home) {
    Options o;
    o.home = home;
    return o;
  }

  // Runs the sequence in a new store at `home` until a step fails. Returns
  // the model of acknowledged writes; *failed names the failed step's key.
  Model Run(const std::string& home, std::optional<std::string>* failed,
            Model* before_failed) {
    Model model;
    Result<std::unique_ptr<Store>> store = Store::Open(StoreOptions(home));
    if (!store.ok()) {
      *failed = "";  // Opening failed: nothing was acknowledged.
      last_error_ = store.status().ToString();
      return model;
    }
    Result<View> view = (*store)->OpenView("agent", "s1");
    if (!view.ok()) {
      *failed = "";
      return model;
    }
    for (const Step& step : Sequence()) {
      Model next = model;
      step.apply(next);
      if (Status s = step.run(*view); !s.ok()) {
        last_error_ = s.ToString();
        *failed = step.key;
        *before_failed = model;
        model = next;  // The failed step's key may hold either state.
        return model;
      }
      model = std::move(next);
    }
    return model;
  }

  std::string dir_;
  std::string last_error_;
};

TEST_F(FaultWalkTest, EveryFailedWriteFsyncOrRenameLeavesAConsistentStore) {
  // How many operations the whole sequence does.
  fault::Count();
  std::optional<std::string> none;
  Model ignored;
  Model full = Run(dir_ + "/count", &none, &ignored);
  const uint64_t total = fault::Seen();
  fault::Disarm();
  ASSERT_FALSE(none.has_value()) << *none << ": " << last_error_;
  ASSERT_GT(total, 20u) << "the shim does not see the store's I/O";
  int failures_seen = 0;
  for (uint64_t n = 0; n < total; ++n) {
    SCOPED_TRACE("fault at I/O operation " + std::to_string(n) + " of " +
                 std::to_string(total));
    const std::string home = dir_ + "/walk-" + std::to_string(n);
    fault::Arm(n, /*short_write=*/n % 2 == 1);
    std::optional<std::string> failed;
    Model before_failed;
    Model model = Run(home, &failed, &before_failed);
    const bool fired = fault::Fired();
    fault::Disarm();
    failures_seen += failed.has_value() ? 1 : 0;
    if (::getenv("CTXKIT_FAULT_DEBUG") && !failed.has_value()) {
      std::printf("op %llu: fired=%d, no step failed\n",
                  static_cast<unsigned long long>(n), fired);
    }

    // Reopen with normal I/O: consistent, every acknowledged write there.
    Result<std::unique_ptr<Store>> store = Store::Open(StoreOptions(home));
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    Result<View> view = (*store)->OpenView("agent", "s1");
    ASSERT_TRUE(view.ok());
    for (const auto& [key, want] : model) {
      Result<std::string> got = view->Get(key);
      const bool is_failed_key = failed.has_value() && *failed == key;
      if (is_failed_key) {
        // Either wholly before or wholly after, never part of it.
        std::optional<std::string> before;
        if (auto it = before_failed.find(key); it != before_failed.end()) {
          before = it->second;
        }
        const std::optional<std::string> now =
            got.ok() ? std::optional<std::string>(*got) : std::nullopt;
        EXPECT_TRUE(now == want || now == before) << key;
        continue;
      }
      if (want.has_value()) {
        ASSERT_TRUE(got.ok()) << key << ": " << got.status().ToString();
        EXPECT_EQ(got->size(), want->size()) << key;
        EXPECT_TRUE(*got == *want) << key;
      } else {
        EXPECT_TRUE(got.status().IsNotFound()) << key;
      }
    }
    EXPECT_TRUE(view->Set("after", "works").ok());
    store->reset();
    EXPECT_EQ(testing::SqliteIntegrityCheck(home + "/ctxkit.db"), "ok");
    std::filesystem::remove_all(home);
  }
  std::printf("%llu I/O operations walked; %d made a step fail\n",
              static_cast<unsigned long long>(total), failures_seen);
  // The faults reached the sequence's steps (not only opening).
  EXPECT_GT(failures_seen, static_cast<int>(total / 2));
  EXPECT_EQ(full.size(), 6u);
}

}  // namespace
}  // namespace ctxkit
