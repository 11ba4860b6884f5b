#include "face/gc.h"

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/status_macros.h"
#include "ctxkit/session.h"
#include "ctxkit/spawn.h"
#include "externalize/internal.h"
#include "store/store_internals.h"
#include "text/json_parse.h"

namespace ctxkit::face {
namespace {

// Holds what `refs` name, skipping versions already gone: the state that
// names them was written before holds existed, and nothing can bring them
// back.
Status HoldWhatRemains(Store& store, const std::string& holder,
                       std::span<const Ref> refs) {
  Status all = StoreInternals::Hold(store, holder, refs);
  if (!all.IsNotFound()) return all;
  for (const Ref& ref : refs) {
    Status one = StoreInternals::Hold(store, holder, std::span(&ref, 1));
    if (!one.ok() && !one.IsNotFound()) return one;
  }
  return Status::Ok();
}

// Every version of each of the session's externalized manifests, and every
// ref any of them names.
Status AddManifestRefs(Store& store, const std::string& id,
                       std::vector<Ref>* refs) {
  CTXKIT_ASSIGN_OR_RETURN(View view, store.OpenView("", id));
  ListFilter filter{.scope = "session",
                    .key_prefix = externalize::kManifestPrefix,
                    .limit = 1000};
  do {
    CTXKIT_ASSIGN_OR_RETURN(ListPage page, view.List(filter));
    for (const ObjectMeta& m : page.items) {
      const LookupOptions at{.scope = "session"};
      CTXKIT_ASSIGN_OR_RETURN(std::vector<VersionMeta> versions,
                              view.Versions(m.key, at));
      for (const VersionMeta& v : versions) {
        if (v.state != VersionState::kPresent) continue;
        LookupOptions pinned_at = at;
        pinned_at.version = v.version;
        CTXKIT_ASSIGN_OR_RETURN(Ref ref, view.Pin(m.key, pinned_at));
        refs->push_back(ref);
        CTXKIT_ASSIGN_OR_RETURN(std::string text, view.Resolve(ref));
        ctxkit::text::RefsInJson(ctxkit::text::ParseJsonOrDiscarded(text),
                                 refs);
      }
    }
    filter.cursor = page.next_cursor;
  } while (!filter.cursor.empty());
  return Status::Ok();
}

Status HoldSession(Store& store, const std::string& id) {
  CTXKIT_ASSIGN_OR_RETURN(std::unique_ptr<Session> session,
                          Session::Open(store, id));
  CTXKIT_ASSIGN_OR_RETURN(std::vector<Ref> refs, session->PinnedRefs());
  CTXKIT_RETURN_IF_ERROR(AddManifestRefs(store, id, &refs));
  return HoldWhatRemains(store, storage::SessionHolder(id), refs);
}

// The manifests the store keeps (those an earlier build left under this
// home's <home>/spawn imported first). One that cannot be read stops the
// recording.
Status HoldSpawnManifests(Store& store) {
  CTXKIT_ASSIGN_OR_RETURN(std::vector<Manifest> manifests,
                          ListManifests(store));
  for (const Manifest& manifest : manifests) {
    std::vector<Ref> refs;
    for (const ManifestRef& r : manifest.refs) refs.push_back(r.ref);
    CTXKIT_RETURN_IF_ERROR(
        HoldWhatRemains(store, "spawn:" + manifest.child_agent, refs));
  }
  return Status::Ok();
}

}  // namespace

Status RecordEarlierHolds(Store& store) {
  CTXKIT_ASSIGN_OR_RETURN(bool pending, StoreInternals::HoldsPending(store));
  if (!pending) return Status::Ok();
  CTXKIT_ASSIGN_OR_RETURN(std::vector<std::string> sessions,
                          Session::List(store));
  for (const std::string& id : sessions) {
    CTXKIT_RETURN_IF_ERROR(HoldSession(store, id).WithContext("session " + id));
  }
  CTXKIT_RETURN_IF_ERROR(HoldSpawnManifests(store));
  return StoreInternals::MarkHoldsRecorded(store);
}

Result<GarbageReport> CollectGarbage(Store& store,
                                     const GarbageOptions& options) {
  CTXKIT_RETURN_IF_ERROR(RecordEarlierHolds(store));
  return store.CollectGarbage(options);
}

}  // namespace ctxkit::face
