// The server the MCP conformance suite runs against: ctxkit's MCP server
// over Streamable HTTP, as `ctxkit serve` runs it, plus the suite's fixtures
// (fixtures.h) through ServerOptions::extension.
//
//   ctxkit_conformance_server STORE_DIR
//
// Listens on a free loopback port, prints the endpoint URL on stdout, and
// serves until SIGINT or SIGTERM, then stops and exits 0.

#include <pthread.h>
#include <signal.h>

#include <cstdio>
#include <memory>
#include <string>

#include "ctxkit/mcp.h"
#include "ctxkit/store.h"
#include "mcp/http_server.h"
#include "mcp_conformance/fixtures.h"

namespace {

int Fail(const ctxkit::Status& status) {
  std::fprintf(stderr, "conformance server: %s\n", status.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s STORE_DIR\n", argv[0]);
    return 2;
  }
  // Only this thread takes the stop signals (threads started later inherit
  // the mask), so it can stop the server in order.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  ctxkit::Options store_options;
  store_options.home = argv[1];
  auto store = ctxkit::Store::Open(store_options);
  if (!store.ok()) return Fail(store.status());
  ctxkit::mcp::ServerOptions options;
  options.extension = std::make_shared<ctxkit::mcp::conformance::Fixtures>();
  auto server = ctxkit::mcp::Server::Create(store->get(), "", options);
  if (!server.ok()) return Fail(server.status());
  ctxkit::mcp::HttpOptions http;
  http.port = 0;
  auto http_server = ctxkit::mcp::HttpServer::Start(server->get(), http);
  if (!http_server.ok()) return Fail(http_server.status());
  std::printf("%s\n", (*http_server)->url().c_str());
  std::fflush(stdout);

  int sig = 0;
  sigwait(&stop_signals, &sig);
  (*http_server)->Stop();
  return 0;
}
