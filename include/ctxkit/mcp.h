// The Model Context Protocol face of ctxkit: the store, the text helpers,
// sessions, externalization, tool outputs and notes as MCP tools, resources
// and prompts (docs/mcp.md).
//
// The protocol core is transport-free: a Server owns what all clients share
// (the store, the subscription watcher); a Connection is one client's
// JSON-RPC state (negotiated revision, log level, subscriptions, its own
// agent and session). Transports move message texts in and out:
//
//   auto server = ctxkit::mcp::Server::Create(store, home, {});
//   auto conn = (*server)->Connect({"mcp-7f3a", "mcp-7f3a"}, send_to_client);
//   std::optional<std::string> reply = (*conn)->Handle(line_from_client);
//   if (reply) send_to_client(*reply);
//
// `ctxkit mcp` is the stdio transport (one Connection, newline-delimited
// messages); `ctxkit serve` is Streamable HTTP (one Connection per
// Mcp-Session-Id). Both live in src/mcp/.
//
// Protocol revisions: 2025-11-25 (latest) and 2025-06-18. A client that
// offers another revision is answered with the latest one we speak, as the
// specification prescribes; it may then disconnect.
//
// Thread safety: Server::Connect and Connection::Handle may be called from
// many threads at once, on different connections or on the same one.

#ifndef CTXKIT_MCP_H_
#define CTXKIT_MCP_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ctxkit/index.h"
#include "ctxkit/status.h"
#include "ctxkit/store.h"
#include "ctxkit/summary.h"

namespace ctxkit::mcp {

// The revision answered when a client offers one we do not speak.
inline constexpr std::string_view kLatestProtocolVersion = "2025-11-25";

// True for the revisions this server speaks.
bool IsSupportedProtocolVersion(std::string_view version);

// Resources and prompts a program serves beside ctxkit's own: the
// conformance suite's fixtures are one (tests/mcp_conformance/). JSON goes
// in and out as text, in the shapes the MCP specification gives; methods
// are called from any connection's thread.
class ServerExtension {
 public:
  virtual ~ServerExtension() = default;

  // JSON arrays of entries: listed before ctxkit's own on the first
  // resources/list page, and after ctxkit's own in
  // resources/templates/list and prompts/list.
  virtual std::string ResourcesJson() const = 0;
  virtual std::string ResourceTemplatesJson() const = 0;
  virtual std::string PromptsJson() const = 0;

  // True for the URIs the extension answers (resources/read, subscribe);
  // ctxkit:// URIs are never asked.
  virtual bool OwnsUri(std::string_view uri) const = 0;
  // The resources/read "contents" array for an owned URI; NotFound when
  // there is no such resource.
  virtual Result<std::string> ReadResource(std::string_view uri) const = 0;
  // The prompts/get result of a prompt listed in PromptsJson, given the
  // request's "arguments" object; InvalidArgument (a -32602 error with its
  // message) for bad arguments.
  virtual Result<std::string> GetPrompt(
      std::string_view name, std::string_view arguments_json) const = 0;
};

struct ServerOptions {
  // The largest tool result, in o200k_base tokens, returned whole. A larger
  // value is returned as head + tail and the ranged get call that reads on
  // (docs/mcp.md, Result limit). 16-10,000,000.
  uint64_t result_token_limit = 8000;
  // Whether a result over the limit also carries a resource_link item to
  // the whole value. Off by default: clients that do not read resources
  // (LangChain's adapter turns the link into a file block with a ctxkit://
  // URL that chat providers refuse) get the text alone, which names the
  // URI and the call that reads on.
  bool resource_links = false;
  // More resources and prompts to serve (none by default).
  std::shared_ptr<const ServerExtension> extension;
  // Where the tool_output_* tools keep captured outputs (CaptureOptions::
  // root; "": $CTXKIT_TOOL_CONTEXT_DIR, else ~/.agent/context). `ctxkit mcp`
  // and `ctxkit serve` set it (<home>/tool-outputs under an explicit
  // --home; docs/tool-capture.md).
  std::string capture_root;
  // The notes root of the notes_* tools (NotebookOptions::root; "": the
  // spec's chain from the environment, see ResolveNotesRoot). `ctxkit mcp`
  // and `ctxkit serve` set it (<home>/notes-root under an explicit --home;
  // docs/notes.md).
  std::string notes_root;
  // The chat endpoint of summarize and tool_output_select; unset: read from
  // CTXKIT_LLM_* at each call.
  std::optional<LlmEndpoint> llm;
  // The embeddings endpoint of find_relevant; unset: read from
  // CTXKIT_EMBED_* at each call.
  std::optional<EmbeddingsConfig> embeddings;
  // resources/read serves values up to this size whole; larger ones get a
  // -32602 error pointing at the ranged `get` tool.
  uint64_t max_resource_read_bytes = 64ull << 20;
  // How often subscribed resources are checked for new versions (written by
  // any process), in milliseconds; 10-60,000.
  uint32_t subscription_poll_ms = 200;
};

// Whom a connection acts as. Each client gets its own agent scope and
// session scope, so no client reads another client's scoped data; both ids
// follow the store's scope id rules.
struct ClientBinding {
  std::string agent;
  std::string session;
};

// Sends one complete JSON-RPC message text to the client outside a request's
// response: notifications/resources/updated, notifications/message (logs).
// Called from any thread; the transport makes it safe.
using Notifier = std::function<void(std::string message)>;

class Connection {
 public:
  virtual ~Connection() = default;

  // Handles one JSON-RPC message. Returns the response text for a request
  // (a result, or an error object: -32700 parse error with id null, -32600
  // invalid request (also: a batch, a message nested deeper than 64 levels,
  // any request but initialize and ping before initialize), -32601 unknown
  // method, -32602 bad params, -32002 resource not found, -32603 internal),
  // and nullopt for a notification or a client's response. Never throws.
  //
  // Tool arguments are checked against the tool's inputSchema: under
  // 2025-06-18 a violation is a -32602 error, under 2025-11-25 (SEP-1303)
  // an isError tool result naming the field. A tool that fails returns an
  // isError result with "<status code>: <message>".
  virtual std::optional<std::string> Handle(std::string_view message) = 0;

  // The negotiated revision; empty until initialize has been answered.
  virtual std::string negotiated_version() const = 0;
};

class Server {
 public:
  // `store` must outlive the server; `home` is the store root (sessions,
  // notes and tool captures live beside the database; "": store->home()).
  // InvalidArgument for options out of range. Starts the subscription
  // watcher thread; the destructor stops it (connections may outlive
  // the server, not the store).
  static Result<std::unique_ptr<Server>> Create(Store* store, std::string home,
                                                ServerOptions options);
  virtual ~Server() = default;

  // A new client. InvalidArgument when the binding's ids are not valid
  // scope ids (both are required). The connection acts through a View bound
  // to them; a ref passed to it explicitly is a capability (it reads its
  // object whatever the scope), as everywhere in ctxkit. `notify` may be
  // empty; it is never called once the Connection is destroyed.
  virtual Result<std::unique_ptr<Connection>> Connect(ClientBinding binding,
                                                      Notifier notify) = 0;

  // The store given to Create.
  virtual Store* store() const = 0;
  // The options given to Create.
  virtual const ServerOptions& options() const = 0;
};

}  // namespace ctxkit::mcp

#endif  // CTXKIT_MCP_H_
