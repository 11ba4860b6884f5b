// Stable encodings of ValueType: the one-letter ref form and the integer
// stored in the database. Both are part of persistent formats: append new
// types, never renumber.

#ifndef CTXKIT_CORE_VALUE_TYPE_CODES_H_
#define CTXKIT_CORE_VALUE_TYPE_CODES_H_

#include <cstdint>
#include <optional>

#include "ctxkit/ref.h"

namespace ctxkit::core {

char ValueTypeLetter(ValueType type);
std::optional<ValueType> ValueTypeFromLetter(char letter);

inline int64_t ValueTypeCode(ValueType type) {
  return static_cast<int64_t>(type);
}
std::optional<ValueType> ValueTypeFromCode(int64_t code);

}  // namespace ctxkit::core

#endif  // CTXKIT_CORE_VALUE_TYPE_CODES_H_
