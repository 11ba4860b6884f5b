#include "spawn/store_identity.h"

#include <filesystem>
#include <string>
#include <system_error>

namespace ctxkit::spawn {

Result<std::string> CanonicalHome(const std::string& home) {
  std::error_code ec;
  std::filesystem::path p = std::filesystem::weakly_canonical(home, ec);
  if (ec) {
    return Status::IoError("cannot resolve store home " + home + ": " +
                           ec.message());
  }
  return p.string();
}

Status CheckSameStore(Store& store, const Manifest& manifest) {
  Result<std::string> home = CanonicalHome(store.home());
  if (!home.ok()) return home.status();
  if (*home != manifest.store_home) {
    return Status::FailedPrecondition("the manifest is for the store at " +
                                      manifest.store_home +
                                      ", not the one at " + *home);
  }
  return Status::Ok();
}

}  // namespace ctxkit::spawn
