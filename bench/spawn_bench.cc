// Spawning a sub-agent with refs (ctxkit::Spawn) against the anchor it
// replaces: handing the child copies, i.e. a context file with the values
// inlined, written the same way (temp file, fsync, rename, directory
// fsync). Both run interleaved in one benchmark, over the same N values of
// 1 MiB each, and report p50/p99 of each, the bytes each writes, and
// copies_p50 / spawn_p50 as `ratio`. A second benchmark measures the
// child's side: load the manifest, open its view, resolve one 1 MiB ref
// (a different one each time, so none comes from the memory tier).
//
//   build/release/spawn_bench --benchmark_counters_tabular=true

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench_util.h"
#include "ctxkit/spawn.h"
#include "ctxkit/store.h"
#include "os/file_util.h"

namespace {

using ctxkit_bench::Clock;
using ctxkit_bench::LatencySamples;
using ctxkit_bench::NanosSince;

constexpr size_t kValueBytes = 1u << 20;

struct Fixture {
  ctxkit_bench::TempDir dir;
  std::unique_ptr<ctxkit::Store> store;
  std::unique_ptr<ctxkit::View> parent;
  ctxkit::SpawnContext context;
  std::vector<std::string> values;
};

std::unique_ptr<Fixture> MakeFixture(benchmark::State& state, int refs) {
  auto f = std::make_unique<Fixture>();
  ctxkit::Options options;
  options.home = f->dir.Sub("store");
  auto store = ctxkit::Store::Open(options);
  if (!store.ok()) {
    state.SkipWithError(store.status().ToString().c_str());
    return nullptr;
  }
  f->store = std::move(*store);
  auto parent = f->store->OpenView("planner", "run-1");
  if (!parent.ok()) {
    state.SkipWithError(parent.status().ToString().c_str());
    return nullptr;
  }
  f->parent = std::make_unique<ctxkit::View>(std::move(*parent));
  for (int i = 0; i < refs; ++i) {
    std::string value = ctxkit_bench::MakeText(kValueBytes, i + 1);
    ctxkit_bench::Stamp(&value, i);
    const std::string key = "docs/value-" + std::to_string(i);
    auto ref = f->parent->Set(key, value);
    if (!ref.ok()) {
      state.SkipWithError(ref.status().ToString().c_str());
      return nullptr;
    }
    f->context.emplace_back("value_" + std::to_string(i), *ref);
    f->values.push_back(std::move(value));
  }
  return f;
}

void BM_SpawnRefsVsCopies(benchmark::State& state) {
  const int refs = static_cast<int>(state.range(0));
  std::unique_ptr<Fixture> f = MakeFixture(state, refs);
  if (f == nullptr) return;
  const std::string copies_path = f->dir.Sub("copies.json");
  ctxkit::SpawnOptions options;
  options.child_agent_id = "worker";
  options.manifest_path = f->dir.Sub("manifest.json");
  LatencySamples spawn_ns, copies_ns;
  uint64_t manifest_bytes = 0, copies_bytes = 0;
  for (auto _ : state) {
    Clock::time_point t0 = Clock::now();
    auto spawned =
        ctxkit::Spawn(*f->parent, "Compare the values", f->context, options);
    spawn_ns.Add(static_cast<double>(NanosSince(t0)));
    if (!spawned.ok()) {
      state.SkipWithError(spawned.status().ToString().c_str());
      return;
    }
    manifest_bytes = ctxkit::FormatManifest(spawned->manifest).size();

    // The anchor: the same context passed as copies.
    t0 = Clock::now();
    nlohmann::json copies = {{"prompt", "Compare the values"},
                             {"context", nlohmann::json::object()}};
    for (size_t i = 0; i < f->values.size(); ++i) {
      copies["context"][f->context[i].first] = f->values[i];
    }
    std::string text = copies.dump();
    ctxkit::Status s = ctxkit::storage::AtomicWriteFile(
        f->dir.path(), copies_path, text, /*sync=*/true);
    copies_ns.Add(static_cast<double>(NanosSince(t0)));
    if (!s.ok()) {
      state.SkipWithError(s.ToString().c_str());
      return;
    }
    copies_bytes = text.size();
  }
  double spawn_p50 = spawn_ns.Percentile(0.5);
  double copies_p50 = copies_ns.Percentile(0.5);
  spawn_ns.Report(state, "spawn_");
  copies_ns.Report(state, "copies_");
  state.counters["manifest_bytes"] = static_cast<double>(manifest_bytes);
  state.counters["copies_bytes"] = static_cast<double>(copies_bytes);
  state.counters["ratio"] = spawn_p50 > 0 ? copies_p50 / spawn_p50 : 0;
}
BENCHMARK(BM_SpawnRefsVsCopies)
    ->ArgName("refs")
    ->Arg(1)
    ->Arg(50)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(20);

// The child's side in a fresh Store instance (as a new process would):
// load and validate the manifest, open the child view, read one value.
void BM_ChildLoadAndResolve(benchmark::State& state) {
  const int refs = static_cast<int>(state.range(0));
  std::unique_ptr<Fixture> f = MakeFixture(state, refs);
  if (f == nullptr) return;
  ctxkit::SpawnOptions options;
  options.manifest_path = f->dir.Sub("manifest.json");
  auto spawned = ctxkit::Spawn(*f->parent, "go", f->context, options);
  if (!spawned.ok()) {
    state.SkipWithError(spawned.status().ToString().c_str());
    return;
  }
  ctxkit::Options store_options;
  store_options.home = f->store->home();
  auto child_store = ctxkit::Store::Open(store_options);
  if (!child_store.ok()) {
    state.SkipWithError(child_store.status().ToString().c_str());
    return;
  }
  LatencySamples load_ns, resolve_ns;
  // A different value each iteration, so no read is a memory-tier hit.
  size_t next = 0;
  for (auto _ : state) {
    const std::string& name = f->context[next++ % f->context.size()].first;
    Clock::time_point t0 = Clock::now();
    auto m = ctxkit::LoadManifest(options.manifest_path);
    if (!m.ok()) {
      state.SkipWithError(m.status().ToString().c_str());
      return;
    }
    auto child = ctxkit::OpenChildView(**child_store, *m);
    load_ns.Add(static_cast<double>(NanosSince(t0)));
    if (!child.ok()) {
      state.SkipWithError(child.status().ToString().c_str());
      return;
    }
    t0 = Clock::now();
    auto value = ctxkit::ResolveContextRef(*child, *m, name);
    resolve_ns.Add(static_cast<double>(NanosSince(t0)));
    if (!value.ok() || value->size() != kValueBytes) {
      state.SkipWithError("resolve failed");
      return;
    }
    benchmark::DoNotOptimize(value->data());
  }
  load_ns.Report(state, "load_");
  resolve_ns.Report(state, "resolve_");
}
BENCHMARK(BM_ChildLoadAndResolve)
    ->ArgName("refs")
    ->Arg(50)
    ->Unit(benchmark::kMicrosecond)
    ->Iterations(50);

}  // namespace

BENCHMARK_MAIN();
