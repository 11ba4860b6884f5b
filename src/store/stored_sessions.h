// The session layer's durable state in a Store's engine: the session-state
// calls of storage::Backend (state row, entries, generation), and nothing
// else of the engine. For src/session/ alone; the public API of sessions
// is include/ctxkit/session.h. Each call is the Backend call of the same
// name, with its contract (storage/backend.h, "Session state").
//
// Cheap to copy; valid while the Store it was made from is open.
// Thread-safe as the engine is.

#ifndef CTXKIT_STORE_STORED_SESSIONS_H_
#define CTXKIT_STORE_STORED_SESSIONS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/status.h"
#include "ctxkit/store.h"
#include "storage/backend.h"

namespace ctxkit {

class StoredSessions {
 public:
  explicit StoredSessions(Store& store);

  // The stored generation of session `id`; nullopt when there is none.
  Result<std::optional<uint64_t>> SessionGeneration(std::string_view id);
  // The whole session, in one snapshot. NotFound when there is none.
  Result<storage::SessionRecord> LoadSession(std::string_view id);
  // Its state, hot entries and first `listed_limit` listed entries.
  Result<storage::SessionRecord> LoadSessionHead(std::string_view id,
                                                 size_t listed_limit);
  // How many of its entries are listed (a scan).
  Result<uint64_t> CountListedSessionEntries(std::string_view id);
  // The entries of `object_ids` it holds, with its generation.
  Result<storage::SessionRecord> LoadSessionEntries(
      std::string_view id, const std::vector<std::string>& object_ids);
  // The conditional put of `write`; the new generation. FailedPrecondition
  // when another writer came first, NotFound when it was removed.
  Result<uint64_t> WriteSession(const storage::SessionWrite& write);
  // Every session id, sorted.
  Result<std::vector<std::string>> ListSessions();
  // Its state, entries and holds, in one transaction. NotFound when none.
  Status RemoveSession(std::string_view id);

 private:
  storage::Backend* backend_;
};

}  // namespace ctxkit

#endif  // CTXKIT_STORE_STORED_SESSIONS_H_
