// The JSON form of a summary, shared by the CLI's --json and the MCP
// summarize tool (docs/json.md). The summary text is not part of the form:
// each face delivers it its own way around the form.

#ifndef CTXKIT_SUMMARY_JSON_FORMS_H_
#define CTXKIT_SUMMARY_JSON_FORMS_H_

#include <nlohmann/json.hpp>
#include <string_view>

#include "ctxkit/summary.h"

namespace ctxkit::summary {

// ref, key, tokens (of the summary), summarizer, kind, cached, sampled,
// notes ("" when none), sha256 (of the version summarized).
nlohmann::json SummaryToJson(const Summary& summary);

// A stored value's token count: ref (static), key, encoding, tokens,
// size_bytes.
nlohmann::json TokenCountToJson(const Ref& ref, std::string_view encoding,
                                uint64_t tokens);

}  // namespace ctxkit::summary

#endif  // CTXKIT_SUMMARY_JSON_FORMS_H_
