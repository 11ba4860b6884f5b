// The JSON form of an externalized context (CLI --json, MCP).

#include <nlohmann/json.hpp>
#include <string>

#include "ctxkit/externalize.h"
#include "externalize/internal.h"

namespace ctxkit {

nlohmann::json ExternalizedContext::ToJson(const SizeConfig& config,
                                           const RootPrompt* prompt,
                                           bool with_prompt_text,
                                           bool with_members) const {
  nlohmann::json vars = nlohmann::json::array();
  uint64_t total_tokens = 0;
  for (const ContextVariable& v : variables_) {
    total_tokens += v.tokens;
    nlohmann::json j = {
        {"name", v.name},
        {"type", std::string(VariableTypeName(v.type))},
        {"python_type", externalize::PythonTypeName(v)},
        {"shape", std::string(VariableShapeName(v.shape))},
        {"size_bytes", v.size_bytes},
        {"tokens", v.tokens},
        {"summary", v.summary},
        {"item_count", v.item_count.has_value() ? nlohmann::json(*v.item_count)
                                                : nlohmann::json(nullptr)},
        {"ref", FormatRef(v.ref)},
    };
    if (v.type == VariableType::kCustom) j["custom_type"] = v.custom_type;
    if (with_members && !v.members.empty()) {
      nlohmann::json ms = nlohmann::json::array();
      for (const VariableMember& m : v.members) {
        ms.push_back({{"name", m.name},
                      {"ref", FormatRef(m.ref)},
                      {"size_bytes", m.size_bytes},
                      {"tokens", m.tokens},
                      {"label", m.label}});
      }
      j["members"] = std::move(ms);
    }
    if (!v.chunks.empty()) {
      nlohmann::json cs = nlohmann::json::array();
      for (const VariableChunk& c : v.chunks) {
        cs.push_back({{"member", c.member},
                      {"ref", FormatRef(c.ref)},
                      {"byte_begin", c.byte_begin},
                      {"byte_end", c.byte_end},
                      {"tokens", c.tokens}});
      }
      j["chunks"] = std::move(cs);
    }
    vars.push_back(std::move(j));
  }
  nlohmann::json warnings = nlohmann::json::array();
  for (const SizeWarning& w : CheckSizeLimits(config)) {
    warnings.push_back({{"kind", std::string(SizeWarningKindName(w.kind))},
                        {"variable", w.variable},
                        {"size", w.size},
                        {"threshold", w.threshold},
                        {"suggested_chunks", w.suggested_chunks},
                        {"message", w.message}});
  }
  nlohmann::json out = {{"query", query_},
                        {"session", session_id_},
                        {"variables", std::move(vars)},
                        {"total_size_bytes", total_size_bytes_},
                        {"total_tokens", total_tokens},
                        {"warnings", std::move(warnings)}};
  if (prompt != nullptr) {
    out["prompt_tokens"] = prompt->tokens;
    if (with_prompt_text) out["prompt"] = prompt->text;
  }
  return out;
}

}  // namespace ctxkit
