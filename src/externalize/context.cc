// ExternalizedContext basics: type names, custom variables, lookup and the
// spec's variable_summaries().

#include <string>
#include <string_view>
#include <utility>

#include "core/format.h"
#include "core/status_macros.h"
#include "ctxkit/explore.h"
#include "ctxkit/externalize.h"
#include "externalize/internal.h"
#include "text/summarize_budget.h"

namespace ctxkit {

using externalize::CountTextTokens;
using externalize::FitTokens;
using externalize::PythonTypeName;

std::string_view VariableTypeName(VariableType type) {
  switch (type) {
    case VariableType::kConversation:
      return "conversation";
    case VariableType::kFiles:
      return "files";
    case VariableType::kToolOutputs:
      return "tool_outputs";
    case VariableType::kWorkingMemory:
      return "working_memory";
    case VariableType::kCustom:
      break;
  }
  return "custom";
}

Result<VariableType> ParseVariableType(std::string_view name) {
  for (VariableType t : {VariableType::kConversation, VariableType::kFiles,
                         VariableType::kToolOutputs,
                         VariableType::kWorkingMemory, VariableType::kCustom}) {
    if (VariableTypeName(t) == name) return t;
  }
  return Status::InvalidArgument(
      "unknown variable type '" + std::string(name) +
      "' (conversation, files, tool_outputs, working_memory, custom)");
}

std::string_view VariableShapeName(VariableShape shape) {
  switch (shape) {
    case VariableShape::kList:
      return "list";
    case VariableShape::kDict:
      return "dict";
    case VariableShape::kString:
      break;
  }
  return "str";
}

std::string_view SizeWarningKindName(SizeWarning::Kind kind) {
  switch (kind) {
    case SizeWarning::Kind::kLargeVariable:
      return "large_variable";
    case SizeWarning::Kind::kRequiresChunking:
      return "requires_chunking";
    case SizeWarning::Kind::kTotalSizeExceeded:
      break;
  }
  return "total_size_exceeded";
}

namespace {

Status ValidateOptions(const ExternalizeOptions& o) {
  if (o.summary_max_tokens < 16 || o.summary_max_tokens > 100000) {
    return Status::InvalidArgument(
        "summary_max_tokens must be between 16 and 100000");
  }
  if (o.summary_max_members > 10000) {
    return Status::InvalidArgument("summary_max_members must be <= 10000");
  }
  return Status::Ok();
}

Status ValidateCustomType(std::string_view t) {
  if (t.size() > 64) {
    return Status::InvalidArgument("custom type is longer than 64 bytes");
  }
  for (unsigned char c : t) {
    if (c < 0x20 || c == 0x7F) {
      return Status::InvalidArgument(
          "custom type must not contain control characters");
    }
  }
  return Status::Ok();
}

// What a JSON value's shape says: its container, item count and a note
// for the summary; unset for a value that is no container.
Status DescribeJsonShape(View& view, const Ref& pinned, ContextVariable* v,
                         std::string* note) {
  LenOptions lo;
  lo.count = true;
  CTXKIT_ASSIGN_OR_RETURN(LenResult len, ctxkit::Len(view, pinned, lo));
  if (!len.items.has_value()) return Status::Ok();
  // Which container: the first non-blank byte.
  CTXKIT_ASSIGN_OR_RETURN(std::string head, view.ReadRange(pinned, 0, 4096));
  const size_t at = head.find_first_not_of(" \t\r\n");
  const bool array = at != std::string::npos && head[at] == '[';
  // A chat not stored as an array holds one message per line: a list.
  const bool lines = pinned.type == ValueType::kChat && !array;
  const bool object = !lines && at != std::string::npos && head[at] == '{';
  v->shape = object ? VariableShape::kDict : VariableShape::kList;
  v->item_count = *len.items;
  *note = object ? "JSON object of " + core::GroupedNumber(*len.items) + " keys"
          : lines
              ? "chat of " + core::GroupedNumber(*len.items) +
                    " messages, one JSON object per line"
              : "JSON array of " + core::GroupedNumber(*len.items) + " items";
  return Status::Ok();
}

}  // namespace

namespace externalize {

Result<ContextVariable> ResolveCustomVariable(View& view,
                                              const CustomVariable& custom) {
  CTXKIT_RETURN_IF_ERROR(ValidateVariableName(custom.name));
  CTXKIT_RETURN_IF_ERROR(ValidateCustomType(custom.custom_type));
  // Pin a dynamic ref so every helper reads the version externalized.
  CTXKIT_ASSIGN_OR_RETURN(Ref pinned, view.Pin(custom.ref));
  ContextVariable v;
  v.name = custom.name;
  v.type = VariableType::kCustom;
  v.ref = pinned;
  v.size_bytes = pinned.size_bytes;
  CTXKIT_ASSIGN_OR_RETURN(v.tokens, view.CountTokens(pinned));
  const bool json =
      pinned.type == ValueType::kJson || pinned.type == ValueType::kChat;
  v.custom_type = !custom.custom_type.empty() ? custom.custom_type
                  : json                      ? "json"
                         : std::string(ValueTypeName(pinned.type));
  std::string shape_note;
  if (json) {
    CTXKIT_RETURN_IF_ERROR(DescribeJsonShape(view, pinned, &v, &shape_note));
  }
  if (v.shape == VariableShape::kString) {
    shape_note = std::string(ValueTypeName(pinned.type)) + " value";
  }
  v.summary = v.custom_type + ": " + shape_note + ", " +
              core::HumanBytes(v.size_bytes) + ", " +
              core::GroupedNumber(v.tokens) + " tokens (stored as " +
              pinned.key + ")";
  return v;
}

}  // namespace externalize

Result<ExternalizedContext> ExternalizedContext::Empty(
    std::string query, const ExternalizeOptions& options) {
  CTXKIT_RETURN_IF_ERROR(ValidateOptions(options));
  ExternalizedContext ctx;
  ctx.query_ = std::move(query);
  ctx.options_ = options;
  return ctx;
}

Status ExternalizedContext::AddBuilt(ContextVariable variable) {
  CTXKIT_RETURN_IF_ERROR(externalize::ValidateVariableName(variable.name));
  for (const ContextVariable& v : variables_) {
    if (v.name == variable.name) {
      return Status::AlreadyExists("variable '" + variable.name +
                                   "' already exists");
    }
  }
  variable.summary =
      FitTokens(std::move(variable.summary), options_.summary_max_tokens);
  total_size_bytes_ += variable.size_bytes;
  variables_.push_back(std::move(variable));
  return Status::Ok();
}

Status ExternalizedContext::AddVariable(View& view, std::string name,
                                        const Ref& ref,
                                        std::string custom_type) {
  CTXKIT_RETURN_IF_ERROR(externalize::ValidateVariableName(name));
  for (const ContextVariable& v : variables_) {
    if (v.name == name) {
      return Status::AlreadyExists("variable '" + name + "' already exists");
    }
  }
  CTXKIT_ASSIGN_OR_RETURN(
      ContextVariable v,
      externalize::ResolveCustomVariable(
          view, {std::move(name), ref, std::move(custom_type)}));
  return AddBuilt(std::move(v));
}

Result<const ContextVariable*> ExternalizedContext::Find(
    std::string_view name) const {
  std::string known;
  for (const ContextVariable& v : variables_) {
    if (v.name == name) return &v;
    known += known.empty() ? v.name : ", " + v.name;
  }
  return Status::NotFound("no variable '" + std::string(name) +
                          "' (variables: " + (known.empty() ? "none" : known) +
                          ")");
}

std::string ExternalizedContext::VariableSummaries() const {
  std::string out;
  for (const ContextVariable& v : variables_) {
    if (!out.empty()) out += '\n';
    out += "- " + v.name + ": " + PythonTypeName(v);
    if (v.item_count.has_value()) {
      out += ", " + core::GroupedNumber(*v.item_count) +
             (*v.item_count == 1 ? " item" : " items");
    }
    out += ", " + core::HumanBytes(v.size_bytes) + ", " +
           core::GroupedNumber(v.tokens) + " tokens\n  " + v.summary;
  }
  if (out.empty()) out = "(no variables)";
  return out;
}

}  // namespace ctxkit
