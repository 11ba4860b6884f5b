// Small, allocation-light encoders shared by ids, refs and hashes.

#ifndef CTXKIT_CORE_ENCODING_H_
#define CTXKIT_CORE_ENCODING_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ctxkit::core {

// Lower-case base-36 without leading zeros ("0" for zero).
std::string ToBase36(uint64_t value);
// Parses ToBase36's form exactly (no leading zeros, no upper case, no
// overflow); nullopt otherwise, so that parse/format round-trips.
std::optional<uint64_t> FromBase36(std::string_view text);

// Canonical decimal (no sign, no leading zeros except "0"); nullopt
// otherwise or on overflow.
std::optional<uint64_t> ParseCanonicalDecimal(std::string_view text);

std::string ToHex(std::string_view bytes);
// nullopt unless `hex` is lower-case hex of even length.
std::optional<std::string> FromHex(std::string_view hex);

// True when `bytes` is well-formed UTF-8 (no overlongs, no surrogates, no
// code points above U+10FFFF).
bool IsValidUtf8(std::string_view bytes);

}  // namespace ctxkit::core

#endif  // CTXKIT_CORE_ENCODING_H_
