#include "store/stored_sessions.h"

#include "store/store_backend.h"

namespace ctxkit {

StoredSessions::StoredSessions(Store& store) : backend_(&BackendOf(store)) {}

Result<std::optional<uint64_t>> StoredSessions::SessionGeneration(
    std::string_view id) {
  return backend_->SessionGeneration(id);
}

Result<storage::SessionRecord> StoredSessions::LoadSession(
    std::string_view id) {
  return backend_->LoadSession(id);
}

Result<storage::SessionRecord> StoredSessions::LoadSessionHead(
    std::string_view id, size_t listed_limit) {
  return backend_->LoadSessionHead(id, listed_limit);
}

Result<uint64_t> StoredSessions::CountListedSessionEntries(
    std::string_view id) {
  return backend_->CountListedSessionEntries(id);
}

Result<storage::SessionRecord> StoredSessions::LoadSessionEntries(
    std::string_view id, const std::vector<std::string>& object_ids) {
  return backend_->LoadSessionEntries(id, object_ids);
}

Result<uint64_t> StoredSessions::WriteSession(
    const storage::SessionWrite& write) {
  return backend_->WriteSession(write);
}

Result<std::vector<std::string>> StoredSessions::ListSessions() {
  return backend_->ListSessions();
}

Status StoredSessions::RemoveSession(std::string_view id) {
  return backend_->RemoveSession(id);
}

}  // namespace ctxkit
