// Tool-output capture: an agent saves every tool output and keeps only a
// pointer; in the answer phase it selects the relevant outputs and loads
// only those.
//
//   auto cm = ctxkit::ToolOutputCapture::Open(view, {.root = dir});  // view
//   has a session auto p = cm->SaveContext("search_code",
//   R"({"query":"TODO"})",
//                            big_json_result);         // a pointer
//   auto pointers = cm->ListContexts(cm->session_id());
//   auto chosen = cm->Select("where are the TODOs?", *pointers);
//   auto loaded = cm->LoadContext((*chosen).selected[0].filepath);
//   cm->ClearContexts();                               // session end
//
// Storage. A result whose JSON text is smaller than
// CaptureOptions::memory_threshold_bytes (32 KiB) stays in this capture's
// memory for the session; a larger one is written as a JSON file
//
//   <root>/session-<sid>-<tool>-<hash>.json
//
// (root ~/.agent/context by default; <sid> without a leading "session-";
// <tool> with bytes outside [A-Za-z0-9_] replaced by '_'; <hash> the first
// 12 hex digits of SHA-256 over tool, canonical args and result, so saving
// the same output twice rewrites one file). The file holds, in this order,
// "toolName", "args", "result", "timestamp" (ISO 8601 UTC, seconds),
// "queryId" (null when absent) and "sessionId", then "taskId" when given,
// pretty-printed with two-space indentation and a final newline
// (docs/tool-capture.md has the byte-exact format).
//
// Pointers. A file pointer is the file's absolute path. An in-memory
// pointer is the ctxkit ref (ck:...) of the output's toolcall object.
//
// The store. Every saved output is also a toolcall object (toolcall.h)
// with call id "ctx-<hash>" in the view's session scope, plus a small
// record "capture:<call id>" (JSON: the file format without the result,
// plus "pointer" and "sizeBytes") that lets another process (the CLI) list
// and load in-memory outputs of the same session.
//
// Concurrency. Files are written to a hidden temp file, fsynced and
// renamed (readers see all or nothing) under a shared flock of
// <root>/.ctxkit-capture.lock; ClearContexts takes it exclusively, so it
// never races a save in progress from any process. A capture is
// thread-safe.
//
// Errors. No exceptions. InvalidArgument for a bad tool name, args that
// are not a JSON object, a result that is not JSON, a malformed pointer;
// NotFound for a pointer whose output is gone; IoError for the system.

#ifndef CTXKIT_CAPTURE_H_
#define CTXKIT_CAPTURE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/status.h"
#include "ctxkit/store.h"
#include "ctxkit/summary.h"

namespace ctxkit {

struct CaptureOptions {
  // The tool-output directory. Required (InvalidArgument when empty): the
  // library never reads the environment; the CLI and MCP server choose it
  // ($CTXKIT_TOOL_CONTEXT_DIR, else <home>/tool-outputs under an explicit
  // store home, else ~/.agent/context; docs/tool-capture.md). Created with
  // parents when missing.
  std::string root;
  // Results whose JSON text is smaller stay in memory.
  uint64_t memory_threshold_bytes = 32 << 10;
  // Only list and load: the root is not created (NotFound when missing),
  // temp files of dead writers are left alone, and SaveContext and
  // ClearContexts fail with FailedPrecondition. For viewers (the
  // inspector) that must not change anything.
  bool read_only = false;
};

// What list_contexts returns for one saved output.
struct ContextPointer {
  std::string filepath;  // The pointer: a file path, or a ck: ref.
  std::string tool_name;
  int64_t timestamp = 0;    // Milliseconds since the epoch.
  uint64_t size_bytes = 0;  // File size, or the result's JSON size.
  std::string query_id;     // "" when none.
  bool in_memory = false;
};

// A loaded output: the file's fields.
struct LoadedContext {
  std::string tool_name;
  std::string args_json;
  std::string result_json;
  std::string timestamp;  // ISO 8601.
  std::string query_id;
  std::string session_id;
  std::string task_id;
};

struct SelectOptions {
  // At most this many outputs are selected.
  size_t max_selected = 5;
  // Ask `llm` when it is configured() (the CLI and MCP server fill it from
  // CTXKIT_LLM_BASE_URL / CTXKIT_LLM_MODEL / CTXKIT_LLM_API_KEY).
  bool use_llm = true;
  LlmEndpoint llm;
};

struct Selection {
  std::vector<ContextPointer> selected;  // Most relevant first.
  std::vector<LoadedContext> loaded;     // The same order.
  std::string method;  // "llm", "bm25", or "all" when nothing was chosen.
  // The numbered list the LLM was shown (also built for BM25, for display).
  std::string prompt_list;
  std::vector<std::string> notes;  // E.g. why the LLM was not used.
};

// "query-" + the first 12 hex digits of SHA-256 of `query` with
// surrounding whitespace removed and ASCII letters lower-cased.
std::string HashQuery(std::string_view query);

class ToolOutputCaptureImpl;

class ToolOutputCapture {
 public:
  // A capture for `view`'s session (InvalidArgument when the view has
  // none). The view must outlive the capture.
  static Result<std::unique_ptr<ToolOutputCapture>> Open(
      View& view, const CaptureOptions& options);
  ~ToolOutputCapture();
  ToolOutputCapture(const ToolOutputCapture&) = delete;
  ToolOutputCapture& operator=(const ToolOutputCapture&) = delete;

  const std::string& session_id() const;
  const std::string& root() const;

  // Saves one tool output and returns its pointer. `args_json`: a JSON
  // object ("" means {}); `result_json`: any JSON value. `task_id` and
  // `query_id`: optional, at most 128 bytes, no control characters.
  Result<std::string> SaveContext(std::string_view tool_name,
                                  std::string_view args_json,
                                  std::string_view result_json,
                                  std::string_view task_id = "",
                                  std::string_view query_id = "");

  // The output a pointer names, from memory, the store or the file.
  // PermissionDenied for a file another session saved (the files of every
  // session share one directory).
  Result<LoadedContext> LoadContext(std::string_view pointer);

  // The outputs of `session_id`, oldest first: its files under the root
  // (any session) plus, for this capture's own session, the in-memory
  // ones.
  Result<std::vector<ContextPointer>> ListContexts(std::string_view session_id);

  // Removes this session's files (only files whose sessionId field is this
  // session) and forgets its in-memory outputs; the toolcall objects stay
  // in the store as history. Returns the number of files removed.
  Result<uint64_t> ClearContexts();

  // Chooses the pointers relevant to `question` (see SelectOptions) and
  // loads only those.
  Result<Selection> Select(std::string_view question,
                           const std::vector<ContextPointer>& pointers,
                           const SelectOptions& options = {});

 private:
  explicit ToolOutputCapture(std::unique_ptr<ToolOutputCaptureImpl> impl);
  std::unique_ptr<ToolOutputCaptureImpl> impl_;
};

}  // namespace ctxkit

#endif  // CTXKIT_CAPTURE_H_
