#include "store/json_forms.h"

#include <string>

#include "core/clock.h"

namespace ctxkit::store {

using nlohmann::json;

json TokensJson(const std::optional<uint64_t>& tokens) {
  return tokens ? json(*tokens) : json(nullptr);
}

json RefToJson(const Ref& ref) {
  return json{{"ref", FormatRef(ref)},
              {"id", ref.id},
              {"key", ref.key},
              {"scope", ref.scope.ToString()},
              {"type", std::string(ValueTypeName(ref.type))},
              {"size_bytes", ref.size_bytes},
              {"version", ref.version},
              {"static", ref.is_static()},
              {"session_only", ref.is_session_only()}};
}

json ObjectMetaToJson(const ObjectMeta& meta) {
  return json{{"ref", FormatRef(StaticRefOf(meta))},
              {"id", meta.id},
              {"key", meta.key},
              {"scope", meta.scope.ToString()},
              {"type", std::string(ValueTypeName(meta.type))},
              {"size_bytes", meta.size_bytes},
              {"version", meta.version},
              {"created", core::FormatRfc3339Nanos(meta.created_unix_ns)},
              {"updated", core::FormatRfc3339Nanos(meta.updated_unix_ns)},
              {"created_unix_ns", meta.created_unix_ns},
              {"updated_unix_ns", meta.updated_unix_ns},
              {"tags", meta.tags},
              {"persistent", meta.persistent},
              {"tokens", TokensJson(meta.tokens)}};
}

json VersionMetaToJson(const VersionMeta& meta, const Ref* object) {
  json ref = nullptr;
  if (object != nullptr && meta.state == VersionState::kPresent) {
    ref = FormatRef(StaticRefOf(*object, meta));
  }
  return json{{"ref", std::move(ref)},
              {"version", meta.version},
              {"state", std::string(VersionStateName(meta.state))},
              {"type", std::string(ValueTypeName(meta.type))},
              {"size_bytes", meta.size_bytes},
              {"sha256", meta.content_hash},
              {"created", core::FormatRfc3339Nanos(meta.created_unix_ns)},
              {"created_unix_ns", meta.created_unix_ns},
              {"producer", meta.producer},
              {"tokens", TokensJson(meta.tokens)}};
}

json VersionListToJson(std::string_view key,
                       const std::vector<VersionMeta>& versions,
                       const Ref* object) {
  json items = json::array();
  for (const VersionMeta& v : versions) {
    items.push_back(VersionMetaToJson(v, object));
  }
  return json{{"key", std::string(key)}, {"versions", std::move(items)}};
}

json StatsToJson(const StoreStats& s) {
  return json{{"objects", s.objects},
              {"live_objects", s.live_objects},
              {"versions", s.versions},
              {"content_bytes", s.content_bytes},
              {"blob_files", s.blob_files},
              {"memory_ceiling_bytes", s.memory_ceiling_bytes},
              {"memory_used_bytes", s.memory_used_bytes},
              {"cached_values", s.cached_values},
              {"session_objects", s.session_objects},
              {"session_resident_bytes", s.session_resident_bytes},
              {"session_spilled_bytes", s.session_spilled_bytes},
              {"evictions", s.evictions},
              {"spills", s.spills}};
}

}  // namespace ctxkit::store
