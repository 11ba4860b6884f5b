// Which store a manifest belongs to: its home, canonicalized so that two
// spellings of one directory (symlinks, "..") compare equal.

#ifndef CTXKIT_SPAWN_STORE_IDENTITY_H_
#define CTXKIT_SPAWN_STORE_IDENTITY_H_

#include <string>

#include "ctxkit/spawn.h"
#include "ctxkit/status.h"
#include "ctxkit/store.h"

namespace ctxkit::spawn {

// The canonical absolute path of `home` (symlinks resolved as far as the
// path exists). IoError when it cannot be determined.
Result<std::string> CanonicalHome(const std::string& home);

// FailedPrecondition unless `store` is the store `manifest` names.
Status CheckSameStore(Store& store, const Manifest& manifest);

}  // namespace ctxkit::spawn

#endif  // CTXKIT_SPAWN_STORE_IDENTITY_H_
