// Maintenance verbs: du (what the store holds, by scope, type and tier)
// and gc (superseded versions nothing names any longer).

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/cli_app.h"
#include "cli/io.h"
#include "cli/output.h"
#include "core/status_macros.h"
#include "ctxkit/store.h"
#include "face/gc.h"

namespace ctxkit::cli {
namespace {

nlohmann::json UsageJson(const std::vector<UsageRow>& rows,
                         const StoreStats& st) {
  nlohmann::json items = nlohmann::json::array();
  for (const UsageRow& r : rows) {
    items.push_back({{"scope", r.scope.ToString()},
                     {"type", std::string(ValueTypeName(r.type))},
                     {"tier", r.tier},
                     {"objects", r.objects},
                     {"versions", r.versions},
                     {"bytes", r.bytes}});
  }
  return {
      {"rows", std::move(items)},
      {"content_bytes", st.content_bytes},
      {"blob_files", st.blob_files},
      {"session_bytes", st.session_resident_bytes + st.session_spilled_bytes}};
}

Status RunDu(Context& ctx) {
  Result<Store*> store = ctx.OpenStore();
  if (!store.ok()) return store.status();
  Result<std::vector<UsageRow>> rows = (*store)->Usage();
  if (!rows.ok()) return rows.status();
  Result<StoreStats> stats = (*store)->Stats();
  if (!stats.ok()) return stats.status();
  if (ctx.json()) {
    PrintJson(UsageJson(*rows, *stats));
    return Status::Ok();
  }
  Table t({"SCOPE", "TYPE", "TIER", "OBJECTS", "VERSIONS", "BYTES"}, {3, 4, 5});
  for (const UsageRow& r : *rows) {
    t.AddRow({r.scope.ToString(), std::string(ValueTypeName(r.type)), r.tier,
              GroupedNumber(r.objects), GroupedNumber(r.versions),
              GroupedNumber(r.bytes)});
  }
  std::string out = t.Render();
  out += "content stored: " + ExactBytes(stats->content_bytes) + " in " +
         GroupedNumber(stats->blob_files) +
         " blob files and the database (blobs counted once)\n";
  return WriteStdout(out);
}

nlohmann::json GcJson(const GarbageReport& r) {
  nlohmann::json rows = nlohmann::json::array();
  for (const GarbageRow& row : r.rows) {
    rows.push_back({{"scope", row.scope.ToString()},
                    {"type", std::string(ValueTypeName(row.type))},
                    {"versions", row.versions},
                    {"bytes", row.bytes}});
  }
  return {
      {"applied", r.applied},         {"versions_scanned", r.versions_scanned},
      {"versions", r.versions},       {"bytes", r.bytes},
      {"kept_by_ref", r.kept_by_ref}, {"freed_bytes", r.freed_bytes},
      {"blob_files", r.blob_files},   {"rows", std::move(rows)}};
}

struct GcArgs {
  std::string older_than = "7d";
  bool apply = false;
};

Status RunGc(Context& ctx, const GcArgs& a) {
  Result<int64_t> seconds = ParseRetention(a.older_than);
  if (!seconds.ok()) return seconds.status().WithContext("--older-than");
  Result<Store*> store = ctx.OpenStore();
  if (!store.ok()) return store.status();
  GarbageOptions options{.retention_seconds = *seconds, .apply = a.apply};
  options.progress = ctx.Progress();
  Result<GarbageReport> report = face::CollectGarbage(**store, options);
  if (!report.ok()) return report.status();
  if (ctx.json()) {
    PrintJson(GcJson(*report));
    return Status::Ok();
  }
  Table t({"SCOPE", "TYPE", "VERSIONS", "BYTES"}, {2, 3});
  for (const GarbageRow& r : report->rows) {
    t.AddRow({r.scope.ToString(), std::string(ValueTypeName(r.type)),
              GroupedNumber(r.versions), GroupedNumber(r.bytes)});
  }
  std::string out = report->rows.empty() ? std::string() : t.Render();
  if (report->applied) {
    out += "collected " + GroupedNumber(report->versions) + " of " +
           GroupedNumber(report->versions_scanned) + " versions, freed " +
           ExactBytes(report->freed_bytes) + " (" +
           GroupedNumber(report->blob_files) + " blob files)\n";
  } else {
    out += "dry run: " + GroupedNumber(report->versions) + " of " +
           GroupedNumber(report->versions_scanned) +
           " versions are collectable; collecting them would free " +
           ExactBytes(report->freed_bytes) + " (" +
           GroupedNumber(report->blob_files) +
           " blob files); run with --apply to collect them\n";
  }
  if (report->kept_by_ref > 0) {
    out += GroupedNumber(report->kept_by_ref) +
           " old versions kept because a session or manifest names them\n";
  }
  return WriteStdout(out);
}

}  // namespace

void RegisterMaintenanceCommands(CLI::App& app, CommandTable& table) {
  CLI::App* sub = app.add_subcommand(
      "du",
      "Show stored bytes by scope, type and tier (inline, blob, session), "
      "history and removed objects included");
  table.Add(sub, [](Context& ctx) { return RunDu(ctx); });

  auto a = std::make_shared<GcArgs>();
  CLI::App* gc = app.add_subcommand(
      "gc",
      "Remove superseded versions older than --older-than that no session, "
      "spawn manifest or externalized context names; a dry run unless "
      "--apply");
  gc->add_option("--older-than", a->older_than,
                 "Retention: a version goes once the version after it is "
                 "older than this, e.g. 30d, 12h, 2w (default 7d)")
      ->type_name("DURATION");
  gc->add_flag("--apply", a->apply, "Collect (default: only report)");
  table.Add(gc, [a](Context& ctx) { return RunGc(ctx, *a); });
}

}  // namespace ctxkit::cli
