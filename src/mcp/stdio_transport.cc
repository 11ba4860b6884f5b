#include "mcp/stdio_transport.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
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

// Reads newline-terminated lines from a descriptor with a bounded buffer:
// read(2) returns what the client has sent (a FILE's fread would wait to
// fill its buffer), memchr finds the newline.
class LineReader {
 public:
  LineReader(std::FILE* in, size_t max)
      : in_(in), fd_(::fileno(in)), max_(max) {}

  // The next line, without its newline, in *line; at most `max` bytes:
  // the rest of a longer line is read and dropped (kTooLong).
  LineRead Next(std::string* line) {
    bool too_long = false;
    size_t scanned = 0;
    for (;;) {
      const size_t nl = buf_.find('\n', scanned);
      if (nl != std::string::npos) {
        if (too_long || nl > max_) {
          buf_.erase(0, nl + 1);
          return LineRead::kTooLong;
        }
        line->assign(buf_, 0, nl);
        buf_.erase(0, nl + 1);
        return LineRead::kLine;
      }
      if (buf_.size() > max_) {  // Past the limit: drop what is read.
        too_long = true;
        buf_.clear();
      }
      scanned = buf_.size();
      if (!Fill()) break;
    }
    if (too_long) return LineRead::kTooLong;
    if (buf_.empty()) return LineRead::kEnd;
    line->swap(buf_);  // A last line without a newline.
    buf_.clear();
    return LineRead::kLine;
  }

 private:
  // Appends what is available; false at end of input (or a read error:
  // the client is gone).
  bool Fill() {
    char chunk[1 << 16];
    if (fd_ < 0) {  // A stream without a descriptor (fmemopen): no waiting.
      const size_t n = std::fread(chunk, 1, sizeof chunk, in_);
      buf_.append(chunk, n);
      return n > 0;
    }
    for (;;) {
      const ssize_t n = ::read(fd_, chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      buf_.append(chunk, static_cast<size_t>(n));
      return true;
    }
  }

  std::FILE* const in_;
  const int fd_;
  const size_t max_;
  std::string buf_;
};

}  // namespace

Status ServeStdio(Server& server, const ClientBinding& binding, std::FILE* in,
                  std::FILE* out, size_t max_line_bytes) {
  auto writer = std::make_shared<LineWriter>(out);
  Result<std::unique_ptr<Connection>> conn = server.Connect(
      binding, [writer](std::string message) { writer->Write(message); });
  if (!conn.ok()) return conn.status();
  LineReader reader(in, max_line_bytes);
  std::string buf;
  Status result;
  for (;;) {
    const LineRead got = reader.Next(&buf);
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
