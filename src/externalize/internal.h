// Pieces shared by the externalize layer's files (not part of the API).

#ifndef CTXKIT_EXTERNALIZE_INTERNAL_H_
#define CTXKIT_EXTERNALIZE_INTERNAL_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "ctxkit/externalize.h"
#include "ctxkit/status.h"
#include "ctxkit/store.h"

namespace ctxkit::externalize {

// Key prefix of the collection manifests in a session's scope.
inline constexpr char kManifestPrefix[] = "ctxkit.externalize/";

// Valid Python identifier (ASCII), not a keyword, not a helper name.
Status ValidateVariableName(std::string_view name);

// The variable `custom` describes, read through `view` (the value pinned
// to its current version when the ref is dynamic); writes nothing. Errors
// as ExternalizedContext::AddVariable's but AlreadyExists: names taken in
// a context are the caller's to check.
Result<ContextVariable> ResolveCustomVariable(View& view,
                                              const CustomVariable& custom);

// "List[Message]", "Dict[str, str]", ... as the prompt shows it.
std::string PythonTypeName(const ContextVariable& v);

// Exact o200k_base count (the tokenizer is built in; never fails in
// practice, 0 if it did).
uint64_t CountTextTokens(std::string_view text);

// Cuts `text` to at most `max_tokens` tokens at a line end when possible,
// appending " [...]" (inside the budget) when anything was cut.
std::string FitTokens(std::string text, uint64_t max_tokens);

// A view that can name `session_id`'s scope: `view` itself when it is bound
// to that session, else a view of the same store for (agent, session).
Result<View> SessionView(View& view, std::string_view session_id);

}  // namespace ctxkit::externalize

#endif  // CTXKIT_EXTERNALIZE_INTERNAL_H_
