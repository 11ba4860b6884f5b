// The execution log: JSONL, one short line per invocation. Lines are
// appended with one write(2) on an O_APPEND descriptor under an flock, so
// concurrent processes never interleave or tear a line.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <deque>
#include <nlohmann/json.hpp>
#include <string>

#include "core/status_macros.h"
#include "ctxkit/notes.h"
#include "storage/file_util.h"
#include "storage/filename.h"
#include "storage/posix_io.h"
#include "text/json_parse.h"

namespace ctxkit {

namespace {

constexpr uint64_t kMaxLogReadBytes = 16ull << 20;

// At most `max` bytes, cut at a UTF-8 boundary, "..." marking the cut;
// newlines flattened so a summary reads on one line.
std::string Cap(std::string_view s, size_t max) {
  std::string out;
  bool cut = s.size() > max;
  size_t n = cut ? max - 3 : s.size();
  while (cut && n > 0 && (static_cast<unsigned char>(s[n]) & 0xC0) == 0x80) {
    --n;
  }
  out.assign(s.substr(0, n));
  for (char& c : out) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  if (cut) out += "...";
  return out;
}

}  // namespace

std::string ExecutionLogPath(std::string_view store_home) {
  return storage::ExecutionLogPath(store_home);
}

std::string ExecutionLogLine(const ExecutionLogEntry& e) {
  nlohmann::ordered_json j;
  j["timestamp"] = e.timestamp;
  j["agent"] = e.agent;
  j["sessionId"] = e.session_id;
  j["command"] = e.command;
  j["status"] = e.status;
  j["exitCode"] = e.exit_code;
  j["durationMs"] = e.duration_ms;
  j["input"] = Cap(e.input, kLogSummaryBytes);
  j["output"] = Cap(e.output, kLogSummaryBytes);
  nlohmann::ordered_json meta = nlohmann::ordered_json::object();
  if (!e.context_files.empty()) meta["contextFiles"] = e.context_files;
  j["meta"] = meta;
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Status AppendExecutionLog(const std::string& path,
                          const ExecutionLogEntry& entry) {
  size_t slash = path.rfind('/');
  if (slash != std::string::npos && slash > 0) {
    CTXKIT_RETURN_IF_ERROR(storage::MakeDirs(path.substr(0, slash)));
  }
  std::string line = ExecutionLogLine(entry) + "\n";
  storage::UniqueFd fd(
      ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644));
  if (!fd.valid()) return storage::ErrnoStatus("open", path);
  CTXKIT_ASSIGN_OR_RETURN(storage::FileLock lock,
                          storage::FileLock::Lock(std::move(fd), path,
                                                  storage::LockMode::kExclusive,
                                                  storage::LockWait::kBlock));
  ssize_t n;
  do {
    n = ::write(lock.fd(), line.data(), line.size());
  } while (n < 0 && errno == EINTR);
  if (n != static_cast<ssize_t>(line.size())) {
    return storage::ErrnoStatus("append to", path);
  }
  return Status::Ok();
}

Result<std::vector<ExecutionLogEntry>> ReadExecutionLog(const std::string& path,
                                                        size_t limit) {
  std::vector<ExecutionLogEntry> out;
  storage::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT) return out;
    return storage::ErrnoStatus("open", path);
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return storage::ErrnoStatus("stat", path);
  uint64_t size = static_cast<uint64_t>(st.st_size);
  uint64_t from = size > kMaxLogReadBytes ? size - kMaxLogReadBytes : 0;
  CTXKIT_ASSIGN_OR_RETURN(std::string text,
                          storage::ReadFileRange(path, from, size - from));
  std::deque<ExecutionLogEntry> last;
  size_t pos = 0;
  if (from > 0) pos = text.find('\n') + 1;  // Skip a partial first line.
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) break;  // An unfinished last line.
    nlohmann::json j = ctxkit::text::ParseJsonOrDiscarded(
        std::string_view(text).substr(pos, nl - pos));
    pos = nl + 1;
    if (!j.is_object()) continue;
    ExecutionLogEntry e;
    e.timestamp = j.value("timestamp", "");
    e.agent = j.value("agent", "");
    e.session_id = j.value("sessionId", "");
    e.command = j.value("command", "");
    e.status = j.value("status", "");
    e.exit_code = j.value("exitCode", 0);
    e.duration_ms = j.value("durationMs", int64_t{0});
    e.input = j.value("input", "");
    e.output = j.value("output", "");
    if (j.contains("meta") && j["meta"].is_object() &&
        j["meta"].contains("contextFiles") &&
        j["meta"]["contextFiles"].is_array()) {
      for (const auto& f : j["meta"]["contextFiles"]) {
        if (f.is_string()) e.context_files.push_back(f.get<std::string>());
      }
    }
    last.push_back(std::move(e));
    if (last.size() > limit) last.pop_front();
  }
  out.assign(last.begin(), last.end());
  return out;
}

}  // namespace ctxkit
