// Maintenance verbs: du (what the store holds, by scope, type and tier).

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/cli_app.h"
#include "cli/io.h"
#include "cli/output.h"
#include "ctxkit/store.h"

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

int RunDu(Context& ctx) {
  Result<Store*> store = ctx.OpenStore();
  if (!store.ok()) return ReportError(store.status());
  Result<std::vector<UsageRow>> rows = (*store)->Usage();
  if (!rows.ok()) return ReportError(rows.status());
  Result<StoreStats> stats = (*store)->Stats();
  if (!stats.ok()) return ReportError(stats.status());
  if (ctx.json()) {
    PrintJson(UsageJson(*rows, *stats));
    return kExitOk;
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
  Status s = WriteStdout(out);
  return s.ok() ? kExitOk : ReportError(s);
}

}  // namespace

void RegisterMaintenanceCommands(CLI::App& app, CommandTable& table) {
  CLI::App* sub = app.add_subcommand(
      "du",
      "Show stored bytes by scope, type and tier (inline, blob, session), "
      "history and removed objects included");
  table.Add(sub, [](Context& ctx) { return RunDu(ctx); });
}

}  // namespace ctxkit::cli
