#include "summary/json_forms.h"

#include <string>

namespace ctxkit::summary {

nlohmann::json SummaryToJson(const Summary& s) {
  return nlohmann::json{{"ref", FormatRef(s.ref)}, {"key", s.ref.key},
                        {"tokens", s.tokens},      {"summarizer", s.summarizer},
                        {"kind", s.kind},          {"cached", s.cached},
                        {"sampled", s.sampled},    {"notes", s.notes},
                        {"sha256", s.content_hash}};
}

nlohmann::json TokenCountToJson(const Ref& ref, std::string_view encoding,
                                uint64_t tokens) {
  return nlohmann::json{{"ref", FormatRef(ref)},
                        {"key", ref.key},
                        {"encoding", std::string(encoding)},
                        {"tokens", tokens},
                        {"size_bytes", ref.size_bytes}};
}

}  // namespace ctxkit::summary
