#include "mcp/stdio_transport.h"

#include <stdio.h>
#include <stdlib.h>

#include <memory>
#include <mutex>
#include <string>
#include <string_view>

namespace ctxkit::mcp {

namespace {

// Writes one message and its newline; false when the stream failed.
bool WriteLine(std::FILE* out, std::string_view line) {
  return std::fwrite(line.data(), 1, line.size(), out) == line.size() &&
         std::fputc('\n', out) != EOF && std::fflush(out) == 0;
}

}  // namespace

Status ServeStdio(Server& server, const ClientBinding& binding, std::FILE* in,
                  std::FILE* out) {
  // Shared with the Notifier, which the subscription watcher calls from
  // its own thread.
  auto mu = std::make_shared<std::mutex>();
  auto failed = std::make_shared<bool>(false);
  Result<std::unique_ptr<Connection>> conn =
      server.Connect(binding, [mu, failed, out](std::string message) {
        std::lock_guard<std::mutex> lock(*mu);
        if (!*failed && !WriteLine(out, message)) *failed = true;
      });
  if (!conn.ok()) return conn.status();
  char* buf = nullptr;
  size_t cap = 0;
  Status result;
  for (;;) {
    ssize_t n = ::getline(&buf, &cap, in);
    if (n < 0) break;  // EOF (or a read error: the client is gone).
    std::string_view line(buf, static_cast<size_t>(n));
    if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    std::optional<std::string> reply = (*conn)->Handle(line);
    if (!reply) continue;
    std::lock_guard<std::mutex> lock(*mu);
    if (*failed || !WriteLine(out, *reply)) {
      *failed = true;
      result = Status::IoError("cannot write to the client (stdout closed)");
      break;
    }
  }
  ::free(buf);
  conn->reset();  // No notification is sent after this.
  return result;
}

}  // namespace ctxkit::mcp
