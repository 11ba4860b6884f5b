// The execution log: one short JSON line per invocation, appended to the
// store engine's log "execution" (one transaction per entry, so
// concurrent processes never interleave or tear one), and the one-time
// import of the JSONL file earlier builds appended to.

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <nlohmann/json.hpp>
#include <string>

#include "core/encoding.h"
#include "core/sha256.h"
#include "core/status_macros.h"
#include "ctxkit/notes.h"
#include "os/file_util.h"
#include "os/filename.h"
#include "os/posix_io.h"
#include "store/store_internals.h"
#include "text/json_parse.h"
#include "text/json_write.h"

namespace ctxkit {

namespace {

constexpr uint64_t kMaxLogReadBytes = 16ull << 20;
// The engine's log (storage::LogAppend::log) of the execution log.
constexpr char kLogName[] = "execution";

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

// Moves the lines of <home>/logs/execution.jsonl (an earlier build's log)
// into the engine's log, once: one write with a marker named by the
// file's digest, so a second import of the same bytes (after a crash
// before the rename, or from another process) appends nothing; then the
// file is renamed execution.jsonl.imported. Its last kMaxLogReadBytes are
// imported (what `notes log` of that build could show); an unfinished
// last line is left out. Nothing to do on a read-only store.
Status ImportExecutionLogFile(Store& store) {
  const std::string path = storage::ExecutionLogPath(store.home());
  if (store.read_only() || !storage::PathExists(path)) return Status::Ok();
  storage::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    if (errno == ENOENT) return Status::Ok();  // Imported meanwhile.
    return storage::ErrnoStatus("open", path);
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return storage::ErrnoStatus("stat", path);
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  const uint64_t from = size > kMaxLogReadBytes ? size - kMaxLogReadBytes : 0;
  CTXKIT_ASSIGN_OR_RETURN(std::string text,
                          storage::ReadFileRange(path, from, size - from));
  storage::RecordWrite write;
  size_t pos = 0;
  if (from > 0) pos = text.find('\n') + 1;  // Skip a partial first line.
  while (pos < text.size()) {
    const size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) break;  // An unfinished last line.
    if (nl > pos)
      write.appends.push_back({kLogName, text.substr(pos, nl - pos)});
    pos = nl + 1;
  }
  CTXKIT_RETURN_IF_ERROR(
      StoreInternals::WriteRecordsOnce(
          store, "execution.jsonl:" + core::ToHex(core::Sha256(text)),
          std::move(write))
          .status()
          .WithContext("import " + path));
  return storage::MarkImported(path);
}

}  // namespace

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
  return text::DumpJson(j);
}

Status AppendExecutionLog(Store& store, const ExecutionLogEntry& entry) {
  CTXKIT_RETURN_IF_ERROR(ImportExecutionLogFile(store));
  storage::RecordWrite write;
  write.appends.push_back({kLogName, ExecutionLogLine(entry)});
  return StoreInternals::WriteRecords(store, std::move(write));
}

Result<std::vector<ExecutionLogEntry>> ReadExecutionLog(Store& store,
                                                        size_t limit) {
  CTXKIT_RETURN_IF_ERROR(ImportExecutionLogFile(store));
  CTXKIT_ASSIGN_OR_RETURN(std::vector<std::string> lines,
                          StoreInternals::ReadLog(store, kLogName, limit));
  std::vector<ExecutionLogEntry> out;
  out.reserve(lines.size());
  for (const std::string& line : lines) {
    nlohmann::json j = ctxkit::text::ParseJsonOrDiscarded(line);
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
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace ctxkit
