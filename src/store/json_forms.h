// The one JSON form of each store type (refs, object and version metadata,
// store statistics). Every face that reports these types — the CLI's
// --json and the MCP tools' structuredContent — builds them here, so the
// field names, units and presence agree everywhere. docs/json.md describes
// each form field by field; a face may add fields around a form, never
// change it.

#ifndef CTXKIT_STORE_JSON_FORMS_H_
#define CTXKIT_STORE_JSON_FORMS_H_

#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>
#include <vector>

#include "ctxkit/ref.h"
#include "ctxkit/store.h"

namespace ctxkit::store {

// A kept token count, or null while nobody has counted it.
nlohmann::json TokensJson(const std::optional<uint64_t>& tokens);

// ref, id, key, scope, type, size_bytes, version, static, session_only.
nlohmann::json RefToJson(const Ref& ref);

// ref (static, to the latest version), id, key, scope, type, size_bytes,
// version, created, updated (RFC 3339), created_unix_ns, updated_unix_ns,
// tags, persistent, tokens (null when not counted).
nlohmann::json ObjectMetaToJson(const ObjectMeta& meta);

// ref (a static ref to this version; null for tombstones and missing
// versions, or when `object` is null), version, state, type, size_bytes,
// sha256, created, created_unix_ns, producer, tokens. `object` is any ref
// to the object the version belongs to (its id, scope and key are used).
nlohmann::json VersionMetaToJson(const VersionMeta& meta, const Ref* object);

// {"key": key, "versions": [VersionMetaToJson...]}, oldest first.
nlohmann::json VersionListToJson(std::string_view key,
                                 const std::vector<VersionMeta>& versions,
                                 const Ref* object);

nlohmann::json StatsToJson(const StoreStats& stats);

}  // namespace ctxkit::store

#endif  // CTXKIT_STORE_JSON_FORMS_H_
