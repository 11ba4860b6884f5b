// `ctxkit demo`, step 9: file watchers keep files as versioned objects.
//
// Runs on a throwaway store and directory under $TMPDIR, removed at the
// end, so the user's store and watch list stay as they were.

#include <filesystem>
#include <string>
#include <vector>

#include "core/status_macros.h"
#include "ctxkit/watch.h"
#include "demo/demo_steps.h"

namespace ctxkit::cli {
namespace {

std::string Counts(const WatchReport& r) {
  return std::to_string(r.created) + " created, " + std::to_string(r.updated) +
         " updated, " + std::to_string(r.unchanged) + " unchanged, " +
         std::to_string(r.deleted) + " deleted";
}

}  // namespace

Status DemoWatchers(const DemoSay& say) {
  DemoTempDir tmp;
  if (tmp.path().empty()) return Status::IoError("mkdtemp failed");
  const std::string home = tmp.path() + "/store";
  const std::string tree = tmp.path() + "/project";
  std::error_code ec;
  std::filesystem::create_directories(tree + "/src", ec);
  if (ec) return Status::IoError("cannot create " + tree + ": " + ec.message());
  CTXKIT_RETURN_IF_ERROR(DemoWriteFile(tree + "/README.md", "# Project\n"));
  CTXKIT_RETURN_IF_ERROR(
      DemoWriteFile(tree + "/src/main.cc", "int main() { return 0; }\n"));
  CTXKIT_RETURN_IF_ERROR(DemoWriteFile(tree + "/notes.txt", "draft\n"));

  Options options;
  options.home = home;
  Result<std::unique_ptr<Store>> store = Store::Open(options);
  if (!store.ok()) return store.status();
  WatchReport added;
  Result<WatchEntry> entry = AddWatch(**store, tree, {}, &added);
  if (!entry.ok()) return entry.status().WithContext("watch add");
  say("9. File watchers (on a throwaway store): watch add " + entry->path);
  say("   " + Counts(added) + "; each file is the object file:<path>");

  // Changes made while no watcher runs are found by the next scan.
  CTXKIT_RETURN_IF_ERROR(DemoWriteFile(
      tree + "/src/main.cc", "int main() { return 42; }  // changed\n"));
  CTXKIT_RETURN_IF_ERROR(DemoWriteFile(tree + "/README.md", "# Project\n"));
  std::filesystem::remove(tree + "/notes.txt", ec);
  Result<WatchReport> scan = ScanWatches(**store);
  if (!scan.ok()) return scan.status().WithContext("watch scan");
  if (scan->updated != 1 || scan->unchanged != 1 || scan->deleted != 1) {
    return Status::Internal(
        "watch scan: expected 1 updated, 1 unchanged, 1 "
        "deleted; got " +
        Counts(*scan));
  }
  say("   edit main.cc, rewrite README.md with the same bytes, delete "
      "notes.txt, then watch scan:");
  say("   " + Counts(*scan) + " (identical content is not a new version)");

  Result<View> view = (*store)->OpenView("", "");
  if (!view.ok()) return view.status();
  const std::string key = "file:" + entry->path + "/src/main.cc";
  Result<std::vector<VersionMeta>> versions = view->Versions(key);
  if (!versions.ok()) return versions.status();
  Result<std::vector<VersionMeta>> gone =
      view->Versions("file:" + entry->path + "/notes.txt");
  if (!gone.ok()) return gone.status();
  if (versions->size() != 2 || gone->empty() ||
      gone->back().state != VersionState::kMissing) {
    return Status::Internal("watched files: unexpected version history");
  }
  say("   versions " + key + ": " + std::to_string(versions->size()) +
      "; notes.txt is '" + std::string(VersionStateName(gone->back().state)) +
      "' with its history kept");
  return Status::Ok();
}

}  // namespace ctxkit::cli
