// Toolcall objects: one stored object per tool execution.
//
// The context manager (session ingestion) and tool-output capture both
// record tool executions through this one API, so a toolcall object looks
// the same whoever wrote it:
//
//   key      "toolcall:<call_id>" in the scope given to RecordToolCall
//   value    the tool's output; type json when the output parses as a JSON
//            object or array, text otherwise
//   tags     "kind:toolcall", "tool:<tool>", "status:<status>" (a tag is at
//            most 64 bytes: a longer "tool:<tool>" tag is cut at a UTF-8
//            character boundary; the sidecar keeps the full name)
//   producer call.producer, or "tool:<tool>" when empty (per version)
//
// and a small JSON sidecar object "toolcall:<call_id>#meta" in the same
// scope holding the other fields:
//
//   {"call_id": "...", "tool": "...", "arguments_json": "<text>",
//    "status": "ok|error|pending", "producer": "...",
//    "output_sha256": "<hex>", "output_bytes": N, "output_version": V,
//    "output_type": "json|text"}
//
// The output is written first and the sidecar second: when the sidecar's
// output_version differs from the output object's latest version (a crash
// between the two writes, or someone else set the key), RecordToolCall
// writes the sidecar again and LoadToolCall reports Corruption.
//
//   ctxkit::ToolCall call{.call_id = "call_1", .tool = "grep",
//                         .arguments_json = R"({"q":"auth"})",
//                         .status = "ok", .output = grep_output};
//   ctxkit::Result<ctxkit::Ref> ref = ctxkit::RecordToolCall(view, call);
//
// Thread safety: as View. Two writers recording the same call_id at once
// are serialized by the store; the last one wins.

#ifndef CTXKIT_TOOLCALL_H_
#define CTXKIT_TOOLCALL_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "ctxkit/ref.h"
#include "ctxkit/status.h"
#include "ctxkit/store.h"

namespace ctxkit {

struct ToolCall {
  // Unique id from the harness (tool_call_id / tool_use id) or generated;
  // [A-Za-z0-9_.-]{1,128}.
  std::string call_id;
  // Tool name, 1-128 bytes of UTF-8, no control characters.
  std::string tool;
  // The arguments as JSON text (any JSON value); "" means {}.
  std::string arguments_json;
  // "ok", "error" or "pending".
  std::string status;
  // The tool's output; stored as the object's content. Any bytes.
  std::string output;
  // Recorded per version ("tool:<name>" when empty). At most 256 bytes, no
  // control characters.
  std::string producer;
};

// The key of a call's output object, "toolcall:<call_id>".
std::string ToolCallKey(std::string_view call_id);
// The key of a call's sidecar object, "toolcall:<call_id>#meta".
std::string ToolCallMetaKey(std::string_view call_id);

// Checks every field of `call` as RecordToolCall does (InvalidArgument
// naming the field); the output is not checked (any bytes are allowed).
Status ValidateToolCall(const ToolCall& call);

// Stores `call` as a toolcall object (see the top of this file) and returns
// the static ref of the output version the sidecar describes (the one this
// call wrote, or the current one when the output was unchanged). Re-recording
// the same call_id with identical fields adds no version to either object.
// Validates every field first (InvalidArgument); the store is then unchanged.
// Errors of the store (PermissionDenied for a foreign scope, IoError) are
// passed through.
Result<Ref> RecordToolCall(View& view, const ToolCall& call,
                           const ScopeName& scope = "");

// Reads the fields back, looking the call up in the view (session, agent,
// then global scope). The output is not loaded unless `with_output`;
// `arguments_json` is returned exactly as recorded ("" stays ""). NotFound
// when there is no such call; Corruption when the sidecar is malformed or
// does not describe the output object's latest version.
Result<ToolCall> LoadToolCall(View& view, std::string_view call_id,
                              bool with_output = false);

}  // namespace ctxkit

#endif  // CTXKIT_TOOLCALL_H_
