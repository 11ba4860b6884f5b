#include "os/read_only_error.h"

#include <string>

namespace ctxkit::storage {

Status ReadOnlyError(std::string_view what) {
  return Status::PermissionDenied(
      std::string(what) +
      ": the store is open read-only (its files may not be written by this "
      "process, or it was opened with Options::read_only)");
}

}  // namespace ctxkit::storage
