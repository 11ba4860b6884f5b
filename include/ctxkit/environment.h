// What a face reads from the process environment to open a store: the
// store root and URL. The library below reads no environment variable
// (Options names everything); the faces (the CLI, the MCP server, the
// Python and Node packages) call these, so `--home`, `CTXKIT_HOME` and
// `CTXKIT_STORE_URL` mean the same in each.
#ifndef CTXKIT_ENVIRONMENT_H_
#define CTXKIT_ENVIRONMENT_H_

#include <string>
#include <string_view>

#include "ctxkit/status.h"

namespace ctxkit {

// Resolves the store root: `flag` if non-empty, else $CTXKIT_HOME, else
// $XDG_DATA_HOME/ctxkit, else $HOME/.local/share/ctxkit, made absolute
// without a trailing '/' (as Store::Open makes any home). InvalidArgument
// when none can be determined, or the root contains a NUL byte.
Result<std::string> ResolveHome(std::string_view flag);

// The store URL: `flag` if non-empty, else $CTXKIT_STORE_URL, else "" (the
// embedded store).
std::string ResolveStoreUrl(std::string_view flag);

}  // namespace ctxkit

#endif  // CTXKIT_ENVIRONMENT_H_
