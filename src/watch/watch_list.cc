#include "watch/watch_list.h"

#include <nlohmann/json.hpp>

#include "core/status_macros.h"
#include "os/file_util.h"
#include "os/filename.h"
#include "store/store_internals.h"
#include "text/json_parse.h"
#include "text/json_write.h"
#include "watch/watch_list_file.h"

namespace ctxkit::watch {

namespace {

constexpr char kKind[] = "watch";

storage::RecordPut PutOf(const WatchEntry& e, storage::RecordPut::When when) {
  nlohmann::json j = {{"path", e.path},
                      {"kind", e.directory ? "directory" : "file"},
                      {"added_unix_ns", e.added_unix_ns}};
  // Paths are bytes; invalid UTF-8 never reaches here (keys are checked),
  // but "replace" keeps dump() from throwing if it ever did.
  return {kKind, e.path, text::DumpJson(j), when};
}

Result<WatchEntry> EntryOf(const storage::StoredRecord& r) {
  nlohmann::json j = ctxkit::text::ParseJsonOrDiscarded(r.bytes);
  auto bad = [&] {
    return Status::Corruption("watch list entry " + r.name +
                              " is not one this build understands");
  };
  if (!j.is_object() || !j.contains("kind") || !j["kind"].is_string()) {
    return bad();
  }
  const std::string kind = j["kind"].get<std::string>();
  if (kind != "directory" && kind != "file") return bad();
  if (!r.name.starts_with('/')) return bad();
  WatchEntry e;
  e.path = r.name;
  e.directory = kind == "directory";
  if (j.contains("added_unix_ns") && j["added_unix_ns"].is_number_integer()) {
    e.added_unix_ns = j["added_unix_ns"].get<int64_t>();
  }
  return e;
}

}  // namespace

Result<std::vector<WatchEntry>> LoadWatchList(Store& store) {
  CTXKIT_RETURN_IF_ERROR(ImportLegacyWatchList(store));
  CTXKIT_ASSIGN_OR_RETURN(std::vector<storage::StoredRecord> records,
                          StoreInternals::ListRecords(store, kKind));
  std::vector<WatchEntry> out;
  out.reserve(records.size());
  for (const storage::StoredRecord& r : records) {
    CTXKIT_ASSIGN_OR_RETURN(WatchEntry e, EntryOf(r));
    out.push_back(std::move(e));
  }
  return out;  // Records come sorted by name, the path.
}

Status AddToWatchList(Store& store, const WatchEntry& entry) {
  storage::RecordWrite write;
  write.puts.push_back(PutOf(entry, storage::RecordPut::When::kCreate));
  Status s = StoreInternals::WriteRecords(store, std::move(write));
  if (s.code() == StatusCode::kFailedPrecondition) {
    return Status::AlreadyExists(entry.path + " is already watched");
  }
  return s;
}

Status RemoveFromWatchList(Store& store, const std::string& path) {
  storage::RecordWrite write;
  write.removes.push_back({kKind, path});
  return StoreInternals::WriteRecords(store, std::move(write));
}

Status ImportLegacyWatchList(Store& store) {
  const std::string dir = storage::WatchDir(store.home());
  if (store.read_only() ||
      !storage::PathExists(dir + "/" + storage::kWatchListFileName)) {
    return Status::Ok();
  }
  CTXKIT_ASSIGN_OR_RETURN(std::vector<WatchEntry> legacy,
                          LoadWatchListFile(dir));
  storage::RecordWrite write;
  for (const WatchEntry& e : legacy) {
    write.puts.push_back(PutOf(e, storage::RecordPut::When::kIfAbsent));
  }
  // Writing again after a crash before the rename changes nothing.
  if (!write.puts.empty()) {
    CTXKIT_RETURN_IF_ERROR(StoreInternals::WriteRecords(store, write));
  }
  return storage::MarkImported(dir + "/" + storage::kWatchListFileName);
}

}  // namespace ctxkit::watch
