#include "cli/digest.h"

#include <string>

#include "core/encoding.h"
#include "core/sha256.h"

namespace ctxkit::cli {

std::string Sha256Hex(std::string_view data) {
  return core::ToHex(core::Sha256(data));
}

}  // namespace ctxkit::cli
