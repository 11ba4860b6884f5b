// The tool-output JSON file: its name and its bytes (include/ctxkit/
// capture.h, docs/tool-capture.md).

#ifndef CTXKIT_CAPTURE_CONTEXT_FILE_H_
#define CTXKIT_CAPTURE_CONTEXT_FILE_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "ctxkit/capture.h"
#include "ctxkit/status.h"

namespace ctxkit::capture {

// "abc123" and "session-abc123" both give "session-abc123-".
std::string SessionFilePrefix(std::string_view session_id);

// "session-<sid>-<tool>-<hash>.json".
std::string ContextFileName(std::string_view session_id,
                            std::string_view tool_name, std::string_view hash);

// The file's bytes: the fields in the spec's order, two-space indent,
// final newline.
std::string RenderContextFile(const LoadedContext& c,
                              const nlohmann::json& args,
                              const nlohmann::json& result);

// Parses a file's bytes. Corruption when it is not a tool-output file.
Result<LoadedContext> ParseContextFile(std::string_view bytes);

// "2024-01-15T10:30:00.123Z" for now; strictly increasing within the
// process (a call in the same millisecond as the last gets the next one).
std::string NowIsoMillis();

}  // namespace ctxkit::capture

#endif  // CTXKIT_CAPTURE_CONTEXT_FILE_H_
