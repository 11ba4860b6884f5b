// The child's side (open its view, resolve refs by name, set the result)
// and the parent's collection of that result.

#include <string>

#include "core/status_macros.h"
#include "ctxkit/spawn.h"
#include "spawn/store_identity.h"

namespace ctxkit {

namespace {

std::string Names(const Manifest& manifest) {
  if (manifest.refs.empty()) return "none";
  std::string out;
  for (const ManifestRef& entry : manifest.refs) {
    if (!out.empty()) out += ", ";
    out += entry.name;
  }
  return out;
}

std::string ResultPlace(const Manifest& m) {
  return "agent:" + m.child_agent + " key '" + m.result_key + "'";
}

}  // namespace

Result<View> OpenChildView(Store& store, const Manifest& manifest) {
  CTXKIT_RETURN_IF_ERROR(spawn::CheckSameStore(store, manifest));
  return store.OpenView(manifest.child_agent, manifest.child_session);
}

Result<std::string> ResolveContextRef(View& child, const Manifest& manifest,
                                      std::string_view name) {
  const ManifestRef* entry = manifest.Find(name);
  if (entry == nullptr) {
    return Status::NotFound("the manifest passes no ref named '" +
                            std::string(name) +
                            "' (it has: " + Names(manifest) + ")");
  }
  CTXKIT_ASSIGN_OR_RETURN(std::string value, child.Resolve(entry->ref));
  if (value.size() != entry->ref.size_bytes) {
    return Status::Corruption("'" + std::string(name) + "': read " +
                              std::to_string(value.size()) +
                              " bytes, the manifest records " +
                              std::to_string(entry->ref.size_bytes));
  }
  return value;
}

Result<Ref> SetResult(View& child, const Manifest& manifest,
                      std::string_view value, ValueType type) {
  if (child.agent_id() != manifest.child_agent) {
    return Status::PermissionDenied(
        "only the child agent '" + manifest.child_agent +
        "' sets this result, not '" + child.agent_id() + "'");
  }
  CTXKIT_RETURN_IF_ERROR(spawn::CheckSameStore(*child.store(), manifest));
  SetOptions opts;
  opts.scope = "agent";
  opts.type = type;
  opts.producer = "agent:" + manifest.child_agent;
  // The parent gets the version written.
  return child.Set(manifest.result_key, value, opts);
}

Result<Ref> CollectResult(View& parent, const Manifest& manifest) {
  if (parent.agent_id() != manifest.parent_agent ||
      parent.session_id() != manifest.parent_session) {
    return Status::PermissionDenied(
        "only the parent that spawned '" + manifest.child_agent + "' (agent '" +
        manifest.parent_agent + "', session '" + manifest.parent_session +
        "') collects its result");
  }
  CTXKIT_RETURN_IF_ERROR(spawn::CheckSameStore(*parent.store(), manifest));
  // The parent reads the child's scope through a sub-agent view of its
  // own child, and hands back a ref: the capability to read that one value.
  CTXKIT_ASSIGN_OR_RETURN(View child, parent.SubAgent(manifest.child_agent,
                                                      manifest.child_session));
  Result<ObjectMeta> meta = child.Stat(manifest.result_key, {"agent", 0});
  if (!meta.ok()) {
    if (!meta.status().IsNotFound()) return meta.status();
    return Status::NotFound("the child agent '" + manifest.child_agent +
                            "' has written no result (" +
                            ResultPlace(manifest) + ")");
  }
  if (manifest.prior_result.has_value() &&
      meta->id == manifest.prior_result->id &&
      meta->version <= manifest.prior_result->version) {
    return Status::NotFound("the child agent '" + manifest.child_agent +
                            "' has written no result since it was spawned (" +
                            ResultPlace(manifest) + " is still version " +
                            std::to_string(meta->version) + " from before)");
  }
  return StaticRefOf(*meta);
}

}  // namespace ctxkit
