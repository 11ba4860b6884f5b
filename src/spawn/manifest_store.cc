// Manifests in the store's engine: one named record per child agent (kind
// "spawn"), written by Spawn and read by LoadManifest(Store&) and
// ListManifests from any home of the store; and the one-time import of the
// manifest files earlier builds kept under <home>/spawn only.

#include "spawn/manifest_store.h"

#include <dirent.h>

#include <string>
#include <vector>

#include "core/status_macros.h"
#include "ctxkit/spawn.h"
#include "os/file_util.h"
#include "os/filename.h"
#include "store/store_internals.h"

namespace ctxkit {

namespace spawn {
namespace {

constexpr char kKind[] = "spawn";
// Written into <home>/spawn once its files are in the engine.
constexpr char kImportedMarker[] = ".imported";

}  // namespace

Status PutManifest(Store& store, const Manifest& manifest) {
  storage::RecordWrite write;
  write.puts.push_back({kKind, manifest.child_agent, FormatManifest(manifest),
                        storage::RecordPut::When::kAlways});
  return StoreInternals::WriteRecords(store, std::move(write));
}

Status ImportManifestFiles(Store& store) {
  const std::string dir = storage::SpawnDir(store.home());
  const std::string marker = dir + "/" + kImportedMarker;
  if (store.read_only() || storage::PathExists(marker)) return Status::Ok();
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return Status::Ok();  // No child was ever spawned here.
  std::vector<std::string> files;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name.ends_with(".json") && !name.starts_with('.')) {
      files.push_back(dir + "/" + name);
    }
  }
  ::closedir(d);
  storage::RecordWrite write;
  for (const std::string& file : files) {
    Result<Manifest> manifest = LoadManifest(file);
    if (manifest.status().IsNotFound()) continue;  // Removed meanwhile.
    if (!manifest.ok()) {
      return manifest.status().WithContext("import spawn manifest " + file);
    }
    // One the engine has already (written since, perhaps from another
    // home, for a reused child id) stays.
    write.puts.push_back({kKind, manifest->child_agent,
                          FormatManifest(*manifest),
                          storage::RecordPut::When::kIfAbsent});
  }
  // Idempotent: a crash before the marker imports the same again.
  if (!write.puts.empty()) {
    CTXKIT_RETURN_IF_ERROR(StoreInternals::WriteRecords(store, write));
  }
  return storage::AtomicWriteFile(dir, marker, "", /*sync=*/true);
}

}  // namespace spawn

Result<Manifest> LoadManifest(Store& store, std::string_view child_agent) {
  CTXKIT_RETURN_IF_ERROR(spawn::ImportManifestFiles(store));
  CTXKIT_ASSIGN_OR_RETURN(
      std::optional<storage::StoredRecord> record,
      StoreInternals::GetRecord(store, spawn::kKind, child_agent));
  if (!record.has_value()) {
    return Status::NotFound("the store keeps no manifest of child agent '" +
                            std::string(child_agent) + "'");
  }
  Result<Manifest> m = ParseManifest(record->bytes);
  if (!m.ok()) return m.status().WithContext("manifest of " + record->name);
  return m;
}

Result<std::vector<Manifest>> ListManifests(Store& store) {
  CTXKIT_RETURN_IF_ERROR(spawn::ImportManifestFiles(store));
  CTXKIT_ASSIGN_OR_RETURN(std::vector<storage::StoredRecord> records,
                          StoreInternals::ListRecords(store, spawn::kKind));
  std::vector<Manifest> out;
  out.reserve(records.size());
  for (const storage::StoredRecord& r : records) {
    Result<Manifest> m = ParseManifest(r.bytes);
    if (!m.ok()) return m.status().WithContext("manifest of " + r.name);
    out.push_back(*std::move(m));
  }
  return out;
}

}  // namespace ctxkit
