#include "store/session_objects.h"

#include <algorithm>

#include "core/encoding.h"

namespace ctxkit::store {

ObjectMeta SessionObject::Meta() const {
  ObjectMeta m;
  m.id = id;
  m.key = key;
  m.scope = scope;
  const VersionMeta& v = latest().meta;
  m.type = v.type;
  m.size_bytes = v.size_bytes;
  m.version = v.version;
  m.created_unix_ns = created_unix_ns;
  m.updated_unix_ns = updated_unix_ns;
  m.tags = tags;
  m.persistent = false;
  m.tokens = v.tokens;
  return m;
}

std::string SessionObjects::NameKey(const Scope& scope, std::string_view key) {
  std::string name = scope.ToString();
  name += '\n';  // Never part of a scope string.
  name += key;
  return name;
}

SessionObject* SessionObjects::Find(const Scope& scope, std::string_view key) {
  if (by_name_.empty()) return nullptr;  // The common case: nothing to find.
  auto it = by_name_.find(NameKey(scope, key));
  return it == by_name_.end() ? nullptr : it->second;
}

SessionObject* SessionObjects::FindById(std::string_view id) {
  auto it = by_id_.find(std::string(id));
  return it == by_id_.end() ? nullptr : it->second.get();
}

SessionObject* SessionObjects::Create(const Scope& scope, std::string_view key,
                                      std::string_view owner_session,
                                      int64_t now) {
  auto obj = std::make_shared<SessionObject>();
  obj->id = "~" + instance_tag_ + "." + core::ToBase36(next_serial_++);
  obj->scope = scope;
  obj->key = std::string(key);
  obj->owner_session = std::string(owner_session);
  obj->created_unix_ns = now;
  obj->updated_unix_ns = now;
  SessionObject* raw = obj.get();
  by_name_[NameKey(scope, key)] = raw;
  by_id_[raw->id] = std::move(obj);
  return raw;
}

std::shared_ptr<SessionObject> SessionObjects::Hold(
    const SessionObject* object) {
  auto it = by_id_.find(object->id);
  return it == by_id_.end() ? nullptr : it->second;
}

std::vector<PayloadId> SessionObjects::Erase(SessionObject* object) {
  std::vector<PayloadId> payloads;
  for (const auto& chunk : object->chunks) payloads.push_back(chunk.payload);
  by_name_.erase(NameKey(object->scope, object->key));
  by_id_.erase(object->id);
  return payloads;
}

std::vector<SessionObject*> SessionObjects::OwnedBy(std::string_view session) {
  std::vector<SessionObject*> out;
  for (auto& [id, obj] : by_id_) {
    if (obj->owner_session == session) out.push_back(obj.get());
  }
  return out;
}

std::vector<const SessionObject*> SessionObjects::Sorted() const {
  std::vector<const SessionObject*> out;
  out.reserve(by_id_.size());
  for (const auto& [id, obj] : by_id_) out.push_back(obj.get());
  std::sort(out.begin(), out.end(), [](const auto* a, const auto* b) {
    if (a->key != b->key) return a->key < b->key;
    return a->scope.ToString() < b->scope.ToString();
  });
  return out;
}

}  // namespace ctxkit::store
