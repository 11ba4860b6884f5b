// The registry of session-only (persist=false) objects of one Store
// instance. Their bytes live in the MemoryTier as payloads; this registry
// keeps their identity, versions and chunk lists, mirroring the durable
// data model so that views treat both kinds alike.
//
// Not thread-safe: the store serializes access.

#ifndef CTXKIT_STORE_SESSION_OBJECTS_H_
#define CTXKIT_STORE_SESSION_OBJECTS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "ctxkit/ref.h"
#include "ctxkit/store.h"
#include "store/memory_tier.h"

namespace ctxkit::store {

// A run of bytes of an object's content; `offset` is its position within
// the content of every version that includes it.
struct SessionChunk {
  PayloadId payload = 0;
  uint64_t offset = 0;
  uint64_t size = 0;
};

struct SessionVersion {
  VersionMeta meta;
  // The content is chunks[chunk_begin, chunk_end) of the object.
  size_t chunk_begin = 0;
  size_t chunk_end = 0;
};

struct SessionObject {
  std::string id;  // "~<instance tag>.<serial>"
  Scope scope;
  std::string key;
  std::string owner_session;  // "" when owned by the process.
  std::vector<std::string> tags;
  int64_t created_unix_ns = 0;
  int64_t updated_unix_ns = 0;
  bool deleted = false;
  std::vector<SessionChunk> chunks;
  // chunks[0, spilled_chunks) are known to be in the spill file: a stream
  // that outgrew the spill threshold moves its chunks there once.
  size_t spilled_chunks = 0;
  std::vector<SessionVersion> versions;  // versions[i].meta.version == i + 1

  const SessionVersion& latest() const { return versions.back(); }
  ObjectMeta Meta() const;
};

class SessionObjects {
 public:
  explicit SessionObjects(std::string instance_tag)
      : instance_tag_(std::move(instance_tag)) {}

  const std::string& instance_tag() const { return instance_tag_; }

  SessionObject* Find(const Scope& scope, std::string_view key);
  SessionObject* FindById(std::string_view id);
  // Shared ownership of a registered object, so a reader can keep it alive
  // after the lock is released (EndSession may unregister it meanwhile).
  std::shared_ptr<SessionObject> Hold(const SessionObject* object);
  // REQUIRES: Find(scope, key) == nullptr.
  SessionObject* Create(const Scope& scope, std::string_view key,
                        std::string_view owner_session, int64_t now);
  // Unregisters an object, returning the payloads it held.
  std::vector<PayloadId> Erase(SessionObject* object);
  // Objects owned by `session`.
  std::vector<SessionObject*> OwnedBy(std::string_view session);
  // Every object, ordered by (key, scope string).
  std::vector<const SessionObject*> Sorted() const;
  size_t size() const { return by_id_.size(); }

 private:
  static std::string NameKey(const Scope& scope, std::string_view key);

  const std::string instance_tag_;
  uint64_t next_serial_ = 1;
  std::unordered_map<std::string, std::shared_ptr<SessionObject>> by_id_;
  std::unordered_map<std::string, SessionObject*> by_name_;
};

}  // namespace ctxkit::store

#endif  // CTXKIT_STORE_SESSION_OBJECTS_H_
