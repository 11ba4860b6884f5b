// The watch verbs: watch add/ls/rm/scan/run (include/ctxkit/watch.h,
// docs/watchers.md).

#include <signal.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_app.h"
#include "cli/flags.h"
#include "cli/io.h"
#include "cli/output.h"
#include "core/status_macros.h"
#include "ctxkit/store.h"
#include "ctxkit/watch.h"
#include "text/json_write.h"

namespace ctxkit::cli {

namespace {

struct WatchArgs {
  std::string path;
  uint64_t max_file_bytes = 64ull << 20;
  uint64_t settle_ms = 20;
};

Result<WatchOptions> MakeOptions(const WatchArgs& a) {
  WatchOptions o;
  if (a.max_file_bytes == 0 || a.max_file_bytes > (1ull << 30)) {
    return Status::InvalidArgument("--max-file-bytes must be 1 to 1073741824");
  }
  if (a.settle_ms > 10000) {
    return Status::InvalidArgument("--settle-ms must be 0 to 10000");
  }
  o.max_file_bytes = a.max_file_bytes;
  o.settle_ms = static_cast<uint32_t>(a.settle_ms);
  o.max_settle_ms = std::max<uint32_t>(o.settle_ms, o.max_settle_ms);
  return o;
}

nlohmann::json ReportToJson(const WatchReport& r) {
  nlohmann::json skipped = nlohmann::json::array();
  for (const SkippedFile& s : r.skipped) {
    skipped.push_back({{"path", s.path}, {"reason", s.reason}});
  }
  return {{"files_seen", r.files_seen},    {"created", r.created},
          {"updated", r.updated},          {"unchanged", r.unchanged},
          {"deleted", r.deleted},          {"moved", r.moved},
          {"skipped", std::move(skipped)}, {"missing_roots", r.missing_roots}};
}

std::string ReportLine(const WatchReport& r) {
  return GroupedNumber(r.files_seen) + " files: " + GroupedNumber(r.created) +
         " created, " + GroupedNumber(r.updated) + " updated, " +
         GroupedNumber(r.unchanged) + " unchanged, " +
         GroupedNumber(r.deleted) + " deleted, " +
         GroupedNumber(r.skipped.size()) + " skipped\n";
}

// Skips and missing roots are remarks, on stderr, so stdout stays the
// result.
void PrintNotes(const WatchReport& r) {
  for (const SkippedFile& s : r.skipped) {
    std::fprintf(stderr, "ctxkit: note: skipped %s: %s\n", s.path.c_str(),
                 s.reason.c_str());
  }
  for (const std::string& root : r.missing_roots) {
    std::fprintf(stderr, "ctxkit: note: watched path %s does not exist\n",
                 root.c_str());
  }
}

nlohmann::json EntryToJson(const WatchEntry& e) {
  return {{"path", e.path},
          {"kind", e.directory ? "directory" : "file"},
          {"added", Rfc3339(e.added_unix_ns)}};
}

Status RunAdd(Context& ctx, const WatchArgs& a) {
  Result<WatchOptions> o = MakeOptions(a);
  if (!o.ok()) return o.status();
  Result<Store*> store = ctx.OpenStore();
  if (!store.ok()) return store.status();
  WatchReport report;
  o->progress = ctx.Progress();
  Result<WatchEntry> e = AddWatch(**store, a.path, *o, &report);
  if (!e.ok()) return e.status();
  if (ctx.json()) {
    nlohmann::json j = EntryToJson(*e);
    j["report"] = ReportToJson(report);
    PrintJson(j);
    return Status::Ok();
  }
  PrintNotes(report);
  return WriteStdout("watching " + e->path +
                     (e->directory ? " (directory): " : " (file): ") +
                     ReportLine(report));
}

Status RunList(Context& ctx) {
  Result<Store*> store = ctx.OpenStore();
  if (!store.ok()) return store.status();
  Result<std::vector<WatchEntry>> list = ListWatches(**store);
  if (!list.ok()) return list.status();
  if (ctx.json()) {
    nlohmann::json items = nlohmann::json::array();
    for (const WatchEntry& e : *list) items.push_back(EntryToJson(e));
    PrintJson({{"watches", std::move(items)}});
    return Status::Ok();
  }
  if (list->empty()) return Status::Ok();
  Table table({"PATH", "KIND", "ADDED"});
  for (const WatchEntry& e : *list) {
    table.AddRow({e.path, e.directory ? "directory" : "file",
                  HumanTime(e.added_unix_ns)});
  }
  return WriteStdout(table.Render());
}

Status RunRemove(Context& ctx, const WatchArgs& a) {
  Result<Store*> store = ctx.OpenStore();
  if (!store.ok()) return store.status();
  CTXKIT_RETURN_IF_ERROR(RemoveWatch(**store, a.path));
  if (ctx.json()) {
    PrintJson({{"path", a.path}, {"removed", true}});
    return Status::Ok();
  }
  return WriteStdout("stopped watching " + a.path + "\n");
}

Status RunScan(Context& ctx, const WatchArgs& a) {
  Result<WatchOptions> o = MakeOptions(a);
  if (!o.ok()) return o.status();
  Result<Store*> store = ctx.OpenStore();
  if (!store.ok()) return store.status();
  o->progress = ctx.Progress();
  Result<WatchReport> report = ScanWatches(**store, *o);
  if (!report.ok()) return report.status();
  if (ctx.json()) {
    PrintJson(ReportToJson(*report));
    return Status::Ok();
  }
  PrintNotes(*report);
  return WriteStdout(ReportLine(*report));
}

// The running watcher, for the signal handler; a signal before it exists
// is remembered in g_stop_requested and honoured right after.
std::atomic<Watcher*> g_watcher{nullptr};
volatile sig_atomic_t g_stop_requested = 0;

extern "C" void OnStopSignal(int) {
  g_stop_requested = 1;
  Watcher* w = g_watcher.load();
  if (w != nullptr) w->Stop();
}

Status RunDaemon(Context& ctx, const WatchArgs& a) {
  Result<WatchOptions> o = MakeOptions(a);
  if (!o.ok()) return o.status();
  Result<Store*> store = ctx.OpenStore();
  if (!store.ok()) return store.status();
  bool json = ctx.json();
  // One line per change, flushed, so a supervisor or test can follow it.
  o->on_change = [json](const WatchChange& c) {
    std::string line;
    if (json) {
      nlohmann::json j = {{"event", WatchChangeKindName(c.kind)},
                          {"key", c.key},
                          {"version", c.version}};
      if (c.kind == WatchChange::Kind::kMoved) j["from_key"] = c.from_key;
      line = text::DumpJson(j);
    } else {
      line = std::string(WatchChangeKindName(c.kind)) + " " +
             (c.kind == WatchChange::Kind::kMoved ? c.from_key + " -> " : "") +
             c.key + (c.version != 0 ? " v" + std::to_string(c.version) : "");
    }
    std::fputs((line + "\n").c_str(), stdout);
    std::fflush(stdout);
  };
  o->on_skip = [](const SkippedFile& s) {
    std::fprintf(stderr, "ctxkit: note: skipped %s: %s\n", s.path.c_str(),
                 s.reason.c_str());
  };
  struct sigaction sa {};
  sa.sa_handler = OnStopSignal;
  sigemptyset(&sa.sa_mask);
  struct sigaction old_int {
  }, old_term{};
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  Result<std::unique_ptr<Watcher>> watcher = Watcher::Start(*store, *o);
  Status s = watcher.status();
  if (watcher.ok()) {
    std::fprintf(stderr, "ctxkit: watching; catch-up pass: %s",
                 ReportLine((*watcher)->totals()).c_str());
    g_watcher.store(watcher->get());
    if (g_stop_requested) (*watcher)->Stop();
    s = (*watcher)->Run();
    g_watcher.store(nullptr);
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  CTXKIT_RETURN_IF_ERROR(s);
  return Status::Ok();
}

void AddMaxBytes(CLI::App* sub, WatchArgs* a) {
  sub->add_option("--max-file-bytes", a->max_file_bytes,
                  "Skip files larger than N bytes (default 67108864 = 64 MiB)")
      ->type_name("N")
      ->check(UnsignedNumber());
}

}  // namespace

void RegisterWatchCommands(CLI::App& app, CommandTable& table) {
  CLI::App* watch = app.add_subcommand(
      "watch",
      "Mirror files as versioned objects keyed file:<absolute path> "
      "(global scope), kept current by inotify (see docs/watchers.md)");
  watch->require_subcommand(1);
  auto a = std::make_shared<WatchArgs>();

  CLI::App* add = watch->add_subcommand(
      "add", "Watch PATH (a file or a directory tree) and index it now");
  add->add_option("PATH", a->path, "File or directory")->required();
  AddMaxBytes(add, a.get());
  table.Add(add, [a](Context& ctx) { return RunAdd(ctx, *a); });

  CLI::App* ls = watch->add_subcommand("ls", "List watched paths");
  table.Add(ls, [](Context& ctx) { return RunList(ctx); });

  CLI::App* rm = watch->add_subcommand(
      "rm", "Stop watching PATH; its objects and their history stay");
  rm->add_option("PATH", a->path, "A path given to watch add")->required();
  table.Add(rm, [a](Context& ctx) { return RunRemove(ctx, *a); });

  CLI::App* scan = watch->add_subcommand(
      "scan", "One catch-up pass: index changes made while no watcher ran");
  AddMaxBytes(scan, a.get());
  table.Add(scan, [a](Context& ctx) { return RunScan(ctx, *a); });

  CLI::App* run = watch->add_subcommand(
      "run",
      "Watch in the foreground until SIGINT/SIGTERM, printing one line per "
      "change");
  AddMaxBytes(run, a.get());
  run->add_option("--settle-ms", a->settle_ms,
                  "Act on a change once no event arrived for N ms, 0-10000 "
                  "(default 20)")
      ->type_name("N")
      ->check(UnsignedNumber());
  table.Add(run, [a](Context& ctx) { return RunDaemon(ctx, *a); });
}

}  // namespace ctxkit::cli
