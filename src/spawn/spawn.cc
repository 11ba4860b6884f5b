// Spawn: validate everything, pin the refs, write the manifest.

#include "ctxkit/spawn.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <random>
#include <string>
#include <unordered_set>
#include <vector>

#include "core/clock.h"
#include "core/encoding.h"
#include "core/status_macros.h"
#include "os/file_util.h"
#include "os/filename.h"
#include "spawn/manifest_store.h"
#include "spawn/pin_ref.h"
#include "spawn/store_identity.h"
#include "store/store_internals.h"

namespace ctxkit {

namespace {

// "<parent>.sub-<12 hex>": unique without coordination (48 random bits),
// and readable in listings as whose sub-agent it is.
std::string NewChildAgentId(const std::string& parent_agent) {
  std::random_device rd;
  uint64_t bits = (static_cast<uint64_t>(rd()) << 32) ^ rd();
  std::string hex;
  static constexpr char kDigits[] = "0123456789abcdef";
  for (int i = 0; i < 12; ++i) {
    hex.push_back(kDigits[bits & 0xf]);
    bits >>= 4;
  }
  if (parent_agent.empty()) return "sub-" + hex;
  return parent_agent.substr(0, 40) + ".sub-" + hex;
}

Status CheckInputs(const View& parent, std::string_view prompt,
                   const SpawnContext& context, const SpawnOptions& options) {
  if (prompt.size() > kMaxPromptBytes) {
    return Status::InvalidArgument("the prompt is larger than " +
                                   std::to_string(kMaxPromptBytes) + " bytes");
  }
  if (!core::IsValidUtf8(prompt)) {
    return Status::InvalidArgument("the prompt is not valid UTF-8");
  }
  if (context.size() > kMaxContextRefs) {
    return Status::InvalidArgument("more than " +
                                   std::to_string(kMaxContextRefs) + " refs");
  }
  std::unordered_set<std::string_view> names;
  for (const auto& [name, ref] : context) {
    CTXKIT_RETURN_IF_ERROR(ValidateContextName(name));
    if (!names.insert(name).second) {
      return Status::InvalidArgument("context name '" + name +
                                     "' is given twice");
    }
  }
  if (!options.child_agent_id.empty()) {
    CTXKIT_RETURN_IF_ERROR(
        ValidateScopeId(options.child_agent_id).WithContext("child agent id"));
    if (options.child_agent_id == parent.agent_id()) {
      return Status::InvalidArgument(
          "the child agent id must differ from the parent's ('" +
          parent.agent_id() + "'): a sub-agent gets its own agent scope");
    }
  }
  if (!options.child_session_id.empty()) {
    CTXKIT_RETURN_IF_ERROR(ValidateScopeId(options.child_session_id)
                               .WithContext("child session id"));
  }
  CTXKIT_RETURN_IF_ERROR(
      ValidateKey(options.result_key).WithContext("result key"));
  return Status::Ok();
}

// The absolute manifest path and the directory its temp file goes in.
// A caller's path must name a file in an existing directory; the default
// lives under <home>/spawn/, named by the child id (which has no '/').
Result<std::string> ManifestPath(const std::string& home,
                                 const SpawnOptions& options,
                                 const std::string& child_agent) {
  if (options.manifest_path.empty()) {
    CTXKIT_RETURN_IF_ERROR(storage::MakeDirs(storage::SpawnDir(home)));
    return storage::SpawnManifestPath(home, child_agent);
  }
  if (options.manifest_path.find('\0') != std::string::npos) {
    return Status::InvalidArgument("manifest path contains NUL");
  }
  std::error_code ec;
  std::filesystem::path p =
      std::filesystem::absolute(options.manifest_path, ec);
  if (ec) {
    return Status::InvalidArgument("bad manifest path " +
                                   options.manifest_path + ": " + ec.message());
  }
  p = p.lexically_normal();
  if (!p.has_filename()) {
    return Status::InvalidArgument("manifest path " + options.manifest_path +
                                   " names a directory");
  }
  struct stat st;
  if (::stat(p.parent_path().c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return Status::NotFound("no directory " + p.parent_path().string() +
                            " for the manifest");
  }
  if (::stat(p.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
    return Status::InvalidArgument("manifest path " + p.string() +
                                   " exists and is not a regular file");
  }
  return p.string();
}

}  // namespace

Result<SpawnedAgent> Spawn(View& parent, std::string_view prompt,
                           const SpawnContext& context,
                           const SpawnOptions& options) {
  CTXKIT_RETURN_IF_ERROR(CheckInputs(parent, prompt, context, options));
  Manifest m;
  {
    CTXKIT_ASSIGN_OR_RETURN(m.store_home,
                            spawn::CanonicalHome(parent.store()->home()));
  }
  if (!core::IsValidUtf8(m.store_home)) {
    return Status::InvalidArgument("the store home " + m.store_home +
                                   " is not UTF-8 and cannot go in JSON");
  }
  m.prompt = std::string(prompt);
  m.parent_agent = parent.agent_id();
  m.parent_session = parent.session_id();
  m.child_agent = options.child_agent_id.empty()
                      ? NewChildAgentId(parent.agent_id())
                      : options.child_agent_id;
  m.child_session = options.child_session_id;
  m.result_key = options.result_key;
  m.created_unix_ns = core::NowUnixNanos();
  for (const auto& [name, ref] : context) {
    Result<Ref> pinned = spawn::PinForChild(parent, ref);
    if (!pinned.ok()) return pinned.status().WithContext("'" + name + "'");
    m.refs.push_back({name, std::move(*pinned)});
  }

  CTXKIT_ASSIGN_OR_RETURN(View child,
                          parent.SubAgent(m.child_agent, m.child_session));
  // A reused child id may already hold a result; CollectResult must not
  // mistake it for this run's.
  Result<ObjectMeta> prior = child.Stat(m.result_key, {"agent", 0});
  if (prior.ok()) {
    m.prior_result = PriorResult{prior->id, prior->version};
  } else if (!prior.status().IsNotFound()) {
    return prior.status();
  } else {
    // A removed result still has an object and versions; a revived one
    // continues them, so the newest version number is the baseline.
    Result<std::vector<VersionMeta>> history =
        child.Versions(m.result_key, {"agent", 0});
    Result<Ref> removed = child.RefOf(m.result_key, {"agent", 1});
    if (history.ok() && !history->empty() && removed.ok()) {
      m.prior_result = PriorResult{removed->id, history->back().version};
    }
  }

  CTXKIT_ASSIGN_OR_RETURN(
      std::string path,
      ManifestPath(parent.store()->home(), options, m.child_agent));
  const std::string dir = std::filesystem::path(path).parent_path().string();
  // Held before the manifest names them: gc keeps what a child may read.
  std::vector<Ref> named;
  for (const ManifestRef& r : m.refs) named.push_back(r.ref);
  CTXKIT_RETURN_IF_ERROR(
      StoreInternals::Hold(*parent.store(), "spawn:" + m.child_agent, named));
  CTXKIT_RETURN_IF_ERROR(storage::AtomicWriteFile(dir, path, FormatManifest(m),
                                                  /*sync=*/true));
  // The store's record last: what every home of the store reads (gc's
  // recording, ListManifests). Without it the call fails, and takes back
  // the file it wrote.
  Status kept = spawn::PutManifest(*parent.store(), m);
  if (!kept.ok()) {
    ::unlink(path.c_str());
    return kept;
  }
  return SpawnedAgent{std::move(child), std::move(m), std::move(path)};
}

}  // namespace ctxkit
