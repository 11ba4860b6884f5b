#include <array>
#include <string>

#include "core/value_type_codes.h"
#include "ctxkit/ref.h"
#include "ctxkit/types.h"

namespace ctxkit {
namespace {
struct TypeInfo {
  ValueType type;
  std::string_view name;
  char letter;
};
// Order matches the enum; letters are the ref wire form's type field and
// are part of the stable on-disk/on-wire format.
constexpr std::array<TypeInfo, 9> kTypes = {{
    {ValueType::kText, "text", 't'},
    {ValueType::kJson, "json", 'j'},
    {ValueType::kMemory, "memory", 'm'},
    {ValueType::kResult, "result", 'r'},
    {ValueType::kStream, "stream", 's'},
    {ValueType::kToolcall, "toolcall", 'c'},
    {ValueType::kFile, "file", 'f'},
    {ValueType::kNote, "note", 'n'},
    {ValueType::kChat, "chat", 'h'},
}};
}  // namespace

std::string_view ValueTypeName(ValueType type) {
  auto i = static_cast<size_t>(type);
  return i < kTypes.size() ? kTypes[i].name : "unknown";
}

Result<ValueType> ParseValueType(std::string_view name) {
  for (const auto& info : kTypes) {
    if (info.name == name) return info.type;
  }
  return Status::InvalidArgument(
      "unknown type '" + std::string(name) +
      "' (expected text, json, memory, result, stream, toolcall, file, "
      "note or chat)");
}

Result<Durability> ParseDurability(std::string_view name) {
  if (name == "full") return Durability::kFull;
  if (name == "process") return Durability::kProcess;
  return Status::InvalidArgument(
      "durability must be 'full' or 'process', not '" + std::string(name) +
      "'");
}

std::string_view VersionStateName(VersionState state) {
  switch (state) {
    case VersionState::kPresent:
      return "present";
    case VersionState::kDeleted:
      return "deleted";
    case VersionState::kMissing:
      return "missing";
  }
  return "unknown";
}

namespace core {
char ValueTypeLetter(ValueType type) {
  auto i = static_cast<size_t>(type);
  return i < kTypes.size() ? kTypes[i].letter : '?';
}

std::optional<ValueType> ValueTypeFromLetter(char letter) {
  for (const auto& info : kTypes) {
    if (info.letter == letter) return info.type;
  }
  return std::nullopt;
}

std::optional<ValueType> ValueTypeFromCode(int64_t code) {
  if (code < 0 || code >= static_cast<int64_t>(kTypes.size())) {
    return std::nullopt;
  }
  return static_cast<ValueType>(code);
}
}  // namespace core

}  // namespace ctxkit
