#include "storage/backend.h"

namespace ctxkit::storage {

Status VersionMoved(std::string_view key, uint64_t at, uint64_t expected) {
  return Status::FailedPrecondition(
      "'" + std::string(key) + "' is at version " + std::to_string(at) +
      ", not " + std::to_string(expected) + "; another writer came first");
}

}  // namespace ctxkit::storage
