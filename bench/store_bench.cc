// Latency of the ctxkit store against two anchors measured in the same run.
// Benchmark names are <system>/<operation>/<size> (bench/report.py relies on
// them):
//
//   ctxkit/...       the public API (include/ctxkit/store.h) on a fresh store
//                    in a temporary directory.
//   sqlite/get/...   raw SQLite with the settings of ctxkit's default
//                    Durability::kFull (WAL, synchronous=FULL), one row
//                    (key, value) per set in its own (autocommit) transaction,
//                    prepared statements.
//   jsonfile/get/... one JSON file per value with fsync, the approach of seed
//                    001: {toolName,args,result,timestamp,queryId,sessionId}
//                    with the value as an escaped JSON string, written to a
//                    temp file, fsynced, renamed; read back = read the file +
//                    parse with nlohmann::json.
//   interleaved/durable_set/...  ctxkit Set, the raw SQLite insert and the
//                    JSON file write, alternating in one loop (see
//                    BM_DurableSetInterleaved).
//
// Every benchmark records one latency per operation with a steady clock and
// reports p50_ns / p99_ns / max_ns counters (see bench_util.h); RefOf is timed
// in batches of kRefBatch calls because a single call is close to the
// clock's own cost. bench/run.sh runs this with fixed flags and
// bench/report.py turns the JSON into docs/benchmarks.md's tables.

#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <ctime>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "bench_util.h"
#include "core/sha256.h"
#include "ctxkit/ref.h"
#include "ctxkit/status.h"
#include "ctxkit/store.h"
#include "sqlite/sqlite_backend.h"
#include "storage/backend.h"

namespace {

using ctxkit_bench::Clock;
using ctxkit_bench::LatencySamples;
using ctxkit_bench::MakeText;
using ctxkit_bench::NanosSince;
using ctxkit_bench::SizeLabel;
using ctxkit_bench::Stamp;
using ctxkit_bench::TempDir;

constexpr uint64_t kKiB = 1024;
constexpr uint64_t kMiB = 1024 * 1024;
constexpr int kRefBatch = 64;

// Opens a ctxkit store under `home`, or reports the error on `state`.
std::unique_ptr<ctxkit::Store> OpenStore(benchmark::State& state,
                                         const std::string& home,
                                         ctxkit::Options options = {}) {
  options.home = home;
  auto store = ctxkit::Store::Open(options);
  if (!store.ok()) {
    state.SkipWithError(("Store::Open: " + store.status().ToString()).c_str());
    return nullptr;
  }
  return std::move(store).value();
}

std::optional<ctxkit::View> OpenView(benchmark::State& state,
                                     ctxkit::Store* store) {
  auto view = store->OpenView("bench", "s1");
  if (!view.ok()) {
    state.SkipWithError(("OpenView: " + view.status().ToString()).c_str());
    return std::nullopt;
  }
  return *view;
}

bool Check(benchmark::State& state, const ctxkit::Status& status,
           std::string_view what) {
  if (status.ok()) return true;
  state.SkipWithError((std::string(what) + ": " + status.ToString()).c_str());
  return false;
}

std::string Key(std::string_view prefix, uint64_t i) {
  return std::string(prefix) + std::to_string(i);
}

void ReportStoreStats(benchmark::State& state, ctxkit::Store* store) {
  ctxkit::StoreStats s = *store->Stats();
  state.counters["mem_used_bytes"] = static_cast<double>(s.memory_used_bytes);
  state.counters["cached_values"] = static_cast<double>(s.cached_values);
  state.counters["evictions"] = static_cast<double>(s.evictions);
  state.counters["spills"] = static_cast<double>(s.spills);
}

// ---------------------------------------------------------------- ctxkit

// View::RefOf on a key that was just set (the in-memory map path). Arg 0: a
// 10-byte key (fits std::string's small buffer), 1: a 32-byte key.
void BM_CtxkitRefOf(benchmark::State& state) {
  TempDir dir;
  auto store = OpenStore(state, dir.path());
  if (!store) return;
  auto view = OpenView(state, store.get());
  if (!view) return;
  const std::string key =
      state.range(0) == 0 ? "notes/auth" : "tools/grep/2024-06-01/run-000042";
  if (!Check(state, view->Set(key, MakeText(1 * kKiB, 1)).status(), "Set")) {
    return;
  }
  if (!Check(state, view->RefOf(key).status(), "RefOf")) return;
  LatencySamples lat(1 << 16);
  while (state.KeepRunningBatch(kRefBatch)) {
    auto start = Clock::now();
    for (int i = 0; i < kRefBatch; ++i) {
      auto ref = view->RefOf(key);
      benchmark::DoNotOptimize(ref);
    }
    lat.Add(static_cast<double>(NanosSince(start)) / kRefBatch);
  }
  lat.Report(state);
}

// Session-only (persist=false) Set of 1 KiB, cycling over kKeys keys (so
// most sets append a version to an existing object).
void BM_CtxkitMemSet(benchmark::State& state) {
  constexpr uint64_t kKeys = 1024;
  TempDir dir;
  auto store = OpenStore(state, dir.path());
  if (!store) return;
  auto view = OpenView(state, store.get());
  if (!view) return;
  ctxkit::SetOptions opts;
  opts.scope = "session";
  opts.persist = false;
  std::string value = MakeText(static_cast<size_t>(state.range(0)), 2);
  std::vector<std::string> keys;
  for (uint64_t i = 0; i < kKeys; ++i) keys.push_back(Key("mem/", i));
  LatencySamples lat(static_cast<size_t>(state.max_iterations));
  uint64_t n = 0;
  for (auto _ : state) {
    Stamp(&value, n);
    auto start = Clock::now();
    auto ref = view->Set(keys[n % kKeys], value, opts);
    lat.Add(static_cast<double>(NanosSince(start)));
    if (!ref.ok() && !Check(state, ref.status(), "Set")) break;
    ++n;
  }
  lat.Report(state);
  ReportStoreStats(state, store.get());
  (void)store->EndSession("s1");
}

// Session-only Get of 1 KiB, cycling over kKeys keys set beforehand.
void BM_CtxkitMemGet(benchmark::State& state) {
  constexpr uint64_t kKeys = 1024;
  TempDir dir;
  auto store = OpenStore(state, dir.path());
  if (!store) return;
  auto view = OpenView(state, store.get());
  if (!view) return;
  ctxkit::SetOptions opts;
  opts.scope = "session";
  opts.persist = false;
  std::string value = MakeText(static_cast<size_t>(state.range(0)), 3);
  std::vector<std::string> keys;
  for (uint64_t i = 0; i < kKeys; ++i) {
    keys.push_back(Key("mem/", i));
    Stamp(&value, i);
    if (!Check(state, view->Set(keys.back(), value, opts).status(), "Set")) {
      return;
    }
  }
  LatencySamples lat(static_cast<size_t>(state.max_iterations));
  uint64_t n = 0;
  for (auto _ : state) {
    auto start = Clock::now();
    auto got = view->Get(keys[n % kKeys]);
    lat.Add(static_cast<double>(NanosSince(start)));
    if (!got.ok() && !Check(state, got.status(), "Get")) break;
    benchmark::DoNotOptimize(got);
    ++n;
  }
  lat.Report(state);
  ReportStoreStats(state, store.get());
  (void)store->EndSession("s1");
}

// Writes `count` durable values of `size` bytes under "get/<i>" into a store
// at `home` opened with Durability::kProcess (setup speed only; reads do not
// depend on it) and closes it.
bool FillDurable(benchmark::State& state, const std::string& home,
                 uint64_t size, uint64_t count) {
  ctxkit::Options options;
  options.durability = ctxkit::Durability::kProcess;
  auto store = OpenStore(state, home, options);
  if (!store) return false;
  auto view = OpenView(state, store.get());
  if (!view) return false;
  std::string value = MakeText(size, 5);
  for (uint64_t i = 0; i < count; ++i) {
    Stamp(&value, i);
    if (!Check(state, view->Set(Key("get/", i), value).status(), "Set")) {
      return false;
    }
  }
  return true;
}

enum class GetMode {
  kWarm,   // Value in the memory tier.
  kCold,   // Metadata cached, value not in the memory tier.
  kFirst,  // Fresh store: the first Get of each key (metadata and value).
};

// Durable Get.
//   kWarm:  default ceiling (256 MiB); every key read once before timing,
//           so timed reads hit the memory tier.
//   kCold:  the store is reopened with a 256 KiB ceiling and the keys' total
//           size is at least 4x that ceiling (or every value is bigger than
//           it). One untimed pass caches the keys' metadata; the timed
//           cyclic reads never find the value in the memory tier (LRU over a
//           working set larger than the ceiling) and read it from SQLite or
//           the blob file.
//   kFirst: a freshly opened store; each timed Get reads a key for the first
//           time, so the lookup and the value both come from SQLite / the
//           blob file. The number of keys is the iteration count.
// In all modes the OS page cache is warm (the files were just written):
// "cold" is about ctxkit's memory tier, not the disk.
void DurableGet(benchmark::State& state, GetMode mode) {
  const uint64_t size = static_cast<uint64_t>(state.range(0));
  constexpr uint64_t kColdCeiling = 256 * kKiB;
  const uint64_t count = mode == GetMode::kFirst
                             ? static_cast<uint64_t>(state.max_iterations)
                             : std::max<uint64_t>(3, (4 * kMiB) / size);
  TempDir dir;
  if (!FillDurable(state, dir.path(), size, count)) return;
  ctxkit::Options options;
  if (mode != GetMode::kWarm) options.memory_ceiling_bytes = kColdCeiling;
  auto store = OpenStore(state, dir.path(), options);
  if (!store) return;
  auto view = OpenView(state, store.get());
  if (!view) return;
  std::vector<std::string> keys;
  for (uint64_t i = 0; i < count; ++i) keys.push_back(Key("get/", i));
  if (mode != GetMode::kFirst) {
    for (const auto& k : keys) {
      if (!Check(state, view->Get(k).status(), "Get")) return;
    }
  }
  const uint64_t evictions_before = store->Stats()->evictions;
  LatencySamples lat(static_cast<size_t>(state.max_iterations));
  uint64_t n = 0;
  for (auto _ : state) {
    auto start = Clock::now();
    auto got = view->Get(keys[n % count]);
    lat.Add(static_cast<double>(NanosSince(start)));
    if (!got.ok() && !Check(state, got.status(), "Get")) break;
    if (got->size() != size) {
      state.SkipWithError("Get returned the wrong size");
      break;
    }
    benchmark::DoNotOptimize(got);
    ++n;
  }
  lat.Report(state);
  ReportStoreStats(state, store.get());
  state.counters["evictions_per_get"] =
      n == 0
          ? 0
          : static_cast<double>(store->Stats()->evictions - evictions_before) /
                static_cast<double>(n);
}

void BM_CtxkitDurableGetWarm(benchmark::State& state) {
  DurableGet(state, GetMode::kWarm);
}
void BM_CtxkitDurableGetCold(benchmark::State& state) {
  DurableGet(state, GetMode::kCold);
}
void BM_CtxkitDurableGetFirst(benchmark::State& state) {
  DurableGet(state, GetMode::kFirst);
}

// ---------------------------------------------------------------- SQLite

class RawSqlite {
 public:
  ~RawSqlite() {
    sqlite3_finalize(insert_);
    sqlite3_finalize(select_);
    sqlite3_close(db_);
  }

  // WAL + synchronous=FULL: what ctxkit's Durability::kFull promises.
  bool Open(benchmark::State& state, const std::string& path) {
    if (sqlite3_open(path.c_str(), &db_) != SQLITE_OK) {
      return Fail(state, "open");
    }
    const char* setup =
        "PRAGMA journal_mode=WAL;"
        "PRAGMA synchronous=FULL;"
        "CREATE TABLE IF NOT EXISTS kv(key TEXT PRIMARY KEY, value BLOB);";
    if (sqlite3_exec(db_, setup, nullptr, nullptr, nullptr) != SQLITE_OK) {
      return Fail(state, "setup");
    }
    if (sqlite3_prepare_v2(db_, "INSERT INTO kv(key, value) VALUES(?, ?)", -1,
                           &insert_, nullptr) != SQLITE_OK ||
        sqlite3_prepare_v2(db_, "SELECT value FROM kv WHERE key = ?", -1,
                           &select_, nullptr) != SQLITE_OK) {
      return Fail(state, "prepare");
    }
    return true;
  }

  // One autocommit INSERT: its own transaction, fsynced at commit.
  bool Insert(benchmark::State& state, std::string_view key,
              std::string_view value) {
    sqlite3_bind_text(insert_, 1, key.data(), static_cast<int>(key.size()),
                      SQLITE_STATIC);
    sqlite3_bind_blob(insert_, 2, value.data(), static_cast<int>(value.size()),
                      SQLITE_STATIC);
    int rc = sqlite3_step(insert_);
    sqlite3_reset(insert_);
    if (rc != SQLITE_DONE) return Fail(state, "insert");
    return true;
  }

  // Runs `sql` (e.g. "BEGIN" / "COMMIT" around the untimed fill of a read
  // benchmark, so the fill costs one fsync instead of thousands).
  bool Exec(benchmark::State& state, const char* sql) {
    if (sqlite3_exec(db_, sql, nullptr, nullptr, nullptr) != SQLITE_OK) {
      return Fail(state, sql);
    }
    return true;
  }

  // Copies the value out into a std::string, as ctxkit's Get does.
  bool Select(benchmark::State& state, std::string_view key, std::string* out) {
    sqlite3_bind_text(select_, 1, key.data(), static_cast<int>(key.size()),
                      SQLITE_STATIC);
    int rc = sqlite3_step(select_);
    if (rc == SQLITE_ROW) {
      const void* p = sqlite3_column_blob(select_, 0);
      int n = sqlite3_column_bytes(select_, 0);
      out->assign(static_cast<const char*>(p), static_cast<size_t>(n));
    }
    sqlite3_reset(select_);
    if (rc != SQLITE_ROW) return Fail(state, "select");
    return true;
  }

 private:
  bool Fail(benchmark::State& state, const char* what) {
    state.SkipWithError(
        (std::string("sqlite ") + what + ": " + sqlite3_errmsg(db_)).c_str());
    return false;
  }

  sqlite3* db_ = nullptr;
  sqlite3_stmt* insert_ = nullptr;
  sqlite3_stmt* select_ = nullptr;
};

void BM_SqliteGet(benchmark::State& state) {
  const uint64_t size = static_cast<uint64_t>(state.range(0));
  const uint64_t count = std::max<uint64_t>(3, (4 * kMiB) / size);
  TempDir dir;
  RawSqlite db;
  if (!db.Open(state, dir.Sub("raw.db"))) return;
  std::string value = MakeText(size, 5);
  std::vector<std::string> keys;
  if (!db.Exec(state, "BEGIN")) return;
  for (uint64_t i = 0; i < count; ++i) {
    keys.push_back(Key("get/", i));
    Stamp(&value, i);
    if (!db.Insert(state, keys.back(), value)) return;
  }
  if (!db.Exec(state, "COMMIT")) return;
  LatencySamples lat(static_cast<size_t>(state.max_iterations));
  std::string out;
  uint64_t n = 0;
  for (auto _ : state) {
    auto start = Clock::now();
    std::string got;  // A fresh string per read, like ctxkit's Get.
    bool ok = db.Select(state, keys[n % count], &got);
    lat.Add(static_cast<double>(NanosSince(start)));
    if (!ok) break;
    benchmark::DoNotOptimize(got);
    ++n;
  }
  lat.Report(state);
}

// ------------------------------------------------------ JSON file per value

std::string IsoTimestamp() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// Seed 001's saveContext: serialize, write a temp file, fsync, rename.
// sync=false only for the untimed fill of the read benchmark.
bool WriteJsonFile(benchmark::State& state, const std::string& dir,
                   std::string_view key, std::string_view value,
                   bool sync = true) {
  nlohmann::json doc = {
      {"toolName", "bench"},      {"args", {{"key", key}}},
      {"result", value},          {"timestamp", IsoTimestamp()},
      {"queryId", "query-bench"}, {"sessionId", "session-bench"},
  };
  std::string text = doc.dump();
  std::string path = dir + "/" + std::string(key) + ".json";
  std::string tmp = path + ".tmp";
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    state.SkipWithError("open temp file");
    return false;
  }
  size_t off = 0;
  while (off < text.size()) {
    ssize_t w = write(fd, text.data() + off, text.size() - off);
    if (w <= 0) {
      close(fd);
      state.SkipWithError("write");
      return false;
    }
    off += static_cast<size_t>(w);
  }
  if ((sync && fsync(fd) != 0) || close(fd) != 0 ||
      rename(tmp.c_str(), path.c_str()) != 0) {
    state.SkipWithError("fsync/close/rename");
    return false;
  }
  return true;
}

// Seed 001's loadContext: read the file, parse it, take the result.
bool ReadJsonFile(benchmark::State& state, const std::string& dir,
                  std::string_view key, std::string* out) {
  std::string path = dir + "/" + std::string(key) + ".json";
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    state.SkipWithError("open json file");
    return false;
  }
  std::string text;
  char buf[1 << 16];
  for (;;) {
    ssize_t r = read(fd, buf, sizeof(buf));
    if (r < 0) {
      close(fd);
      state.SkipWithError("read");
      return false;
    }
    if (r == 0) break;
    text.append(buf, static_cast<size_t>(r));
  }
  close(fd);
  nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.contains("result") ||
      !doc["result"].is_string()) {
    state.SkipWithError("bad json file");
    return false;
  }
  *out = std::move(doc["result"].get_ref<std::string&>());
  return true;
}

void BM_JsonFileGet(benchmark::State& state) {
  const uint64_t size = static_cast<uint64_t>(state.range(0));
  const uint64_t count = std::max<uint64_t>(3, (4 * kMiB) / size);
  TempDir dir;
  std::string value = MakeText(size, 5);
  std::vector<std::string> keys;
  for (uint64_t i = 0; i < count; ++i) {
    keys.push_back(Key("get-", i));
    Stamp(&value, i);
    if (!WriteJsonFile(state, dir.path(), keys.back(), value, false)) return;
  }
  LatencySamples lat(static_cast<size_t>(state.max_iterations));
  uint64_t n = 0;
  for (auto _ : state) {
    auto start = Clock::now();
    std::string got;
    bool ok = ReadJsonFile(state, dir.path(), keys[n % count], &got);
    lat.Add(static_cast<double>(NanosSince(start)));
    if (!ok) break;
    if (got.size() != size) {
      state.SkipWithError("json read returned the wrong size");
      break;
    }
    benchmark::DoNotOptimize(got);
    ++n;
  }
  lat.Report(state);
}

// ------------------------------------------------------------ durable set

// Durable Set of a new key per iteration, ctxkit (persist=true,
// Durability::kFull, on a fresh store) and both anchors, interleaved: every
// iteration does one write in each system, rotating which goes first, so a
// burst of disk contention from other processes on a shared machine hits the
// three alike instead of whichever benchmark happened to run then. Each write
// has content never seen before (stamped) under a new key. Counters:
// ctxkit_*, sqlite_*, jsonfile_* (p50_ns, p99_ns, max_ns, samples).
void BM_DurableSetInterleaved(benchmark::State& state) {
  TempDir ctxkit_dir;
  TempDir sqlite_dir;
  TempDir json_dir;
  auto store = OpenStore(state, ctxkit_dir.path());
  if (!store) return;
  auto view = OpenView(state, store.get());
  if (!view) return;
  RawSqlite db;
  if (!db.Open(state, sqlite_dir.Sub("raw.db"))) return;
  std::string value = MakeText(static_cast<size_t>(state.range(0)), 4);
  const auto expected = static_cast<size_t>(state.max_iterations);
  LatencySamples lat[3] = {LatencySamples(expected), LatencySamples(expected),
                           LatencySamples(expected)};
  uint64_t n = 0;
  bool ok = true;
  for (auto _ : state) {
    Stamp(&value, n);
    for (uint64_t k = 0; k < 3 && ok; ++k) {
      const uint64_t system = (n + k) % 3;
      if (system == 0) {
        std::string key = Key("set/", n);
        auto start = Clock::now();
        auto ref = view->Set(key, value);
        lat[0].Add(static_cast<double>(NanosSince(start)));
        ok = ref.ok() || Check(state, ref.status(), "Set");
      } else if (system == 1) {
        std::string key = Key("set/", n);
        auto start = Clock::now();
        ok = db.Insert(state, key, value);
        lat[1].Add(static_cast<double>(NanosSince(start)));
      } else {
        std::string key = Key("set-", n);
        auto start = Clock::now();
        ok = WriteJsonFile(state, json_dir.path(), key, value);
        lat[2].Add(static_cast<double>(NanosSince(start)));
      }
    }
    if (!ok) break;
    ++n;
  }
  lat[0].Report(state, "ctxkit_");
  lat[1].Report(state, "sqlite_");
  lat[2].Report(state, "jsonfile_");
}

// ------------------------------------------------------------ checkpoints

// Where WAL checkpoints run: durable Puts (Durability::kFull, a new key
// each) on two SQLite engines, one checkpointing on its background thread
// (storage/checkpointer.h, the default) and one with SQLite's own
// autocheckpoint inside the commit that fills the WAL, interleaved one of
// each per iteration. Counters: background_*, inline_* (p50_ns, p99_ns,
// p999_ns, max_ns, samples).
void BM_CheckpointInterleaved(benchmark::State& state) {
  TempDir dirs[2];
  std::unique_ptr<ctxkit::storage::Backend> engines[2];
  for (int i = 0; i < 2; ++i) {
    ctxkit::storage::SqliteOptions o;
    o.home = dirs[i].path();
    o.durability = ctxkit::Durability::kFull;
    o.background_checkpoints = i == 0;
    auto b = ctxkit::storage::OpenSqliteBackend(o);
    if (!b.ok()) {
      state.SkipWithError(b.status().ToString().c_str());
      return;
    }
    engines[i] = std::move(*b);
  }
  std::string value = MakeText(static_cast<size_t>(state.range(0)), 4);
  const auto expected = static_cast<size_t>(state.max_iterations);
  LatencySamples lat[2] = {LatencySamples(expected), LatencySamples(expected)};
  uint64_t n = 0;
  int64_t now = 1;
  for (auto _ : state) {
    Stamp(&value, n);
    for (uint64_t k = 0; k < 2; ++k) {
      const uint64_t e = (n + k) % 2;
      ctxkit::storage::PutRequest req;
      req.scope = ctxkit::Scope::Global();
      req.key = Key("set/", n);
      req.content = value;
      req.hash = ctxkit::core::Sha256(value);
      req.now_unix_ns = ++now;
      auto start = Clock::now();
      auto put = engines[e]->Put(req);
      lat[e].Add(static_cast<double>(NanosSince(start)));
      if (!put.ok() && !Check(state, put.status(), "Put")) return;
    }
    ++n;
  }
  const char* names[2] = {"background_", "inline_"};
  for (int i = 0; i < 2; ++i) {
    state.counters[std::string(names[i]) + "p999_ns"] =
        lat[i].Percentile(0.999);
    lat[i].Report(state, names[i]);
  }
}

// ---------------------------------------------------------------- registry

using BenchFn = void (*)(benchmark::State&);

void Register(const std::string& name, BenchFn fn, int64_t arg,
              int64_t iterations) {
  auto* b = benchmark::RegisterBenchmark(name.c_str(), fn)
                ->Arg(arg)
                ->UseRealTime()
                ->Unit(benchmark::kMicrosecond);
  if (iterations > 0) b->Iterations(iterations);
}

// Names are <system>/<operation>/<size>; bench/report.py relies on them.
// Iteration counts are fixed so that every run does the same work (and the
// same number of samples backs each p99).
void RegisterAll() {
  for (int key = 0; key < 2; ++key) {
    auto* b = benchmark::RegisterBenchmark(
                  key == 0 ? "ctxkit/ref_of/10B_key" : "ctxkit/ref_of/32B_key",
                  BM_CtxkitRefOf)
                  ->Arg(key)
                  ->MinTime(0.2)
                  ->Unit(benchmark::kNanosecond);
    (void)b;
  }
  Register("ctxkit/mem_set/1KiB", BM_CtxkitMemSet, 1 * kKiB, 20000);
  Register("storage/checkpoints/1KiB", BM_CheckpointInterleaved, 1 * kKiB,
           20000);
  Register("storage/checkpoints/64KiB", BM_CheckpointInterleaved, 64 * kKiB,
           3000);
  Register("ctxkit/mem_get/1KiB", BM_CtxkitMemGet, 1 * kKiB, 50000);

  struct Size {
    uint64_t bytes;
    int64_t set_iters;
    int64_t warm_iters;
    int64_t cold_iters;
    int64_t first_iters;  // Also the number of keys written for it.
  };
  const Size sizes[] = {
      {1 * kKiB, 1000, 20000, 5000, 2000},
      {64 * kKiB, 300, 5000, 2000, 300},
      {4 * kMiB, 30, 200, 100, 20},
  };
  for (const Size& s : sizes) {
    const std::string label = SizeLabel(s.bytes);
    const auto arg = static_cast<int64_t>(s.bytes);
    Register("interleaved/durable_set/" + label, BM_DurableSetInterleaved, arg,
             s.set_iters);
    Register("ctxkit/durable_get_warm/" + label, BM_CtxkitDurableGetWarm, arg,
             s.warm_iters);
    Register("ctxkit/durable_get_cold/" + label, BM_CtxkitDurableGetCold, arg,
             s.cold_iters);
    Register("ctxkit/durable_get_first/" + label, BM_CtxkitDurableGetFirst, arg,
             s.first_iters);
    Register("sqlite/get/" + label, BM_SqliteGet, arg, s.cold_iters);
    // Parsing a 4 MiB JSON document takes ~70 ms: fewer iterations there.
    Register("jsonfile/get/" + label, BM_JsonFileGet, arg,
             s.bytes >= 4 * kMiB ? 30 : s.cold_iters);
  }
}

}  // namespace

int main(int argc, char** argv) {
  RegisterAll();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
