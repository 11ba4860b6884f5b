// The manifest's JSON form (docs/spawn.md): writing, and reading with every
// field checked, since the file crosses a process boundary and may have
// been edited, truncated or written by a newer build.

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_set>

#include "core/encoding.h"
#include "ctxkit/spawn.h"
#include "os/file_util.h"
#include "os/posix_io.h"
#include "text/json_parse.h"
#include "text/json_write.h"

namespace ctxkit {

namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

Status Bad(const std::string& what) {
  return Status::Corruption("manifest: " + what);
}

// Field accessors that report a missing or mistyped field instead of
// throwing, naming it by its path ("child.agent").
Result<const Json*> Field(const Json& obj, const char* key,
                          const std::string& path) {
  auto it = obj.find(key);
  if (it == obj.end()) return Bad("field '" + path + "' is missing");
  return &*it;
}

Result<std::string> StringField(const Json& obj, const char* key,
                                const std::string& path) {
  Result<const Json*> f = Field(obj, key, path);
  if (!f.ok()) return f.status();
  if (!(*f)->is_string()) return Bad("field '" + path + "' is not a string");
  return (*f)->get<std::string>();
}

Result<uint64_t> UintField(const Json& obj, const char* key,
                           const std::string& path) {
  Result<const Json*> f = Field(obj, key, path);
  if (!f.ok()) return f.status();
  if (!(*f)->is_number_unsigned()) {
    return Bad("field '" + path + "' is not a non-negative integer");
  }
  return (*f)->get<uint64_t>();
}

Result<const Json*> ObjectField(const Json& obj, const char* key,
                                const std::string& path) {
  Result<const Json*> f = Field(obj, key, path);
  if (!f.ok()) return f.status();
  if (!(*f)->is_object()) return Bad("field '" + path + "' is not an object");
  return *f;
}

// An agent or session id; empty allowed where the manifest may have none.
Status CheckId(const std::string& id, bool allow_empty,
               const std::string& path) {
  if (id.empty() && allow_empty) return Status::Ok();
  Status s = ValidateScopeId(id);
  if (!s.ok()) return Bad("field '" + path + "': " + s.message());
  return Status::Ok();
}

OrderedJson RefEntryJson(const ManifestRef& entry) {
  const Ref& r = entry.ref;
  return OrderedJson{{"name", entry.name},
                     {"ref", FormatRef(r)},
                     {"id", r.id},
                     {"version", r.version},
                     {"type", ValueTypeName(r.type)},
                     {"size", r.size_bytes},
                     {"scope", r.scope.ToString()},
                     {"key", r.key}};
}

// One refs[] entry: the wire form is parsed, and the spelled-out fields
// (there for readers that do not parse refs) must agree with it.
Result<ManifestRef> ParseRefEntry(const Json& j, size_t index) {
  const std::string at = "refs[" + std::to_string(index) + "]";
  if (!j.is_object()) return Bad(at + " is not an object");
  ManifestRef entry;
  Result<std::string> name = StringField(j, "name", at + ".name");
  if (!name.ok()) return name.status();
  Status s = ValidateContextName(*name);
  if (!s.ok()) return Bad(at + ".name: " + s.message());
  entry.name = std::move(*name);
  Result<std::string> wire = StringField(j, "ref", at + ".ref");
  if (!wire.ok()) return wire.status();
  Result<Ref> ref = ParseRef(*wire);
  if (!ref.ok()) return Bad(at + ".ref: " + ref.status().message());
  if (!ref->is_static()) {
    return Bad(at + ".ref is a dynamic ref; a manifest pins versions");
  }
  if (ref->is_session_only()) {
    return Bad(at + ".ref names a session-only value");
  }
  Result<std::string> id = StringField(j, "id", at + ".id");
  Result<uint64_t> version = UintField(j, "version", at + ".version");
  Result<std::string> type = StringField(j, "type", at + ".type");
  Result<uint64_t> size = UintField(j, "size", at + ".size");
  Result<std::string> scope = StringField(j, "scope", at + ".scope");
  Result<std::string> key = StringField(j, "key", at + ".key");
  for (const Status& st : {id.status(), version.status(), type.status(),
                           size.status(), scope.status(), key.status()}) {
    if (!st.ok()) return st;
  }
  if (*id != ref->id || *version != ref->version ||
      *type != ValueTypeName(ref->type) || *size != ref->size_bytes ||
      *scope != ref->scope.ToString() || *key != ref->key) {
    return Bad(at + " ('" + entry.name +
               "'): its fields disagree with its ref " + *wire);
  }
  entry.ref = std::move(*ref);
  return entry;
}

Result<Manifest> ParseManifestJson(const Json& j) {
  if (!j.is_object()) return Bad("not a JSON object");
  auto format = j.find("format");
  if (format == j.end() || !format->is_string() ||
      format->get<std::string>() != kManifestFormat) {
    return Status::InvalidArgument(
        "not a ctxkit spawn manifest (no \"format\": \"" +
        std::string(kManifestFormat) + "\")");
  }
  Manifest m;
  Result<uint64_t> version = UintField(j, "version", "version");
  if (!version.ok()) return version.status();
  if (*version == 0 || *version > kManifestFormatVersion) {
    return Status::InvalidArgument(
        "manifest format version " + std::to_string(*version) +
        " is not supported (this build reads 1-" +
        std::to_string(kManifestFormatVersion) + ")");
  }
  m.format_version = static_cast<int>(*version);

  Result<std::string> store = StringField(j, "store", "store");
  if (!store.ok()) return store.status();
  if (store->empty() || (*store)[0] != '/') {
    return Bad("field 'store' is not an absolute path");
  }
  m.store_home = std::move(*store);
  Result<uint64_t> created = UintField(j, "created_unix_ns", "created_unix_ns");
  if (!created.ok()) return created.status();
  m.created_unix_ns = static_cast<int64_t>(*created);
  Result<std::string> prompt = StringField(j, "prompt", "prompt");
  if (!prompt.ok()) return prompt.status();
  m.prompt = std::move(*prompt);

  Result<const Json*> parent = ObjectField(j, "parent", "parent");
  if (!parent.ok()) return parent.status();
  Result<std::string> pa = StringField(**parent, "agent", "parent.agent");
  Result<std::string> ps = StringField(**parent, "session", "parent.session");
  if (!pa.ok()) return pa.status();
  if (!ps.ok()) return ps.status();
  Status s = CheckId(*pa, true, "parent.agent");
  if (s.ok()) s = CheckId(*ps, true, "parent.session");
  if (!s.ok()) return s;
  m.parent_agent = std::move(*pa);
  m.parent_session = std::move(*ps);

  Result<const Json*> child = ObjectField(j, "child", "child");
  if (!child.ok()) return child.status();
  Result<std::string> ca = StringField(**child, "agent", "child.agent");
  Result<std::string> cs = StringField(**child, "session", "child.session");
  if (!ca.ok()) return ca.status();
  if (!cs.ok()) return cs.status();
  s = CheckId(*ca, false, "child.agent");
  if (s.ok()) s = CheckId(*cs, true, "child.session");
  if (!s.ok()) return s;
  m.child_agent = std::move(*ca);
  m.child_session = std::move(*cs);

  Result<const Json*> result = ObjectField(j, "result", "result");
  if (!result.ok()) return result.status();
  Result<std::string> rkey = StringField(**result, "key", "result.key");
  if (!rkey.ok()) return rkey.status();
  s = ValidateKey(*rkey);
  if (!s.ok()) return Bad("field 'result.key': " + s.message());
  m.result_key = std::move(*rkey);
  Result<std::string> rscope = StringField(**result, "scope", "result.scope");
  if (!rscope.ok()) return rscope.status();
  if (*rscope != "agent:" + m.child_agent) {
    return Bad("field 'result.scope' is not the child's agent scope");
  }
  Result<const Json*> prior = Field(**result, "prior", "result.prior");
  if (!prior.ok()) return prior.status();
  if (!(*prior)->is_null()) {
    if (!(*prior)->is_object()) return Bad("field 'result.prior' is invalid");
    Result<std::string> pid = StringField(**prior, "id", "result.prior.id");
    Result<uint64_t> pver =
        UintField(**prior, "version", "result.prior.version");
    if (!pid.ok()) return pid.status();
    if (!pver.ok()) return pver.status();
    m.prior_result = PriorResult{std::move(*pid), *pver};
  }

  Result<const Json*> refs = Field(j, "refs", "refs");
  if (!refs.ok()) return refs.status();
  if (!(*refs)->is_array()) return Bad("field 'refs' is not an array");
  if ((*refs)->size() > kMaxContextRefs) {
    return Bad("more than " + std::to_string(kMaxContextRefs) + " refs");
  }
  std::unordered_set<std::string> names;
  for (size_t i = 0; i < (*refs)->size(); ++i) {
    Result<ManifestRef> entry = ParseRefEntry((**refs)[i], i);
    if (!entry.ok()) return entry.status();
    if (!names.insert(entry->name).second) {
      return Bad("the name '" + entry->name + "' appears twice");
    }
    m.refs.push_back(std::move(*entry));
  }
  return m;
}

}  // namespace

const ManifestRef* Manifest::Find(std::string_view name) const {
  for (const ManifestRef& entry : refs) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

std::string FormatManifest(const Manifest& m) {
  OrderedJson prior = nullptr;
  if (m.prior_result.has_value()) {
    prior = OrderedJson{{"id", m.prior_result->id},
                        {"version", m.prior_result->version}};
  }
  OrderedJson refs = OrderedJson::array();
  for (const ManifestRef& entry : m.refs) refs.push_back(RefEntryJson(entry));
  OrderedJson j = {
      {"format", kManifestFormat},
      {"version", m.format_version},
      {"store", m.store_home},
      {"created_unix_ns", m.created_unix_ns},
      {"parent", {{"agent", m.parent_agent}, {"session", m.parent_session}}},
      {"child", {{"agent", m.child_agent}, {"session", m.child_session}}},
      {"result",
       {{"key", m.result_key},
        {"scope", "agent:" + m.child_agent},
        {"prior", prior}}},
      {"prompt", m.prompt},
      {"refs", std::move(refs)}};
  // Every string was validated as UTF-8 by Spawn; "replace" only guards
  // hand-built manifests from an exception.
  return text::DumpJson(j) + "\n";
}

Result<Manifest> ParseManifest(std::string_view text) {
  if (text.size() > kMaxManifestBytes) {
    return Bad("larger than " + std::to_string(kMaxManifestBytes) + " bytes");
  }
  Result<Json> j = text::ParseJson(text, "the file");
  if (!j.ok()) return Bad(std::string(j.status().message()));
  try {
    return ParseManifestJson(*j);
  } catch (const Json::exception& e) {
    // The accessors check types first; this is a last line of defence.
    return Bad(e.what());
  }
}

Result<Manifest> LoadManifest(const std::string& path) {
  if (path.empty()) return Status::InvalidArgument("empty manifest path");
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return Status::NotFound("no manifest at " + path);
    return storage::ErrnoStatus("stat", path);
  }
  if (!S_ISREG(st.st_mode)) {
    return Status::InvalidArgument("manifest " + path +
                                   " is not a regular file");
  }
  if (static_cast<uint64_t>(st.st_size) > kMaxManifestBytes) {
    return Bad(path + " is larger than " + std::to_string(kMaxManifestBytes) +
               " bytes");
  }
  Result<std::string> text =
      storage::ReadFileRange(path, 0, static_cast<uint64_t>(st.st_size) + 1);
  if (!text.ok()) return text.status();
  Result<Manifest> m = ParseManifest(*text);
  if (!m.ok()) return m.status().WithContext(path);
  return m;
}

}  // namespace ctxkit
