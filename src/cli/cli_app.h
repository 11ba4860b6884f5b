// The `ctxkit` command line: global options, the store a command works on,
// and the mapping of Status codes to documented process exit codes.
//
// Each verb group registers itself from its own commands_*.cc file through
// the Register* functions below; Main parses, runs the chosen verb, and
// reports the failure it returns (the one place errors are printed).

#ifndef CTXKIT_CLI_CLI_APP_H_
#define CTXKIT_CLI_CLI_APP_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/progress.h"
#include "ctxkit/status.h"
#include "ctxkit/store.h"

namespace CLI {
class App;
}  // namespace CLI

namespace ctxkit::cli {

// Process exit codes; the contract scripts rely on (see `ctxkit --help`).
enum ExitCode : int {
  kExitOk = 0,
  kExitNotFound = 1,
  kExitUsage = 2,  // Bad input, bad flag, malformed key/ref/JSON.
  kExitPermissionDenied = 3,
  kExitConflict = 4,     // Already exists, or wrong state for the verb.
  kExitUnavailable = 5,  // Session-only value held by another process.
  kExitIoError = 6,      // Operating system, database or resource failure.
  kExitInternal = 7,
};

// The exit code for a failed Status (kExitOk for OK).
int ExitCodeFor(const Status& status);

// Values up to this size that have no token count yet (the store counts
// values up to Options::count_tokens_max_bytes at write; older versions
// may lack one) get it when `ls` first lists them, about 0.2 s at the
// limit; larger ones only when asked for (`ctxkit tokens KEY`, `stat`).
inline constexpr uint64_t kEagerTokenCountMaxBytes = 8ull << 20;

// The version string printed by `ctxkit --version`.
extern const char kVersion[];

struct GlobalOptions {
  std::string home;  // --home or CTXKIT_HOME; empty: ResolveHome default.
  // --store or CTXKIT_STORE_URL: a PostgreSQL store's connection string;
  // empty: the embedded store under the home.
  std::string store;

  // The resolved home when --home or CTXKIT_HOME named one, else "" (the
  // default home keeps the spec's default directories).
  Result<std::string> ExplicitHome() const;
  std::string agent;    // --agent or CTXKIT_AGENT.
  std::string session;  // --session or CTXKIT_SESSION.
  bool json = false;
  // --quiet: no progress line on the terminal (cli/progress_line.h).
  bool quiet = false;
  // The command line as given, for a verb that runs it again in another
  // program (`serve`, see serve_command.h).
  std::vector<std::string> argv;
};

// Checks a --scope value with the library's ResolveScopeName before the
// store is touched, so every verb gives one clear message and exit code;
// "agent"/"session" without an id name the flag that supplies it.
Status CheckScopeName(std::string_view scope, const GlobalOptions& g);

// A KEY argument of a read verb (get, peek, len, stat, versions, ref,
// tokens, summarize, chunk, search --key), which may also be a ref: the
// text form Target::Parse reads (a ref takes no --scope or --version; a
// key is looked up with them, its --scope checked with CheckScopeName).
// Checked before the store is opened.
Result<Target> ParseKeyOrRef(const std::string& text, const std::string& scope,
                             uint64_t version, const GlobalOptions& g);

// What a verb runs against. The store is opened on first use so that
// `--help` and usage errors never touch the disk.
class Context {
 public:
  explicit Context(const GlobalOptions* options) : options_(options) {}

  const GlobalOptions& options() const { return *options_; }
  bool json() const { return options_->json; }
  // Progress reports for a long verb: a line on stderr when it is a
  // terminal and --quiet was not given, else none (cli/progress_line.h).
  ProgressOptions Progress() const;

  // The store at the resolved home, opened once.
  Result<Store*> OpenStore();
  // A view bound to --agent and session() on OpenStore().
  Result<View*> OpenView();
  // For verbs that need a session: the one to use when neither --session
  // nor CTXKIT_SESSION names one. Call before OpenView.
  void SetDefaultSession(std::string id) { default_session_ = std::move(id); }
  // --session (or CTXKIT_SESSION), else the default set above; may be empty.
  const std::string& session() const {
    return options_->session.empty() ? default_session_ : options_->session;
  }
  // "agent:<id>" when an agent is set, else "cli": recorded per version.
  std::string Producer() const;

  // Where the spec directories go (face/environment.h): `flag`, else the
  // spec's variable, else under the home when --home/CTXKIT_HOME named one,
  // else the spec's default.
  Result<std::string> NotesRoot(std::string_view flag) const;
  Result<std::string> ToolOutputDir(std::string_view flag) const;

 private:
  const GlobalOptions* options_;
  std::string default_session_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<View> view_;
};

// A verb's body, run after a successful parse: OK for exit 0, or the
// failure. Main reports a failure (see ReportFailure in cli_app.cc: one line
// "ctxkit: <code>: <message>" on stderr, or under --json one JSON object
// {"error":{"code":...,"message":...}}) and exits with its ExitCodeFor.
using Runner = std::function<Status(Context&)>;

// A verb whose exit code may be nonzero with nothing for Main to report
// (spawn passes its child's code through; the demo words its own failure):
// the exit code, already explained on stderr when nonzero, or a failure
// Main reports as a Runner's.
using CodeRunner = std::function<Result<int>(Context&)>;

// Collects the verbs so Main can run the one the user chose.
class CommandTable {
 public:
  void Add(CLI::App* sub, Runner run);
  void AddWithExitCode(CLI::App* sub, CodeRunner run) {
    entries_.push_back({sub, std::move(run)});
  }
  const std::vector<std::pair<CLI::App*, CodeRunner>>& entries() const {
    return entries_;
  }

 private:
  std::vector<std::pair<CLI::App*, CodeRunner>> entries_;
};

// The store the execution log goes to (notes and tools verbs): the one the
// verb opened, or nullptr when none could be (the verb reported why).
Store* LogStore(Context& ctx);

// Verb groups, each in its own file.
void RegisterValueCommands(CLI::App& app, CommandTable& table);  // set get...
void RegisterExploreCommands(CLI::App& app,
                             CommandTable& table);  // peek search len
void RegisterSummaryCommands(CLI::App& app,
                             CommandTable& table);  // summarize tokens
void RegisterMetaCommands(CLI::App& app, CommandTable& table);  // ls stats...
void RegisterMaintenanceCommands(CLI::App& app, CommandTable& table);  // du, gc
void RegisterIndexCommands(CLI::App& app,
                           CommandTable& table);  // find
void RegisterSessionCommands(CLI::App& app,
                             CommandTable& table);  // session, render
// session tools/call/compact, under the `session` group.
void RegisterAgentToolCommands(CLI::App* session, CommandTable& table);
void RegisterWatchCommands(CLI::App& app,
                           CommandTable& table);  // watch add/ls/rm/scan/run
void RegisterNotesCommands(CLI::App& app,
                           CommandTable& table);  // notes ..., log
void RegisterToolsCommands(CLI::App& app,
                           CommandTable& table);  // tools save/load/ls...
void RegisterExternalizeCommands(CLI::App& app,
                                 CommandTable& table);  // externalize, var
void RegisterSpawnCommands(CLI::App& app,
                           CommandTable& table);  // spawn, result, manifest
void RegisterMcpCommands(CLI::App& app, CommandTable& table);  // mcp
// serve: registered by each program's main (cli/serve_command.h).

// Registers a group of verbs that each program's main chooses: the demo (a
// layer above the CLI) and `serve` (in process, or by exec).
using RegisterVerbs = void (*)(CLI::App& app, CommandTable& table);

// The whole program: parse argv, run the verb, return the exit code. Never
// throws. `extra` verb groups are listed after the value and meta verbs.
int Main(int argc, char** argv, std::span<const RegisterVerbs> extra = {});

}  // namespace ctxkit::cli

#endif  // CTXKIT_CLI_CLI_APP_H_
