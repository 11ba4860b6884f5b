#include "spawn/pin_ref.h"

#include <string>

#include "ctxkit/store.h"

namespace ctxkit::spawn {

namespace {

// A view whose own scope is `scope`, to read the metadata of an object a
// ref names there. The ref is the capability to read that object (see
// ref.h); the scope's other objects are not touched.
Result<View> ViewOnScope(View& parent, const Scope& scope) {
  switch (scope.kind) {
    case Scope::Kind::kGlobal:
      return parent.store()->OpenView("", "");
    case Scope::Kind::kAgent:
      return parent.store()->OpenView(scope.id, "");
    case Scope::Kind::kSession:
      return parent.store()->OpenView("", scope.id);
  }
  return Status::Internal("unknown scope kind");
}

Status NotThisObject(const Ref& ref) {
  return Status::NotFound("ref " + FormatRef(ref) +
                          " does not resolve: its key now names another "
                          "object, or it comes from another store");
}

}  // namespace

Result<Ref> PinForChild(View& parent, const Ref& ref) {
  const std::string wire = FormatRef(ref);
  if (ref.is_session_only()) {
    return Status::FailedPrecondition(
        "ref " + wire +
        " names a session-only value, which lives in this process only; "
        "set it with persist=true to pass it to a sub-agent");
  }
  Result<View> scope_view = ViewOnScope(parent, ref.scope);
  if (!scope_view.ok()) return scope_view.status();
  LookupOptions lookup;
  lookup.scope = ref.scope.ToString();
  Ref pinned;
  if (ref.is_static()) {
    lookup.version = ref.version;
    Result<Ref> stored = scope_view->RefOf(ref.key, lookup);
    if (!stored.ok()) {
      if (!stored.status().IsNotFound()) return stored.status();
      return Status::NotFound(
          "ref " + wire + " does not resolve: " + stored.status().message());
    }
    if (stored->id != ref.id) return NotThisObject(ref);
    if (stored->type != ref.type || stored->size_bytes != ref.size_bytes) {
      return Status::InvalidArgument(
          "ref " + wire + " disagrees with the version it names (stored: " +
          std::string(ValueTypeName(stored->type)) + ", " +
          std::to_string(stored->size_bytes) + " bytes)");
    }
    pinned = std::move(*stored);
  } else {
    Result<ObjectMeta> meta = scope_view->Stat(ref.key, lookup);
    if (!meta.ok()) {
      if (!meta.status().IsNotFound()) return meta.status();
      return Status::NotFound("ref " + wire +
                              " does not resolve: " + meta.status().message());
    }
    if (meta->id != ref.id) return NotThisObject(ref);
    pinned = StaticRefOf(*meta);
  }
  // The parent's own read is the final word on what it may pass.
  Result<std::string> probe = parent.ReadRange(pinned, 0, 1);
  if (!probe.ok()) return probe.status().WithContext("ref " + wire);
  return pinned;
}

}  // namespace ctxkit::spawn
