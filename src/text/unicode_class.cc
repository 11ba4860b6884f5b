#include "text/unicode_class.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <span>

#include "text/embedded_data.h"

namespace ctxkit::text {
namespace {

constexpr char kMagic[8] = {'C', 'T', 'X', 'U', 'C', 'D', '0', '1'};
constexpr size_t kHeaderSize = 16;

[[noreturn]] void Die(const char* why) {
  // Unreachable with a correct build: the table is generated and embedded
  // by the build itself. No Status to return from a character lookup.
  std::fprintf(stderr, "ctxkit: embedded Unicode class table %s\n", why);
  std::abort();
}

}  // namespace

const CharClassTable& CharClassTable::Get() {
  static const CharClassTable table = [] {
    const std::span<const unsigned char> data = EmbeddedClassData();
    if (data.size() < kHeaderSize ||
        std::memcmp(data.data(), kMagic, sizeof(kMagic)) != 0) {
      Die("has a bad header");
    }
    const uint32_t n_blocks = data[8] | (data[9] << 8) | (data[10] << 16) |
                              (uint32_t{data[11]} << 24);
    const size_t index_size = 2 * size_t{kNumBlocks};
    if (data.size() != kHeaderSize + index_size + size_t{n_blocks} * 256) {
      Die("has the wrong size");
    }
    const CharClassTable t(data.data() + kHeaderSize,
                           data.data() + kHeaderSize + index_size);
    for (uint32_t b = 0; b < kNumBlocks; ++b) {
      if (t.Index(b) >= n_blocks) Die("indexes a missing block");
    }
    return t;
  }();
  return table;
}

}  // namespace ctxkit::text
