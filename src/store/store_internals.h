// For ctxkit's own layers above store/ that keep durable state of their
// own (spawn manifests, the watch list, the execution log, the index's
// change feed): calls of the storage engine behind a Store, so that state
// goes through the Backend interface like objects do and follows the store
// to whichever engine holds it. The engine itself is not handed out (the
// session layer's state goes through store/stored_sessions.h); the record
// and key types (storage::VersionKey, RecordWrite, CommitListener, ...)
// come with this header, so the layers above never include storage/
// (cmake/layers.cmake seals it). Not for users; the public API is
// include/ctxkit/store.h.

#ifndef CTXKIT_STORE_STORE_INTERNALS_H_
#define CTXKIT_STORE_STORE_INTERNALS_H_

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ctxkit/store.h"
#include "storage/backend.h"

namespace ctxkit {

// An object of the durable engine as of its latest change.
struct ChangedMeta {
  uint64_t stamp = 0;     // Its place in the change feed.
  int64_t object_id = 0;  // The engine's id (storage::VersionKey).
  bool removed = false;   // Its latest version is a tombstone.
  ObjectMeta meta;        // As views show it (tags not loaded).
};

class StoreInternals {
 public:
  // The newest stamp of the durable engine's change feed
  // (storage::Backend::LatestChange): it moves whenever any process
  // changes an object of the store.
  static Result<uint64_t> LatestChange(Store& store);

  // The durable engine's change feed (storage::Backend::ListChanged), as
  // metadata: objects changed after `after`, oldest change first, at most
  // `limit`, removed ones included. Session-only values are not in it.
  static Result<std::vector<ChangedMeta>> DurableChanges(Store& store,
                                                         uint64_t after,
                                                         size_t limit);

  // The whole content of each durable version in `keys`
  // ({ChangedMeta::object_id, version}) as storage::Backend::ReadWhole reads
  // them: together, out[i] nullopt when that version is gone. No view's
  // capability is checked and nothing enters the store's value cache: for
  // find's index sync, which reads the change feed in pages.
  static Result<std::vector<std::optional<std::string>>> ReadDurable(
      Store& store, std::span<const storage::VersionKey> keys);

  // [offset, offset + length) of one durable version, the same way
  // (nullopt when that version is gone): the text of an indexed chunk.
  static Result<std::optional<std::string>> ReadDurableRange(
      Store& store, const storage::VersionKey& key, uint64_t offset,
      uint64_t length);

  // View::List over the view's session-only values alone.
  static Result<ListPage> ListSessionOnly(View& view, const ListFilter& filter);

  // Names this store: the same in every process that opens it, another for
  // any other store (a digest of its ref secret, so it reveals nothing).
  static Result<std::string> Identity(Store& store);

  // A listener for commits other processes and machines make to the
  // store (storage::Backend::ListenForCommits), or nullptr when its engine
  // offers none and callers poll.
  static Result<std::unique_ptr<storage::CommitListener>> ListenForCommits(
      Store& store);

  // The engine's key of the durable version a static ref names; nullopt
  // for a dynamic or session-only ref, or an id no engine could hold.
  static std::optional<storage::VersionKey> DurableVersionOf(const Ref& ref);
  // The keys of `refs`' durable versions (DurableVersionOf), each once.
  static std::vector<storage::VersionKey> DurableVersionsOf(
      std::span<const Ref> refs);
  // Holds the durable versions `refs` name for `holder`
  // (storage::Backend::AddHolds): garbage collection keeps them, whatever
  // face collects, until DropHolds. Dynamic and session-only refs are
  // skipped. NotFound, nothing held, when one is no longer stored: the
  // caller must not publish what names it.
  static Status Hold(Store& store, std::string_view holder,
                     std::span<const Ref> refs);
  // Hold for the holder of session `session_id`, whose holds go with it
  // (storage::SessionHolder).
  static Status HoldForSession(Store& store, std::string_view session_id,
                               std::span<const Ref> refs);
  static Status DropHolds(Store& store, std::string_view holder);
  // Whether the store holds state from a build that recorded no holds
  // (storage::Backend::HoldsPending): Store::CollectGarbage refuses until
  // a layer that reads that state has held what it names and called
  // MarkHoldsRecorded.
  static Result<bool> HoldsPending(Store& store);
  static Status MarkHoldsRecorded(Store& store);
  // Named records and logs of the durable engine
  // (storage::Backend::WriteRecords, GetRecord, ListRecords, ReadLog): the
  // state of layers above the store that must follow it to every machine
  // that opens it (spawn manifests, the watch list, the execution log).
  // WriteRecords stamps the write with the current time when
  // write.now_unix_ns is 0. PermissionDenied on a read-only store.
  static Status WriteRecords(Store& store, storage::RecordWrite write);
  static Result<std::optional<storage::StoredRecord>> GetRecord(
      Store& store, std::string_view kind, std::string_view name);
  static Result<std::vector<storage::StoredRecord>> ListRecords(
      Store& store, std::string_view kind);
  static Result<std::vector<std::string>> ReadLog(Store& store,
                                                  std::string_view log,
                                                  size_t limit);
  // WriteRecords of `write` (which has no kCreate put) together with the
  // marker record ("import", `marker`), once: false, nothing written, when
  // the marker is there already (this import was done, from this home or
  // another). For moving the state of a local file of an earlier build
  // into the engine exactly once.
  static Result<bool> WriteRecordsOnce(Store& store, std::string_view marker,
                                       storage::RecordWrite write);

  // A 32-byte key for `purpose` ("mcp session ids", ...), the same in every
  // process that opens the store and unrelated to any other purpose's key
  // (HMAC-SHA-256 of the purpose under the ref secret). Whatever the
  // store's engine reports when it has no ref secret.
  static Result<std::string> KeyFor(Store& store, std::string_view purpose);

 private:
  // The engine itself is for the store layer alone (store/store_backend.h,
  // sealed above the store by cmake/layers.cmake).
  friend storage::Backend& BackendOf(Store& store);
  static storage::Backend& Engine(Store& store);
};

}  // namespace ctxkit

#endif  // CTXKIT_STORE_STORE_INTERNALS_H_
