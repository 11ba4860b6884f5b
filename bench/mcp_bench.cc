// MCP server benchmarks: a tools/call `get` of a 1 KiB value, round trip,
// p50/p99, over stdio (`ctxkit mcp`, pipes) and Streamable HTTP
// (`ctxkit serve`, one keep-alive connection), against the anchor of the
// same call handed straight to Connection::Handle in process (the protocol
// core with no transport). Then requests per second with 8 concurrent HTTP
// clients, each with its own session and keep-alive connection, with the
// error count.
//
// Both servers are the real binary in child processes (CTXKIT_BINARY, set
// by cmake/layer_mcp.cmake; else $CTXKIT_BIN; else "ctxkit" beside this
// program), each on a fresh store under $CTXKIT_BENCH_TMPDIR.
//
//   build/release/mcp_bench --benchmark_counters_tabular=true

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bench_util.h"
#include "ctxkit/mcp.h"
#include "ctxkit/store.h"
#include "text/json_write.h"

extern char** environ;

namespace ctxkit_bench {
namespace {

using Json = nlohmann::json;

constexpr int kRoundTrips = 2000;         // Per latency benchmark.
constexpr int kClients = 8;               // Concurrent HTTP clients.
constexpr int kRequestsPerClient = 2500;  // Per client in the load run.
constexpr char kKey[] = "bench/doc-1k";

std::string Binary() {
#ifdef CTXKIT_BINARY
  std::string built = CTXKIT_BINARY;
#else
  std::string built;
#endif
  const char* env = std::getenv("CTXKIT_BIN");
  if (env != nullptr && *env != '\0') return env;
  if (!built.empty()) return built;
  char self[4096];
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  std::string dir = n > 0 ? std::string(self, static_cast<size_t>(n)) : "";
  return dir.substr(0, dir.rfind('/') + 1) + "ctxkit";
}

std::string Request(int id, const std::string& method, Json params) {
  return Json{{"jsonrpc", "2.0"},
              {"id", id},
              {"method", method},
              {"params", std::move(params)}}
      .dump();
}

std::string InitializeMessage() {
  return Request(0, "initialize",
                 {{"protocolVersion", "2025-11-25"},
                  {"capabilities", Json::object()},
                  {"clientInfo", {{"name", "mcp_bench"}, {"version", "1"}}}});
}

std::string GetMessage(int id) {
  return Request(id, "tools/call",
                 {{"name", "get"}, {"arguments", {{"key", kKey}}}});
}

std::string SetMessage() {
  return Request(
      1, "tools/call",
      {{"name", "set"},
       {"arguments", {{"key", kKey}, {"value", MakeText(1024, 7)}}}});
}

// A response to a get must carry the 1 KiB value, not an error.
bool GoodGet(const std::string& reply) {
  return reply.size() > 1024 && reply.find("\"result\"") != std::string::npos &&
         reply.find("\"isError\":true") == std::string::npos;
}

// A child process with its stdin and stdout on pipes.
class Child {
 public:
  Child(const std::vector<std::string>& args) {
    int in[2], out[2];
    if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) return;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    std::vector<char*> argv;
    for (const std::string& a : args)
      argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    if (posix_spawn(&pid_, argv[0], &fa, nullptr, argv.data(), environ) != 0) {
      pid_ = -1;
    }
    posix_spawn_file_actions_destroy(&fa);
    ::close(in[0]);
    ::close(out[1]);
    to_ = in[1];
    from_ = out[0];
  }
  ~Child() {
    if (to_ >= 0) ::close(to_);
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status;
      ::waitpid(pid_, &status, 0);
    }
    if (from_ >= 0) ::close(from_);
  }
  bool ok() const { return pid_ > 0; }

  bool WriteLine(const std::string& line) {
    std::string s = line + "\n";
    const char* p = s.data();
    size_t left = s.size();
    while (left > 0) {
      ssize_t n = ::write(to_, p, left);
      if (n <= 0) return false;
      p += n;
      left -= static_cast<size_t>(n);
    }
    return true;
  }
  // One line of stdout; empty on EOF or after `timeout_ms`.
  std::string ReadLine(int timeout_ms = 30000) {
    for (;;) {
      size_t nl = buf_.find('\n');
      if (nl != std::string::npos) {
        std::string line = buf_.substr(0, nl);
        buf_.erase(0, nl + 1);
        return line;
      }
      pollfd p{from_, POLLIN, 0};
      if (::poll(&p, 1, timeout_ms) <= 0) return "";
      char tmp[65536];
      ssize_t n = ::read(from_, tmp, sizeof tmp);
      if (n <= 0) return "";
      buf_.append(tmp, static_cast<size_t>(n));
    }
  }

 private:
  pid_t pid_ = -1;
  int to_ = -1;
  int from_ = -1;
  std::string buf_;
};

// A keep-alive HTTP/1.1 connection to 127.0.0.1 for POST /mcp; our server
// always answers a POST with Content-Length.
class HttpClient {
 public:
  explicit HttpClient(int port) : port_(port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port));
    int yes = 1;
    ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof yes);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~HttpClient() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool ok() const { return fd_ >= 0; }
  const std::string& session() const { return session_; }

  // Returns the HTTP status (0 on a broken connection) and fills *body.
  int Post(const std::string& json, std::string* body) {
    std::string req =
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(port_) +
        "\r\nContent-Type: application/json\r\n"
        "Accept: application/json, text/event-stream\r\n";
    if (!session_.empty()) req += "Mcp-Session-Id: " + session_ + "\r\n";
    req += "Content-Length: " + std::to_string(json.size()) + "\r\n\r\n";
    req += json;
    const char* p = req.data();
    size_t left = req.size();
    while (left > 0) {
      ssize_t n = ::send(fd_, p, left, MSG_NOSIGNAL);
      if (n <= 0) return 0;
      p += n;
      left -= static_cast<size_t>(n);
    }
    size_t end;
    while ((end = buf_.find("\r\n\r\n")) == std::string::npos) {
      if (!Fill()) return 0;
    }
    std::string head = buf_.substr(0, end);
    buf_.erase(0, end + 4);
    int status = std::atoi(head.c_str() + 9);
    size_t length = 0;
    for (const char* name : {"Content-Length: ", "content-length: "}) {
      size_t at = head.find(name);
      if (at != std::string::npos) length = std::stoul(head.substr(at + 16));
    }
    size_t sid = head.find("Mcp-Session-Id: ");
    if (sid != std::string::npos) {
      session_ = head.substr(sid + 16, head.find("\r\n", sid) - sid - 16);
    }
    while (buf_.size() < length) {
      if (!Fill()) return 0;
    }
    body->assign(buf_, 0, length);
    buf_.erase(0, length);
    return status;
  }

  bool Initialize() {
    std::string body;
    if (Post(InitializeMessage(), &body) != 200 || session_.empty()) {
      return false;
    }
    return Post(R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
                &body) == 202;
  }

 private:
  bool Fill() {
    char tmp[65536];
    ssize_t n = ::recv(fd_, tmp, sizeof tmp, 0);
    if (n <= 0) return false;
    buf_.append(tmp, static_cast<size_t>(n));
    return true;
  }

  int port_;
  int fd_ = -1;
  std::string session_;
  std::string buf_;
};

// `ctxkit serve --port 0` on a fresh store; port() once it printed its URL.
class HttpServerProcess {
 public:
  explicit HttpServerProcess(const TempDir& dir)
      : child_({Binary(), "--home", dir.Sub("store"), "serve", "--port", "0"}) {
    std::string url = child_.ReadLine();
    size_t colon = url.rfind(':');
    if (colon != std::string::npos) port_ = std::atoi(url.c_str() + colon + 1);
  }
  int port() const { return port_; }

 private:
  Child child_;
  int port_ = 0;
};

// The anchor: the same tools/call handed to the protocol core in process.
void BM_McpGet1KiB_InProcessAnchor(benchmark::State& state) {
  TempDir dir;
  ctxkit::Options o;
  o.home = dir.Sub("store");
  auto store = ctxkit::Store::Open(o);
  if (!store.ok()) return state.SkipWithError("store");
  auto server = ctxkit::mcp::Server::Create(store->get(), (*store)->home(), {});
  if (!server.ok()) return state.SkipWithError("server");
  auto conn = (*server)->Connect({"bench", "bench"}, [](std::string) {});
  if (!conn.ok()) return state.SkipWithError("connect");
  (*conn)->Handle(InitializeMessage());
  (*conn)->Handle(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  (*conn)->Handle(SetMessage());
  LatencySamples lat(kRoundTrips);
  int id = 10;
  for (auto _ : state) {
    auto start = Clock::now();
    std::optional<std::string> reply = (*conn)->Handle(GetMessage(++id));
    lat.Add(static_cast<double>(NanosSince(start)));
    if (!reply || !GoodGet(*reply)) return state.SkipWithError("bad reply");
  }
  lat.Report(state);
}

void BM_McpGet1KiB_Stdio(benchmark::State& state) {
  TempDir dir;
  Child child({Binary(), "--home", dir.Sub("store"), "mcp"});
  if (!child.ok()) return state.SkipWithError("cannot start ctxkit mcp");
  child.WriteLine(InitializeMessage());
  if (child.ReadLine().empty()) return state.SkipWithError("no initialize");
  child.WriteLine(R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  child.WriteLine(SetMessage());
  if (child.ReadLine().empty()) return state.SkipWithError("no set reply");
  LatencySamples lat(kRoundTrips);
  int id = 10;
  for (auto _ : state) {
    auto start = Clock::now();
    child.WriteLine(GetMessage(++id));
    std::string reply = child.ReadLine();
    lat.Add(static_cast<double>(NanosSince(start)));
    if (!GoodGet(reply)) return state.SkipWithError("bad reply");
  }
  lat.Report(state);
}

void BM_McpGet1KiB_Http(benchmark::State& state) {
  TempDir dir;
  HttpServerProcess server(dir);
  if (server.port() == 0) return state.SkipWithError("cannot start serve");
  HttpClient client(server.port());
  if (!client.ok() || !client.Initialize()) {
    return state.SkipWithError("cannot initialize");
  }
  std::string body;
  if (client.Post(SetMessage(), &body) != 200) {
    return state.SkipWithError("set failed");
  }
  LatencySamples lat(kRoundTrips);
  int id = 10;
  for (auto _ : state) {
    auto start = Clock::now();
    int status = client.Post(GetMessage(++id), &body);
    lat.Add(static_cast<double>(NanosSince(start)));
    if (status != 200 || !GoodGet(body)) {
      return state.SkipWithError("bad reply");
    }
  }
  lat.Report(state);
}

// 8 clients, each its own session and keep-alive connection, as fast as
// they can. Counters: requests/s over the whole run, errors (non-200, bad
// body or broken connection), and the latency each request saw under load.
void BM_McpGet1KiB_Http8Clients(benchmark::State& state) {
  TempDir dir;
  HttpServerProcess server(dir);
  if (server.port() == 0) return state.SkipWithError("cannot start serve");
  {
    HttpClient setup(server.port());
    std::string body;
    if (!setup.Initialize() || setup.Post(SetMessage(), &body) != 200) {
      return state.SkipWithError("setup failed");
    }
  }
  for (auto _ : state) {
    std::atomic<int64_t> errors{0};
    std::vector<std::vector<double>> per_client(kClients);
    std::vector<std::unique_ptr<HttpClient>> clients;
    for (int c = 0; c < kClients; ++c) {
      clients.push_back(std::make_unique<HttpClient>(server.port()));
      if (!clients.back()->Initialize()) {
        return state.SkipWithError("client initialize failed");
      }
    }
    auto start = Clock::now();
    std::vector<std::thread> threads;
    for (int c = 0; c < kClients; ++c) {
      threads.emplace_back([&, c] {
        std::string body;
        per_client[c].reserve(kRequestsPerClient);
        for (int i = 0; i < kRequestsPerClient; ++i) {
          auto t0 = Clock::now();
          int status = clients[c]->Post(GetMessage(100 + i), &body);
          per_client[c].push_back(static_cast<double>(NanosSince(t0)));
          if (status != 200 || !GoodGet(body)) ++errors;
        }
      });
    }
    for (auto& t : threads) t.join();
    double seconds = static_cast<double>(NanosSince(start)) / 1e9;
    LatencySamples lat(kClients * kRequestsPerClient);
    for (const auto& v : per_client) {
      for (double ns : v) lat.Add(ns);
    }
    lat.Report(state);
    state.counters["clients"] = kClients;
    state.counters["requests"] =
        static_cast<double>(kClients) * kRequestsPerClient;
    state.counters["req_per_s"] =
        static_cast<double>(kClients) * kRequestsPerClient / seconds;
    state.counters["errors"] = static_cast<double>(errors.load());
  }
}

// Serializing the reply to a 1 KiB get: nlohmann's dump (what the server
// used) against text::DumpJson (what it uses), on the same document.
Json GetReply() {
  std::string value;
  for (int i = 0; value.size() < 1024; ++i) {
    value += "line " + std::to_string(i) + ": the token refresh path\n";
  }
  value.resize(1024);
  return {{"jsonrpc", "2.0"},
          {"id", 7},
          {"result",
           {{"content", Json::array({{{"type", "text"}, {"text", value}}})},
            {"isError", false}}}};
}

void BM_SerializeGetReply_Nlohmann(benchmark::State& state) {
  const Json reply = GetReply();
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        reply.dump(-1, ' ', false, Json::error_handler_t::replace));
  }
}

void BM_SerializeGetReply_DumpJson(benchmark::State& state) {
  const Json reply = GetReply();
  for (auto _ : state) {
    benchmark::DoNotOptimize(ctxkit::text::DumpJson(reply));
  }
}

BENCHMARK(BM_SerializeGetReply_Nlohmann);
BENCHMARK(BM_SerializeGetReply_DumpJson);

BENCHMARK(BM_McpGet1KiB_InProcessAnchor)
    ->Iterations(kRoundTrips)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_McpGet1KiB_Stdio)
    ->Iterations(kRoundTrips)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_McpGet1KiB_Http)
    ->Iterations(kRoundTrips)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_McpGet1KiB_Http8Clients)
    ->Iterations(1)
    ->UseRealTime()
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ctxkit_bench

BENCHMARK_MAIN();
