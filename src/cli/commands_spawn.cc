// Sub-agents from the shell: `spawn` runs a command as a child agent with a
// manifest of refs; inside it, `manifest ...` reads the refs and `result
// set` hands a value back; `result get` is the parent's later look at it.
// See docs/spawn.md.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "cli/cli_app.h"
#include "cli/flags.h"
#include "cli/io.h"
#include "cli/output.h"
#include "cli/subprocess.h"
#include "core/status_macros.h"
#include "ctxkit/ref.h"
#include "ctxkit/spawn.h"
#include "ctxkit/store.h"
#include "face/environment.h"

extern char** environ;

namespace ctxkit::cli {

namespace {

constexpr char kManifestEnv[] = "CTXKIT_MANIFEST";
// Set by `spawn` for its child to the manifest path: `result set` with that
// manifest prints nothing, because spawn prints the result's ref once when
// the child exits (the child shares spawn's stdout).
constexpr char kSpawnPrintsEnv[] = "CTXKIT_RESULT_PRINTED_BY_SPAWN";

struct SpawnArgs {
  std::string manifest;
  std::vector<std::string> refs;  // NAME=REF
  std::string prompt;
  std::string child_agent;
  std::string child_session;
  std::string result_key = "result";
  std::vector<std::string> command;
};

// Options of the verbs that read a manifest (the child's verbs and
// `result get`).
struct ManifestArgs {
  std::string manifest;
  std::string name;
  std::string value;
  CLI::Option* value_opt = nullptr;
  std::string file;
  std::string type = "result";
  bool ref_only = false;
  ByteRangeArgs range;  // `manifest get` only.
};

// A manifest file and the store it names, opened for one verb: --home
// (or CTXKIT_HOME) when given, which must then be that store; otherwise
// the manifest's own store, so a child needs nothing but CTXKIT_MANIFEST.
struct Opened {
  Manifest manifest;
  std::unique_ptr<Store> own_store;
  Store* store = nullptr;
};

Result<Opened> OpenManifest(Context& ctx, const std::string& path) {
  if (path.empty()) {
    return Status::InvalidArgument(
        "no manifest: pass --manifest FILE or set CTXKIT_MANIFEST (ctxkit "
        "spawn sets it for the child)");
  }
  Opened o;
  Result<Manifest> m = LoadManifest(path);
  if (!m.ok()) return m.status();
  o.manifest = std::move(*m);
  if (!ctx.options().home.empty()) {
    Result<Store*> store = ctx.OpenStore();
    if (!store.ok()) return store.status();
    o.store = *store;
    return o;
  }
  Options options;
  options.home = o.manifest.store_home;
  options.store_url = ctx.options().store;
  Result<std::unique_ptr<Store>> store = Store::Open(options);
  if (!store.ok()) return store.status();
  o.own_store = std::move(*store);
  o.store = o.own_store.get();
  return o;
}

// The child's verbs run as the manifest's child; a different --agent or
// --session is a mistake worth stopping (it would read as someone else).
Result<View> OpenChild(Context& ctx, Opened& o) {
  const GlobalOptions& g = ctx.options();
  if ((!g.agent.empty() && g.agent != o.manifest.child_agent) ||
      (!g.session.empty() && g.session != o.manifest.child_session)) {
    return Status::PermissionDenied(
        "this manifest's child is agent '" + o.manifest.child_agent +
        "', session '" + o.manifest.child_session +
        "'; --agent/--session say '" + g.agent + "', '" + g.session + "'");
  }
  return OpenChildView(*o.store, o.manifest);
}

// NAME=REF, REF being a Target's text form (a ref, or a key in the
// parent's view), pinned to its latest version now.
Result<std::pair<std::string, Ref>> ParseRefArg(View& parent,
                                                const std::string& arg) {
  size_t eq = arg.find('=');
  if (eq == std::string::npos) {
    return Status::InvalidArgument("--ref wants NAME=REF or NAME=KEY, not '" +
                                   arg + "'");
  }
  std::string name = arg.substr(0, eq);
  std::string target = arg.substr(eq + 1);
  Status s = ValidateContextName(name);
  if (!s.ok()) return s.WithContext("--ref");
  Result<Target> parsed = Target::Parse(target);
  Result<Ref> ref = parsed.ok() ? parent.Pin(*parsed) : parsed.status();
  if (!ref.ok()) return ref.status().WithContext("--ref " + name);
  return std::make_pair(std::move(name), std::move(*ref));
}

// The child's environment: ours, with the ctxkit variables replaced.
// `store_url`: the parent's PostgreSQL store (--store), which the child
// shares; empty for the embedded store.
std::vector<std::string> ChildEnv(const Manifest& m, const std::string& path,
                                  const std::string& store_url) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view kv(*e);
    if (kv.starts_with("CTXKIT_HOME=") || kv.starts_with("CTXKIT_AGENT=") ||
        kv.starts_with("CTXKIT_STORE_URL=") ||
        kv.starts_with("CTXKIT_SESSION=") ||
        kv.starts_with(std::string(kManifestEnv) + "=") ||
        kv.starts_with(std::string(kSpawnPrintsEnv) + "=")) {
      continue;
    }
    env.emplace_back(kv);
  }
  env.push_back("CTXKIT_HOME=" + m.store_home);
  if (!store_url.empty()) env.push_back("CTXKIT_STORE_URL=" + store_url);
  env.push_back("CTXKIT_AGENT=" + m.child_agent);
  if (!m.child_session.empty()) {
    env.push_back("CTXKIT_SESSION=" + m.child_session);
  }
  env.push_back(std::string(kManifestEnv) + "=" + path);
  env.push_back(std::string(kSpawnPrintsEnv) + "=" + path);
  return env;
}

// The exit code: the child's when it failed (said on stderr here), else 0,
// or under --json the uncollected result's code (the report names the
// failure); other failures are returned for Main to report.
Result<int> RunSpawn(Context& ctx, const SpawnArgs& a) {
  if (a.command.empty()) {
    return Status::InvalidArgument(
        "no command: ctxkit spawn [options] -- CMD [ARGS...]");
  }
  for (const std::string& arg : a.refs) {
    Status s = ValidateContextName(arg.substr(0, arg.find('=')));
    if (!s.ok()) return s.WithContext("--ref");
  }
  Result<View*> view = ctx.OpenView();
  if (!view.ok()) return view.status();
  SpawnContext context;
  for (const std::string& arg : a.refs) {
    Result<std::pair<std::string, Ref>> entry = ParseRefArg(**view, arg);
    if (!entry.ok()) return entry.status();
    context.push_back(std::move(*entry));
  }
  SpawnOptions options;
  options.child_agent_id = a.child_agent;
  options.child_session_id = a.child_session;
  options.manifest_path = a.manifest;
  options.result_key = a.result_key;
  Result<SpawnedAgent> spawned = Spawn(**view, a.prompt, context, options);
  if (!spawned.ok()) return spawned.status();

  Result<int> exit_code = RunForeground(
      a.command,
      ChildEnv(spawned->manifest, spawned->manifest_path, ctx.options().store));
  if (!exit_code.ok()) return exit_code.status();
  Result<Ref> result = CollectResult(**view, spawned->manifest);

  if (ctx.json()) {
    nlohmann::json j = {
        {"manifest", spawned->manifest_path},
        {"child",
         {{"agent", spawned->manifest.child_agent},
          {"session", spawned->manifest.child_session}}},
        {"exit_code", *exit_code},
        {"result", result.ok() ? RefToJson(*result) : nlohmann::json()},
        {"error", result.ok() ? nlohmann::json()
                              : nlohmann::json(result.status().ToString())}};
    PrintJson(j);
  } else if (result.ok()) {
    CTXKIT_RETURN_IF_ERROR(WriteStdout(FormatRef(*result) + "\n"));
  }
  // The child's failure is the caller's news first: its code passes through.
  if (*exit_code != 0) {
    std::fflush(stdout);
    std::fprintf(stderr, "ctxkit: spawn: the child exited with code %d\n",
                 *exit_code);
    return *exit_code;
  }
  if (!result.ok()) {
    if (!ctx.json()) return result.status();
    return ExitCodeFor(result.status());
  }
  return kExitOk;
}

Status RunResultSet(Context& ctx, const ManifestArgs& a) {
  Result<ValueType> type = ParseValueType(a.type);
  if (!type.ok()) return type.status().WithContext("--type");
  Result<std::string> value =
      ReadValue(a.value_opt->count() > 0, a.value, a.file);
  if (!value.ok()) return value.status();
  Result<Opened> o = OpenManifest(ctx, a.manifest);
  if (!o.ok()) return o.status();
  Result<View> child = OpenChild(ctx, *o);
  if (!child.ok()) return child.status();
  Result<Ref> ref = SetResult(*child, o->manifest, *value, *type);
  if (!ref.ok()) return ref.status();
  const std::string printed_by = env::Get(kSpawnPrintsEnv);
  if (!ctx.json() && !printed_by.empty() && a.manifest == printed_by) {
    return Status::Ok();
  }
  if (ctx.json()) {
    PrintJson(RefToJson(*ref));
    return Status::Ok();
  }
  return WriteStdout(FormatRef(*ref) + "\n");
}

Status RunResultGet(Context& ctx, const ManifestArgs& a) {
  Result<Opened> o = OpenManifest(ctx, a.manifest);
  if (!o.ok()) return o.status();
  Result<View> parent =
      o->store->OpenView(ctx.options().agent, ctx.options().session);
  if (!parent.ok()) return parent.status();
  Result<Ref> ref = CollectResult(*parent, o->manifest);
  if (!ref.ok()) return ref.status();
  if (ctx.json()) {
    PrintJson(RefToJson(*ref));
    return Status::Ok();
  }
  if (a.ref_only) {
    return WriteStdout(FormatRef(*ref) + "\n");
  }
  Result<std::string> value = parent->Resolve(*ref);
  if (!value.ok()) return value.status();
  return WriteStdout(*value);
}

Status RunManifestShow(Context& ctx, const ManifestArgs& a) {
  Result<Manifest> m = a.manifest.empty()
                           ? Result<Manifest>(Status::InvalidArgument(
                                 "no manifest: pass --manifest FILE or set "
                                 "CTXKIT_MANIFEST"))
                           : LoadManifest(a.manifest);
  if (!m.ok()) return m.status();
  if (ctx.json()) {
    return WriteStdout(FormatManifest(*m));
  }
  std::string out;
  out += "store   " + m->store_home + "\n";
  out += "parent  agent '" + m->parent_agent + "', session '" +
         m->parent_session + "'\n";
  out += "child   agent '" + m->child_agent + "', session '" +
         m->child_session + "'\n";
  out += "result  agent:" + m->child_agent + " " + m->result_key + "\n";
  out += "prompt  " + std::to_string(m->prompt.size()) +
         " bytes (ctxkit manifest prompt)\n";
  Table table({"NAME", "TYPE", "SIZE", "REF"}, {2});
  for (const ManifestRef& entry : m->refs) {
    table.AddRow({entry.name, std::string(ValueTypeName(entry.ref.type)),
                  GroupedNumber(entry.ref.size_bytes), FormatRef(entry.ref)});
  }
  if (table.size() > 0) out += table.Render();
  return WriteStdout(out);
}

Status RunManifestPrompt(Context&, const ManifestArgs& a) {
  if (a.manifest.empty()) {
    return Status::InvalidArgument(
        "no manifest: pass --manifest FILE or set CTXKIT_MANIFEST");
  }
  Result<Manifest> m = LoadManifest(a.manifest);
  if (!m.ok()) return m.status();
  return WriteStdout(m->prompt);
}

Status RunManifestRef(Context& ctx, const ManifestArgs& a) {
  if (a.manifest.empty()) {
    return Status::InvalidArgument(
        "no manifest: pass --manifest FILE or set CTXKIT_MANIFEST");
  }
  Result<Manifest> m = LoadManifest(a.manifest);
  if (!m.ok()) return m.status();
  const ManifestRef* entry = m->Find(a.name);
  if (entry == nullptr) {
    return Status::NotFound("the manifest passes no ref named '" + a.name +
                            "'");
  }
  if (ctx.json()) {
    PrintJson(RefToJson(entry->ref));
    return Status::Ok();
  }
  return WriteStdout(FormatRef(entry->ref) + "\n");
}

Status RunManifestGet(Context& ctx, const ManifestArgs& a) {
  Result<Opened> o = OpenManifest(ctx, a.manifest);
  if (!o.ok()) return o.status();
  Result<View> child = OpenChild(ctx, *o);
  if (!child.ok()) return child.status();
  Result<std::string> bytes = Status::Internal("unset");
  if (!a.range.ranged()) {
    bytes = ResolveContextRef(*child, o->manifest, a.name);
  } else {
    const ManifestRef* entry = o->manifest.Find(a.name);
    if (entry == nullptr) {
      return Status::NotFound("the manifest passes no ref named '" + a.name +
                              "'");
    }
    bytes =
        child->ReadRange(entry->ref, a.range.offset, a.range.length_or_all());
  }
  if (!bytes.ok()) return bytes.status();
  return WriteStdout(*bytes);
}

CLI::Option* AddManifestOption(CLI::App* sub, ManifestArgs* a) {
  return sub
      ->add_option("--manifest,-m", a->manifest,
                   "The manifest file (default: $CTXKIT_MANIFEST, which "
                   "ctxkit spawn sets for the child)")
      ->envname(kManifestEnv)
      ->type_name("FILE");
}

void RegisterSpawn(CLI::App& app, CommandTable& table) {
  auto a = std::make_shared<SpawnArgs>();
  CLI::App* sub = app.add_subcommand(
      "spawn",
      "Run CMD as a sub-agent with refs, not copies: writes a manifest, runs "
      "CMD with CTXKIT_MANIFEST/CTXKIT_HOME/CTXKIT_AGENT set, then prints the "
      "ref of the result it set (ctxkit result set). CMD's nonzero exit code "
      "becomes ctxkit's");
  sub->add_option("--manifest,-m", a->manifest,
                  "Write the manifest to FILE (default: "
                  "<home>/spawn/<child agent>.json)")
      ->type_name("FILE");
  AddRepeatableOption(sub, "--ref,-r", &a->refs,
                      "Pass NAME=REF (a ck: ref string) or NAME=KEY (a key in "
                      "this view, pinned to its latest version); repeatable")
      ->type_name("NAME=REF");
  sub->add_option("--prompt,-p", a->prompt, "The child's task")
      ->type_name("TEXT");
  sub->add_option("--child-agent", a->child_agent,
                  "The child's agent id (default: <agent>.sub-<random>)")
      ->type_name("ID");
  sub->add_option("--child-session", a->child_session,
                  "The child's session id (default: none)")
      ->type_name("ID");
  sub->add_option("--result-key", a->result_key,
                  "Key of the result in the child's agent scope (default "
                  "result)")
      ->type_name("KEY");
  sub->add_option("CMD", a->command,
                  "The child command and its arguments, after -- (so that "
                  "their options are not taken for ctxkit's)")
      ->type_name("");
  table.AddWithExitCode(sub, [a](Context& ctx) { return RunSpawn(ctx, *a); });
}

void RegisterResult(CLI::App& app, CommandTable& table) {
  CLI::App* result = app.add_subcommand(
      "result", "A sub-agent's result: set by the child, read by the parent");
  result->require_subcommand(1);
  {
    auto a = std::make_shared<ManifestArgs>();
    CLI::App* sub = result->add_subcommand(
        "set",
        "In a child: store VALUE as its result (agent scope, key from the "
        "manifest); prints its ref");
    a->value_opt = sub->add_option(
        "VALUE", a->value, "The value; omitted or \"-\" reads stdin to EOF");
    sub->add_option("--file,-f", a->file, "Read the value from FILE")
        ->type_name("FILE")
        ->excludes(a->value_opt);
    sub->add_option("--type,-t", a->type,
                    "result (default), text, json (validated), ...")
        ->type_name("TYPE");
    AddManifestOption(sub, a.get());
    table.Add(sub, [a](Context& ctx) { return RunResultSet(ctx, *a); });
  }
  {
    auto a = std::make_shared<ManifestArgs>();
    CLI::App* sub = result->add_subcommand(
        "get",
        "In the parent (same --agent/--session as at spawn): write the "
        "child's result to stdout (--ref: its ref; --json: ref metadata)");
    sub->add_flag("--ref", a->ref_only,
                  "Print the result's ref, not its value");
    AddManifestOption(sub, a.get());
    table.Add(sub, [a](Context& ctx) { return RunResultGet(ctx, *a); });
  }
}

void RegisterManifest(CLI::App& app, CommandTable& table) {
  CLI::App* manifest = app.add_subcommand(
      "manifest", "In a child: the prompt and the refs it was passed");
  manifest->require_subcommand(1);
  {
    auto a = std::make_shared<ManifestArgs>();
    CLI::App* sub = manifest->add_subcommand(
        "show",
        "The manifest: identities and the refs by name (--json: the "
        "manifest file's JSON)");
    AddManifestOption(sub, a.get());
    table.Add(sub, [a](Context& ctx) { return RunManifestShow(ctx, *a); });
  }
  {
    auto a = std::make_shared<ManifestArgs>();
    CLI::App* sub =
        manifest->add_subcommand("prompt", "Write the prompt to stdout");
    AddManifestOption(sub, a.get());
    table.Add(sub, [a](Context& ctx) { return RunManifestPrompt(ctx, *a); });
  }
  {
    auto a = std::make_shared<ManifestArgs>();
    CLI::App* sub = manifest->add_subcommand(
        "ref", "Print the static ref passed as NAME (for peek, search, ...)");
    sub->add_option("NAME", a->name, "The context name")->required();
    AddManifestOption(sub, a.get());
    table.Add(sub, [a](Context& ctx) { return RunManifestRef(ctx, *a); });
  }
  {
    auto a = std::make_shared<ManifestArgs>();
    CLI::App* sub = manifest->add_subcommand(
        "get",
        "Write the value passed as NAME to stdout: exactly the version the "
        "parent passed");
    sub->add_option("NAME", a->name, "The context name")->required();
    AddManifestOption(sub, a.get());
    AddByteRangeOptions(sub, &a->range);
    table.Add(sub, [a](Context& ctx) { return RunManifestGet(ctx, *a); });
  }
}

}  // namespace

void RegisterSpawnCommands(CLI::App& app, CommandTable& table) {
  RegisterSpawn(app, table);
  RegisterResult(app, table);
  RegisterManifest(app, table);
}

}  // namespace ctxkit::cli
