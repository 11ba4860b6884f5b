// The public Store and View: thin, validated forwarding to StoreImpl.

#include "ctxkit/store.h"

#include <algorithm>
#include <cstdint>

#include "core/clock.h"
#include "core/encoding.h"
#include "core/hmac.h"
#include "core/sha256.h"
#include "core/status_macros.h"
#include "store/store_backend.h"
#include "store/store_impl.h"
#include "store/store_internals.h"

namespace ctxkit {

Result<Scope> ResolveScopeName(const ScopeName& name, std::string_view agent_id,
                               std::string_view session_id) {
  if (name.empty() || name == "global") return Scope::Global();
  if (name == "agent" || name == "session") {
    std::string_view id = name == "agent" ? agent_id : session_id;
    if (id.empty()) {
      return Status::InvalidArgument("this view has no " + name +
                                     " (open it with an " + name + " id)");
    }
    return Scope{name == "agent" ? Scope::Kind::kAgent : Scope::Kind::kSession,
                 std::string(id)};
  }
  CTXKIT_ASSIGN_OR_RETURN(Scope scope, Scope::Parse(name));
  const bool own =
      scope.is_global() ||
      (scope.kind == Scope::Kind::kAgent && scope.id == agent_id) ||
      (scope.kind == Scope::Kind::kSession && scope.id == session_id);
  if (!own) {
    return Status::PermissionDenied(
        "scope " + scope.ToString() +
        " belongs to another agent or session; this view sees only global" +
        (agent_id.empty() ? "" : ", agent:" + std::string(agent_id)) +
        (session_id.empty() ? "" : ", session:" + std::string(session_id)) +
        " (pass a ref to share a value)");
  }
  return scope;
}

Store::Store(std::unique_ptr<StoreImpl> impl) : impl_(std::move(impl)) {}
Store::~Store() = default;

Result<std::unique_ptr<Store>> Store::Open(const Options& options) {
  CTXKIT_ASSIGN_OR_RETURN(std::unique_ptr<StoreImpl> impl,
                          StoreImpl::Open(options));
  return std::unique_ptr<Store>(new Store(std::move(impl)));
}

Result<View> Store::OpenView(std::string_view agent_id,
                             std::string_view session_id) {
  if (!agent_id.empty()) CTXKIT_RETURN_IF_ERROR(ValidateScopeId(agent_id));
  if (!session_id.empty()) CTXKIT_RETURN_IF_ERROR(ValidateScopeId(session_id));
  return View(this, std::string(agent_id), std::string(session_id));
}

Status Store::EndSession(std::string_view session_id) {
  return impl_->EndSession(session_id);
}

Result<StoreStats> Store::Stats() { return impl_->Stats(); }

Result<std::vector<UsageRow>> Store::Usage() { return impl_->Usage(); }

Result<ListPage> Store::ListEveryScope(const ListFilter& filter) {
  return impl_->ListEveryScope(filter);
}

const std::string& Store::home() const { return impl_->home(); }
bool Store::read_only() const { return impl_->read_only(); }

storage::Backend& StoreInternals::Engine(Store& store) {
  return store.impl_->backend();
}

storage::Backend& BackendOf(Store& store) {
  return StoreInternals::Engine(store);
}

Result<uint64_t> StoreInternals::LatestChange(Store& store) {
  return store.impl_->backend().LatestChange();
}

Result<std::vector<ChangedMeta>> StoreInternals::DurableChanges(Store& store,
                                                                uint64_t after,
                                                                size_t limit) {
  CTXKIT_ASSIGN_OR_RETURN(std::vector<storage::ChangedObject> changed,
                          store.impl_->backend().ListChanged(after, limit));
  std::vector<ChangedMeta> out;
  out.reserve(changed.size());
  for (const storage::ChangedObject& c : changed) {
    out.push_back({c.stamp, c.object.id, c.object.deleted,
                   store.impl_->DurableMetaOf(c.object)});
  }
  return out;
}

Result<std::vector<std::optional<std::string>>> StoreInternals::ReadDurable(
    Store& store, std::span<const storage::VersionKey> keys) {
  return store.impl_->backend().ReadWhole(keys);
}

Result<std::optional<std::string>> StoreInternals::ReadDurableRange(
    Store& store, const storage::VersionKey& key, uint64_t offset,
    uint64_t length) {
  return store.impl_->backend().ReadIfPresent(key, offset, length);
}

std::optional<storage::VersionKey> StoreInternals::DurableVersionOf(
    const Ref& ref) {
  if (!ref.is_static() || ref.is_session_only()) return std::nullopt;
  std::optional<uint64_t> id = core::FromBase36(ref.id);
  if (!id || *id > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
  return storage::VersionKey{static_cast<int64_t>(*id), ref.version};
}

std::vector<storage::VersionKey> StoreInternals::DurableVersionsOf(
    std::span<const Ref> refs) {
  std::vector<storage::VersionKey> keys;
  keys.reserve(refs.size());
  for (const Ref& ref : refs) {
    if (std::optional<storage::VersionKey> key = DurableVersionOf(ref)) {
      keys.push_back(*key);
    }
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

Status StoreInternals::Hold(Store& store, std::string_view holder,
                            std::span<const Ref> refs) {
  const std::vector<storage::VersionKey> keys = DurableVersionsOf(refs);
  return store.impl_->backend().AddHolds(holder, keys);
}

Status StoreInternals::HoldForSession(Store& store, std::string_view session_id,
                                      std::span<const Ref> refs) {
  return Hold(store, storage::SessionHolder(session_id), refs);
}

Status StoreInternals::DropHolds(Store& store, std::string_view holder) {
  return store.impl_->backend().DropHolds(holder);
}

Result<bool> StoreInternals::HoldsPending(Store& store) {
  return store.impl_->backend().HoldsPending();
}

Status StoreInternals::MarkHoldsRecorded(Store& store) {
  return store.impl_->backend().MarkHoldsRecorded();
}

Result<std::string> StoreInternals::Identity(Store& store) {
  CTXKIT_ASSIGN_OR_RETURN(std::string secret,
                          store.impl_->backend().RefSecret());
  return core::ToHex(core::Sha256("ctxkit store identity\n" + secret))
      .substr(0, 32);
}

Result<std::unique_ptr<storage::CommitListener>>
StoreInternals::ListenForCommits(Store& store) {
  return store.impl_->backend().ListenForCommits();
}

Status StoreInternals::WriteRecords(Store& store, storage::RecordWrite write) {
  if (write.now_unix_ns == 0) write.now_unix_ns = core::NowUnixNanos();
  return store.impl_->backend().WriteRecords(write);
}

Result<std::optional<storage::StoredRecord>> StoreInternals::GetRecord(
    Store& store, std::string_view kind, std::string_view name) {
  return store.impl_->backend().GetRecord(kind, name);
}

Result<std::vector<storage::StoredRecord>> StoreInternals::ListRecords(
    Store& store, std::string_view kind) {
  return store.impl_->backend().ListRecords(kind);
}

Result<std::vector<std::string>> StoreInternals::ReadLog(Store& store,
                                                         std::string_view log,
                                                         size_t limit) {
  return store.impl_->backend().ReadLog(log, limit);
}

Result<bool> StoreInternals::WriteRecordsOnce(Store& store,
                                              std::string_view marker,
                                              storage::RecordWrite write) {
  write.puts.push_back(
      {"import", std::string(marker), "", storage::RecordPut::When::kCreate});
  Status s = WriteRecords(store, std::move(write));
  if (s.ok()) return true;
  if (s.code() != StatusCode::kFailedPrecondition) return s;
  CTXKIT_ASSIGN_OR_RETURN(std::optional<storage::StoredRecord> done,
                          GetRecord(store, "import", marker));
  if (!done.has_value()) return s;
  return false;
}

Result<std::string> StoreInternals::KeyFor(Store& store,
                                           std::string_view purpose) {
  CTXKIT_ASSIGN_OR_RETURN(std::string secret,
                          store.impl_->backend().RefSecret());
  return core::HmacSha256(secret).Mac("ctxkit key\n" + std::string(purpose));
}

Result<GarbageReport> Store::CollectGarbage(const GarbageOptions& options) {
  return impl_->CollectGarbage(options);
}

namespace {
ViewIdentity IdentityOf(const View& view) {
  return ViewIdentity{view.agent_id(), view.session_id()};
}
}  // namespace

Result<Ref> View::Set(std::string_view key, std::string_view value,
                      const SetOptions& options) {
  return store_->impl_->Set(IdentityOf(*this), key, value, options);
}

Result<Ref> View::SetFile(std::string_view key, const std::string& path,
                          const SetOptions& options) {
  return store_->impl_->SetFile(IdentityOf(*this), key, path, options);
}

Result<std::vector<Ref>> View::SetMany(std::span<const SetItem> items) {
  return store_->impl_->SetMany(IdentityOf(*this), items);
}

Result<Ref> View::Append(std::string_view key, std::string_view bytes,
                         const SetOptions& options) {
  return store_->impl_->Append(IdentityOf(*this), key, bytes, options);
}

Result<std::string> View::Get(std::string_view key,
                              const LookupOptions& options) {
  return store_->impl_->Get(IdentityOf(*this), key, options);
}

std::optional<Result<std::string>> View::TryGet(std::string_view key,
                                                const LookupOptions& options) {
  return store_->impl_->TryGet(IdentityOf(*this), key, options);
}

Result<Ref> View::RefOf(std::string_view key, const LookupOptions& options) {
  return store_->impl_->RefOf(IdentityOf(*this), key, options);
}

Result<Ref> View::Pin(std::string_view key, const LookupOptions& options) {
  return store_->impl_->Pin(IdentityOf(*this), key, options);
}

Result<Ref> View::Pin(const Ref& ref) {
  return store_->impl_->Pin(IdentityOf(*this), ref);
}

Result<Ref> View::Pin(const Target& target) {
  return target.is_ref() ? Pin(*target.ref())
                         : Pin(target.key(), target.lookup());
}

Result<std::string> View::Get(const Target& target) {
  return target.is_ref() ? Resolve(*target.ref())
                         : Get(target.key(), target.lookup());
}

Result<Ref> View::RefOf(const Target& target) {
  return target.is_ref() ? Pin(*target.ref())
                         : RefOf(target.key(), target.lookup());
}

Result<ObjectMeta> View::Stat(const Target& target) {
  return target.is_ref() ? Stat(*target.ref())
                         : Stat(target.key(), target.lookup());
}

Result<std::vector<VersionMeta>> View::Versions(const Target& target) {
  return target.is_ref() ? Versions(*target.ref())
                         : Versions(target.key(), target.lookup());
}

Result<uint64_t> View::CountTokens(const Target& target) {
  return target.is_ref() ? CountTokens(*target.ref())
                         : CountTokens(target.key(), target.lookup());
}

Result<std::string> View::Resolve(const Ref& ref) {
  // size_bytes in a dynamic ref is a snapshot; read to the real end.
  return store_->impl_->ReadRange(IdentityOf(*this), ref, 0, UINT64_MAX);
}

Result<std::string> View::ReadRange(const Ref& ref, uint64_t offset,
                                    uint64_t length) {
  return store_->impl_->ReadRange(IdentityOf(*this), ref, offset, length);
}

Status View::Scan(const Ref& ref, uint64_t offset, uint64_t length,
                  uint64_t piece_bytes,
                  const std::function<bool(std::string_view)>& sink) {
  return store_->impl_->Scan(IdentityOf(*this), ref, offset, length,
                             piece_bytes, sink);
}

Result<ObjectMeta> View::Stat(std::string_view key,
                              const LookupOptions& options) {
  return store_->impl_->Stat(IdentityOf(*this), key, options);
}

Status View::Remove(std::string_view key, const LookupOptions& options) {
  return store_->impl_->Remove(IdentityOf(*this), key, options,
                               VersionState::kDeleted);
}

Status View::MarkMissing(std::string_view key, const LookupOptions& options) {
  return store_->impl_->Remove(IdentityOf(*this), key, options,
                               VersionState::kMissing);
}

Result<ListPage> View::List(const ListFilter& filter) {
  return store_->impl_->List(IdentityOf(*this), filter);
}

Result<ListPage> StoreInternals::ListSessionOnly(View& view,
                                                 const ListFilter& filter) {
  return view.store()->impl_->ListSessionOnly(IdentityOf(view), filter);
}

Result<std::vector<VersionMeta>> View::Versions(std::string_view key,
                                                const LookupOptions& options) {
  return store_->impl_->Versions(IdentityOf(*this), key, options);
}

Result<ObjectMeta> View::Stat(const Ref& ref) {
  return store_->impl_->Stat(IdentityOf(*this), ref);
}

Result<std::vector<VersionMeta>> View::Versions(const Ref& ref) {
  return store_->impl_->Versions(IdentityOf(*this), ref);
}

Ref StaticRefOf(const ObjectMeta& meta) {
  Ref ref;
  ref.id = meta.id;
  ref.key = meta.key;
  ref.scope = meta.scope;
  ref.type = meta.type;
  ref.size_bytes = meta.size_bytes;
  ref.version = meta.version;
  ref.tag = meta.ref_tag;
  return ref;
}

Ref StaticRefOf(const Ref& object, const VersionMeta& version) {
  Ref ref = object;
  ref.version = version.version;
  ref.type = version.type;
  ref.size_bytes = version.size_bytes;
  return ref;
}

Result<Ref> View::Promote(std::string_view key) {
  return store_->impl_->Promote(IdentityOf(*this), key);
}

Result<uint64_t> View::CountTokens(std::string_view key,
                                   const LookupOptions& options) {
  return store_->impl_->CountTokens(IdentityOf(*this), key, options);
}

Result<uint64_t> View::CountTokens(const Ref& ref) {
  return store_->impl_->CountTokens(IdentityOf(*this), ref);
}

Result<Ref> View::Rename(std::string_view from_key, std::string_view to_key,
                         const LookupOptions& options) {
  return store_->impl_->Rename(IdentityOf(*this), from_key, to_key, options);
}

Result<View> View::SubAgent(std::string_view child_agent_id,
                            std::string_view child_session_id) const {
  CTXKIT_RETURN_IF_ERROR(ValidateScopeId(child_agent_id));
  return store_->OpenView(child_agent_id, child_session_id);
}

}  // namespace ctxkit
