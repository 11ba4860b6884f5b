#include "mcp/http_server.h"

#include <httplib.h>
#include <signal.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <exception>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include "core/clock.h"
#include "core/hmac.h"
#include "core/mutex.h"
#include "face/environment.h"
#include "inspect/api.h"
#include "mcp/http_connection.h"
#include "mcp/http_inspector.h"
#include "mcp/http_message.h"
#include "mcp/http_pool.h"
#include "mcp/http_security.h"
#include "mcp/http_session.h"
#include "mcp/json_rpc.h"
#include "store/store_internals.h"

namespace ctxkit::mcp {

namespace {

constexpr char kSessionHeader[] = "Mcp-Session-Id";
constexpr char kVersionHeader[] = "MCP-Protocol-Version";

// JSON-RPC codes for transport failures: the specification leaves them to
// the implementation within the server-error range.
constexpr int kTransportError = -32000;
constexpr int kSessionNotFound = -32001;

void SetError(httplib::Response& res, int http_status, int rpc_code,
              std::string_view message, const nlohmann::json& id = nullptr) {
  res.status = http_status;
  res.set_content(JsonRpcError(rpc_code, message, id), kJsonContentType);
}

// Does an Accept header admit `type` ("application/json")? No header means
// anything goes (RFC 9110); otherwise the type itself, "<major>/*" or "*/*".
bool Accepts(const httplib::Request& req, std::string_view type) {
  if (!req.has_header("Accept")) return true;
  std::string accept = req.get_header_value("Accept");
  std::string major = std::string(type.substr(0, type.find('/'))) + "/*";
  size_t start = 0;
  while (start <= accept.size()) {
    size_t comma = accept.find(',', start);
    if (comma == std::string::npos) comma = accept.size();
    std::string_view item(accept.data() + start, comma - start);
    item = item.substr(0, item.find(';'));
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item == type || item == major || item == "*/*") return true;
    start = comma + 1;
  }
  return false;
}

// The whole value of header `name` (get_header_value would stop at a NUL),
// or nullopt when absent.
std::optional<std::string> HeaderValue(const httplib::Request& req,
                                       const char* name) {
  auto it = req.headers.find(name);
  if (it == req.headers.end()) return std::nullopt;
  return it->second;
}

// A header value quoted in an error message: printable ASCII, at most 100
// bytes.
std::string SafeForMessage(std::string_view value) {
  std::string out;
  for (char c : value.substr(0, 100)) {
    const auto u = static_cast<unsigned char>(c);
    out += (u < 0x20 || u >= 0x7f) ? '?' : c;
  }
  return out;
}

// Bytes one request body holds against the server's in-flight budget,
// given back when the request is done.
class InflightBytes {
 public:
  explicit InflightBytes(std::atomic<uint64_t>* total) : total_(total) {}
  ~InflightBytes() { total_->fetch_sub(held_); }
  InflightBytes(const InflightBytes&) = delete;
  InflightBytes& operator=(const InflightBytes&) = delete;

  // Adds n bytes unless that would take the total past `budget`.
  bool Take(uint64_t n, uint64_t budget) {
    uint64_t now = total_->load();
    do {
      if (now + n > budget) return false;
    } while (!total_->compare_exchange_weak(now, now + n));
    held_ += n;
    return true;
  }

 private:
  std::atomic<uint64_t>* const total_;
  uint64_t held_ = 0;
};

struct Refusal {
  int status = 400;
  std::string message;
};

// Headers as sent and as parsed. The raw head shows what httplib's parse
// hides (it drops an empty Origin, which would pass for none); the parsed
// values are %-decoded ("%00" is a NUL there) and read whole
// (get_header_value stops at a NUL). Those the server acts on must not
// repeat: a second Host or Origin could slip past the check of the first.
std::optional<Refusal> RefuseHeaders(const httplib::Request& req) {
  const RequestHead* head = CurrentRequestHead();
  if (head == nullptr || !head->complete) {
    if (head != nullptr && head->too_large) {
      return Refusal{431, "request header fields too large"};
    }
    return Refusal{500, "internal error: the request head was not kept"};
  }
  if (std::string problem = RequestHeadProblem(head->bytes); !problem.empty()) {
    return Refusal{400, "bad request: " + problem};
  }
  for (const auto& [name, value] : req.headers) {
    if (!HeaderValueIsClean(value)) {
      return Refusal{400, "bad request: header " + SafeForMessage(name) +
                              " holds a control byte"};
    }
  }
  for (const char* name :
       {"Host", "Origin", "Authorization", kSessionHeader, kVersionHeader}) {
    if (req.headers.count(name) > 1) {
      return Refusal{
          400, std::string("bad request: more than one ") + name + " header"};
    }
  }
  return std::nullopt;
}

bool IsJsonContentType(const httplib::Request& req) {
  std::string type = req.get_header_value("Content-Type");
  type = type.substr(0, type.find(';'));
  while (!type.empty() && type.back() == ' ') type.pop_back();
  for (char& c : type) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return type == "application/json";
}

}  // namespace

class HttpServer::Impl {
 public:
  Impl(Server* server, HttpOptions options, std::string_view session_key)
      : server_(server),
        options_(std::move(options)),
        policy_(options_.allowed_origins),
        loopback_(IsLoopbackBind(options_.bind)),
        ids_(session_key, options_.session_max_age),
        sessions_(options_.max_sessions, options_.session_idle_timeout) {
    if (options_.ui) {
      inspect::ApiOptions api;
      api.tool_output_dir = server_->options().capture_root;
      if (api.tool_output_dir.empty()) {
        api.tool_output_dir = env::ToolOutputDir("", "").value_or("");
      }
      api_ = std::make_unique<inspect::Api>(server_->store(), std::move(api));
    }
  }

  ~Impl() { Stop(); }

  Status Listen() {
    const size_t threads = options_.threads == 0 ? 1 : options_.threads;
    const size_t max = std::max(threads, options_.max_connections);
    http_.new_task_queue = [threads, max] {
      return new ElasticPool(threads, max);
    };
    http_.set_payload_max_length(options_.max_request_bytes);
    http_.set_tcp_nodelay(true);
    // httplib's default also sets SO_REUSEPORT, which lets a second server
    // bind the same port and silently take half the connections (and
    // answer 404 to sessions it never saw). SO_REUSEADDR alone still allows
    // a quick restart.
    http_.set_socket_options([](int sock) {
      int yes = 1;
      ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    });
    // A keep-alive client (an agent harness, a benchmark) sends many
    // requests on one connection; httplib's default closes it after five.
    http_.set_keep_alive_max_count(1u << 30);
    // httplib notices a stop only when an idle keep-alive connection times
    // out, so this bounds how long stopping takes (SIGTERM, tests). A client
    // idle for longer simply reconnects.
    http_.set_keep_alive_timeout(2);
    http_.set_pre_routing_handler(
        [this](const httplib::Request& req, httplib::Response& res) {
          return Screen(req, res);
        });
    http_.set_error_handler(httplib::Server::HandlerWithResponse(
        [](const httplib::Request&, httplib::Response& res) {
          return FillError(res);
        }));
    http_.set_exception_handler([](const httplib::Request&,
                                   httplib::Response& res, std::exception_ptr) {
      SetError(res, 500, kTransportError, "internal server error");
    });
    // The body is read by the handler, not by httplib, so the size limit
    // holds for chunked bodies too (httplib checks only Content-Length).
    http_.Post("/mcp",
               [this](const httplib::Request& req, httplib::Response& res,
                      const httplib::ContentReader& reader) {
                 std::string body;
                 if (ReadBody(res, reader, &body)) HandlePost(req, body, res);
               });
    http_.Get("/mcp", [this](const httplib::Request& req,
                             httplib::Response& res) { HandleGet(req, res); });
    http_.Delete("/mcp",
                 [this](const httplib::Request& req, httplib::Response& res) {
                   HandleDelete(req, res);
                 });
    auto not_allowed = [](const httplib::Request&, httplib::Response& res) {
      res.set_header("Allow", "GET, POST, DELETE");
      SetError(res, 405, kTransportError,
               "method not allowed: use POST, GET or DELETE");
    };
    http_.Put("/mcp", not_allowed);
    http_.Patch("/mcp", not_allowed);
    http_.Options("/mcp", not_allowed);
    if (api_ != nullptr) AddInspectorRoutes(http_, api_.get());

    // httplib takes IPv6 literals without brackets.
    std::string host = options_.bind;
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
      host = host.substr(1, host.size() - 2);
    }
    int port = options_.port;
    if (port == 0) {
      port = http_.bind_to_any_port(host);
      if (port < 0) port = 0;
    } else if (!http_.bind_to_port(host, port)) {
      port = 0;
    }
    if (port <= 0) {
      return Status::IoError("cannot listen on " + options_.bind + ":" +
                             std::to_string(options_.port) +
                             " (address in use, or not an address of this "
                             "machine)");
    }
    port_ = port;
    thread_ = std::thread([this] { http_.listen_after_bind(); });
    // httplib's stop() does nothing until the serving loop has started, and
    // a stop that came too early would leave Stop() joining a loop that
    // never ends: wait for it.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!http_.is_running() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (!http_.is_running()) {
      return Status::IoError("the HTTP server did not start serving");
    }
    return Status::Ok();
  }

  void Stop() EXCLUDES(stop_mu_) {
    core::MutexLock lock(&stop_mu_);
    if (stopped_) return;
    stopped_ = true;
    // Streams block waiting for messages: end them first, or stopping
    // would wait for their keep-alive timers.
    sessions_.CloseAll();
    if (api_ != nullptr) api_->Stop();  // Waiting /api/changes calls.
    http_.stop();
    if (thread_.joinable()) thread_.join();
  }

  int port() const { return port_; }
  const HttpOptions& options() const { return options_; }
  size_t session_count() { return sessions_.size(); }

 private:
  // Security checks, before the body is read: a client that may not talk
  // to us cannot make us read 128 MiB.
  httplib::Server::HandlerResponse Screen(const httplib::Request& req,
                                          httplib::Response& res) {
    auto reject = [&](int status, std::string_view message) {
      SetError(res, status, kTransportError, message);
      // The unread body would be taken for the next request.
      res.set_header("Connection", "close");
      return httplib::Server::HandlerResponse::Handled;
    };
    if (std::optional<Refusal> r = RefuseHeaders(req)) {
      return reject(r->status, r->message);
    }
    const std::optional<std::string> host = HeaderValue(req, "Host");
    if (!host || host->empty()) {
      return reject(400, "bad request: a Host header is required");
    }
    if (loopback_ && !policy_.HostAllowed(*host)) {
      return reject(403,
                    "forbidden: the Host header must name this machine "
                    "(localhost, 127.0.0.1 or [::1]); DNS-rebinding "
                    "protection");
    }
    const std::optional<std::string> origin = HeaderValue(req, "Origin");
    if (origin && !policy_.OriginAllowed(*origin)) {
      return reject(403, "forbidden: origin '" + SafeForMessage(*origin) +
                             "' is not allowed (see ctxkit serve "
                             "--allowed-origin); DNS-rebinding protection");
    }
    // The inspector's page holds no data and a browser opening it cannot
    // send the token; its API needs it like everything else.
    const bool page = api_ != nullptr && IsInspectorPagePath(req.path);
    if (!options_.token.empty() && !page &&
        !BearerTokenMatches(HeaderValue(req, "Authorization").value_or(""),
                            options_.token)) {
      res.set_header("WWW-Authenticate", "Bearer");
      return reject(401,
                    "unauthorized: send 'Authorization: Bearer <token>' "
                    "with the server's token");
    }
    std::string encoding = req.get_header_value("Content-Encoding");
    if (!encoding.empty() && encoding != "identity") {
      // Compressed bodies could expand past the size limit after it was
      // checked.
      return reject(415, "unsupported Content-Encoding '" + encoding +
                             "': send the body uncompressed");
    }
    return httplib::Server::HandlerResponse::Unhandled;
  }

  static void FillError413(httplib::Response& res) {
    SetError(res, 413, kInvalidRequest,
             "request too large: the body exceeds the server's limit "
             "(ctxkit serve --max-request-bytes)");
  }

  // Errors httplib raises itself (413, 404 for other paths, 400 for a
  // broken request) get a JSON-RPC body like ours.
  static httplib::Server::HandlerResponse FillError(httplib::Response& res) {
    if (!res.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    switch (res.status) {
      case 413:
        FillError413(res);
        break;
      case 404:
        SetError(res, 404, kTransportError,
                 "not found: the MCP endpoint is /mcp");
        break;
      default:
        SetError(res, res.status, kTransportError,
                 "HTTP error " + std::to_string(res.status));
    }
    return httplib::Server::HandlerResponse::Handled;
  }

  static int64_t NowSeconds() { return core::NowUnixNanos() / 1'000'000'000; }

  ClientBinding BindingOf(const std::string& id) const {
    return BindingFor(id, options_.shared_session);
  }

  static void SetSessionNotFound(httplib::Response& res) {
    SetError(res, 404, kSessionNotFound,
             "session not found: it was terminated or never existed; "
             "send initialize without Mcp-Session-Id to start a new one");
  }

  // The session named by the request's header, or an error already set. A
  // session this server does not hold but some server of the store issued
  // is resumed. Every request checks the store for the session's end, so a
  // DELETE on any server ends it on all of them.
  std::shared_ptr<HttpSession> SessionOf(const httplib::Request& req,
                                         httplib::Response& res) {
    if (!req.has_header(kSessionHeader)) {
      SetError(res, 400, kTransportError,
               "bad request: Mcp-Session-Id header is required (send "
               "initialize first)");
      return nullptr;
    }
    std::string id = HeaderValue(req, kSessionHeader).value_or("");
    if (!ids_.Issued(id, NowSeconds()) || sessions_.WasRemoved(id)) {
      SetSessionNotFound(res);
      return nullptr;
    }
    Result<bool> ended = WasTerminated(*server_->store(), BindingOf(id));
    if (!ended.ok()) {
      SetError(res, 503, kTransportError,
               "cannot check the session: " + ended.status().ToString());
      return nullptr;
    }
    if (*ended) {
      sessions_.Remove(id);
      SetSessionNotFound(res);
      return nullptr;
    }
    std::shared_ptr<HttpSession> s = sessions_.Find(id);
    if (s != nullptr) return s;
    return Resume(req, std::move(id), res);
  }

  // Rebuilds session `id` as its initialize left it: bound to its agent and
  // session scope, speaking the request's MCP-Protocol-Version (2025-06-18,
  // the oldest revision we speak, when the header is missing). What lived
  // only in the server that held it (resource subscriptions, the log level,
  // undelivered stream messages) starts afresh. It joins the table only
  // once initialized, so a concurrent request never finds it half made.
  std::shared_ptr<HttpSession> Resume(const httplib::Request& req,
                                      std::string id, httplib::Response& res) {
    Result<std::shared_ptr<HttpSession>> made =
        SessionTable::Make(*server_, id, BindingOf(id), /*used=*/true);
    if (!made.ok()) {
      SetCreateError(res, made.status());
      return nullptr;
    }
    Connection& conn = *(*made)->connection;
    std::string version = req.has_header(kVersionHeader)
                              ? req.get_header_value(kVersionHeader)
                              : std::string("2025-06-18");
    std::optional<std::string> reply = conn.Handle(nlohmann::json{
        {"jsonrpc", "2.0"},
        {"id", 0},
        {"method", "initialize"},
        {"params",
         {{"protocolVersion", version},
          {"capabilities", nlohmann::json::object()}}}}.dump());
    conn.Handle(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
    if (conn.negotiated_version().empty()) {
      SetError(res, 500, kTransportError,
               "internal error: the session could not be resumed: " +
                   reply.value_or(""));
      return nullptr;
    }
    Result<std::shared_ptr<HttpSession>> added =
        sessions_.Add(*std::move(made));
    if (!added.ok()) {
      if (added.status().code() == StatusCode::kNotFound) {
        SetSessionNotFound(res);
      } else {
        SetCreateError(res, added.status());
      }
      return nullptr;
    }
    return *added;
  }

  static void SetCreateError(httplib::Response& res, const Status& status) {
    int code = status.code() == StatusCode::kResourceExhausted ? 503 : 500;
    SetError(res, code, kTransportError, status.message());
  }

  bool VersionHeaderOk(const httplib::Request& req, httplib::Response& res) {
    if (!req.has_header(kVersionHeader)) return true;
    std::string v = req.get_header_value(kVersionHeader);
    if (IsSupportedProtocolVersion(v)) return true;
    SetError(res, 400, kTransportError,
             "bad request: unsupported MCP-Protocol-Version '" + v +
                 "' (supported: 2025-11-25, 2025-06-18)");
    return false;
  }

  // Reads the body into *body, within max_request_bytes for this request
  // and max_inflight_bytes for all of them; false with the error response
  // set (the connection then closes: the rest of the body is unread).
  bool ReadBody(httplib::Response& res, const httplib::ContentReader& reader,
                std::string* body) {
    const uint64_t limit = options_.max_request_bytes;
    InflightBytes held(&inflight_);
    bool too_large = false;
    bool too_busy = false;
    const bool read = reader([&](const char* data, size_t n) {
      if (body->size() + n > limit) {
        too_large = true;
        return false;
      }
      if (!held.Take(n, options_.max_inflight_bytes)) {
        too_busy = true;
        return false;
      }
      body->append(data, n);
      return true;
    });
    if (read && !too_large && !too_busy) return true;
    res.set_header("Connection", "close");
    // httplib itself refuses a Content-Length over the limit (status 413)
    // before reading any of the body.
    if (too_large || res.status == 413) {
      FillError413(res);
    } else if (too_busy) {
      res.set_header("Retry-After", "1");
      SetError(res, 503, kTransportError,
               "server busy: too many request bodies being received at "
               "once; retry");
    } else {
      SetError(res, 400, kTransportError,
               "bad request: the body could not be read");
    }
    return false;
  }

  void HandlePost(const httplib::Request& req, const std::string& body,
                  httplib::Response& res) {
    if (!IsJsonContentType(req)) {
      SetError(res, 415, kTransportError,
               "unsupported media type: POST a JSON-RPC message as "
               "Content-Type: application/json");
      return;
    }
    if (!Accepts(req, "application/json")) {
      SetError(res, 406, kTransportError,
               "not acceptable: the Accept header must allow "
               "application/json (and text/event-stream)");
      return;
    }
    MessageInfo info = ClassifyMessage(body);
    switch (info.kind) {
      case MessageKind::kMalformed:
        SetError(res, 400, kParseError, "parse error: " + info.error);
        return;
      case MessageKind::kNotAnObject:
        SetError(res, 400, kInvalidRequest,
                 "invalid request: the body must be one JSON-RPC message "
                 "object (batches were removed in 2025-06-18)");
        return;
      case MessageKind::kTooDeep:
        SetError(res, 400, kInvalidRequest,
                 "invalid request: JSON nested deeper than " +
                     std::to_string(kMaxJsonDepth) + " levels",
                 info.id);
        return;
      default:
        break;
    }

    if (info.kind == MessageKind::kRequest && info.method == "initialize") {
      Initialize(req, body, res);
      return;
    }
    if (info.kind == MessageKind::kRequest && info.method == kDiscoverMethod &&
        !req.has_header(kSessionHeader)) {
      // A 2026-07-28 client's probe, before any session: the core's answer
      // as a JSON-RPC response, on which it falls back to initialize.
      res.status = 200;
      const RpcError refusal = DiscoverNotSupported();
      SetError(res, 200, refusal.code, refusal.message, info.id);
      return;
    }
    if (!VersionHeaderOk(req, res)) return;
    std::shared_ptr<HttpSession> s = SessionOf(req, res);
    if (s == nullptr) return;
    std::optional<std::string> reply = s->connection->Handle(body);
    if (info.kind == MessageKind::kRequest) {
      if (reply) {
        res.status = 200;
        res.set_content(std::move(*reply), kJsonContentType);
      } else {
        SetError(res, 500, kTransportError,
                 "internal error: the request got no response");
      }
      return;
    }
    if (reply) {
      // The core refused a notification or response: an HTTP error with
      // its JSON-RPC error as the body, as the specification prescribes.
      res.status = 400;
      res.set_content(std::move(*reply), kJsonContentType);
      return;
    }
    res.status = 202;
  }

  void Initialize(const httplib::Request& req, const std::string& body,
                  httplib::Response& res) {
    if (req.has_header(kSessionHeader)) {
      SetError(res, 400, kInvalidRequest,
               "bad request: initialize starts a new session; send it "
               "without Mcp-Session-Id");
      return;
    }
    Result<std::string> id = ids_.New(NowSeconds());
    if (!id.ok()) {
      SetCreateError(res, id.status());
      return;
    }
    Result<std::shared_ptr<HttpSession>> s =
        SessionTable::Make(*server_, *id, BindingOf(*id), /*used=*/false);
    if (s.ok()) s = sessions_.Add(*std::move(s));
    if (!s.ok()) {
      SetCreateError(res, s.status());
      return;
    }
    std::optional<std::string> reply = (*s)->connection->Handle(body);
    if (!reply) {
      sessions_.Drop((*s)->id);
      SetError(res, 500, kTransportError,
               "internal error: initialize got no response");
      return;
    }
    // A refused initialize (bad params) opens no session.
    nlohmann::json head = nlohmann::json::parse(*reply, nullptr, false);
    if (!head.is_object() || !head.contains("result")) {
      sessions_.Drop((*s)->id);
    } else {
      res.set_header(kSessionHeader, (*s)->id);
    }
    res.status = 200;
    res.set_content(std::move(*reply), kJsonContentType);
  }

  void HandleGet(const httplib::Request& req, httplib::Response& res) {
    if (!Accepts(req, "text/event-stream")) {
      SetError(res, 406, kTransportError,
               "not acceptable: GET /mcp opens an event stream; send "
               "Accept: text/event-stream");
      return;
    }
    if (!VersionHeaderOk(req, res)) return;
    if (!req.has_header(kSessionHeader)) {
      // No stream outside a session: 405, the answer the specification
      // gives a server without a stream, which clients that open one before
      // initialize (the AI SDK's) take quietly.
      res.set_header("Allow", "POST");
      SetError(res, 405, kTransportError,
               "method not allowed: no event stream outside a session; "
               "initialize (POST) first, then GET with its Mcp-Session-Id");
      return;
    }
    std::shared_ptr<HttpSession> s = SessionOf(req, res);
    if (s == nullptr) return;
    std::shared_ptr<Outbox> outbox = s->outbox;
    uint64_t generation = outbox->OpenStream();
    std::chrono::milliseconds keepalive = options_.keepalive_interval;
    res.status = 200;
    res.set_header("Cache-Control", "no-cache");
    res.set_chunked_content_provider(
        "text/event-stream",
        [outbox, generation, keepalive](size_t, httplib::DataSink& sink) {
          std::string batch;
          switch (outbox->Take(generation, keepalive, &batch)) {
            case Outbox::Wait::kEnded:
              sink.done();
              return true;
            case Outbox::Wait::kIdle:
              // An SSE comment: ignored by clients, but a write to a
              // vanished client fails and ends this stream.
              return sink.write(": keepalive\n\n", 13);
            case Outbox::Wait::kMessages:
              if (!sink.write(batch.data(), batch.size())) {
                outbox->Unget(std::move(batch));
                return false;
              }
              return true;
          }
          return false;
        },
        [outbox, generation](bool) { outbox->EndStream(generation); });
  }

  // Records the session's end in the store, so no server of the store
  // serves it again, then ends it here (a read-only store cannot record
  // it: then only this server refuses it). A DELETE whose record failed
  // leaves the session as it was, to be retried.
  void HandleDelete(const httplib::Request& req, httplib::Response& res) {
    if (!req.has_header(kSessionHeader)) {
      SessionOf(req, res);  // The missing-header error.
      return;
    }
    std::string id = HeaderValue(req, kSessionHeader).value_or("");
    if (!ids_.Issued(id, NowSeconds()) || sessions_.WasRemoved(id)) {
      SetSessionNotFound(res);
      return;
    }
    Store& store = *server_->store();
    if (!store.read_only()) {
      Status recorded = RecordTerminated(store, BindingOf(id));
      if (!recorded.ok()) {
        SetError(res, 503, kTransportError,
                 "the session's end could not be recorded in the store (" +
                     recorded.ToString() + "); retry DELETE");
        return;
      }
    }
    sessions_.Remove(id);
    res.status = 200;
  }

  Server* const server_;
  const HttpOptions options_;
  const OriginPolicy policy_;
  const bool loopback_;
  const SessionIds ids_;
  SessionTable sessions_;
  std::unique_ptr<inspect::Api> api_;  // The inspector's; null: --no-ui.
  std::atomic<uint64_t> inflight_{0};  // Body bytes held by ReadBody calls.
  HeadKeepingServer http_;
  int port_ = 0;
  std::thread thread_;
  core::Mutex stop_mu_;  // Serializes Stop.
  bool stopped_ GUARDED_BY(stop_mu_) = false;
};

Result<std::unique_ptr<HttpServer>> HttpServer::Start(Server* server,
                                                      HttpOptions options) {
  if (server == nullptr) return Status::InvalidArgument("no MCP server");
  if (!IsLoopbackBind(options.bind) && options.token.empty()) {
    return Status::InvalidArgument(
        "refusing to bind " + options.bind +
        " without a token: anyone who can reach it could read the store; "
        "set --token or CTXKIT_TOKEN, or bind 127.0.0.1");
  }
  if (options.port < 0 || options.port > 65535) {
    return Status::InvalidArgument("port must be 0-65535, not " +
                                   std::to_string(options.port));
  }
  if (!options.shared_session.empty()) {
    Status valid = ValidateScopeId(options.shared_session);
    if (!valid.ok()) return valid.WithContext("shared session");
  }
  if (options.max_request_bytes < 1024) {
    return Status::InvalidArgument(
        "max request size must be at least 1024 bytes");
  }
  for (const std::string& o : options.allowed_origins) {
    OriginPolicy one({o});
    if (!one.OriginAllowed(o)) {
      return Status::InvalidArgument(
          "allowed origin '" + o +
          "' is not of the form http(s)://host[:port]");
    }
  }
  // A client that hangs up mid-response must not kill the process: writes
  // to its socket fail with EPIPE instead.
  ::signal(SIGPIPE, SIG_IGN);
  // Session ids are signed with a key of the store, so every server of the
  // store resumes them; a store without a ref secret (read-only, made by an
  // early build) gets a key of this server alone.
  Result<std::string> key =
      StoreInternals::KeyFor(*server->store(), "mcp session ids");
  if (!key.ok() && server->store()->read_only()) {
    key = core::SecureRandomBytes(32);
  }
  if (!key.ok()) return key.status().WithContext("MCP session id key");
  auto impl = std::make_unique<Impl>(server, std::move(options), *key);
  Status listening = impl->Listen();
  if (!listening.ok()) return listening;
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpServer::~HttpServer() {
  if (impl_) impl_->Stop();
}

int HttpServer::port() const { return impl_->port(); }

std::string HttpServer::url() const {
  std::string host = impl_->options().bind;
  if (host.find(':') != std::string::npos && host.front() != '[') {
    host = "[" + host + "]";
  }
  return "http://" + host + ":" + std::to_string(port()) + "/mcp";
}

std::string HttpServer::ui_url() const {
  if (!impl_->options().ui) return "";
  std::string mcp = url();
  return mcp.substr(0, mcp.size() - 4) + "/ui/";
}

size_t HttpServer::session_count() const { return impl_->session_count(); }

void HttpServer::Stop() { impl_->Stop(); }

}  // namespace ctxkit::mcp
