#include "mcp/connection.h"

#include <exception>
#include <optional>
#include <string>
#include <utility>

#include "core/mutex.h"
#include "face/tool_schema.h"
#include "mcp/extension.h"
#include "mcp/json_rpc.h"
#include "mcp/progress_notifications.h"
#include "mcp/prompts.h"
#include "mcp/resource_uri.h"
#include "mcp/resources.h"
#include "mcp/tool_registry.h"
#include "mcp/tool_util.h"
#include "text/json_parse.h"

#ifndef CTXKIT_VERSION
#define CTXKIT_VERSION "0.0.0"
#endif

namespace ctxkit::mcp {

namespace {

constexpr char kInstructions[] =
    "ctxkit is a context store: keep large content out of your context and "
    "hold handles instead. Store tool outputs, documents and intermediate "
    "results with `set` (or `tool_output_save`) and keep the returned ref "
    "(ck:...), a short handle naming the value. Read only what you need: "
    "`peek` (lines or items), `search` (grep), `get` with a byte or line "
    "range, `find_relevant` (ranked chunks), `summarize`, `tokens`. A result "
    "over the token limit comes back as head and tail with the get call that "
    "reads on; page through the rest by range. A ref handed to another agent "
    "is the "
    "capability to read its object. Your values live in the global scope "
    "(default), your agent scope or your session scope.";

bool ValidId(const Json& id) {
  return id.is_string() || id.is_number_integer();
}

Json ServerCapabilities() {
  return {{"tools", {{"listChanged", false}}},
          {"resources", {{"subscribe", true}, {"listChanged", false}}},
          {"prompts", {{"listChanged", false}}},
          {"logging", Json::object()},
          {"completions", Json::object()}};
}

const Json& ToolsListResult() {
  static const Json* result = [] {
    Json tools = Json::array();
    for (const ToolDef& t : Tools()) {
      tools.push_back({{"name", t.name},
                       {"title", t.title},
                       {"description", t.description},
                       {"inputSchema", t.input_schema},
                       {"annotations",
                        {{"title", t.title},
                         {"readOnlyHint", t.read_only},
                         {"destructiveHint", t.destructive},
                         {"idempotentHint", t.idempotent},
                         {"openWorldHint", false}}}});
    }
    return new Json({{"tools", std::move(tools)}});
  }();
  return *result;
}

Json ErrorToolResult(const std::string& text) {
  return {{"content", Json::array({{{"type", "text"}, {"text", text}}})},
          {"isError", true}};
}

// Filters `candidates` by prefix, at most 100 (the spec's cap).
Json Completion(const Json& candidates, const std::string& prefix) {
  Json values = Json::array();
  for (const Json& v : candidates) {
    if (values.size() >= 100) break;
    if (v.is_string() && v.get_ref<const std::string&>().starts_with(prefix)) {
      values.push_back(v);
    }
  }
  return {{"completion",
           {{"values", values},
            {"total", values.size()},
            {"hasMore", candidates.size() > 100}}}};
}

class Dispatcher {
 public:
  explicit Dispatcher(ClientState& c) : c_(c) {}

  RpcOutcome Run(const std::string& method, const Json& params) {
    if (method == "initialize") return Initialize(params);
    if (method == "ping") return RpcOutcome::Ok(Json::object());
    if (method == kDiscoverMethod) return {Json(), DiscoverNotSupported()};
    {
      core::MutexLock lock(&c_.mu);
      if (c_.negotiated_version.empty()) {
        return RpcOutcome::Fail(kInvalidRequest,
                                "not initialized: the first request must be "
                                "initialize (only ping may come before it)");
      }
    }
    if (method == "tools/list") return RpcOutcome::Ok(ToolsListResult());
    if (method == "tools/call") return CallTool(params);
    if (method == "resources/list") return ListResources(c_, params);
    if (method == "resources/read") return ReadResource(c_, params);
    if (method == "resources/templates/list") return ListResourceTemplates(c_);
    if (method == "resources/subscribe") return Subscribe(params, true);
    if (method == "resources/unsubscribe") return Subscribe(params, false);
    if (method == "prompts/list") return ListPrompts(c_);
    if (method == "prompts/get") return GetPrompt(c_, params);
    if (method == "logging/setLevel") return SetLevel(params);
    if (method == "completion/complete") return Complete(params);
    return RpcOutcome::Fail(kMethodNotFound, "method not found: " + method);
  }

 private:
  RpcOutcome Initialize(const Json& params) {
    auto v = params.find("protocolVersion");
    if (v == params.end() || !v->is_string()) {
      return RpcOutcome::Fail(kInvalidParams,
                              "params.protocolVersion: a string is required");
    }
    if (auto caps = params.find("capabilities");
        caps != params.end() && !caps->is_object()) {
      return RpcOutcome::Fail(kInvalidParams,
                              "params.capabilities must be an object");
    }
    const std::string& offered = v->get_ref<const std::string&>();
    std::string version = IsSupportedProtocolVersion(offered)
                              ? offered
                              : std::string(kLatestProtocolVersion);
    {
      core::MutexLock lock(&c_.mu);
      if (!c_.negotiated_version.empty()) {
        return RpcOutcome::Fail(
            kInvalidRequest,
            "already initialized (protocol " + c_.negotiated_version + ")");
      }
      c_.negotiated_version = version;
    }
    return RpcOutcome::Ok({{"protocolVersion", version},
                           {"capabilities", ServerCapabilities()},
                           {"serverInfo",
                            {{"name", "ctxkit"},
                             {"title", "ctxkit context store"},
                             {"version", CTXKIT_VERSION}}},
                           {"instructions", kInstructions}});
  }

  RpcOutcome CallTool(const Json& params) {
    NamedCallParams call;
    if (std::optional<RpcError> e = ParseNamedCallParams(params, &call)) {
      return {Json(), std::move(*e)};
    }
    if (std::optional<RpcError> e = CheckProgressToken(params)) {
      return {Json(), std::move(*e)};
    }
    const std::string& name = call.name;
    const ToolDef* tool = FindTool(name);
    if (tool == nullptr) {
      return RpcOutcome::Fail(kInvalidParams,
                              "unknown tool '" + name + "' (see tools/list)");
    }
    Json args = call.arguments;
    Status valid = face::CheckArguments(tool->input_schema, &args);
    if (!valid.ok()) {
      // 2025-06-18 lists invalid arguments as a protocol error; 2025-11-25
      // (SEP-1303) makes them a tool execution error the model can read
      // and correct.
      bool protocol_error;
      {
        core::MutexLock lock(&c_.mu);
        protocol_error = c_.negotiated_version == "2025-06-18";
      }
      if (protocol_error) {
        return RpcOutcome::Fail(kInvalidParams, name + ": " + valid.message());
      }
      return RpcOutcome::Ok(ErrorToolResult("invalid arguments for " + name +
                                            ": " + valid.message()));
    }
    Result<ToolResult> r =
        tool->run(c_, args, ProgressNotifications(c_, params));
    if (!r.ok()) {
      const Status& failed = r.status();
      c_.Log(LogLevel::kWarning, "ctxkit.tools",
             {{"tool", name}, {"error", failed.ToString()}});
      return RpcOutcome::Ok(
          ErrorToolResult(name + " failed: " + failed.ToString()));
    }
    Json result = {{"content", std::move(r->content)}, {"isError", false}};
    if (r->structured.is_object()) {
      result["structuredContent"] = std::move(r->structured);
    }
    return RpcOutcome::Ok(std::move(result));
  }

  RpcOutcome Subscribe(const Json& params, bool subscribe) {
    auto u = params.find("uri");
    if (u == params.end() || !u->is_string()) {
      return RpcOutcome::Fail(kInvalidParams,
                              "params.uri: a string is required");
    }
    const std::string& uri = u->get_ref<const std::string&>();
    if (!subscribe) {
      core::MutexLock lock(&c_.mu);
      c_.subscriptions.erase(uri);
      return RpcOutcome::Ok(Json::object());
    }
    RpcOutcome ok = CheckSubscribable(c_, uri);
    if (ok.error) return ok;
    uint64_t now = WatchedVersion(c_, uri).value_or(0);
    {
      core::MutexLock lock(&c_.mu);
      c_.subscriptions[uri] = now;
    }
    c_.watch->Subscribed();
    return RpcOutcome::Ok(Json::object());
  }

  RpcOutcome SetLevel(const Json& params) {
    auto l = params.find("level");
    if (l == params.end() || !l->is_string()) {
      return RpcOutcome::Fail(kInvalidParams,
                              "params.level: a string is required");
    }
    Result<LogLevel> level = ParseLogLevel(l->get<std::string>());
    if (!level.ok()) {
      return RpcOutcome::Fail(kInvalidParams,
                              "params.level: " + level.status().message());
    }
    {
      core::MutexLock lock(&c_.mu);
      c_.log_level = *level;
    }
    c_.Log(LogLevel::kDebug, "ctxkit",
           {{"message", "log level set"},
            {"level", std::string(LogLevelName(*level))}});
    return RpcOutcome::Ok(Json::object());
  }

  RpcOutcome Complete(const Json& params) {
    auto ref = params.find("ref");
    auto arg = params.find("argument");
    if (ref == params.end() || !ref->is_object() || arg == params.end() ||
        !arg->is_object()) {
      return RpcOutcome::Fail(kInvalidParams,
                              "params.ref and params.argument: objects are "
                              "required");
    }
    std::string type = ref->value("type", Json()).is_string()
                           ? ref->value("type", std::string())
                           : std::string();
    auto name_it = arg->find("name");
    auto value_it = arg->find("value");
    if (name_it == arg->end() || !name_it->is_string() ||
        value_it == arg->end() || !value_it->is_string()) {
      return RpcOutcome::Fail(kInvalidParams,
                              "params.argument: name and value strings are "
                              "required");
    }
    std::string name = name_it->get<std::string>();
    std::string value = value_it->get<std::string>();
    Json context_args = Json::object();
    if (auto ctx = params.find("context");
        ctx != params.end() && ctx->is_object() && ctx->contains("arguments") &&
        (*ctx)["arguments"].is_object()) {
      context_args = (*ctx)["arguments"];
    }
    if (type == "ref/prompt") {
      auto pn = ref->find("name");
      if (pn == ref->end() || !pn->is_string()) {
        return RpcOutcome::Fail(kInvalidParams,
                                "params.ref.name: a string is required");
      }
      if (*pn == kRootPromptName) {
        Json candidates = Json::array();
        if (name == "session") candidates.push_back(c_.binding.session);
        return RpcOutcome::Ok(Completion(candidates, value));
      }
      if (IsExtensionPrompt(c_.options, pn->get_ref<const std::string&>())) {
        return RpcOutcome::Ok(Completion(Json::array(), value));
      }
      return RpcOutcome::Fail(
          kInvalidParams, "unknown prompt '" + pn->get<std::string>() + "'");
    }
    if (type == "ref/resource") {
      auto uri = ref->find("uri");
      if (uri == ref->end() || !uri->is_string()) {
        return RpcOutcome::Fail(kInvalidParams,
                                "params.ref.uri: a string is required");
      }
      Json candidates = Json::array();
      if (uri->get_ref<const std::string&>().starts_with(kUriPrefix)) {
        if (name == "scope") {
          candidates = Json::array({"global", "agent", "session"});
        } else if (name == "key") {
          candidates = CompleteKeys(c_, value);
        } else if (name == "version") {
          std::string key = context_args.value("key", Json()).is_string()
                                ? context_args["key"].get<std::string>()
                                : std::string();
          std::string scope = context_args.value("scope", Json()).is_string()
                                  ? context_args["scope"].get<std::string>()
                                  : std::string();
          if (scope != "global" && scope != "agent" && scope != "session") {
            scope.clear();
          }
          if (!key.empty()) {
            Result<std::string> decoded = PercentDecode(key);
            if (decoded.ok()) {
              candidates = CompleteVersions(c_, scope, *decoded, value);
            }
          }
        }
      }
      return RpcOutcome::Ok(Completion(candidates, value));
    }
    return RpcOutcome::Fail(kInvalidParams,
                            "params.ref.type must be ref/prompt or "
                            "ref/resource");
  }

  ClientState& c_;
};

}  // namespace

std::optional<std::string> ConnectionImpl::Handle(std::string_view message) {
  Json id;  // null until a valid id is known.
  bool is_request = false;
  try {
    if (text::JsonNestingDepth(message, kMaxJsonDepth) > kMaxJsonDepth) {
      return ErrorMessage(
          ClassifyMessage(message).id,
          {kInvalidRequest, "message nested deeper than " +
                                std::to_string(kMaxJsonDepth) + " levels"});
    }
    Json msg = ctxkit::text::ParseJsonOrDiscarded(message);
    if (msg.is_discarded()) {
      return ErrorMessage(nullptr, {kParseError,
                                    "parse error: the message is not "
                                    "valid JSON"});
    }
    if (msg.is_array()) {
      return ErrorMessage(
          nullptr, {kInvalidRequest,
                    "batch requests are not supported: MCP (2025-06-18 and "
                    "later) sends one JSON-RPC message at a time"});
    }
    if (!msg.is_object()) {
      return ErrorMessage(
          nullptr, {kInvalidRequest, "a JSON-RPC message must be an object"});
    }
    auto id_it = msg.find("id");
    bool has_id = id_it != msg.end();
    if (has_id && !ValidId(*id_it)) {
      return ErrorMessage(
          nullptr,
          {kInvalidRequest, "id must be a string or an integer (not null)"});
    }
    if (has_id) id = *id_it;
    auto method_it = msg.find("method");
    if (method_it == msg.end()) {
      // A response to a request of ours (we send none): nothing to say.
      if (has_id && (msg.contains("result") || msg.contains("error"))) {
        return std::nullopt;
      }
      return ErrorMessage(
          id, {kInvalidRequest, "a request needs a \"method\" string"});
    }
    is_request = has_id;
    auto version_it = msg.find("jsonrpc");
    if (version_it == msg.end() || *version_it != "2.0") {
      if (!is_request) return std::nullopt;
      return ErrorMessage(id, {kInvalidRequest, "\"jsonrpc\" must be \"2.0\""});
    }
    if (!method_it->is_string()) {
      if (!is_request) return std::nullopt;
      return ErrorMessage(id, {kInvalidRequest, "\"method\" must be a string"});
    }
    const std::string& method = method_it->get_ref<const std::string&>();
    Json params = Json::object();
    if (auto p = msg.find("params"); p != msg.end()) {
      if (!p->is_object()) {
        if (!is_request) return std::nullopt;
        return ErrorMessage(id, {kInvalidParams, "params must be an object"});
      }
      params = *p;
    }
    if (!is_request) {
      if (method == "notifications/initialized") {
        core::MutexLock lock(&state_->mu);
        state_->initialized = true;
      }
      // notifications/cancelled and others need no action: requests on a
      // connection are answered as they complete.
      return std::nullopt;
    }
    Dispatcher d(*state_);
    RpcOutcome out = d.Run(method, params);
    if (out.error) return ErrorMessage(id, *out.error);
    return ResultMessage(id, std::move(out.result));
  } catch (const std::exception& e) {
    if (!is_request && id.is_null()) return std::nullopt;
    return ErrorMessage(
        id, {kInternalError, std::string("internal error: ") + e.what()});
  }
}

std::string ConnectionImpl::negotiated_version() const {
  core::MutexLock lock(&state_->mu);
  return state_->negotiated_version;
}

}  // namespace ctxkit::mcp
