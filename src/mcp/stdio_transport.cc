#include "mcp/stdio_transport.h"

#include <stdio.h>
#include <stdlib.h>

#include <memory>
#include <string>
#include <string_view>

#include "core/mutex.h"

namespace ctxkit::mcp {

namespace {

// Writes one message and its newline; false when the stream failed.
bool WriteLine(std::FILE* out, std::string_view line) {
  return std::fwrite(line.data(), 1, line.size(), out) == line.size() &&
         std::fputc('\n', out) != EOF && std::fflush(out) == 0;
}

// The client's output, shared with the Notifier, which the subscription
// watcher calls from its own thread: whole lines, and none once a write
// failed.
class LineWriter {
 public:
  explicit LineWriter(std::FILE* out) : out_(out) {}

  // False when this write or an earlier one failed.
  bool Write(std::string_view line) EXCLUDES(mu_) {
    core::MutexLock lock(&mu_);
    if (!failed_ && !WriteLine(out_, line)) failed_ = true;
    return !failed_;
  }

 private:
  std::FILE* const out_;
  core::Mutex mu_;
  bool failed_ GUARDED_BY(mu_) = false;
};

}  // namespace

Status ServeStdio(Server& server, const ClientBinding& binding, std::FILE* in,
                  std::FILE* out) {
  auto writer = std::make_shared<LineWriter>(out);
  Result<std::unique_ptr<Connection>> conn = server.Connect(
      binding, [writer](std::string message) { writer->Write(message); });
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
    if (!writer->Write(*reply)) {
      result = Status::IoError("cannot write to the client (stdout closed)");
      break;
    }
  }
  ::free(buf);
  conn->reset();  // No notification is sent after this.
  return result;
}

}  // namespace ctxkit::mcp
