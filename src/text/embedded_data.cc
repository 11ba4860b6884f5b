#include "text/embedded_data.h"

#include "core/embed_file.h"

// The paths come from cmake/layer_text.cmake, which also makes this file
// depend on the generated data so it is reassembled when the data changes.
#if !defined(CTXKIT_O200K_RANKS_PATH) || !defined(CTXKIT_CL100K_RANKS_PATH) || \
    !defined(CTXKIT_UNICODE_CLASSES_PATH)
#error "build ctxkit_text through cmake/layer_text.cmake"
#endif

CTXKIT_EMBED_FILE(ctxkit_o200k_ranks, CTXKIT_O200K_RANKS_PATH);
CTXKIT_EMBED_FILE(ctxkit_cl100k_ranks, CTXKIT_CL100K_RANKS_PATH);
CTXKIT_EMBED_FILE(ctxkit_unicode_classes, CTXKIT_UNICODE_CLASSES_PATH);

extern "C" {
extern const unsigned char ctxkit_o200k_ranks_begin[];
extern const unsigned char ctxkit_o200k_ranks_end[];
extern const unsigned char ctxkit_cl100k_ranks_begin[];
extern const unsigned char ctxkit_cl100k_ranks_end[];
extern const unsigned char ctxkit_unicode_classes_begin[];
extern const unsigned char ctxkit_unicode_classes_end[];
}

namespace ctxkit::text {

std::span<const unsigned char> EmbeddedRankImage(std::string_view name) {
  if (name == "o200k_base") {
    return {ctxkit_o200k_ranks_begin, ctxkit_o200k_ranks_end};
  }
  if (name == "cl100k_base") {
    return {ctxkit_cl100k_ranks_begin, ctxkit_cl100k_ranks_end};
  }
  return {};
}

std::span<const unsigned char> EmbeddedClassData() {
  return {ctxkit_unicode_classes_begin, ctxkit_unicode_classes_end};
}

}  // namespace ctxkit::text
