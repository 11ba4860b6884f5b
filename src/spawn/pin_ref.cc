#include "spawn/pin_ref.h"

#include <string>

#include "ctxkit/store.h"

namespace ctxkit::spawn {

Result<Ref> PinForChild(View& parent, const Ref& ref) {
  const std::string wire = FormatRef(ref);
  if (ref.is_session_only()) {
    return Status::FailedPrecondition(
        "ref " + wire +
        " names a session-only value, which lives in this process only; "
        "set it with persist=true to pass it to a sub-agent");
  }
  // By id, as a capability: the ref may name any scope.
  Result<Ref> pinned = parent.Pin(ref);
  if (!pinned.ok()) {
    if (!pinned.status().IsNotFound()) return pinned.status();
    return Status::NotFound("ref " + wire +
                            " does not resolve: " + pinned.status().message());
  }
  // The parent's own read is the final word on what it may pass.
  Result<std::string> probe = parent.ReadRange(*pinned, 0, 1);
  if (!probe.ok()) return probe.status().WithContext("ref " + wire);
  return *pinned;
}

}  // namespace ctxkit::spawn
