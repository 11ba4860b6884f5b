// ToolOutputCapture: saving tool outputs in memory or as JSON files, loading
// them back by pointer, listing, clearing and selecting them.

#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "capture/context_file.h"
#include "capture/selection.h"
#include "core/clock.h"
#include "core/encoding.h"
#include "core/mutex.h"
#include "core/sha256.h"
#include "core/status_macros.h"
#include "ctxkit/capture.h"
#include "ctxkit/toolcall.h"
#include "llm/chat_client.h"
#include "os/file_util.h"
#include "os/filename.h"
#include "os/posix_io.h"
#include "text/json_parse.h"
#include "text/json_write.h"

namespace ctxkit {

using storage::FileLock;
using storage::UniqueFd;

namespace {

constexpr uint64_t kMaxFileBytes = 1ull << 30;
constexpr char kCallPrefix[] = "ctx-";
constexpr char kRecordPrefix[] = "capture:";

Status ValidateId(std::string_view what, std::string_view s) {
  if (s.size() > 128) {
    return Status::InvalidArgument(std::string(what) + " is at most 128 bytes");
  }
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7f) {
      return Status::InvalidArgument(std::string(what) +
                                     " may not contain control characters");
    }
  }
  if (!core::IsValidUtf8(s)) {
    return Status::InvalidArgument(std::string(what) + " must be UTF-8");
  }
  return Status::Ok();
}

Result<std::string> ReadRegularFile(const std::string& path) {
  UniqueFd fd(
      ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT) return Status::NotFound("no context file " + path);
    return storage::ErrnoStatus("open", path);
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return storage::ErrnoStatus("stat", path);
  if (!S_ISREG(st.st_mode)) {
    return Status::InvalidArgument(path + " is not a regular file");
  }
  if (static_cast<uint64_t>(st.st_size) > kMaxFileBytes) {
    return Status::ResourceExhausted(path + " is larger than 1 GiB");
  }
  return storage::ReadFileRange(path, 0, static_cast<uint64_t>(st.st_size));
}

// The record kept in the store for each output: the file's fields but the
// result, and where the result is.
struct Record {
  ContextPointer pointer;
  LoadedContext fields;  // result_json empty.
  bool result_is_string = false;
};

std::string RecordJson(const Record& r) {
  nlohmann::ordered_json j;
  j["toolName"] = r.fields.tool_name;
  j["args"] = ctxkit::text::ParseJsonOrDiscarded(r.fields.args_json);
  j["timestamp"] = r.fields.timestamp;
  j["queryId"] = r.fields.query_id.empty()
                     ? nlohmann::ordered_json(nullptr)
                     : nlohmann::ordered_json(r.fields.query_id);
  j["sessionId"] = r.fields.session_id;
  if (!r.fields.task_id.empty()) j["taskId"] = r.fields.task_id;
  j["pointer"] = r.pointer.filepath;
  j["sizeBytes"] = r.pointer.size_bytes;
  j["inMemory"] = r.pointer.in_memory;
  j["resultIsString"] = r.result_is_string;
  return text::DumpJson(j);
}

std::optional<Record> ParseRecord(const std::string& text) {
  nlohmann::json j = ctxkit::text::ParseJsonOrDiscarded(text);
  if (!j.is_object() || !j.contains("pointer") || !j["pointer"].is_string()) {
    return std::nullopt;
  }
  Record r;
  r.fields.tool_name = j.value("toolName", "");
  r.fields.args_json = j.contains("args") ? j["args"].dump() : "{}";
  r.fields.timestamp = j.value("timestamp", "");
  if (j.contains("queryId") && j["queryId"].is_string()) {
    r.fields.query_id = j["queryId"].get<std::string>();
  }
  r.fields.session_id = j.value("sessionId", "");
  r.fields.task_id = j.value("taskId", "");
  r.pointer.filepath = j["pointer"].get<std::string>();
  r.pointer.tool_name = r.fields.tool_name;
  r.pointer.timestamp =
      core::ParseIso8601Millis(r.fields.timestamp).value_or(0);
  r.pointer.size_bytes = j.value("sizeBytes", uint64_t{0});
  r.pointer.query_id = r.fields.query_id;
  r.pointer.in_memory = j.value("inMemory", false);
  r.result_is_string = j.value("resultIsString", false);
  return r;
}

}  // namespace

std::string HashQuery(std::string_view query) {
  const char* ws = " \t\n\r\f\v";
  size_t b = query.find_first_not_of(ws);
  size_t e = query.find_last_not_of(ws);
  std::string norm = b == std::string_view::npos
                         ? ""
                         : std::string(query.substr(b, e - b + 1));
  for (char& c : norm) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return "query-" + core::ToHex(core::Sha256(norm)).substr(0, 12);
}

class ToolOutputCaptureImpl {
 public:
  View* view = nullptr;
  std::string session;
  std::string root;
  std::string lock_path;
  CaptureOptions options;
  core::Mutex mu;  // Serializes saves and clears; guards `memory`.
  // call id -> output held in memory for the session.
  std::map<std::string, std::pair<Record, std::string>> memory GUARDED_BY(mu);

  Result<FileLock> Lock(bool exclusive) {
    return FileLock::Acquire(
        lock_path,
        exclusive ? storage::LockMode::kExclusive : storage::LockMode::kShared,
        storage::LockWait::kBlock);
  }

  // The files of `sid` in the root (their sessionId field must match).
  Result<std::vector<std::pair<std::string, LoadedContext>>> SessionFiles(
      std::string_view sid, uint64_t* unreadable) {
    std::vector<std::pair<std::string, LoadedContext>> out;
    std::string prefix = capture::SessionFilePrefix(sid);
    DIR* d = ::opendir(root.c_str());
    if (d == nullptr) return storage::ErrnoStatus("list", root);
    std::vector<std::string> names;
    while (struct dirent* e = ::readdir(d)) {
      std::string_view name = e->d_name;
      if (name.starts_with(prefix) && name.ends_with(".json")) {
        names.emplace_back(name);
      }
    }
    ::closedir(d);
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) {
      std::string path = root + "/" + name;
      Result<std::string> bytes = ReadRegularFile(path);
      if (!bytes.ok()) {
        if (bytes.status().IsNotFound()) continue;  // Cleared meanwhile.
        if (unreadable != nullptr) ++*unreadable;
        continue;
      }
      Result<LoadedContext> c = capture::ParseContextFile(*bytes);
      if (!c.ok()) {
        if (unreadable != nullptr) ++*unreadable;
        continue;
      }
      if (c->session_id != sid) continue;  // A session sharing the prefix.
      out.emplace_back(path, std::move(*c));
    }
    return out;
  }

  // Records of this session's outputs kept in the store.
  Result<std::vector<std::pair<std::string, Record>>> StoreRecords() {
    std::vector<std::pair<std::string, Record>> out;
    ListFilter f;
    f.scope = "session";
    f.key_prefix = kRecordPrefix;
    f.limit = 1000;
    while (true) {
      CTXKIT_ASSIGN_OR_RETURN(ListPage page, view->List(f));
      for (const ObjectMeta& m : page.items) {
        Result<std::string> text = view->Get(m.key, {"session", 0});
        if (!text.ok()) continue;
        std::optional<Record> r = ParseRecord(*text);
        if (r.has_value()) out.emplace_back(m.key, std::move(*r));
      }
      if (page.next_cursor.empty()) break;
      f.cursor = page.next_cursor;
    }
    return out;
  }
};

ToolOutputCapture::ToolOutputCapture(
    std::unique_ptr<ToolOutputCaptureImpl> impl)
    : impl_(std::move(impl)) {}
ToolOutputCapture::~ToolOutputCapture() = default;

const std::string& ToolOutputCapture::session_id() const {
  return impl_->session;
}
const std::string& ToolOutputCapture::root() const { return impl_->root; }

namespace {

Status ReadOnlyRefusal() {
  return Status::FailedPrecondition(
      "this tool-output capture was opened read-only "
      "(CaptureOptions::read_only)");
}

}  // namespace

Result<std::unique_ptr<ToolOutputCapture>> ToolOutputCapture::Open(
    View& view, const CaptureOptions& options) {
  if (view.session_id().empty()) {
    return Status::InvalidArgument(
        "tool-output capture needs a session (--session or CTXKIT_SESSION)");
  }
  if (options.memory_threshold_bytes > (1ull << 30)) {
    return Status::InvalidArgument("memory threshold is at most 1 GiB");
  }
  auto impl = std::make_unique<ToolOutputCaptureImpl>();
  impl->view = &view;
  impl->session = view.session_id();
  impl->options = options;
  const std::string& root = options.root;
  if (root.empty()) {
    return Status::InvalidArgument(
        "no context directory: CaptureOptions::root is empty");
  }
  if (!options.read_only) CTXKIT_RETURN_IF_ERROR(storage::MakeDirs(root));
  char resolved[PATH_MAX];
  if (::realpath(root.c_str(), resolved) == nullptr) {
    return storage::ErrnoStatus("resolve", root);
  }
  impl->root = resolved;
  impl->lock_path = storage::ToolOutputLockPath(impl->root);
  // Temp files of writers that died (AtomicWriteFile's) are cleared.
  if (!options.read_only) storage::RemoveStaleTempFiles(impl->root);
  return std::unique_ptr<ToolOutputCapture>(
      new ToolOutputCapture(std::move(impl)));
}

Result<std::string> ToolOutputCapture::SaveContext(std::string_view tool_name,
                                                   std::string_view args_json,
                                                   std::string_view result_json,
                                                   std::string_view task_id,
                                                   std::string_view query_id) {
  if (impl_->options.read_only) return ReadOnlyRefusal();
  nlohmann::json args = nlohmann::json::object();
  if (!args_json.empty()) {
    CTXKIT_ASSIGN_OR_RETURN(args, text::ParseJson(args_json, "args"));
  }
  if (!args.is_object()) {
    return Status::InvalidArgument("args must be a JSON object");
  }
  CTXKIT_ASSIGN_OR_RETURN(nlohmann::json result,
                          text::ParseJson(result_json, "the result"));
  CTXKIT_RETURN_IF_ERROR(ValidateId("task id", task_id));
  CTXKIT_RETURN_IF_ERROR(ValidateId("query id", query_id));
  std::string args_text = args.dump();
  std::string result_text = result.dump();
  std::string hash = core::ToHex(core::Sha256(std::string(tool_name) + '\0' +
                                              args_text + '\0' + result_text))
                         .substr(0, 12);
  ToolCall call;
  call.call_id = kCallPrefix + hash;
  call.tool = std::string(tool_name);
  call.arguments_json = args_text;
  call.status = "ok";
  call.output = result.is_string() ? result.get<std::string>() : result_text;
  CTXKIT_RETURN_IF_ERROR(ValidateToolCall(call));

  Record rec;
  rec.fields.tool_name = call.tool;
  rec.fields.args_json = args_text;
  rec.fields.timestamp = capture::NowIsoMillis();
  rec.fields.query_id = std::string(query_id);
  rec.fields.session_id = impl_->session;
  rec.fields.task_id = std::string(task_id);
  rec.pointer.tool_name = call.tool;
  rec.pointer.timestamp =
      core::ParseIso8601Millis(rec.fields.timestamp).value_or(0);
  rec.pointer.query_id = rec.fields.query_id;
  rec.result_is_string = result.is_string();

  core::MutexLock guard(&impl_->mu);
  bool in_memory = result_text.size() < impl_->options.memory_threshold_bytes;
  std::string file;
  bool created = false;
  if (!in_memory) {
    std::string name =
        capture::ContextFileName(impl_->session, tool_name, hash);
    file = impl_->root + "/" + name;
    std::string bytes = capture::RenderContextFile(rec.fields, args, result);
    CTXKIT_ASSIGN_OR_RETURN(FileLock lock, impl_->Lock(false));
    created = !storage::PathExists(file);
    CTXKIT_RETURN_IF_ERROR(
        storage::AtomicWriteFile(impl_->root, file, bytes, true));
    rec.pointer.filepath = file;
    rec.pointer.size_bytes = bytes.size();
  }
  call.producer = "tool:" + call.tool;
  Result<Ref> ref = RecordToolCall(*impl_->view, call, "session");
  if (ref.ok() && in_memory) {
    rec.pointer.filepath = FormatRef(*ref);
    rec.pointer.size_bytes = result_text.size();
    rec.pointer.in_memory = true;
  }
  Status s = ref.status();
  if (s.ok()) {
    SetOptions o;
    o.scope = "session";
    o.type = ValueType::kJson;
    o.tags = {"kind:capture"};
    o.producer = call.producer;
    s = impl_->view->Set(kRecordPrefix + call.call_id, RecordJson(rec), o)
            .status();
  }
  if (!s.ok()) {
    if (created) ::unlink(file.c_str());  // Nobody has the pointer yet.
    return s;
  }
  if (in_memory) impl_->memory[call.call_id] = {rec, result_text};
  return rec.pointer.filepath;
}

Result<LoadedContext> ToolOutputCapture::LoadContext(std::string_view pointer) {
  if (Target::IsRefText(pointer)) {
    CTXKIT_ASSIGN_OR_RETURN(Target target, Target::Parse(pointer));
    const Ref& ref = *target.ref();
    std::string_view key = ref.key;
    std::string prefix = std::string("toolcall:") + kCallPrefix;
    if (!key.starts_with(prefix) || key.find('#') != std::string_view::npos) {
      return Status::InvalidArgument("'" + std::string(pointer) +
                                     "' is not a captured tool output");
    }
    std::string call_id(key.substr(std::string_view("toolcall:").size()));
    {
      core::MutexLock guard(&impl_->mu);
      auto it = impl_->memory.find(call_id);
      if (it != impl_->memory.end()) {
        LoadedContext c = it->second.first.fields;
        c.result_json = it->second.second;
        return c;
      }
    }
    // Saved by another process of this session: the store has it.
    CTXKIT_ASSIGN_OR_RETURN(std::string output, impl_->view->Resolve(ref));
    Result<std::string> text = impl_->view->Get(kRecordPrefix + call_id);
    if (!text.ok()) {
      if (text.status().IsNotFound()) {
        return Status::NotFound("output " + call_id +
                                " was cleared or belongs to another session");
      }
      return text.status();
    }
    std::optional<Record> rec = ParseRecord(*text);
    if (!rec.has_value()) {
      return Status::Corruption("malformed capture record for " + call_id);
    }
    LoadedContext c = rec->fields;
    c.result_json =
        rec->result_is_string ? text::DumpJson(nlohmann::json(output)) : output;
    return c;
  }
  // A file pointer: an absolute path directly inside the root.
  std::string path(pointer);
  std::string name = path.substr(path.rfind('/') + 1);
  if (!path.starts_with(impl_->root + "/") ||
      path.size() != impl_->root.size() + 1 + name.size() ||
      !name.starts_with("session-") || !name.ends_with(".json")) {
    return Status::InvalidArgument("'" + path + "' is not a context file in " +
                                   impl_->root);
  }
  CTXKIT_ASSIGN_OR_RETURN(std::string bytes, ReadRegularFile(path));
  CTXKIT_ASSIGN_OR_RETURN(LoadedContext c, capture::ParseContextFile(bytes));
  // Files of every session share one directory; a session reads its own.
  if (c.session_id != impl_->session) {
    return Status::PermissionDenied("'" + path +
                                    "' was saved by another session");
  }
  return c;
}

Result<std::vector<ContextPointer>> ToolOutputCapture::ListContexts(
    std::string_view session_id) {
  if (session_id.empty()) return Status::InvalidArgument("empty session id");
  std::vector<ContextPointer> out;
  std::set<std::string> seen;
  CTXKIT_ASSIGN_OR_RETURN(auto files, impl_->SessionFiles(session_id, nullptr));
  for (const auto& [path, c] : files) {
    ContextPointer p;
    p.filepath = path;
    p.tool_name = c.tool_name;
    p.timestamp = core::ParseIso8601Millis(c.timestamp).value_or(0);
    struct stat st;
    p.size_bytes = ::stat(path.c_str(), &st) == 0 ? st.st_size : 0;
    p.query_id = c.query_id;
    seen.insert(p.filepath);
    out.push_back(std::move(p));
  }
  if (session_id == impl_->session) {
    core::MutexLock guard(&impl_->mu);
    for (const auto& [id, entry] : impl_->memory) {
      if (seen.insert(entry.first.pointer.filepath).second) {
        out.push_back(entry.first.pointer);
      }
    }
    CTXKIT_ASSIGN_OR_RETURN(auto records, impl_->StoreRecords());
    for (const auto& [key, rec] : records) {
      if (rec.pointer.in_memory && seen.insert(rec.pointer.filepath).second) {
        out.push_back(rec.pointer);
      }
    }
  }
  // Saved order: timestamps are milliseconds, strictly increasing within a
  // process; the path breaks ties between processes deterministically.
  std::sort(out.begin(), out.end(),
            [](const ContextPointer& a, const ContextPointer& b) {
              return a.timestamp != b.timestamp ? a.timestamp < b.timestamp
                                                : a.filepath < b.filepath;
            });
  return out;
}

Result<uint64_t> ToolOutputCapture::ClearContexts() {
  if (impl_->options.read_only) return ReadOnlyRefusal();
  core::MutexLock guard(&impl_->mu);
  CTXKIT_ASSIGN_OR_RETURN(FileLock lock, impl_->Lock(true));
  CTXKIT_ASSIGN_OR_RETURN(auto files,
                          impl_->SessionFiles(impl_->session, nullptr));
  uint64_t removed = 0;
  for (const auto& [path, c] : files) {
    if (::unlink(path.c_str()) == 0) {
      ++removed;
    } else if (errno != ENOENT) {
      return storage::ErrnoStatus("remove", path);
    }
  }
  CTXKIT_ASSIGN_OR_RETURN(auto records, impl_->StoreRecords());
  for (const auto& [key, rec] : records) {
    Status s = impl_->view->Remove(key, {"session", 0});
    if (!s.ok() && !s.IsNotFound()) return s;
  }
  impl_->memory.clear();
  return removed;
}

Result<Selection> ToolOutputCapture::Select(
    std::string_view question, const std::vector<ContextPointer>& pointers,
    const SelectOptions& options) {
  if (options.max_selected < 1) {
    return Status::InvalidArgument("max_selected must be at least 1");
  }
  Selection sel;
  std::vector<ContextPointer> usable;
  std::vector<LoadedContext> contents;
  for (const ContextPointer& p : pointers) {
    Result<LoadedContext> c = LoadContext(p.filepath);
    if (!c.ok()) {
      sel.notes.push_back(p.filepath + ": " + c.status().ToString());
      continue;
    }
    usable.push_back(p);
    contents.push_back(std::move(*c));
  }
  sel.prompt_list = capture::NumberedList(usable, contents);
  std::vector<size_t> chosen;
  bool decided = false;
  llm::ChatConfig chat;
  chat.base_url = options.llm.base_url;
  chat.model = options.llm.model;
  chat.api_key = options.llm.api_key;
  if (options.use_llm && !chat.base_url.empty() && !chat.model.empty() &&
      !usable.empty()) {
    llm::ChatRequest req;
    req.messages.push_back(
        {"system",
         "You choose which saved tool outputs are needed to answer a "
         "question. Reply with only a JSON array of the numbers of the "
         "relevant outputs, most relevant first, for example [1, 2]. Reply "
         "[] when none is relevant."});
    req.messages.push_back({"user", "Question: " + std::string(question) +
                                        "\n\nAvailable contexts:\n" +
                                        sel.prompt_list});
    req.max_tokens = 64;
    Result<llm::ChatResponse> reply = llm::ChatComplete(chat, req);
    if (reply.ok()) {
      Result<std::vector<size_t>> parsed = capture::ParseSelectionReply(
          reply->content, usable.size(), options.max_selected);
      if (parsed.ok()) {
        chosen = std::move(*parsed);
        sel.method = "llm";
        decided = true;
      } else {
        sel.notes.push_back("LLM reply not understood (" +
                            parsed.status().message() + "); used BM25");
      }
    } else {
      sel.notes.push_back("LLM unavailable (" + reply.status().ToString() +
                          "); used BM25");
    }
  }
  if (!decided) {
    CTXKIT_ASSIGN_OR_RETURN(
        chosen, capture::RankBm25(question, contents, options.max_selected));
    sel.method = "bm25";
  }
  if (chosen.empty() && !usable.empty()) {
    // As the seed's reference implementation does: nothing chosen (an
    // empty question, no match, an LLM reply of []) means every output,
    // the most recent ones when there are more than max_selected.
    const size_t n = std::min<size_t>(usable.size(), options.max_selected);
    for (size_t i = usable.size() - n; i < usable.size(); ++i) {
      chosen.push_back(i);
    }
    sel.method = "all";
    sel.notes.push_back(
        "no output was selected for the question; returned "
        "the " +
        std::to_string(n) + " most recent");
  }
  for (size_t i : chosen) {
    sel.selected.push_back(usable[i]);
    sel.loaded.push_back(std::move(contents[i]));
  }
  return sel;
}

}  // namespace ctxkit
