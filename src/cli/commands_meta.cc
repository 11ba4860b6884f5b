// Verbs that show or move metadata, never values: ref, stat, ls, versions,
// promote, stats.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli/cli_app.h"
#include "cli/flags.h"
#include "cli/io.h"
#include "cli/output.h"
#include "core/status_macros.h"
#include "ctxkit/ref.h"
#include "ctxkit/store.h"

namespace ctxkit::cli {

namespace {

struct KeyArgs {
  std::string key;
  std::string scope;
  uint64_t version = 0;
};

struct ListArgs {
  std::string scope;
  std::string type;
  std::string prefix;
  std::vector<std::string> tags;
  size_t limit = 100;
  std::string cursor;
};

void AddKeyOptions(CLI::App* sub, KeyArgs* a, bool with_version) {
  sub->add_option("KEY", a->key, "The key, or a ref (ck:...)")->required();
  sub->add_option("--scope,-s", a->scope,
                  "Look only in this scope (global, agent, session or "
                  "agent:<id>/session:<id>); default session, agent, global")
      ->type_name("SCOPE");
  if (with_version) {
    sub->add_option("--version", a->version,
                    "Pin version N (a static ref); default: latest (dynamic)")
        ->type_name("N")
        ->check(UnsignedNumber());
  }
}

// Counts the tokens of `meta`'s latest version and keeps them (a session-
// only value held by another process stays uncounted). Values over
// `max_bytes` are left uncounted.
Status FillTokens(View& view, ObjectMeta* meta, uint64_t max_bytes) {
  if (meta->size_bytes > max_bytes) return Status::Ok();
  // By the version's static ref: it reads in whichever scope it is.
  Result<uint64_t> tokens = view.CountTokens(StaticRefOf(*meta));
  if (tokens.ok()) {
    meta->tokens = *tokens;
    return Status::Ok();
  }
  return tokens.status().code() == StatusCode::kUnavailable ? Status::Ok()
                                                            : tokens.status();
}

std::string TagsCell(const std::vector<std::string>& tags) {
  std::string out;
  for (const auto& t : tags) out += (out.empty() ? "" : ",") + t;
  return out;
}

Status RunRef(Context& ctx, const KeyArgs& a) {
  Result<Target> target =
      ParseKeyOrRef(a.key, a.scope, a.version, ctx.options());
  if (!target.ok()) return target.status();
  Result<View*> view = ctx.OpenView();
  if (!view.ok()) return view.status();
  // A key: its dynamic ref (or --version's static one); a ref: pinned.
  Result<Ref> ref = (*view)->RefOf(*target);
  if (!ref.ok()) return ref.status();
  if (ctx.json()) {
    // Counted once, then kept with the version.
    Result<uint64_t> tokens = (*view)->CountTokens(*ref);
    if (!tokens.ok()) return tokens.status();
    nlohmann::json out = RefToJson(*ref);
    out["tokens"] = *tokens;
    PrintJson(out);
    return Status::Ok();
  }
  return WriteStdout(FormatRef(*ref) + "\n");
}

Status RunStat(Context& ctx, const KeyArgs& a) {
  Result<Target> target = ParseKeyOrRef(a.key, a.scope, 0, ctx.options());
  if (!target.ok()) return target.status();
  Result<View*> view = ctx.OpenView();
  if (!view.ok()) return view.status();
  Result<ObjectMeta> meta = (*view)->Stat(*target);
  if (!meta.ok()) return meta.status();
  if (!meta->tokens) {
    CTXKIT_RETURN_IF_ERROR(FillTokens(**view, &*meta, UINT64_MAX));
  }
  if (ctx.json()) {
    PrintJson(ObjectMetaToJson(*meta));
    return Status::Ok();
  }
  Table t({});
  t.AddRow({"key", meta->key});
  t.AddRow({"id", meta->id});
  t.AddRow({"scope", meta->scope.ToString()});
  t.AddRow({"type", std::string(ValueTypeName(meta->type))});
  t.AddRow({"size", ExactBytes(meta->size_bytes)});
  t.AddRow({"tokens", TokensCell(meta->tokens) + " (o200k_base)"});
  t.AddRow({"version", std::to_string(meta->version)});
  t.AddRow({"created", HumanTime(meta->created_unix_ns)});
  t.AddRow({"updated", HumanTime(meta->updated_unix_ns)});
  t.AddRow({"tags", TagsCell(meta->tags)});
  t.AddRow({"persistent", meta->persistent ? "yes" : "no"});
  return WriteStdout(t.Render());
}

Status RunList(Context& ctx, const ListArgs& a) {
  Status s = CheckScopeName(a.scope, ctx.options());
  CTXKIT_RETURN_IF_ERROR(s);
  for (const auto& tag : a.tags) {
    s = ValidateTag(tag);
    if (!s.ok()) return s.WithContext("--tag");
  }
  ListFilter filter;
  filter.scope = a.scope;
  if (!a.type.empty()) {
    Result<ValueType> type = ParseValueType(a.type);
    if (!type.ok()) return type.status().WithContext("--type");
    filter.type = *type;
  }
  filter.key_prefix = a.prefix;
  filter.tags = a.tags;
  filter.limit = a.limit;
  filter.cursor = a.cursor;
  Result<View*> view = ctx.OpenView();
  if (!view.ok()) return view.status();
  Result<ListPage> page = (*view)->List(filter);
  if (!page.ok()) return page.status();
  for (ObjectMeta& m : page->items) {
    if (m.tokens) continue;
    s = FillTokens(**view, &m, kEagerTokenCountMaxBytes);
    CTXKIT_RETURN_IF_ERROR(s);
  }
  if (ctx.json()) {
    nlohmann::json items = nlohmann::json::array();
    for (const auto& m : page->items) items.push_back(ObjectMetaToJson(m));
    PrintJson(
        {{"items", std::move(items)}, {"next_cursor", page->next_cursor}});
    return Status::Ok();
  }
  Table t({"KEY", "SCOPE", "TYPE", "SIZE", "TOKENS", "VER", "UPDATED", "TAGS"},
          {3, 4, 5});
  for (const auto& m : page->items) {
    std::string scope = m.scope.ToString();
    if (!m.persistent) scope += " (session-only)";
    t.AddRow({m.key, scope, std::string(ValueTypeName(m.type)),
              HumanBytes(m.size_bytes), TokensCell(m.tokens),
              std::to_string(m.version), HumanTime(m.updated_unix_ns),
              TagsCell(m.tags)});
  }
  std::string out = t.size() == 0 ? "" : t.Render();
  if (!page->next_cursor.empty()) {
    out += "-- more: ctxkit ls --cursor " + page->next_cursor + "\n";
  }
  return WriteStdout(out);
}

Status RunVersions(Context& ctx, const KeyArgs& a) {
  Result<Target> target = ParseKeyOrRef(a.key, a.scope, 0, ctx.options());
  if (!target.ok()) return target.status();
  Result<View*> view = ctx.OpenView();
  if (!view.ok()) return view.status();
  Result<std::vector<VersionMeta>> versions = (*view)->Versions(*target);
  if (!versions.ok()) return versions.status();
  if (ctx.json()) {
    // The object's ref names each present version (none once removed).
    Result<Ref> object = (*view)->RefOf(*target);
    if (object.ok()) object = object->Dynamic();
    PrintJson(VersionListToJson(target->key(), *versions,
                                object.ok() ? &*object : nullptr));
    return Status::Ok();
  }
  Table t({"VER", "STATE", "TYPE", "SIZE", "TOKENS", "SHA256", "CREATED",
           "PRODUCER"},
          {0, 3, 4});
  for (const auto& v : *versions) {
    t.AddRow({std::to_string(v.version), std::string(VersionStateName(v.state)),
              std::string(ValueTypeName(v.type)), HumanBytes(v.size_bytes),
              TokensCell(v.tokens), v.content_hash.substr(0, 12),
              HumanTime(v.created_unix_ns), v.producer});
  }
  return WriteStdout(t.Render());
}

Status RunPromote(Context& ctx, const KeyArgs& a) {
  Status s = ValidateKey(a.key);
  if (!s.ok()) return s.WithContext("key");
  if (ctx.options().agent.empty()) {
    return Status::InvalidArgument(
        "promote moves a key out of the view's agent scope: give --agent "
        "(or CTXKIT_AGENT)");
  }
  Result<View*> view = ctx.OpenView();
  if (!view.ok()) return view.status();
  Result<Ref> ref = (*view)->Promote(a.key);
  if (!ref.ok()) return ref.status();
  if (ctx.json()) {
    PrintJson(RefToJson(*ref));
    return Status::Ok();
  }
  return WriteStdout(FormatRef(*ref) + "\n");
}

Status RunStats(Context& ctx) {
  Result<Store*> store = ctx.OpenStore();
  if (!store.ok()) return store.status();
  Result<StoreStats> stats = (*store)->Stats();
  if (!stats.ok()) return stats.status();
  const StoreStats& st = *stats;
  if (ctx.json()) {
    nlohmann::json j = StatsToJson(st);
    j["home"] = (*store)->home();
    PrintJson(j);
    return Status::Ok();
  }
  Table t({});
  t.AddRow({"home", (*store)->home()});
  t.AddRow({"objects", GroupedNumber(st.objects) + " (" +
                           GroupedNumber(st.live_objects) + " live)"});
  t.AddRow({"versions", GroupedNumber(st.versions)});
  t.AddRow({"content", ExactBytes(st.content_bytes)});
  t.AddRow({"blob files", GroupedNumber(st.blob_files)});
  // A one-shot CLI process has a cold memory tier; these lines matter for
  // long-lived library users and are shown so the numbers are discoverable.
  t.AddRow({"memory tier", ExactBytes(st.memory_used_bytes) + " of " +
                               HumanBytes(st.memory_ceiling_bytes) +
                               " (this process)"});
  t.AddRow({"cached values", GroupedNumber(st.cached_values)});
  t.AddRow({"session-only",
            GroupedNumber(st.session_objects) + " (" +
                HumanBytes(st.session_resident_bytes) + " resident, " +
                HumanBytes(st.session_spilled_bytes) + " spilled)"});
  t.AddRow({"evictions", GroupedNumber(st.evictions)});
  t.AddRow({"spills", GroupedNumber(st.spills)});
  return WriteStdout(t.Render());
}

}  // namespace

void RegisterMetaCommands(CLI::App& app, CommandTable& table) {
  {
    auto a = std::make_shared<KeyArgs>();
    CLI::App* sub = app.add_subcommand(
        "ref", "Print the ref of KEY (metadata only; the value is not read)");
    AddKeyOptions(sub, a.get(), /*with_version=*/true);
    table.Add(sub, [a](Context& ctx) { return RunRef(ctx, *a); });
  }
  {
    auto a = std::make_shared<KeyArgs>();
    CLI::App* sub =
        app.add_subcommand("stat", "Show the metadata of KEY's latest version");
    AddKeyOptions(sub, a.get(), /*with_version=*/false);
    table.Add(sub, [a](Context& ctx) { return RunStat(ctx, *a); });
  }
  {
    auto a = std::make_shared<ListArgs>();
    CLI::App* sub = app.add_subcommand(
        "ls", "List the keys the view sees, with metadata (ordered by key)");
    sub->add_option("--scope,-s", a->scope,
                    "Only this scope: global, agent, session (the view's own)")
        ->type_name("SCOPE");
    sub->add_option("--type,-t", a->type, "Only values of this type")
        ->type_name("TYPE");
    sub->add_option("--prefix,-p", a->prefix, "Only keys starting with PREFIX")
        ->type_name("PREFIX");
    AddRepeatableOption(sub, "--tag", &a->tags,
                        "Only objects with this tag (repeatable)")
        ->type_name("TAG");
    sub->add_option("--limit,-n", a->limit, "Page size, 1-10000 (default 100)")
        ->type_name("N")
        ->check(CLI::Range(1, 10000));
    sub->add_option("--cursor", a->cursor,
                    "Continue after the page that printed this cursor")
        ->type_name("CURSOR");
    table.Add(sub, [a](Context& ctx) { return RunList(ctx, *a); });
  }
  {
    auto a = std::make_shared<KeyArgs>();
    CLI::App* sub = app.add_subcommand(
        "versions", "List KEY's history, oldest first, tombstones included");
    AddKeyOptions(sub, a.get(), /*with_version=*/false);
    table.Add(sub, [a](Context& ctx) { return RunVersions(ctx, *a); });
  }
  {
    auto a = std::make_shared<KeyArgs>();
    CLI::App* sub = app.add_subcommand(
        "promote",
        "Move KEY from the view's agent scope (--agent) to global, keeping "
        "its id and history; prints the new ref");
    sub->add_option("KEY", a->key, "The key")->required();
    table.Add(sub, [a](Context& ctx) { return RunPromote(ctx, *a); });
  }
  {
    CLI::App* sub = app.add_subcommand(
        "stats", "Show store counts, content bytes and memory-tier use");
    table.Add(sub, [](Context& ctx) { return RunStats(ctx); });
  }
}

}  // namespace ctxkit::cli
