// Configuration from the process environment, read in one place (the
// face layer: `make` refuses a getenv anywhere else in src/ but main.cc).
// Only the faces (the CLI, the MCP server, Python, Node) call these;
// every library layer below takes explicit options (docs/storage-format.md,
// "Where files go"). The store root and URL are ResolveHome and
// ResolveStoreUrl (ctxkit/environment.h).

#ifndef CTXKIT_FACE_ENVIRONMENT_H_
#define CTXKIT_FACE_ENVIRONMENT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "ctxkit/index.h"
#include "ctxkit/status.h"
#include "ctxkit/summary.h"

namespace ctxkit::env {

// $name, or "" when unset.
std::string Get(const char* name);

// $CTXKIT_LLM_BASE_URL, $CTXKIT_LLM_MODEL, $CTXKIT_LLM_API_KEY and
// (optional, milliseconds) $CTXKIT_LLM_TIMEOUT_MS.
LlmEndpoint LlmEndpointFromEnv();

// $CTXKIT_PROGRESS_INTERVAL_MS: the least time between two progress
// reports of a long call (ProgressOptions::interval_ms), 0 to 60000; the
// library's default when unset or anything else.
uint32_t ProgressIntervalFromEnv();

// $CTXKIT_EMBED_URL, $CTXKIT_EMBED_MODEL and $CTXKIT_EMBED_API_KEY;
// base_url is empty unless both URL and model are set.
EmbeddingsConfig EmbeddingsFromEnv();

// The notes root (NotebookOptions::root): `flag`, else $SFA_CONTEXT_STORE,
// else (ResolveNotesRoot) $SFA_CONFIG's contextStore.path; then, when
// `explicit_home` is non-empty (--home or $CTXKIT_HOME), <home>/notes-root;
// otherwise the spec's defaults (the shared config file under
// $XDG_CONFIG_HOME or ~/.config, then ~/.local/share/single-file-agents/
// context).
Result<std::string> NotesRoot(std::string_view flag,
                              std::string_view explicit_home);

// The tool-output directory (CaptureOptions::root): `flag`, else
// $CTXKIT_TOOL_CONTEXT_DIR, else <home>/tool-outputs when `explicit_home`
// is non-empty, else $HOME/.agent/context.
Result<std::string> ToolOutputDir(std::string_view flag,
                                  std::string_view explicit_home);

}  // namespace ctxkit::env

#endif  // CTXKIT_FACE_ENVIRONMENT_H_
