#include "store/store_impl.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "core/clock.h"
#include "core/encoding.h"
#include "core/hmac.h"
#include "core/sha256.h"
#include "core/status_macros.h"
#include "ctxkit/target.h"
#include "ctxkit/tokenizer.h"
#include "os/file_util.h"
#include "os/filename.h"
#include "os/posix_io.h"
#include "postgres/pg_backend.h"
#include "sqlite/sqlite_backend.h"
#include "text/json_parse.h"

namespace ctxkit {
namespace {

constexpr size_t kMaxListLimit = 10000;
// Bookkeeping caches outside the memory ceiling are bounded by entry count
// (see docs/storage-format.md, "Memory").
constexpr size_t kMaxCachedRecords = 16384;

// The record cache's key: "<scope>\n<key>" ('\n' never occurs in either).
void AppendNameKey(const Scope& scope, std::string_view key, std::string* out) {
  switch (scope.kind) {
    case Scope::Kind::kGlobal:
      *out += "global";
      break;
    case Scope::Kind::kAgent:
      *out += "agent:";
      *out += scope.id;
      break;
    case Scope::Kind::kSession:
      *out += "session:";
      *out += scope.id;
      break;
  }
  *out += '\n';
  *out += key;
}

// A ref to version `version` of the object `meta` describes (0: the
// dynamic ref, which resolves the latest): StaticRefOf's fields with
// another version.
Ref RefAtVersion(const ObjectMeta& meta, uint64_t version) {
  Ref ref = StaticRefOf(meta);
  ref.version = version;
  return ref;
}

std::string NameKey(const Scope& scope, std::string_view key) {
  std::string name;
  AppendNameKey(scope, key, &name);
  return name;
}

// The one gate every face's values pass: a json value is parsed as every
// reader of it will (text::CheckJson: at most 512 levels deep, no raw
// NUL), so the store never holds JSON that a face could not read back.
Status ValidateValue(std::string_view value, ValueType type) {
  if (type == ValueType::kJson) {
    return text::CheckJson(value, "the value (type json)");
  }
  return Status::Ok();
}

// The type of an object View::Append creates: the options' type when it is
// appendable, else a stream (so the default options make streams).
ValueType AppendType(ValueType requested) {
  return IsAppendableType(requested) ? requested : ValueType::kStream;
}

std::vector<std::string> SortedUnique(std::vector<std::string> tags) {
  std::sort(tags.begin(), tags.end());
  tags.erase(std::unique(tags.begin(), tags.end()), tags.end());
  return tags;
}

std::string EncodeCursor(const std::string& key, const std::string& scope) {
  return core::ToHex(key) + "." + scope;
}

Result<std::pair<std::string, std::string>> DecodeCursor(
    std::string_view cursor) {
  auto dot = cursor.find('.');
  if (dot != std::string_view::npos) {
    auto key = core::FromHex(cursor.substr(0, dot));
    if (key) return std::make_pair(*key, std::string(cursor.substr(dot + 1)));
  }
  return Status::InvalidArgument("bad list cursor");
}

}  // namespace

StoreImpl::StoreImpl(Options options, std::unique_ptr<storage::Backend> backend,
                     std::string instance_tag,
                     std::unique_ptr<RefTagger> tagger)
    : options_(std::move(options)),
      backend_(std::move(backend)),
      instance_tag_(std::move(instance_tag)),
      tagger_(std::move(tagger)),
      memory_(options_.memory_ceiling_bytes, options_.spill_threshold_bytes),
      session_engine_(std::make_unique<storage::MemoryBackend>(
          storage::MemoryBackendOptions{&memory_,
                                        options_.spill_threshold_bytes})) {}

// The durable engine `options` name; settles options->read_only for the
// embedded one (a store this process may not write opens read-only).
Result<std::unique_ptr<storage::Backend>> StoreImpl::OpenBackend(
    Options* options) {
  if (!options->store_url.empty()) {
    storage::PostgresOptions pg;
    pg.url = options->store_url;
    pg.read_only = options->read_only;
    pg.durability = options->durability;
    CTXKIT_ASSIGN_OR_RETURN(std::unique_ptr<storage::Backend> backend,
                            storage::OpenPostgresBackend(pg));
    // The home holds only this machine's caches (index.db, summaries, the
    // spill file): made once the store is known to exist, with its
    // parents, as the embedded engine makes its own; an IoError when it
    // cannot be (a file in the way).
    CTXKIT_RETURN_IF_ERROR(storage::MakeDirs(options->home));
    return backend;
  }
  if (!options->read_only) {
    options->read_only =
        !storage::MayWrite(options->home) ||
        !storage::MayWrite(storage::DatabasePath(options->home));
  }
  storage::SqliteOptions sqlite;
  sqlite.home = options->home;
  sqlite.read_only = options->read_only;
  sqlite.durability = options->durability;
  sqlite.inline_max_bytes = options->inline_max_bytes;
  sqlite.busy_timeout_ms = options->busy_timeout_ms;
  return storage::OpenSqliteBackend(sqlite);
}

Result<std::unique_ptr<StoreImpl>> StoreImpl::Open(const Options& in) {
  Options options = in;
  if (in.home.empty()) {
    return Status::InvalidArgument(
        "Options::home is empty: name the store directory (ResolveHome in "
        "ctxkit/environment.h gives the CLI's default)");
  }
  CTXKIT_ASSIGN_OR_RETURN(options.home, AbsoluteHome(in.home));
  if (options.memory_ceiling_bytes == 0) {
    return Status::InvalidArgument("memory ceiling must be positive");
  }
  std::unique_ptr<storage::Backend> backend;
  CTXKIT_ASSIGN_OR_RETURN(backend, OpenBackend(&options));
  // The instance tag marks refs to this instance's session-only values; it
  // only needs to differ between instances alive at the same time. From
  // getrandom(2): std::random_device probes the CPU first, and each CPUID
  // costs 10-25 us in a virtual machine, on every process start.
  CTXKIT_ASSIGN_OR_RETURN(std::string noise, core::SecureRandomBytes(8));
  uint64_t bits = 0;
  std::memcpy(&bits, noise.data(), sizeof(bits));
  std::string tag = core::ToBase36(bits % 60466176);
  std::unique_ptr<RefTagger> tagger;
  Result<std::string> secret = backend->RefSecret();
  if (secret.ok()) {
    tagger = std::make_unique<RefTagger>(*secret);
  } else if (!secret.status().IsNotFound()) {
    return secret.status();
  }
  std::unique_ptr<StoreImpl> impl(new StoreImpl(
      options, std::move(backend), std::move(tag), std::move(tagger)));
  CTXKIT_RETURN_IF_ERROR(
      impl->memory_.Init(options.read_only ? std::string(P_tmpdir)
                                           : storage::SpillDir(options.home)));
  return impl;
}

// ---- Scopes -----------------------------------------------------------

Result<Scope> StoreImpl::WriteScope(const ViewIdentity& view,
                                    const ScopeName& name) const {
  return ResolveScopeName(name, view.agent, view.session);
}

Result<StoreImpl::ScopeList> StoreImpl::LookupScopes(
    const ViewIdentity& view, const ScopeName& name) const {
  ScopeList out;
  auto add = [&out](Scope::Kind kind, std::string_view id) {
    out.items[out.size].kind = kind;
    out.items[out.size].id = id;
    ++out.size;
  };
  if (name.empty()) {
    if (!view.session.empty()) add(Scope::Kind::kSession, view.session);
    if (!view.agent.empty()) add(Scope::Kind::kAgent, view.agent);
    add(Scope::Kind::kGlobal, {});
    return out;
  }
  CTXKIT_ASSIGN_OR_RETURN(out.items[0],
                          ResolveScopeName(name, view.agent, view.session));
  out.size = 1;
  return out;
}

// ---- Record caches ----------------------------------------------------

void StoreImpl::ApplyChangeCounterLocked(const Result<uint64_t>& counter) {
  if (!counter.ok() || *counter != records_counter_) {
    records_.clear();
    ref_memo_.clear();
    records_counter_ = counter.ok() ? *counter : 0;
  }
}

void StoreImpl::SyncRecordCache() {
  Result<uint64_t> counter = backend_->ChangeCounter();
  core::MutexLock lock(&mu_);
  ApplyChangeCounterLocked(counter);
}

void StoreImpl::Remember(const storage::ObjectRecord& record) {
  ref_memo_.clear();
  if (records_.size() >= kMaxCachedRecords) records_.clear();
  auto [it, inserted] =
      records_.try_emplace(NameKey(record.scope, record.key), record);
  // Concurrent writers in this process may finish out of order: keep the
  // newest record of an object.
  if (!inserted && (!it->second || record.id != it->second->id ||
                    record.latest_version >= it->second->latest_version)) {
    it->second = record;
  }
}

void StoreImpl::Forget(const Scope& scope, std::string_view key) {
  core::MutexLock lock(&mu_);
  records_.erase(NameKey(scope, key));
  ref_memo_.clear();
}

void StoreImpl::Remember(const storage::VersionRecord& record) {
  if (versions_.size() >= kMaxCachedRecords) versions_.clear();
  versions_[{record.object_id, record.version}] = record;
}

Result<storage::ObjectRecord> StoreImpl::FindDurable(const Scope& scope,
                                                     std::string_view key) {
  std::string name = NameKey(scope, key);
  {
    core::MutexLock lock(&mu_);
    auto it = records_.find(name);
    if (it != records_.end()) {
      if (it->second) return *it->second;
      return KeyNotFound(key, scope.ToString());
    }
  }
  Result<storage::ObjectRecord> record = backend_->FindObject(scope, key);
  core::MutexLock lock(&mu_);
  if (record.ok()) {
    Remember(*record);
  } else if (record.status().IsNotFound()) {
    if (records_.size() >= kMaxCachedRecords) records_.clear();
    records_.try_emplace(std::move(name), std::nullopt);
  }
  return record;
}

Result<storage::ObjectRecord> StoreImpl::DurableObject(const Scope& scope,
                                                       std::string_view key,
                                                       int64_t id) {
  // A ref names its object's scope and key: the record cache answers when
  // they are right (another object there, or none, asks the database).
  SyncRecordCache();
  {
    core::MutexLock lock(&mu_);
    auto it = records_.find(NameKey(scope, key));
    if (it != records_.end() && it->second && it->second->id == id) {
      return *it->second;
    }
  }
  Result<storage::ObjectRecord> record = backend_->GetObject(id);
  if (record.ok() && record->scope == scope && record->key == key) {
    core::MutexLock lock(&mu_);
    Remember(*record);
  }
  return record;
}

Result<storage::VersionRecord> StoreImpl::DurableVersion(int64_t id,
                                                         uint64_t version) {
  {
    core::MutexLock lock(&mu_);
    auto it = versions_.find({id, version});
    if (it != versions_.end()) return it->second;
  }
  CTXKIT_ASSIGN_OR_RETURN(storage::VersionRecord record,
                          backend_->GetVersion(id, version));
  core::MutexLock lock(&mu_);
  Remember(record);
  return record;
}

// ---- Lookup -----------------------------------------------------------

Result<StoreImpl::Located> StoreImpl::Locate(const ViewIdentity& view,
                                             std::string_view key,
                                             const ScopeName& scope_name,
                                             bool include_removed) {
  CTXKIT_RETURN_IF_ERROR(ValidateKey(key));
  CTXKIT_ASSIGN_OR_RETURN(ScopeList scopes, LookupScopes(view, scope_name));
  // Fetch every scope the caches cannot answer in one round trip, recording
  // absences too, then decide in priority order from the caches. The cache
  // is checked against the change counter in that same round trip; only a
  // lookup the cache answers whole checks it on its own.
  auto unknown_scopes = [&] {
    std::vector<Scope> unknown;
    core::MutexLock lock(&mu_);
    for (const Scope& scope : scopes) {
      if (records_.find(NameKey(scope, key)) == records_.end()) {
        unknown.push_back(scope);
      }
    }
    return unknown;
  };
  std::vector<Scope> unknown = unknown_scopes();
  if (unknown.empty()) {
    SyncRecordCache();
    unknown = unknown_scopes();
  }
  if (!unknown.empty()) {
    uint64_t counter = 0;
    CTXKIT_ASSIGN_OR_RETURN(
        std::vector<storage::ObjectRecord> found,
        backend_->FindObjectsCounted(key, unknown, &counter));
    core::MutexLock lock(&mu_);
    // A change elsewhere clears the records of the other scopes too; they
    // are asked for again below (FindDurable).
    ApplyChangeCounterLocked(counter);
    for (const Scope& scope : unknown) {
      auto it = std::find_if(found.begin(), found.end(),
                             [&](const auto& r) { return r.scope == scope; });
      if (it != found.end()) {
        Remember(*it);
      } else {
        if (records_.size() >= kMaxCachedRecords) records_.clear();
        records_.insert_or_assign(NameKey(scope, key), std::nullopt);
      }
    }
  }
  // In each scope a session-only value shadows a durable one.
  CTXKIT_ASSIGN_OR_RETURN(
      std::vector<storage::ObjectRecord> in_memory,
      session_engine_->FindObjects(key, {scopes.begin(), scopes.end()}));
  for (const Scope& scope : scopes) {
    auto mem = std::find_if(in_memory.begin(), in_memory.end(),
                            [&](const auto& r) { return r.scope == scope; });
    if (mem != in_memory.end() && (!mem->deleted || include_removed)) {
      return Located{session_engine_.get(), std::move(*mem)};
    }
    // Normally a cache hit; a miss (the cache was cleared meanwhile by
    // another process's commit) asks the database.
    Result<storage::ObjectRecord> record = FindDurable(scope, key);
    if (record.ok() && (!record->deleted || include_removed)) {
      return Located{backend_.get(), std::move(record).value()};
    }
    if (!record.ok() && !record.status().IsNotFound()) return record.status();
  }
  return NotFoundIn(scopes, key);
}

Result<StoreImpl::Target> StoreImpl::TargetOf(const Located& where,
                                              uint64_t version) {
  const storage::ObjectRecord& obj = where.record;
  if (version == 0) version = obj.latest_version;
  return TargetFrom(where, version,
                    InMemory(where.engine)
                        ? where.engine->GetVersion(obj.id, version)
                        : DurableVersion(obj.id, version));
}

Result<StoreImpl::Target> StoreImpl::TargetFrom(
    const Located& where, uint64_t version, Result<storage::VersionRecord> v) {
  const storage::ObjectRecord& obj = where.record;
  if (!v.ok()) {
    if (v.status().IsNotFound()) {
      return Status::NotFound("'" + obj.key + "' has no version " +
                              std::to_string(version));
    }
    return v.status();
  }
  if (v->state != VersionState::kPresent) {
    return Status::NotFound("version " + std::to_string(version) + " of '" +
                            obj.key + "' is a tombstone");
  }
  Target target;
  target.engine = where.engine;
  target.record = std::move(v).value();
  target.version = version;
  target.size_bytes = target.record.size_bytes;
  target.type = target.record.type;
  return target;
}

Result<StoreImpl::Target> StoreImpl::TargetOfRef(const ViewIdentity& view,
                                                 const Ref& ref) {
  CTXKIT_ASSIGN_OR_RETURN(Located where, LocateRef(view, ref));
  CTXKIT_ASSIGN_OR_RETURN(Target target, TargetOf(where, ref.version));
  CTXKIT_RETURN_IF_ERROR(CheckPinnedFields(ref, target));
  return target;
}

bool StoreImpl::MayRead(const ViewIdentity& view, const Ref& ref,
                        const storage::ObjectRecord& record) const {
  const Scope& scope = record.scope;
  const bool own =
      scope.is_global() ||
      (scope.kind == Scope::Kind::kAgent && scope.id == view.agent) ||
      (scope.kind == Scope::Kind::kSession && scope.id == view.session);
  if (own) return true;
  return tagger_ != nullptr && ref.scope == scope && tagger_->Verify(ref);
}

Status StoreImpl::UnresolvedRef(const Ref& ref) {
  // Built from the ref alone: the same text whatever the store holds.
  return Status::NotFound(
      "ref to '" + ref.key +
      "' names nothing this view can read: no object has its id and key, "
      "or the object is outside this view's scopes and the ref's "
      "capability tag does not verify (pass the ref exactly as the store "
      "gave it; a session-only value ends with its session)");
}

Result<StoreImpl::Located> StoreImpl::LocateRef(const ViewIdentity& view,
                                                const Ref& ref) {
  Located where{backend_.get(), {}};
  std::string_view id_text = ref.id;
  if (ref.is_session_only()) {
    const size_t dot = ref.id.find('.');
    if (dot == std::string::npos ||
        ref.id.compare(1, dot - 1, instance_tag_) != 0) {
      return Status::Unavailable(
          "ref to '" + ref.key +
          "' names a session-only value held by another process or store "
          "instance; only that instance can resolve it (store the value with "
          "persist=true to share it)");
    }
    where.engine = session_engine_.get();
    id_text = id_text.substr(dot + 1);
  }
  auto id = core::FromBase36(id_text);
  if (!id || *id > static_cast<uint64_t>(INT64_MAX)) {
    return Status::InvalidArgument("bad object id in ref");
  }
  Result<storage::ObjectRecord> record =
      where.engine == backend_.get()
          ? DurableObject(ref.scope, ref.key, static_cast<int64_t>(*id))
          : where.engine->GetObject(static_cast<int64_t>(*id));
  if (!record.ok() && !record.status().IsNotFound()) return record.status();
  // No object, another key's (a ref of a different store whose id exists
  // here, or a guess) and one this view may not read get one answer, so a
  // refusal does not tell what exists.
  if (!record.ok() || record->key != ref.key || !MayRead(view, ref, *record)) {
    return UnresolvedRef(ref);
  }
  if (ref.version == 0 && record->deleted) {
    return Status::NotFound("'" + ref.key + "' was removed");
  }
  where.record = std::move(record).value();
  return where;
}

ObjectMeta StoreImpl::MetaOf(const Located& where) {
  return MetaOf(where.engine, where.record);
}

Ref StoreImpl::PinnedRef(const Located& where, const Target& target) {
  ObjectMeta meta = MetaOf(where);
  meta.type = target.type;
  meta.size_bytes = target.size_bytes;
  return RefAtVersion(meta, target.version);
}

Result<Ref> StoreImpl::Pin(const ViewIdentity& view, std::string_view key,
                           const LookupOptions& options) {
  CTXKIT_ASSIGN_OR_RETURN(Located where,
                          Locate(view, key, options.scope,
                                 /*include_removed=*/options.version != 0));
  CTXKIT_ASSIGN_OR_RETURN(Target target, TargetOf(where, options.version));
  return PinnedRef(where, target);
}

Status StoreImpl::CheckPinnedFields(const Ref& ref, const Target& target) {
  if (ref.is_static() &&
      (ref.type != target.type || ref.size_bytes != target.size_bytes)) {
    return Status::InvalidArgument(
        "ref " + FormatRef(ref) + " disagrees with the version it names (" +
        std::string(ValueTypeName(target.type)) + ", " +
        std::to_string(target.size_bytes) + " bytes)");
  }
  return Status::Ok();
}

Result<Ref> StoreImpl::Pin(const ViewIdentity& view, const Ref& ref) {
  CTXKIT_ASSIGN_OR_RETURN(Located where, LocateRef(view, ref));
  CTXKIT_ASSIGN_OR_RETURN(Target target, TargetOf(where, ref.version));
  CTXKIT_RETURN_IF_ERROR(CheckPinnedFields(ref, target));
  return PinnedRef(where, target);
}

Result<std::string> StoreImpl::ReadTarget(const Target& target, uint64_t offset,
                                          uint64_t length) {
  const storage::VersionRecord& v = target.record;
  if (InMemory(target.engine)) return target.engine->Read(v, offset, length);
  const bool whole = offset == 0 && length >= v.size_bytes;
  if (whole) {
    if (auto hit = memory_.Lookup({v.object_id, v.version})) return *hit;
  }
  CTXKIT_ASSIGN_OR_RETURN(std::string data, backend_->Read(v, offset, length));
  if (whole) {
    memory_.Insert({v.object_id, v.version},
                   std::make_shared<const std::string>(data));
  }
  return data;
}

// ---- Writes -----------------------------------------------------------

Result<storage::Backend*> StoreImpl::WriteEngine(const Scope& scope,
                                                 std::string_view key,
                                                 const SetOptions& options,
                                                 bool append) {
  if (!options.persist) return session_engine_.get();
  if (session_engine_->FindLive(scope, key)) {
    if (append) return session_engine_.get();
    return Status::FailedPrecondition(
        "'" + std::string(key) +
        "' holds a session-only value in this instance; remove it before "
        "storing a persistent value under the same key");
  }
  return backend_.get();
}

Result<StoreImpl::PreparedPut> StoreImpl::PreparePut(
    const ViewIdentity& view, std::string_view key, std::string_view value,
    const SetOptions& options) {
  CTXKIT_RETURN_IF_ERROR(ValidateKey(key));
  CTXKIT_RETURN_IF_ERROR(ValidateTags(options.tags));
  CTXKIT_RETURN_IF_ERROR(ValidateValue(value, options.type));
  CTXKIT_ASSIGN_OR_RETURN(Scope scope, WriteScope(view, options.scope));
  PreparedPut out;
  CTXKIT_ASSIGN_OR_RETURN(out.engine,
                          WriteEngine(scope, key, options, /*append=*/false));
  storage::PutRequest& req = out.request;
  req.scope = scope;
  req.key = std::string(key);
  req.type = options.type;
  req.content = value;
  req.hash = core::Sha256(value);
  req.tags = SortedUnique(options.tags);
  req.producer = options.producer;
  req.now_unix_ns = core::NowUnixNanos();
  req.expected_version = options.expected_version;
  req.owner = std::string(view.session);
  if (options.count_tokens || value.size() <= options_.count_tokens_max_bytes) {
    CTXKIT_ASSIGN_OR_RETURN(const Tokenizer* tokenizer, Tokenizer::Get());
    req.tokens = tokenizer->Count(value);
  }
  return out;
}

Ref StoreImpl::AfterPut(storage::Backend* engine,
                        const storage::WriteResult& written,
                        std::string_view value) {
  core::MutexLock lock(&mu_);
  if (InMemory(engine)) {
    ref_memo_.clear();
    return WrittenRef(engine, written);
  }
  Remember(written.object);
  Remember(written.version);
  // The value just written is the likeliest to be read next.
  if (value.size() <= options_.memory_ceiling_bytes / 4) {
    memory_.Insert({written.version.object_id, written.version.version},
                   std::make_shared<const std::string>(value));
  }
  return WrittenRef(engine, written);
}

Result<Ref> StoreImpl::Set(const ViewIdentity& view, std::string_view key,
                           std::string_view value, const SetOptions& options) {
  return PutValue(view, key, value, options, nullptr, "");
}

Result<Ref> StoreImpl::PutValue(const ViewIdentity& view, std::string_view key,
                                std::string_view value,
                                const SetOptions& options,
                                storage::Backend* engine,
                                const std::string& staged_file) {
  CTXKIT_ASSIGN_OR_RETURN(PreparedPut put,
                          PreparePut(view, key, value, options));
  if (put.engine == engine) put.request.staged_file = staged_file;
  Forget(put.request.scope, key);
  CTXKIT_ASSIGN_OR_RETURN(storage::WriteResult written,
                          put.engine->Put(put.request));
  return AfterPut(put.engine, written, value);
}

Result<Ref> StoreImpl::SetFile(const ViewIdentity& view, std::string_view key,
                               const std::string& path,
                               const SetOptions& options) {
  // Below this a file is read: staging costs a file, a sync and a rename.
  constexpr off_t kStageMinBytes = off_t{1} << 20;
  storage::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return storage::ErrnoStatus("open", path);
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return storage::ErrnoStatus("stat", path);
  // JSON is read, to be checked as Set checks it.
  if (S_ISREG(st.st_mode) && st.st_size >= kStageMinBytes &&
      options.type != ValueType::kJson) {
    CTXKIT_RETURN_IF_ERROR(ValidateKey(key));
    CTXKIT_RETURN_IF_ERROR(ValidateTags(options.tags));
    CTXKIT_ASSIGN_OR_RETURN(Scope scope, WriteScope(view, options.scope));
    CTXKIT_ASSIGN_OR_RETURN(storage::Backend * engine,
                            WriteEngine(scope, key, options, false));
    CTXKIT_ASSIGN_OR_RETURN(std::string staged, engine->StageFile(fd.get()));
    if (!staged.empty()) return SetStaged(view, key, engine, staged, options);
  }
  CTXKIT_ASSIGN_OR_RETURN(std::string value,
                          storage::ReadToEnd(fd.get(), path));
  return Set(view, key, value, options);
}

Result<Ref> StoreImpl::SetStaged(const ViewIdentity& view, std::string_view key,
                                 storage::Backend* engine,
                                 const std::string& staged_file,
                                 const SetOptions& options) {
  struct Drop {
    storage::Backend* engine;
    const std::string& path;
    ~Drop() { engine->DropStaged(path); }
  } drop{engine, staged_file};
  storage::UniqueFd fd(::open(staged_file.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) return storage::ErrnoStatus("open", staged_file);
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) {
    return storage::ErrnoStatus("stat", staged_file);
  }
  const size_t size = static_cast<size_t>(st.st_size);
  if (size == 0) return Set(view, key, "", options);  // The file emptied.
  // The staged file is this process's own (no other writer, and other
  // processes remove temp files only once their writer is gone), so the
  // mapping cannot lose its pages under it.
  void* addr = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd.get(), 0);
  if (addr == MAP_FAILED) return storage::ErrnoStatus("map", staged_file);
  struct Unmap {
    void* addr;
    size_t size;
    ~Unmap() { ::munmap(addr, size); }
  } unmap{addr, size};
  ::madvise(addr, size, MADV_SEQUENTIAL);
  return PutValue(view, key,
                  std::string_view(static_cast<const char*>(addr), size),
                  options, engine, staged_file);
}

Result<std::vector<Ref>> StoreImpl::SetMany(const ViewIdentity& view,
                                            std::span<const SetItem> items) {
  std::vector<storage::PutRequest> requests;
  requests.reserve(items.size());
  for (const SetItem& item : items) {
    if (!item.options.persist) {
      return Status::InvalidArgument(
          "SetMany writes durable values only; '" + std::string(item.key) +
          "' is session-only (persist=false): store it with Set");
    }
    CTXKIT_ASSIGN_OR_RETURN(
        PreparedPut put, PreparePut(view, item.key, item.value, item.options));
    requests.push_back(std::move(put.request));
  }
  CTXKIT_ASSIGN_OR_RETURN(std::vector<storage::WriteResult> written,
                          backend_->PutBatch(requests));
  std::vector<Ref> refs;
  refs.reserve(written.size());
  for (size_t i = 0; i < written.size(); ++i) {
    refs.push_back(AfterPut(backend_.get(), written[i], items[i].value));
  }
  return refs;
}

Result<Ref> StoreImpl::Append(const ViewIdentity& view, std::string_view key,
                              std::string_view bytes,
                              const SetOptions& options) {
  CTXKIT_RETURN_IF_ERROR(ValidateKey(key));
  CTXKIT_RETURN_IF_ERROR(ValidateTags(options.tags));
  CTXKIT_ASSIGN_OR_RETURN(Scope scope, WriteScope(view, options.scope));
  CTXKIT_ASSIGN_OR_RETURN(storage::Backend * engine,
                          WriteEngine(scope, key, options, /*append=*/true));
  storage::AppendRequest req;
  req.scope = scope;
  req.key = std::string(key);
  req.type = AppendType(options.type);
  req.expected_version = options.expected_version;
  req.bytes = bytes;
  req.hash = core::Sha256(bytes);
  req.tags = SortedUnique(options.tags);
  req.producer = options.producer;
  req.now_unix_ns = core::NowUnixNanos();
  req.owner = std::string(view.session);
  Forget(scope, key);
  CTXKIT_ASSIGN_OR_RETURN(storage::WriteResult written, engine->Append(req));
  core::MutexLock lock(&mu_);
  if (InMemory(engine)) {
    ref_memo_.clear();
  } else {
    Remember(written.object);
    Remember(written.version);
  }
  return WrittenRef(engine, written);
}

Status StoreImpl::Remove(const ViewIdentity& view, std::string_view key,
                         const LookupOptions& options, VersionState state) {
  CTXKIT_ASSIGN_OR_RETURN(Located where, Locate(view, key, options.scope));
  Forget(where.record.scope, key);
  CTXKIT_ASSIGN_OR_RETURN(
      storage::WriteResult written,
      where.engine->Remove(
          where.record.scope, key,
          view.agent.empty() ? "" : "agent:" + std::string(view.agent),
          core::NowUnixNanos(), state));
  core::MutexLock lock(&mu_);
  if (InMemory(where.engine)) {
    ref_memo_.clear();
  } else {
    Remember(written.object);
    Remember(written.version);
  }
  return Status::Ok();
}

Result<Ref> StoreImpl::Promote(const ViewIdentity& view, std::string_view key) {
  CTXKIT_RETURN_IF_ERROR(ValidateKey(key));
  if (view.agent.empty()) {
    return Status::InvalidArgument(
        "promote moves a value from the view's agent scope to global; this "
        "view has no agent");
  }
  Result<Located> where = Locate(view, key, "agent");
  if (!where.ok()) {
    if (where.status().IsNotFound() && Locate(view, key, "global").ok()) {
      return Status::FailedPrecondition("'" + std::string(key) +
                                        "' is already global");
    }
    return where.status();
  }
  if (InMemory(where->engine)) {
    return Status::FailedPrecondition(
        "'" + std::string(key) +
        "' is session-only; only persistent values can be promoted");
  }
  CTXKIT_ASSIGN_OR_RETURN(storage::ObjectRecord moved,
                          backend_->Move(where->record.id, Scope::Global()));
  core::MutexLock lock(&mu_);
  records_.erase(NameKey(where->record.scope, key));
  Remember(moved);  // Also clears the ref memo.
  return RefAtVersion(MetaOf(backend_.get(), moved), 0);
}

Result<Ref> StoreImpl::Rename(const ViewIdentity& view,
                              std::string_view from_key,
                              std::string_view to_key,
                              const LookupOptions& options) {
  CTXKIT_RETURN_IF_ERROR(ValidateKey(from_key).WithContext("from key"));
  CTXKIT_RETURN_IF_ERROR(ValidateKey(to_key).WithContext("to key"));
  CTXKIT_ASSIGN_OR_RETURN(Located where, Locate(view, from_key, options.scope));
  if (InMemory(where.engine)) {
    return Status::FailedPrecondition(
        "'" + std::string(from_key) +
        "' is session-only; only persistent values can be renamed");
  }
  const Scope scope = where.record.scope;
  if (session_engine_->FindLive(scope, to_key)) {
    return Status::FailedPrecondition("'" + std::string(to_key) +
                                      "' holds a session-only value in " +
                                      scope.ToString());
  }
  CTXKIT_ASSIGN_OR_RETURN(storage::ObjectRecord renamed,
                          backend_->Rename(where.record.id, to_key));
  core::MutexLock lock(&mu_);
  records_.erase(NameKey(scope, from_key));
  Remember(renamed);  // Replaces a cached absence of `to_key`; clears memos.
  return RefAtVersion(MetaOf(backend_.get(), renamed), 0);
}

Result<uint64_t> StoreImpl::CountTokens(const ViewIdentity& view,
                                        std::string_view key,
                                        const LookupOptions& options) {
  CTXKIT_ASSIGN_OR_RETURN(Located where,
                          Locate(view, key, options.scope,
                                 /*include_removed=*/options.version != 0));
  CTXKIT_ASSIGN_OR_RETURN(Target target, TargetOf(where, options.version));
  return CountTarget(target, where.record.scope, key);
}

Result<uint64_t> StoreImpl::CountTokens(const ViewIdentity& view,
                                        const Ref& ref) {
  CTXKIT_ASSIGN_OR_RETURN(Target target, TargetOfRef(view, ref));
  return CountTarget(target, ref.scope, ref.key);
}

Result<uint64_t> StoreImpl::CountTarget(const Target& target,
                                        const Scope& scope,
                                        std::string_view key) {
  if (target.record.tokens) return *target.record.tokens;
  // Counted by range so a huge value is never held whole.
  CTXKIT_ASSIGN_OR_RETURN(const Tokenizer* tokenizer, Tokenizer::Get());
  TokenCounter counter(*tokenizer);
  constexpr uint64_t kSlice = 1u << 20;
  for (uint64_t offset = 0; offset < target.size_bytes; offset += kSlice) {
    CTXKIT_ASSIGN_OR_RETURN(
        std::string slice,
        ReadTarget(target, offset,
                   std::min(kSlice, target.size_bytes - offset)));
    counter.Append(slice);
  }
  const uint64_t tokens = counter.Finish();
  const storage::VersionRecord& v = target.record;
  CTXKIT_RETURN_IF_ERROR(
      target.engine->RecordTokenCounts({{v.object_id, v.version, tokens}}));
  if (InMemory(target.engine)) return tokens;
  // Our own commit does not clear the caches: update them.
  core::MutexLock lock(&mu_);
  auto version = versions_.find({v.object_id, v.version});
  if (version != versions_.end()) version->second.tokens = tokens;
  auto record = records_.find(NameKey(scope, key));
  if (record != records_.end() && record->second &&
      record->second->id == v.object_id &&
      record->second->latest_version == v.version) {
    record->second->tokens = tokens;
  }
  return tokens;
}

Status StoreImpl::EndSession(std::string_view session_id) {
  CTXKIT_RETURN_IF_ERROR(ValidateScopeId(session_id));
  session_engine_->DropOwnedBy(session_id);
  core::MutexLock lock(&mu_);
  ref_memo_.clear();
  return Status::Ok();
}

// ---- Reads ------------------------------------------------------------

Result<std::string> StoreImpl::Get(const ViewIdentity& view,
                                   std::string_view key,
                                   const LookupOptions& options) {
  // A numbered version stays readable after the key is removed, as it does
  // through a static ref.
  CTXKIT_ASSIGN_OR_RETURN(Located where,
                          Locate(view, key, options.scope,
                                 /*include_removed=*/options.version != 0));
  CTXKIT_ASSIGN_OR_RETURN(Target target, TargetOf(where, options.version));
  return ReadTarget(target, 0, target.size_bytes);
}

std::optional<Result<std::string>> StoreImpl::TryGet(
    const ViewIdentity& view, std::string_view key,
    const LookupOptions& options) {
  if (options.version != 0) return std::nullopt;
  if (Status valid = ValidateKey(key); !valid.ok()) {
    return Result<std::string>(valid);
  }
  Result<ScopeList> scopes = LookupScopes(view, options.scope);
  if (!scopes.ok()) return Result<std::string>(scopes.status());
  std::optional<uint64_t> counter = backend_->TryChangeCounter();
  if (!counter) return std::nullopt;
  if (!mu_.TryLock()) return std::nullopt;

  ApplyChangeCounterLocked(*counter);
  std::optional<Result<Located>> where =
      CachedLocateLocked(*scopes, key, /*wait=*/false);
  std::optional<Result<Target>> target;
  if (where && !where->ok()) {
    target.emplace(where->status());
  } else if (where && !InMemory((*where)->engine)) {
    const storage::ObjectRecord& obj = (*where)->record;
    auto v = versions_.find({obj.id, obj.latest_version});
    if (v != versions_.end()) {
      target.emplace(TargetFrom(**where, obj.latest_version, v->second));
    }
  }
  mu_.Unlock();
  // Session-only values, and records not cached, are Get's to read.
  if (!target) return std::nullopt;
  if (!target->ok()) return Result<std::string>(target->status());
  const storage::VersionRecord& v = (*target)->record;
  std::shared_ptr<const std::string> hit =
      memory_.TryLookup({v.object_id, v.version});
  if (hit == nullptr || hit->size() != v.size_bytes) return std::nullopt;
  return Result<std::string>(*hit);
}

std::optional<Result<StoreImpl::Located>> StoreImpl::CachedLocateLocked(
    const ScopeList& scopes, std::string_view key, bool wait) {
  thread_local std::string name;
  for (const Scope& scope : scopes) {
    std::optional<storage::ObjectRecord> live;
    if (wait) {
      live = session_engine_->FindLive(scope, key);
    } else if (!session_engine_->TryFindLive(scope, key, &live)) {
      return std::nullopt;
    }
    if (live) return Result<Located>(Located{session_engine_.get(), *live});
    name.clear();
    AppendNameKey(scope, key, &name);
    auto it = records_.find(name);
    if (it == records_.end()) return std::nullopt;  // Unknown: ask the disk.
    if (!it->second || it->second->deleted) continue;
    return Result<Located>(Located{backend_.get(), *it->second});
  }
  return Result<Located>(NotFoundIn(scopes, key));
}

Status StoreImpl::NotFoundIn(const ScopeList& scopes, std::string_view key) {
  std::string where = scopes.size == 1 ? scopes.front().ToString()
                                       : std::string("any visible scope");
  return KeyNotFound(key, where);
}

std::optional<Result<Ref>> StoreImpl::CachedRefLocked(const ScopeList& scopes,
                                                      std::string_view key) {
  std::optional<Result<Located>> where =
      CachedLocateLocked(scopes, key, /*wait=*/true);
  if (!where) return std::nullopt;
  if (!where->ok()) return Result<Ref>(where->status());
  if (InMemory((*where)->engine)) {
    return Result<Ref>(
        RefAtVersion(MetaOf(session_engine_.get(), (*where)->record), 0));
  }
  const storage::ObjectRecord& r = (*where)->record;
  Ref ref;
  ref.id = core::ToBase36(static_cast<uint64_t>(r.id));
  ref.key = r.key;
  ref.scope = r.scope;
  ref.type = r.type;
  ref.size_bytes = r.size_bytes;
  ref.tag = TagFor(ref.id, ref.scope, ref.key);
  return Result<Ref>(std::move(ref));
}

Result<Ref> StoreImpl::RefOf(const ViewIdentity& view, std::string_view key,
                             const LookupOptions& options) {
  if (options.version == 0) {
    // Hot path: a memo hit costs one hash lookup and a Ref copy.
    thread_local std::string memo_key;
    memo_key.clear();
    memo_key.append(view.session).append(1, '\n');
    memo_key.append(view.agent).append(1, '\n');
    memo_key.append(options.scope).append(1, '\n');
    memo_key.append(key);
    Result<uint64_t> counter = backend_->ChangeCounter();
    {
      core::MutexLock lock(&mu_);
      ApplyChangeCounterLocked(counter);
      auto it = ref_memo_.find(memo_key);
      if (it != ref_memo_.end()) return it->second;
    }
    CTXKIT_RETURN_IF_ERROR(ValidateKey(key));
    CTXKIT_ASSIGN_OR_RETURN(ScopeList scopes,
                            LookupScopes(view, options.scope));
    core::MutexLock lock(&mu_);
    if (auto cached = CachedRefLocked(scopes, key)) {
      if (cached->ok()) {
        if (ref_memo_.size() >= kMaxCachedRecords) ref_memo_.clear();
        ref_memo_.emplace(memo_key, cached->value());
      }
      return std::move(*cached);
    }
  }
  CTXKIT_ASSIGN_OR_RETURN(Located where,
                          Locate(view, key, options.scope,
                                 /*include_removed=*/options.version != 0));
  ObjectMeta meta = MetaOf(where);
  if (options.version != 0) {
    CTXKIT_ASSIGN_OR_RETURN(Target target, TargetOf(where, options.version));
    meta.type = target.type;
    meta.size_bytes = target.size_bytes;
  }
  return RefAtVersion(meta, options.version);
}

Result<std::string> StoreImpl::ReadRange(const ViewIdentity& view,
                                         const Ref& ref, uint64_t offset,
                                         uint64_t length) {
  CTXKIT_ASSIGN_OR_RETURN(Target target, TargetOfRef(view, ref));
  return ReadTarget(target, offset, length);
}

Status StoreImpl::Scan(const ViewIdentity& view, const Ref& ref,
                       uint64_t offset, uint64_t length, uint64_t piece_bytes,
                       const std::function<bool(std::string_view)>& sink) {
  CTXKIT_ASSIGN_OR_RETURN(Target target, TargetOfRef(view, ref));
  if (offset >= target.size_bytes) return Status::Ok();
  piece_bytes = std::max<uint64_t>(piece_bytes, 1);
  const storage::VersionRecord& v = target.record;
  // A durable value already cached whole is scanned where it lies.
  std::shared_ptr<const std::string> cached =
      InMemory(target.engine) ? nullptr
                              : memory_.Lookup({v.object_id, v.version});
  if (cached == nullptr || cached->size() != v.size_bytes) {
    return target.engine->Scan(v, offset, length, piece_bytes, sink);
  }
  const uint64_t end = offset + std::min(length, target.size_bytes - offset);
  for (uint64_t pos = offset; pos < end;) {
    const uint64_t n = std::min(piece_bytes, end - pos);
    if (!sink(std::string_view(*cached).substr(pos, n))) break;
    pos += n;
  }
  return Status::Ok();
}

Result<ObjectMeta> StoreImpl::Stat(const ViewIdentity& view,
                                   std::string_view key,
                                   const LookupOptions& options) {
  CTXKIT_ASSIGN_OR_RETURN(Located where, Locate(view, key, options.scope));
  return MetaOf(where);
}

Result<ObjectMeta> StoreImpl::Stat(const ViewIdentity& view, const Ref& ref) {
  CTXKIT_ASSIGN_OR_RETURN(Located where, LocateRef(view, ref.Dynamic()));
  return MetaOf(where);
}

Result<std::vector<VersionMeta>> StoreImpl::Versions(
    const ViewIdentity& view, std::string_view key,
    const LookupOptions& options) {
  // Unlike Get, history is shown for removed objects too.
  CTXKIT_ASSIGN_OR_RETURN(Located where, Locate(view, key, options.scope,
                                                /*include_removed=*/true));
  return VersionsOf(where);
}

Result<std::vector<VersionMeta>> StoreImpl::Versions(const ViewIdentity& view,
                                                     const Ref& ref) {
  // A static ref reads the history of a removed object too.
  CTXKIT_ASSIGN_OR_RETURN(Located where, LocateRef(view, ref));
  return VersionsOf(where);
}

Result<std::vector<VersionMeta>> StoreImpl::VersionsOf(const Located& where) {
  CTXKIT_ASSIGN_OR_RETURN(std::vector<storage::VersionRecord> versions,
                          where.engine->ListVersions(where.record.id));
  std::vector<VersionMeta> out;
  out.reserve(versions.size());
  for (const auto& v : versions) out.push_back(VersionMetaOf(v));
  return out;
}

Result<ListPage> StoreImpl::List(const ViewIdentity& view,
                                 const ListFilter& filter) {
  CTXKIT_ASSIGN_OR_RETURN(ScopeList scopes, LookupScopes(view, filter.scope));
  const std::array<storage::Backend*, 2> engines = Engines();
  return ListIn(std::span<const Scope>(scopes.begin(), scopes.end()), filter,
                engines);
}

Result<ListPage> StoreImpl::ListEveryScope(const ListFilter& filter) {
  std::optional<Scope> one;
  if (!filter.scope.empty()) {
    CTXKIT_ASSIGN_OR_RETURN(one, Scope::Parse(filter.scope));
  }
  const std::array<storage::Backend*, 2> engines = Engines();
  return ListIn(
      one ? std::span<const Scope>(&*one, 1) : std::span<const Scope>(), filter,
      engines);
}

Result<ListPage> StoreImpl::ListSessionOnly(const ViewIdentity& view,
                                            const ListFilter& filter) {
  CTXKIT_ASSIGN_OR_RETURN(ScopeList scopes, LookupScopes(view, filter.scope));
  storage::Backend* engine = session_engine_.get();
  return ListIn(std::span<const Scope>(scopes.begin(), scopes.end()), filter,
                std::span<storage::Backend* const>(&engine, 1));
}

Result<ListPage> StoreImpl::ListIn(std::span<const Scope> scopes,
                                   const ListFilter& filter,
                                   std::span<storage::Backend* const> engines) {
  if (filter.limit == 0 || filter.limit > kMaxListLimit) {
    return Status::InvalidArgument("list limit must be 1-10000");
  }
  CTXKIT_RETURN_IF_ERROR(ValidateTags(filter.tags));
  storage::ObjectQuery query;
  query.scopes.assign(scopes.begin(), scopes.end());
  query.type = filter.type;
  query.key_prefix = filter.key_prefix;
  query.tags = filter.tags;
  query.limit = filter.limit + 1;
  if (!filter.cursor.empty()) {
    CTXKIT_ASSIGN_OR_RETURN(query.after, DecodeCursor(filter.cursor));
  }
  // The two engines' pages, merged: each is sorted and holds at least the
  // first `limit + 1` matches it has.
  std::vector<ObjectMeta> merged;
  for (storage::Backend* engine : engines) {
    CTXKIT_ASSIGN_OR_RETURN(std::vector<storage::ObjectRecord> records,
                            engine->ListObjects(query));
    for (const auto& record : records) {
      merged.push_back(MetaOf(engine, record));
    }
  }
  std::sort(merged.begin(), merged.end(),
            [](const ObjectMeta& a, const ObjectMeta& b) {
              if (a.key != b.key) return a.key < b.key;
              return a.scope.ToString() < b.scope.ToString();
            });
  ListPage page;
  if (merged.size() > filter.limit) {
    merged.resize(filter.limit);
    page.next_cursor =
        EncodeCursor(merged.back().key, merged.back().scope.ToString());
  }
  page.items = std::move(merged);
  return page;
}

Result<StoreStats> StoreImpl::Stats() {
  StoreStats stats;
  CTXKIT_ASSIGN_OR_RETURN(storage::BackendStats backend, backend_->Stats());
  stats.objects = backend.objects;
  stats.live_objects = backend.live_objects;
  stats.versions = backend.versions;
  stats.content_bytes = backend.content_bytes;
  stats.blob_files = backend.blob_files;
  CTXKIT_ASSIGN_OR_RETURN(storage::BackendStats in_memory,
                          session_engine_->Stats());
  storage::MemoryTierStats memory = memory_.Stats();
  stats.memory_ceiling_bytes = memory_.ceiling();
  stats.memory_used_bytes = memory.used_bytes;
  stats.cached_values = memory.cached_values;
  stats.session_objects = in_memory.objects;
  stats.session_resident_bytes = memory.resident_bytes;
  stats.session_spilled_bytes = memory.spilled_bytes;
  stats.evictions = memory.evictions;
  stats.spills = memory.spills;
  return stats;
}

Result<std::vector<UsageRow>> StoreImpl::Usage() {
  std::vector<UsageRow> rows;
  for (storage::Backend* engine : Engines()) {
    CTXKIT_ASSIGN_OR_RETURN(std::vector<storage::UsageRecord> records,
                            engine->Usage());
    for (const storage::UsageRecord& r : records) {
      using Medium = storage::UsageRecord::Medium;
      const char* tier = r.medium == Medium::kBlob     ? "blob"
                         : r.medium == Medium::kMemory ? "session"
                                                       : "inline";
      rows.push_back({r.scope, r.type, tier, r.objects, r.versions, r.bytes});
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return std::make_pair(a.scope.ToString(), static_cast<int>(a.type)) <
           std::make_pair(b.scope.ToString(), static_cast<int>(b.type));
  });
  return rows;
}

// ---- Conversions ------------------------------------------------------

Ref StoreImpl::WrittenRef(const storage::Backend* engine,
                          const storage::WriteResult& written) const {
  Ref ref =
      RefAtVersion(MetaOf(engine, written.object), written.version.version);
  ref.type = written.version.type;
  ref.size_bytes = written.version.size_bytes;
  return ref;
}

std::string StoreImpl::TagFor(std::string_view id, const Scope& scope,
                              std::string_view key) const {
  return tagger_ == nullptr ? std::string() : tagger_->TagFor(id, scope, key);
}

ObjectMeta StoreImpl::MetaOf(const storage::Backend* engine,
                             const storage::ObjectRecord& record) const {
  ObjectMeta m;
  m.id = core::ToBase36(static_cast<uint64_t>(record.id));
  m.persistent = !InMemory(engine);
  if (!m.persistent) m.id = "~" + instance_tag_ + "." + m.id;
  m.key = record.key;
  m.scope = record.scope;
  m.ref_tag = TagFor(m.id, m.scope, m.key);
  m.type = record.type;
  m.size_bytes = record.size_bytes;
  m.version = record.latest_version;
  m.created_unix_ns = record.created_unix_ns;
  m.updated_unix_ns = record.updated_unix_ns;
  m.tags = record.tags;
  m.tokens = record.tokens;
  return m;
}

VersionMeta StoreImpl::VersionMetaOf(const storage::VersionRecord& record) {
  VersionMeta m;
  m.version = record.version;
  m.state = record.state;
  m.type = record.type;
  m.size_bytes = record.size_bytes;
  m.content_hash = core::ToHex(record.hash);
  m.created_unix_ns = record.created_unix_ns;
  m.producer = record.producer;
  m.tokens = record.tokens;
  return m;
}

}  // namespace ctxkit
