#include "cli/cli_app.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <exception>
#include <iostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cli/io.h"
#include "cli/output.h"
#include "cli/progress_line.h"
#include "core/status_macros.h"
#include "ctxkit/environment.h"
#include "ctxkit/notes.h"
#include "ctxkit/ref.h"
#include "face/environment.h"
#include "text/json_write.h"

namespace ctxkit::cli {

// Set by CMake from project(VERSION ...), the single source of truth.
const char kVersion[] = CTXKIT_VERSION;

namespace {

constexpr char kFooter[] = R"(Exit codes:
  0  ok
  1  not found (key, version, ref, or --file)
  2  bad input or usage (bad key, type, JSON, ref, flag or argument)
  3  permission denied (another agent's or session's scope)
  4  conflict (key already exists on promote; wrong object state/type)
  5  unavailable (session-only value held by another process)
  6  I/O, database or resource error
  7  internal error (a bug in ctxkit)
Environment: CTXKIT_HOME, CTXKIT_STORE_URL, CTXKIT_AGENT, CTXKIT_SESSION back
--home, --store, --agent, --session. Without either, the store lives in
$XDG_DATA_HOME/ctxkit, else ~/.local/share/ctxkit. Errors go to stderr as "ctxkit: <code>: <message>", <code> one of
not_found, invalid_argument, permission_denied, already_exists,
failed_precondition, unavailable, resource_exhausted, io_error, corruption,
internal. With --json, an error is one line of JSON on stderr instead:
{"error":{"code":"<code>","message":"<message>"}}; the exit code is the same.)";

// `ctxkit --describe`: a small JSON self-description for agent harnesses,
// including the recommended retention of context notes.
void PrintDescription(const GlobalOptions& options) {
  nlohmann::json j = {
      {"name", "ctxkit"},
      {"version", kVersion},
      {"description",
       "A context store for LLM agents: agents hold refs, not content"},
      {"contextRetention", std::string(kDefaultContextRetention)}};
  Result<std::string> home = options.ExplicitHome();
  Result<std::string> notes_root =
      home.ok() ? env::NotesRoot("", *home) : home.status();
  if (notes_root.ok()) j["contextStore"] = *notes_root;
  PrintJson(j);
}

// The edit distance between `a` and `b`: insertions, deletions,
// substitutions and swaps of two adjacent characters ("verison").
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1,
                                     std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1,
                          d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

// The candidate nearest `word` when it is close enough to be a typo of it
// (one edit for a short word, two for five letters or more); "" otherwise.
std::string Nearest(std::string_view word,
                    const std::vector<std::string>& candidates) {
  const size_t limit = word.size() >= 5 ? 2 : 1;
  std::string best;
  size_t best_distance = limit + 1;
  for (const std::string& c : candidates) {
    const size_t d = EditDistance(word, c);
    if (d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

// The verb path of `sub` ("session ls"), without the program's name.
std::string VerbPath(const CLI::App& sub) {
  std::string path;
  for (const CLI::App* a = &sub; a != nullptr && a->get_parent() != nullptr;
       a = a->get_parent()) {
    path = path.empty() ? a->get_name() : a->get_name() + " " + path;
  }
  return path;
}

// The verb level at which `word`, a word CLI11 could not place, was typed
// as a verb: the verb being parsed when it takes verbs, else the level
// above it when `word` came before it on the command line; nullptr when
// `word` is an extra argument, not a verb.
const CLI::App* VerbLevel(const CLI::App& deepest, const std::string& word,
                          const std::vector<std::string>& args) {
  if (!deepest.get_subcommands([](const CLI::App*) { return true; }).empty()) {
    return &deepest;
  }
  if (deepest.get_parent() == nullptr) return nullptr;
  auto at = std::find(args.begin(), args.end(), word);
  auto verb = std::find(args.begin(), args.end(), deepest.get_name());
  return at < verb ? deepest.get_parent() : nullptr;
}

// Writes a failed `status` to stderr, the one way every error is reported:
// "ctxkit: <code>: <message>", or with --json one JSON object,
// {"error":{"code":"<code>","message":"<message>"}}, both on one line, the
// code named by StatusCodeName. Returns ExitCodeFor(status).
int ReportFailure(const Status& status, bool json) {
  std::fflush(stdout);
  std::string line;
  if (json) {
    const nlohmann::json j = {
        {"error",
         {{"code", std::string(StatusCodeName(status.code()))},
          {"message", status.message()}}}};
    // Messages may quote input that is not UTF-8: replaced, never fatal.
    line = text::DumpJson(j);
  } else {
    line = "ctxkit: " + status.ToString();
  }
  line += "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
  return ExitCodeFor(status);
}

// Whether --json is on a command line CLI11 could not parse (then it may
// not have set the flag): a word of its own before any "--".
bool AsksForJson(const std::vector<std::string>& args) {
  auto end = std::find(args.begin(), args.end(), "--");
  return std::find(args.begin(), end, "--json") != end;
}

// The message for CLI11's parse error `e`. A word it could not place that
// looks like a typo of a verb or option (of the verb being parsed, or a
// global one) names the nearest.
std::string UsageMessage(const CLI::App& app, const CLI::ParseError& e,
                         const std::vector<std::string>& args) {
  std::string message = e.what();
  const CLI::App* deepest = &app;
  while (!deepest->get_subcommands().empty()) {
    deepest = deepest->get_subcommands().front();
  }
  for (const std::string& word : app.remaining(/*recurse=*/true)) {
    std::vector<std::string> candidates;
    std::string typed = word;
    std::string prefix;
    const CLI::App* level = nullptr;
    if (word.starts_with("--")) {
      typed = word.substr(2, word.find('=') - 2);
      prefix = "--";
      for (const CLI::App* owner : {deepest, &app}) {
        for (const CLI::Option* option : owner->get_options()) {
          for (const std::string& name : option->get_lnames()) {
            candidates.push_back(name);
          }
        }
      }
    } else if (!word.starts_with("-")) {
      level = VerbLevel(*deepest, word, args);
      if (level == nullptr) continue;
      for (const CLI::App* sub :
           level->get_subcommands([](const CLI::App*) { return true; })) {
        candidates.push_back(sub->get_name());
      }
      prefix = level == &app ? "" : VerbPath(*level) + " ";
      // CLI11 says "A subcommand is required" or "not expected"; name it.
      message = "unknown command '" + prefix + word + "'";
    }
    const std::string nearest = Nearest(typed, candidates);
    if (!nearest.empty() && nearest != typed) {
      message += "; did you mean '" + prefix + nearest + "'?";
    }
    if (level != nullptr || !nearest.empty()) break;
  }
  return message;
}

// CLI11 reports through exceptions; they must stop here, and every one of
// them that is not a help/version request is a usage error (exit 2),
// reported as every other error is.
int HandleParseError(const CLI::App& app, const CLI::ParseError& e,
                     const std::vector<std::string>& args) {
  if (e.get_exit_code() == 0) {  // --help, --help-all, --version.
    return app.exit(e);
  }
  const bool json = AsksForJson(args);
  ReportFailure(Status::InvalidArgument(UsageMessage(app, e, args)), json);
  // Under --json, stderr holds the one JSON object and nothing else.
  if (!json) std::fprintf(stderr, "Run with --help for more information.\n");
  return kExitUsage;
}

// Runs the verb that parsed: its exit code, or the failure to report. The
// ids are checked first, after parsing so that one from the environment is
// held to the same rule as one from a flag; nothing has touched the store.
Result<int> RunVerb(const CommandTable& table, const GlobalOptions& options) {
  if (!options.agent.empty()) {
    CTXKIT_RETURN_IF_ERROR(
        ValidateScopeId(options.agent).WithContext("--agent"));
  }
  if (!options.session.empty()) {
    CTXKIT_RETURN_IF_ERROR(
        ValidateScopeId(options.session).WithContext("--session"));
  }
  Context context(&options);
  for (const auto& [sub, run] : table.entries()) {
    if (sub->parsed()) return run(context);
  }
  return kExitInternal;
}

// The verb a command line names: its first token that is neither one of
// `app`'s options nor the value of one, as CLI11 reads it. "" when there
// is none, or when the line asks for help or holds an option `app` does
// not know (then every verb is registered, for the help, the error and its
// suggestions).
std::string VerbOf(const CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string token = argv[i];
    if (token.empty() || token[0] != '-') return token;
    if (token == "--") return "";
    const size_t eq = token.find('=');
    const CLI::Option* opt = app.get_option_no_throw(token.substr(0, eq));
    if (opt == nullptr || opt == app.get_help_ptr() ||
        opt == app.get_help_all_ptr()) {
      return "";
    }
    if (eq == std::string::npos && opt->get_expected_min() > 0) ++i;
  }
  return "";
}

bool HasVerb(const CLI::App& app, const std::string& verb) {
  return !app.get_subcommands(
                 [&verb](const CLI::App* sub) { return sub->check_name(verb); })
              .empty();
}

// Registers the verb groups in their order (`extra` after the maintenance
// verbs) up to the one that defines `verb`; all of them when `verb` is ""
// or in none. A one-verb process (`ctxkit get`) builds a few subcommands
// instead of ~100: CLI11 building them all was a third of its start.
void RegisterVerbsFor(const std::string& verb, CLI::App& app,
                      CommandTable& table,
                      std::span<const RegisterVerbs> extra) {
  std::vector<RegisterVerbs> groups = {
      RegisterValueCommands, RegisterMetaCommands, RegisterMaintenanceCommands};
  groups.insert(groups.end(), extra.begin(), extra.end());
  groups.insert(
      groups.end(),
      {RegisterExploreCommands, RegisterSummaryCommands, RegisterIndexCommands,
       RegisterNotesCommands, RegisterToolsCommands, RegisterSessionCommands,
       RegisterWatchCommands, RegisterExternalizeCommands,
       RegisterSpawnCommands, RegisterMcpCommands});
  for (RegisterVerbs add : groups) {
    add(app, table);
    if (!verb.empty() && HasVerb(app, verb)) return;
  }
}

}  // namespace

Store* LogStore(Context& ctx) {
  Result<Store*> store = ctx.OpenStore();
  return store.ok() ? *store : nullptr;
}

int ExitCodeFor(const Status& status) {
  switch (status.code()) {
    case StatusCode::kOk:
      return kExitOk;
    case StatusCode::kNotFound:
      return kExitNotFound;
    case StatusCode::kInvalidArgument:
      return kExitUsage;
    case StatusCode::kPermissionDenied:
      return kExitPermissionDenied;
    case StatusCode::kAlreadyExists:
    case StatusCode::kFailedPrecondition:
      return kExitConflict;
    case StatusCode::kUnavailable:
      return kExitUnavailable;
    case StatusCode::kResourceExhausted:
    case StatusCode::kIoError:
    case StatusCode::kCorruption:
      return kExitIoError;
    case StatusCode::kInternal:
      return kExitInternal;
  }
  return kExitInternal;
}

void CommandTable::Add(CLI::App* sub, Runner run) {
  AddWithExitCode(sub, [run = std::move(run)](Context& ctx) -> Result<int> {
    CTXKIT_RETURN_IF_ERROR(run(ctx));
    return kExitOk;
  });
}

Status CheckScopeName(std::string_view scope, const GlobalOptions& g) {
  Result<Scope> resolved =
      ResolveScopeName(std::string(scope), g.agent, g.session);
  if (resolved.ok()) return Status::Ok();
  if ((scope == "agent" || scope == "session") &&
      resolved.status().IsInvalidArgument()) {
    // The CLI's own way to give the view that id.
    return Status::InvalidArgument(
        "--scope " + std::string(scope) + " needs --" + std::string(scope) +
        " (or CTXKIT_" + (scope == "agent" ? "AGENT" : "SESSION") + ")");
  }
  return resolved.status().WithContext("--scope");
}

Result<Target> ParseKeyOrRef(const std::string& text, const std::string& scope,
                             uint64_t version, const GlobalOptions& g) {
  Result<Target> target = Target::Parse(text, {scope, version});
  if (!target.ok() || target->is_ref()) return target;
  CTXKIT_RETURN_IF_ERROR(CheckScopeName(scope, g));
  return target;
}

Result<Store*> Context::OpenStore() {
  if (store_ != nullptr) return store_.get();
  Result<std::string> home = ResolveHome(options_->home);
  if (!home.ok()) return home.status();
  Options opts;
  opts.home = *home;
  opts.store_url = options_->store;
  Result<std::unique_ptr<Store>> store = Store::Open(opts);
  if (!store.ok()) return store.status();
  store_ = std::move(*store);
  return store_.get();
}

Result<View*> Context::OpenView() {
  if (view_ != nullptr) return view_.get();
  Result<Store*> store = OpenStore();
  if (!store.ok()) return store.status();
  Result<View> view = (*store)->OpenView(options_->agent, session());
  if (!view.ok()) return view.status();
  view_ = std::make_unique<View>(std::move(*view));
  return view_.get();
}

Result<std::string> GlobalOptions::ExplicitHome() const {
  // CLI11 fills `home` from CTXKIT_HOME only after parsing; --describe runs
  // during it.
  std::string named = home.empty() ? env::Get("CTXKIT_HOME") : home;
  if (named.empty()) return std::string();
  return ResolveHome(named);
}

Result<std::string> Context::NotesRoot(std::string_view flag) const {
  if (!flag.empty()) return std::string(flag);
  Result<std::string> home = options_->ExplicitHome();
  if (!home.ok()) return home.status();
  return env::NotesRoot("", *home);
}

Result<std::string> Context::ToolOutputDir(std::string_view flag) const {
  if (!flag.empty()) return std::string(flag);
  Result<std::string> home = options_->ExplicitHome();
  if (!home.ok()) return home.status();
  return env::ToolOutputDir("", *home);
}

ProgressOptions Context::Progress() const {
  return TerminalProgress(options_->quiet);
}

std::string Context::Producer() const {
  return options_->agent.empty() ? "cli" : "agent:" + options_->agent;
}

int Main(int argc, char** argv, std::span<const RegisterVerbs> extra) {
  GlobalOptions options;
  options.argv.assign(argv, argv + argc);
  CLI::App app{
      "ctxkit: a context store for LLM agents. Agents pass compact refs; "
      "code resolves content only where it is needed.",
      "ctxkit"};
  app.footer(kFooter);
  app.set_version_flag("--version", std::string("ctxkit ") + kVersion);
  app.require_subcommand(1);
  // Global options may follow the verb too (`ctxkit ls --json`); given
  // twice, the last one wins, as wrappers that prepend defaults expect.
  app.fallthrough();
  app.option_defaults()->always_capture_default(false);
  app.add_option("--home", options.home,
                 "Store root directory (default: $CTXKIT_HOME, else "
                 "$XDG_DATA_HOME/ctxkit, else ~/.local/share/ctxkit)")
      ->envname("CTXKIT_HOME")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
      ->type_name("DIR");
  app.add_option("--store", options.store,
                 "A PostgreSQL store to use instead of the embedded one: a "
                 "libpq connection string, e.g. postgresql://host/db "
                 "(docs/postgres.md); the home then keeps only local caches")
      ->envname("CTXKIT_STORE_URL")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
      ->type_name("URL");
  app.add_option("--agent", options.agent,
                 "Agent id of the view: sees the agent:<ID> scope")
      ->envname("CTXKIT_AGENT")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
      ->type_name("ID");
  app.add_option("--session", options.session,
                 "Session id of the view: sees the session:<ID> scope")
      ->envname("CTXKIT_SESSION")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
      ->type_name("ID");
  app.add_flag("--json", options.json,
               "Machine-readable JSON output for metadata and listings");
  app.add_flag("--quiet", options.quiet,
               "No progress line on the terminal for long work (find on a "
               "large store, gc, watch add/scan, session ingest)");
  // Runs during parsing, before the "a verb is required" check, as
  // --version does.
  app.add_flag_callback(
      "--describe",
      [&options] {
        PrintDescription(options);
        throw CLI::Success();
      },
      "Print a JSON description of ctxkit (version, contextRetention) and "
      "exit");

  CommandTable table;
  int code = kExitInternal;
  try {
    RegisterVerbsFor(VerbOf(app, argc, argv), app, table, extra);
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      return HandleParseError(app, e,
                              std::vector<std::string>(argv, argv + argc));
    }
    Result<int> ran = RunVerb(table, options);
    code = ran.ok() ? *ran : ReportFailure(ran.status(), options.json);
  } catch (const std::exception& e) {
    // Nothing in ctxkit should throw; std::bad_alloc and friends land here.
    return ReportFailure(Status::Internal(e.what()), options.json);
  }
  // A full disk or closed pipe must not pass for success.
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    if (code == kExitOk) {
      return ReportFailure(Status::IoError("cannot write to stdout"),
                           options.json);
    }
  }
  return code;
}

}  // namespace ctxkit::cli
