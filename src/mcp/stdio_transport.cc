#include "mcp/stdio_transport.h"

#include <stdio.h>
#include <stdlib.h>

#include <memory>
#include <string>
#include <string_view>

#include "core/mutex.h"
#include "mcp/json_rpc.h"

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

enum class LineRead { kLine, kTooLong, kEnd };

// Reads one line (without its newline) into *line, keeping at most `max`
// bytes: the rest of a longer line is read and dropped (kTooLong).
LineRead ReadLine(std::FILE* in, size_t max, std::string* line) {
  line->clear();
  bool too_long = false;
  bool any = false;
  ::flockfile(in);
  for (;;) {
    const int c = ::getc_unlocked(in);
    if (c == EOF) break;
    any = true;
    if (c == '\n') break;
    if (line->size() < max) {
      line->push_back(static_cast<char>(c));
    } else {
      too_long = true;
    }
  }
  ::funlockfile(in);
  if (too_long) return LineRead::kTooLong;
  return any ? LineRead::kLine : LineRead::kEnd;
}

}  // namespace

Status ServeStdio(Server& server, const ClientBinding& binding, std::FILE* in,
                  std::FILE* out, size_t max_line_bytes) {
  auto writer = std::make_shared<LineWriter>(out);
  Result<std::unique_ptr<Connection>> conn = server.Connect(
      binding, [writer](std::string message) { writer->Write(message); });
  if (!conn.ok()) return conn.status();
  std::string buf;
  Status result;
  for (;;) {
    const LineRead got = ReadLine(in, max_line_bytes, &buf);
    if (got == LineRead::kEnd) break;  // EOF (or a read error: gone).
    std::optional<std::string> reply;
    if (got == LineRead::kTooLong) {
      reply = ErrorMessage(
          nullptr, {kInvalidRequest, "message longer than " +
                                         std::to_string(max_line_bytes) +
                                         " bytes; skipped"});
    } else {
      std::string_view line(buf);
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
      reply = (*conn)->Handle(line);
    }
    if (!reply) continue;
    if (!writer->Write(*reply)) {
      result = Status::IoError("cannot write to the client (stdout closed)");
      break;
    }
  }
  conn->reset();  // No notification is sent after this.
  return result;
}

}  // namespace ctxkit::mcp
