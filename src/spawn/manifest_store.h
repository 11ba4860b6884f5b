// Manifests in the store's engine (ctxkit/spawn.h: LoadManifest(Store&),
// ListManifests): what Spawn writes there, and the import of the files of
// earlier builds.

#ifndef CTXKIT_SPAWN_MANIFEST_STORE_H_
#define CTXKIT_SPAWN_MANIFEST_STORE_H_

#include "ctxkit/spawn.h"
#include "ctxkit/status.h"
#include "ctxkit/store.h"

namespace ctxkit::spawn {

// Keeps `manifest` as the record of its child agent, replacing the one of
// an earlier spawn of the same child id. Durable on return.
Status PutManifest(Store& store, const Manifest& manifest);

// Once per home: moves the manifests of <home>/spawn/*.json (written by
// earlier builds, which kept them only there) into the engine in one
// write, keeping a record the engine has already, then writes
// <home>/spawn/.imported. The files stay: they are where a child started
// before the upgrade reads its manifest (CTXKIT_MANIFEST), and Spawn keeps
// writing such a file for each child. Nothing to do on a read-only store.
// Corruption, nothing written, when a file is not a manifest.
Status ImportManifestFiles(Store& store);

}  // namespace ctxkit::spawn

#endif  // CTXKIT_SPAWN_MANIFEST_STORE_H_
