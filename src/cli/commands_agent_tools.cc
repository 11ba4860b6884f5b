// The agent tools from the shell (include/ctxkit/agent_tools.h): session
// tools (their definitions in a provider's format), session call (run one
// tool call a model made, print its result item) and session compact (the
// next render folds the older turns).

#include <CLI/CLI.hpp>
#include <memory>
#include <string>

#include "cli/cli_app.h"
#include "cli/flags.h"
#include "cli/io.h"
#include "core/status_macros.h"
#include "ctxkit/agent_tools.h"
#include "ctxkit/session.h"
#include "face/environment.h"

namespace ctxkit::cli {
namespace {

struct AgentToolArgs {
  std::string id;
  std::string format = "openai";
  std::string call;  // A tool call's JSON, or "-" for stdin.
  std::string instructions;
  uint64_t max_bytes = AgentToolOptions{}.max_result_bytes;
};

Status RunTools(const AgentToolArgs& a) {
  Result<ToolFormat> format = ParseToolFormat(a.format);
  if (!format.ok()) return format.status().WithContext("--format");
  return WriteStdout(AgentToolsJson(*format) + "\n");
}

Result<std::unique_ptr<Session>> Open(Context& ctx, const std::string& id) {
  CTXKIT_ASSIGN_OR_RETURN(Store * store, ctx.OpenStore());
  return Session::Open(*store, id);
}

Status RunCall(Context& ctx, const AgentToolArgs& a) {
  Result<std::string> call =
      a.call == "-" ? ReadStdin() : Result<std::string>(a.call);
  if (!call.ok()) return call.status();
  CTXKIT_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Open(ctx, a.id));
  AgentToolOptions options{.max_result_bytes = a.max_bytes,
                           .embeddings = env::EmbeddingsFromEnv()};
  CTXKIT_ASSIGN_OR_RETURN(std::string item,
                          CallAgentTool(*session, *call, options));
  return WriteStdout(item + "\n");
}

Status RunCompact(Context& ctx, const AgentToolArgs& a) {
  CTXKIT_ASSIGN_OR_RETURN(std::unique_ptr<Session> session, Open(ctx, a.id));
  CTXKIT_RETURN_IF_ERROR(session->RequestCompaction(a.instructions));
  return WriteStdout(
      "compaction requested: the next render of " + a.id +
      " folds every turn but the newest keep_turns into a compaction\n");
}

}  // namespace

void RegisterAgentToolCommands(CLI::App* session, CommandTable& table) {
  {
    auto a = std::make_shared<AgentToolArgs>();
    CLI::App* sub = session->add_subcommand(
        "tools",
        "Print the agent tools (ctxkit_read, ctxkit_search, ...) as a "
        "provider's tools array (JSON)");
    sub->add_option("--format,-f", a->format,
                    "openai (default, Chat Completions), openai-responses "
                    "or anthropic")
        ->type_name("F");
    table.Add(sub, [a](Context&) { return RunTools(*a); });
  }
  {
    auto a = std::make_shared<AgentToolArgs>();
    CLI::App* sub = session->add_subcommand(
        "call",
        "Run one agent tool call a model made (OpenAI tool call, Responses "
        "function_call or Anthropic tool_use JSON) against session ID and "
        "print its result item in the same format");
    sub->add_option("ID", a->id, "The session id")->required();
    sub->add_option("CALL", a->call, "The tool call's JSON, or - for stdin")
        ->required();
    sub->add_option("--max-bytes", a->max_bytes,
                    "Cut a read, peek or expand result at this many bytes "
                    "(256 B - 16 MiB; default 16384)")
        ->type_name("N")
        ->check(UnsignedNumber());
    table.Add(sub, [a](Context& ctx) { return RunCall(ctx, *a); });
  }
  {
    auto a = std::make_shared<AgentToolArgs>();
    CLI::App* sub = session->add_subcommand(
        "compact",
        "Ask the next render of session ID to fold every turn but the "
        "newest keep_turns into a compaction, whatever the budget");
    sub->add_option("ID", a->id, "The session id")->required();
    sub->add_option("--instructions", a->instructions,
                    "What the compaction's summary must keep (up to 2000 "
                    "bytes)")
        ->type_name("TEXT");
    table.Add(sub, [a](Context& ctx) { return RunCompact(ctx, *a); });
  }
}

}  // namespace ctxkit::cli
