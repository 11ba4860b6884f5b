// Spawning sub-agents with refs: the parent passes names bound to refs, not
// copies; the child resolves them from the same store when it needs them
// and hands back a `result` variable whose ref the parent collects.
//
//   // Parent
//   auto spawned = ctxkit::Spawn(parent, "Analyze the dataset",
//                                {{"data", *parent.RefOf("large-dataset")}});
//   // ... run the child (this process, or another one given
//   //     spawned->manifest_path) ...
//   auto result = ctxkit::CollectResult(parent, spawned->manifest);
//   auto text = parent.Resolve(*result);
//
//   // Child, in another process
//   auto manifest = ctxkit::LoadManifest(getenv("CTXKIT_MANIFEST"));
//   auto store = ctxkit::Store::Open({.home = manifest->store_home});
//   auto child = ctxkit::OpenChildView(**store, *manifest);
//   auto data = ctxkit::ResolveContextRef(*child, *manifest, "data");
//   ctxkit::SetResult(*child, *manifest, "42 anomalies");
//
// The manifest. Spawn writes a small JSON document (docs/spawn.md gives the
// format) naming the store, the prompt, the parent's and the child's
// identities, where the result goes, and each passed ref: name -> id,
// version, type, size, scope, key. It never holds a value, so its size
// depends on the number of refs, not on what they name (50 refs to 1 MiB
// values take well under 10 KiB). Spawn keeps it twice: in the store's
// engine, as the record of the child agent id, which every home of the
// store reads on any machine (LoadManifest(Store&), ListManifests; gc
// keeps what each names), and as a file for a child process to read
// (CTXKIT_MANIFEST), written atomically (temp file, fsync, rename,
// directory fsync): a reader sees the whole file or none.
//
// Capabilities. A ref is the capability to read one object. Spawn passes
// only refs the parent itself can resolve through its view (NotFound
// otherwise), and pins each to one version: a dynamic ref becomes a static
// ref to the version that is latest at spawn time, so the child reads
// exactly what the parent passed, even if the parent sets newer versions
// meanwhile. Session-only values (persist=false) live in one process and
// cannot be passed (FailedPrecondition). The child gets its own agent
// scope and the global scope; it does not see the parent's agent or
// session scopes by name, and no other agent sees the child's by name.
//
// Failure. Every input is validated before anything is written; Spawn
// writes no object (it holds the passed versions and writes the manifest),
// and a failed call leaves no manifest behind, in the store or as a file.
//
// Thread safety: the functions are thread-safe as far as the Store and View
// they are given are (both are); Manifest is a plain value.

#ifndef CTXKIT_SPAWN_H_
#define CTXKIT_SPAWN_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ctxkit/ref.h"
#include "ctxkit/status.h"
#include "ctxkit/store.h"

namespace ctxkit {

// The manifest format version this build writes and the newest it reads.
inline constexpr int kManifestFormatVersion = 1;
// The "format" marker every manifest carries.
inline constexpr std::string_view kManifestFormat = "ctxkit-spawn-manifest";

// Limits on what a manifest may hold (InvalidArgument beyond them).
inline constexpr size_t kMaxContextRefs = 10000;
inline constexpr size_t kMaxPromptBytes = 1u << 20;
// LoadManifest refuses larger files (Corruption) without parsing them.
inline constexpr uint64_t kMaxManifestBytes = 16u << 20;

// The names a parent binds refs to, in order. A vector rather than a map so
// that a duplicate name is reported, not silently dropped.
using SpawnContext = std::vector<std::pair<std::string, Ref>>;

struct SpawnOptions {
  // The child's agent id (1-64 bytes of [A-Za-z0-9._-], not the parent's).
  // Empty: a fresh id, "<parent agent>.sub-<12 hex>" ("sub-<12 hex>" for a
  // parent without an agent; the parent part cut to 40 bytes).
  std::string child_agent_id;
  // The child's session id; empty: the child has no session scope.
  std::string child_session_id;
  // Where the manifest goes: a file path (relative to the working
  // directory) whose directory exists; an existing file there is replaced.
  // Empty: <store home>/spawn/<child agent id>.json (directory created).
  std::string manifest_path;
  // The key of the result variable in the child's agent scope.
  std::string result_key = "result";
};

// One passed ref: a name the child knows it by, and a static ref.
struct ManifestRef {
  std::string name;
  Ref ref;
};

// The object that held the result key in the child's agent scope when the
// child was spawned (a reused child id): a result must be newer than it.
struct PriorResult {
  std::string id;
  uint64_t version = 0;
};

// Everything a manifest file holds (docs/spawn.md: the JSON form).
struct Manifest {
  int format_version = kManifestFormatVersion;
  // The canonical absolute path of the store the refs belong to.
  std::string store_home;
  std::string prompt;
  std::string parent_agent;
  std::string parent_session;
  std::string child_agent;
  std::string child_session;
  std::string result_key = "result";
  std::optional<PriorResult> prior_result;
  int64_t created_unix_ns = 0;
  // In the order they were passed; names unique, refs static.
  std::vector<ManifestRef> refs;

  // The entry called `name`, or nullptr.
  const ManifestRef* Find(std::string_view name) const;
};

// What Spawn returns: the child's view (for a child run in this process),
// the manifest it wrote, and the manifest's absolute path.
struct SpawnedAgent {
  View view;
  Manifest manifest;
  std::string manifest_path;
};

// Validates a context name: an ASCII identifier ([A-Za-z_][A-Za-z0-9_]*,
// 1-64 bytes) that is not a Python keyword, so that every face (shell
// variables, Python, MCP) can bind it as is. InvalidArgument otherwise.
Status ValidateContextName(std::string_view name);

// Creates a sub-agent of `parent` and writes its manifest.
//
// Errors (nothing written on any of them):
//   InvalidArgument   bad name, duplicate name, bad child id (or the
//                     parent's own), bad result key, a prompt over
//                     kMaxPromptBytes or not UTF-8, more than
//                     kMaxContextRefs refs, a static ref whose type or size
//                     disagrees with the version it names, a manifest path
//                     that is a directory;
//   NotFound          a ref the parent cannot resolve (removed, renamed,
//                     another store's), the manifest path's directory;
//   FailedPrecondition  a session-only ref;
//   IoError           the manifest file cannot be written;
//   PermissionDenied  a read-only store.
Result<SpawnedAgent> Spawn(View& parent, std::string_view prompt,
                           const SpawnContext& context,
                           const SpawnOptions& options = {});

// The manifest as JSON text (one line, then a newline).
std::string FormatManifest(const Manifest& manifest);

// Parses and validates a manifest. Corruption when the text is not JSON or
// a field is missing, of the wrong type, or inconsistent (a ref whose
// fields disagree with its wire form, a dynamic ref, a bad id or name, a
// duplicate name); InvalidArgument when it is not a ctxkit manifest or its
// version is newer than kManifestFormatVersion.
Result<Manifest> ParseManifest(std::string_view text);

// Reads and parses the manifest file at `path`. NotFound when it does not
// exist; Corruption when it is larger than kMaxManifestBytes; otherwise as
// ParseManifest.
Result<Manifest> LoadManifest(const std::string& path);

// The manifest the store keeps for child agent `child_agent` (the last
// Spawn of that id, from any home of the store). NotFound when there is
// none; Corruption when the record is not a manifest. Manifest files an
// earlier build left under <home>/spawn are imported first, once per home
// (they stay where they are: children started before read them).
Result<Manifest> LoadManifest(Store& store, std::string_view child_agent);

// Every manifest the store keeps, ordered by child agent id, after the
// same import.
Result<std::vector<Manifest>> ListManifests(Store& store);

// The child's view: agent scope `child_agent`, session `child_session`.
// FailedPrecondition when `store` is not the store the manifest names.
Result<View> OpenChildView(Store& store, const Manifest& manifest);

// The value of the ref called `name`, exactly the version the parent
// passed. NotFound when the manifest has no such name (the message lists
// the names it has) or the version is gone; Corruption when the bytes read
// differ in size from the manifest's record.
Result<std::string> ResolveContextRef(View& child, const Manifest& manifest,
                                      std::string_view name);

// Stores `value` as the child's result: key manifest.result_key in the
// child's agent scope, durable, of `type`. Returns a static ref to the
// version written. PermissionDenied when `child` is not the manifest's
// child agent; FailedPrecondition when it is another store; otherwise as
// View::Set (InvalidArgument for invalid JSON with type kJson).
Result<Ref> SetResult(View& child, const Manifest& manifest,
                      std::string_view value,
                      ValueType type = ValueType::kResult);

// The parent's side: a static ref to the child's latest result, which the
// parent resolves as it would any ref. Reads only metadata. NotFound when
// the child has written none since it was spawned (a value at the key that
// predates the spawn does not count); PermissionDenied when `parent` is not
// the manifest's parent (agent and session); FailedPrecondition when it is
// another store.
Result<Ref> CollectResult(View& parent, const Manifest& manifest);

}  // namespace ctxkit

#endif  // CTXKIT_SPAWN_H_
