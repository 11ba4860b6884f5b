#include "watch/watch_list_file.h"

#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>

#include "core/status_macros.h"
#include "os/file_util.h"
#include "os/filename.h"
#include "text/json_parse.h"

namespace ctxkit::watch {

namespace {

constexpr int kFormat = 1;

Status Bad(const std::string& path, std::string_view why) {
  return Status::Corruption(path + ": not a ctxkit watch list (" +
                            std::string(why) + ")");
}

}  // namespace

Result<std::string> WatchDir(const std::string& home) {
  std::string dir = storage::WatchDir(home);
  CTXKIT_RETURN_IF_ERROR(storage::MakeDirs(dir));
  return dir;
}

Result<std::vector<WatchEntry>> LoadWatchListFile(
    const std::string& watch_dir) {
  std::string path = watch_dir + "/" + storage::kWatchListFileName;
  std::vector<WatchEntry> entries;
  if (!storage::PathExists(path)) return entries;
  // The list is small (one entry per watched root); 16 MiB is a sanity cap.
  CTXKIT_ASSIGN_OR_RETURN(std::string text,
                          storage::ReadFileRange(path, 0, 16u << 20));
  nlohmann::json doc = ctxkit::text::ParseJsonOrDiscarded(text);
  if (doc.is_discarded() || !doc.is_object()) return Bad(path, "not JSON");
  auto format = doc.find("format");
  if (format == doc.end() || !format->is_number_integer()) {
    return Bad(path, "no format");
  }
  if (format->get<int>() != kFormat) {
    return Status::Corruption(path + ": watch list format " +
                              std::to_string(format->get<int>()) +
                              " is newer than this build understands");
  }
  auto list = doc.find("watches");
  if (list == doc.end() || !list->is_array()) return Bad(path, "no watches");
  for (const nlohmann::json& item : *list) {
    if (!item.is_object() || !item.contains("path") ||
        !item["path"].is_string() || !item.contains("kind") ||
        !item["kind"].is_string()) {
      return Bad(path, "malformed entry");
    }
    WatchEntry e;
    e.path = item["path"].get<std::string>();
    std::string kind = item["kind"].get<std::string>();
    if (kind != "directory" && kind != "file") return Bad(path, "bad kind");
    if (!e.path.starts_with('/')) return Bad(path, "relative path");
    e.directory = kind == "directory";
    if (item.contains("added_unix_ns") &&
        item["added_unix_ns"].is_number_integer()) {
      e.added_unix_ns = item["added_unix_ns"].get<int64_t>();
    }
    entries.push_back(std::move(e));
  }
  std::sort(
      entries.begin(), entries.end(),
      [](const WatchEntry& a, const WatchEntry& b) { return a.path < b.path; });
  return entries;
}

Status SaveWatchListFile(const std::string& watch_dir,
                         const std::vector<WatchEntry>& entries) {
  nlohmann::json list = nlohmann::json::array();
  for (const WatchEntry& e : entries) {
    list.push_back({{"path", e.path},
                    {"kind", e.directory ? "directory" : "file"},
                    {"added_unix_ns", e.added_unix_ns}});
  }
  nlohmann::json doc = {{"format", kFormat}, {"watches", std::move(list)}};
  // Paths are bytes; invalid UTF-8 never reaches here (keys are checked),
  // but "replace" keeps dump() from throwing if it ever did.
  std::string text =
      doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  return storage::AtomicWriteFile(
      watch_dir, watch_dir + "/" + storage::kWatchListFileName, text,
      /*sync=*/true);
}

}  // namespace ctxkit::watch
