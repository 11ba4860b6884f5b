#include "os/filename.h"

namespace ctxkit::storage {

namespace {

std::string Join(std::string_view dir, std::string_view name) {
  std::string out(dir);
  out += '/';
  out += name;
  return out;
}

}  // namespace

std::string DatabasePath(std::string_view home) {
  return Join(home, "ctxkit.db");
}
std::string BlobDir(std::string_view home) { return Join(home, "blobs"); }
std::string SequencePath(std::string_view home) {
  return Join(home, "ctxkit.seq");
}
std::string SpillDir(std::string_view home) { return Join(home, "spill"); }

std::string SessionsDbPath(std::string_view home) {
  return Join(home, "sessions.db");
}
std::string IndexDbPath(std::string_view home) {
  return Join(home, "index.db");
}
std::string SummaryCacheDir(std::string_view home) {
  return Join(home, "cache/summaries");
}

std::string NotesIndexDir(std::string_view home) { return Join(home, "notes"); }
std::string NotesIndexPath(std::string_view home, std::string_view root_hash) {
  return Join(NotesIndexDir(home), std::string(root_hash) + ".db");
}
std::string ExecutionLogPath(std::string_view home) {
  return Join(home, "logs/execution.jsonl");
}

std::string WatchDir(std::string_view home) { return Join(home, "watch"); }
std::string WatchListPath(std::string_view home) {
  return Join(WatchDir(home), kWatchListFileName);
}
std::string WatchListLockPath(std::string_view home) {
  return Join(WatchDir(home), "watches.lock");
}
std::string WatchRunLockPath(std::string_view home) {
  return Join(WatchDir(home), "run.lock");
}

std::string SpawnDir(std::string_view home) { return Join(home, "spawn"); }
std::string SpawnManifestPath(std::string_view home,
                              std::string_view child_agent) {
  return Join(SpawnDir(home), std::string(child_agent) + ".json");
}

std::string HomeNotesRoot(std::string_view home) {
  return Join(home, "notes-root");
}
std::string HomeToolOutputDir(std::string_view home) {
  return Join(home, "tool-outputs");
}

std::string NotesLockPath(std::string_view notes_root) {
  return Join(notes_root, ".ctxkit-notes.lock");
}
std::string ToolOutputLockPath(std::string_view tool_output_dir) {
  return Join(tool_output_dir, ".ctxkit-capture.lock");
}

}  // namespace ctxkit::storage
