// ctxkit.Store and the value calls of ctxkit.View (set/get/ref/list/...),
// with the metadata classes they return.
#include <pybind11/stl/filesystem.h>

#include <filesystem>
#include <memory>
#include <vector>

#include "binding.h"
#include "ctxkit/environment.h"
#include "face/gc.h"

namespace ctxkit::python {
namespace {

std::string ScopeString(const Scope& scope) { return scope.ToString(); }

std::string TypeString(ValueType type) {
  return std::string(ValueTypeName(type));
}

std::unique_ptr<Store> OpenStore(const std::optional<std::string>& home,
                                 const std::optional<std::string>& store_url,
                                 bool read_only, uint64_t memory_ceiling_bytes,
                                 const std::string& durability,
                                 int busy_timeout_ms) {
  Options options;
  options.home = Unwrap(ResolveHome(home.value_or("")));
  options.store_url = ResolveStoreUrl(store_url.value_or(""));
  options.read_only = read_only;
  options.memory_ceiling_bytes = memory_ceiling_bytes;
  options.durability = Unwrap(ParseDurability(durability));
  options.busy_timeout_ms = busy_timeout_ms;
  return Call([&] { return Store::Open(options); });
}

SetOptions MakeSetOptions(const std::string& scope, const std::string& type,
                          bool persist, std::vector<std::string> tags,
                          std::string producer, bool count_tokens,
                          uint64_t expected_version) {
  SetOptions options;
  options.scope = scope;
  options.type = ParseTypeArg(type);
  options.persist = persist;
  options.tags = std::move(tags);
  options.producer = std::move(producer);
  options.count_tokens = count_tokens;
  options.expected_version = expected_version;
  return options;
}

void BindMetadata(py::module_& m) {
  py::class_<ObjectMeta>(m, "ObjectMeta",
                         "One object's metadata (latest version).")
      .def_readonly("id", &ObjectMeta::id)
      .def_readonly("key", &ObjectMeta::key)
      .def_property_readonly(
          "scope", [](const ObjectMeta& o) { return ScopeString(o.scope); })
      .def_property_readonly(
          "type", [](const ObjectMeta& o) { return TypeString(o.type); })
      .def_readonly("size", &ObjectMeta::size_bytes)
      .def_readonly("version", &ObjectMeta::version)
      .def_readonly("created_unix_ns", &ObjectMeta::created_unix_ns)
      .def_readonly("updated_unix_ns", &ObjectMeta::updated_unix_ns)
      .def_readonly("tags", &ObjectMeta::tags)
      .def_readonly("persistent", &ObjectMeta::persistent)
      .def_readonly("tokens", &ObjectMeta::tokens,
                    "Exact o200k_base count, or None.")
      .def_property_readonly(
          "ref", [](const ObjectMeta& o) { return StaticRefOf(o); },
          "Static ref to the latest version.")
      .def("__repr__", [](const ObjectMeta& o) {
        return "ObjectMeta(key='" + o.key + "', scope='" +
               ScopeString(o.scope) +
               "', version=" + std::to_string(o.version) +
               ", size=" + std::to_string(o.size_bytes) + ")";
      });
  py::class_<VersionMeta>(m, "VersionMeta", "One version of an object.")
      .def_readonly("version", &VersionMeta::version)
      .def_property_readonly(
          "state",
          [](const VersionMeta& v) {
            return std::string(VersionStateName(v.state));
          },
          "'present', 'deleted' (a tombstone) or 'missing'.")
      .def_property_readonly(
          "type", [](const VersionMeta& v) { return TypeString(v.type); })
      .def_readonly("size", &VersionMeta::size_bytes)
      .def_readonly("content_hash", &VersionMeta::content_hash)
      .def_readonly("created_unix_ns", &VersionMeta::created_unix_ns)
      .def_readonly("producer", &VersionMeta::producer)
      .def_readonly("tokens", &VersionMeta::tokens)
      .def("__repr__", [](const VersionMeta& v) {
        return "VersionMeta(version=" + std::to_string(v.version) +
               ", state='" + std::string(VersionStateName(v.state)) +
               "', size=" + std::to_string(v.size_bytes) + ")";
      });
  py::class_<ListPage>(m, "ListPage",
                       "One page of View.list; pass next_cursor for the next.")
      .def_readonly("items", &ListPage::items)
      .def_readonly("next_cursor", &ListPage::next_cursor,
                    "'' on the last page.");
  py::class_<StoreStats>(m, "StoreStats", "Counts of Store.stats().")
      .def_readonly("objects", &StoreStats::objects)
      .def_readonly("live_objects", &StoreStats::live_objects)
      .def_readonly("versions", &StoreStats::versions)
      .def_readonly("content_bytes", &StoreStats::content_bytes)
      .def_readonly("blob_files", &StoreStats::blob_files)
      .def_readonly("memory_ceiling_bytes", &StoreStats::memory_ceiling_bytes)
      .def_readonly("memory_used_bytes", &StoreStats::memory_used_bytes)
      .def_readonly("session_objects", &StoreStats::session_objects);
  py::class_<GarbageReport>(m, "GarbageReport",
                            "What Store.collect_garbage found or freed.")
      .def_readonly("applied", &GarbageReport::applied)
      .def_readonly("versions_scanned", &GarbageReport::versions_scanned)
      .def_readonly("versions", &GarbageReport::versions)
      .def_readonly("bytes", &GarbageReport::bytes)
      .def_readonly("kept_by_ref", &GarbageReport::kept_by_ref)
      .def_readonly("freed_bytes", &GarbageReport::freed_bytes)
      .def_readonly("blob_files", &GarbageReport::blob_files);
}

void BindStoreClass(py::module_& m) {
  py::class_<Store>(m, "Store", R"doc(
An open store: one home directory (SQLite database and blob files), or a
PostgreSQL database shared by many machines (store_url).

Store(home=None) opens (creating when missing) the home given, or
$CTXKIT_HOME, or the default home the CLI uses. store_url (else
$CTXKIT_STORE_URL) names a PostgreSQL store instead, a libpq connection
string; the home then keeps only this machine's caches (docs/postgres.md).
Thread-safe. Views and sessions keep their store alive.)doc")
      .def(py::init(&OpenStore), py::arg("home") = py::none(), py::kw_only(),
           py::arg("store_url") = py::none(), py::arg("read_only") = false,
           py::arg("memory_ceiling_bytes") = Options{}.memory_ceiling_bytes,
           py::arg("durability") = "full",
           py::arg("busy_timeout_ms") = Options{}.busy_timeout_ms)
      .def(
          "view",
          [](Store& store, const std::string& agent,
             const std::string& session) {
            return Call([&] { return store.OpenView(agent, session); });
          },
          py::kw_only(), py::arg("agent") = "", py::arg("session") = "",
          py::keep_alive<0, 1>(),
          "A view bound to an agent and a session (either may be '').")
      .def(
          "end_session",
          [](Store& store, const std::string& session) {
            Call([&] { return store.EndSession(session); });
          },
          py::arg("session"), "Drops the session's session-only values.")
      .def("stats",
           [](Store& store) { return Call([&] { return store.Stats(); }); })
      .def(
          "collect_garbage",
          [](Store& store, int64_t retention_seconds, bool apply,
             std::vector<Ref> keep, std::optional<py::function> progress_fn) {
            ProgressArg progress(std::move(progress_fn));
            GarbageOptions options;
            options.retention_seconds = retention_seconds;
            options.apply = apply;
            options.keep = std::move(keep);
            options.progress = progress.options();
            GarbageReport report =
                Call([&] { return face::CollectGarbage(store, options); });
            progress.RaiseIfFailed();
            return report;
          },
          py::kw_only(),
          py::arg("retention_seconds") = GarbageOptions{}.retention_seconds,
          py::arg("apply") = false, py::arg("keep") = std::vector<Ref>{},
          py::arg("progress") = py::none(),
          "Superseded versions older than the retention that no session, "
          "externalized context, spawn manifest or `keep` names: reported, "
          "or removed with apply=True.")
      .def_property_readonly("home", &Store::home)
      .def_property_readonly("read_only", &Store::read_only);
}

py::bytes Bytes(const std::string& s) { return py::bytes(s.data(), s.size()); }

void BindValueCalls(py::class_<View>& view) {
  view.def_property_readonly("agent_id", &View::agent_id)
      .def_property_readonly("session_id", &View::session_id)
      .def(
          "set",
          [](View& v, const std::string& key, const py::object& value_arg,
             const std::string& scope, const std::string& type, bool persist,
             std::vector<std::string> tags, std::string producer,
             bool count_tokens, uint64_t expected_version) {
            SetOptions options = MakeSetOptions(
                scope, type, persist, std::move(tags), std::move(producer),
                count_tokens, expected_version);
            BytesArg value(value_arg);
            return Call([&] { return v.Set(key, value.view(), options); });
          },
          py::arg("key"), py::arg("value"), py::kw_only(),
          py::arg("scope") = "", py::arg("type") = "text",
          py::arg("persist") = true,
          py::arg("tags") = std::vector<std::string>{},
          py::arg("producer") = "", py::arg("count_tokens") = false,
          py::arg("expected_version") = 0,
          "Writes a new version of key (str or bytes value); returns its "
          "static ref.\n"
          "expected_version > 0 makes it a compare-and-set "
          "(FailedPreconditionError when the latest differs).")
      .def(
          "set_file",
          [](View& v, const std::string& key, const std::filesystem::path& path,
             const std::string& scope, const std::string& type, bool persist,
             std::vector<std::string> tags, std::string producer,
             bool count_tokens, uint64_t expected_version) {
            SetOptions options = MakeSetOptions(
                scope, type, persist, std::move(tags), std::move(producer),
                count_tokens, expected_version);
            return Call([&] { return v.SetFile(key, path.string(), options); });
          },
          py::arg("key"), py::arg("path"), py::kw_only(), py::arg("scope") = "",
          py::arg("type") = "text", py::arg("persist") = true,
          py::arg("tags") = std::vector<std::string>{},
          py::arg("producer") = "", py::arg("count_tokens") = false,
          py::arg("expected_version") = 0,
          "Writes the whole file at path (str or os.PathLike) as a new "
          "version of key; returns its static ref.\n"
          "A large regular file is copied into the store by the kernel and "
          "hashed from that copy, never read into Python.")
      .def(
          "set_many",
          [](View& v,
             const std::vector<std::pair<std::string, std::string>>& items,
             const std::string& scope, const std::string& type, bool persist,
             std::vector<std::string> tags, std::string producer,
             bool count_tokens) {
            SetOptions options =
                MakeSetOptions(scope, type, persist, std::move(tags),
                               std::move(producer), count_tokens, 0);
            std::vector<SetItem> batch;
            batch.reserve(items.size());
            for (const auto& [key, value] : items)
              batch.push_back({key, value, options});
            return Call([&] { return v.SetMany(batch); });
          },
          py::arg("items"), py::kw_only(), py::arg("scope") = "",
          py::arg("type") = "text", py::arg("persist") = true,
          py::arg("tags") = std::vector<std::string>{},
          py::arg("producer") = "", py::arg("count_tokens") = false,
          "Writes (key, value) pairs in one commit: all or none.")
      .def(
          "append",
          [](View& v, const std::string& key, const py::object& data_arg,
             const std::string& scope, const std::string& type, bool persist,
             std::vector<std::string> tags, std::string producer) {
            SetOptions options =
                MakeSetOptions(scope, type, persist, std::move(tags),
                               std::move(producer), false, 0);
            BytesArg data(data_arg);
            return Call([&] { return v.Append(key, data.view(), options); });
          },
          py::arg("key"), py::arg("data"), py::kw_only(), py::arg("scope") = "",
          py::arg("type") = "stream", py::arg("persist") = true,
          py::arg("tags") = std::vector<std::string>{},
          py::arg("producer") = "",
          "Appends bytes to a stream (or chat) object; returns the new "
          "version's ref.")
      .def(
          "get",
          [](View& v, const KeyOrRef& target, uint64_t version,
             const std::string& scope) {
            Target t = TargetOf(target, Lookup(version, scope));
            return Bytes(Call([&] { return v.Get(t); }));
          },
          py::arg("target"), py::kw_only(), py::arg("version") = 0,
          py::arg("scope") = "",
          "The whole value (bytes) of a key (latest, or version=N) or of a "
          "Ref.")
      .def(
          "resolve",
          [](View& v, const KeyOrRef& ref_or_text) {
            Ref ref =
                std::holds_alternative<Ref>(ref_or_text)
                    ? std::get<Ref>(ref_or_text)
                    : Unwrap(ParseRef(std::get<std::string>(ref_or_text)));
            return Bytes(Call([&] { return v.Resolve(ref); }));
          },
          py::arg("ref"), "The value (bytes) a Ref or its wire form names.")
      .def(
          "read_range",
          [](View& v, const KeyOrRef& target, uint64_t offset, uint64_t length,
             uint64_t version, const std::string& scope) {
            Ref ref = RefFor(v, target, Lookup(version, scope));
            return Bytes(
                Call([&] { return v.ReadRange(ref, offset, length); }));
          },
          py::arg("target"), py::arg("offset"), py::arg("length"),
          py::kw_only(), py::arg("version") = 0, py::arg("scope") = "",
          "length bytes from offset (fewer at the end); reads only that range.")
      .def(
          "ref",
          [](View& v, const std::string& key, uint64_t version,
             const std::string& scope) {
            return Call([&] { return v.RefOf(key, Lookup(version, scope)); });
          },
          py::arg("key"), py::kw_only(), py::arg("version") = 0,
          py::arg("scope") = "",
          "A dynamic ref to key (static with version=N).")
      .def(
          "pin",
          [](View& v, const KeyOrRef& target, uint64_t version,
             const std::string& scope) {
            Target t = TargetOf(target, Lookup(version, scope));
            return Call([&] { return v.Pin(t); });
          },
          py::arg("target"), py::kw_only(), py::arg("version") = 0,
          py::arg("scope") = "",
          "A static ref to the latest (or given) version.")
      .def(
          "stat",
          [](View& v, const KeyOrRef& target, uint64_t version,
             const std::string& scope) {
            Target t = TargetOf(target, Lookup(version, scope));
            return Call([&] { return v.Stat(t); });
          },
          py::arg("target"), py::kw_only(), py::arg("version") = 0,
          py::arg("scope") = "")
      .def(
          "remove",
          [](View& v, const std::string& key, const std::string& scope) {
            Call([&] { return v.Remove(key, Lookup(0, scope)); });
          },
          py::arg("key"), py::kw_only(), py::arg("scope") = "",
          "Writes a tombstone; earlier versions stay readable by static ref.")
      .def(
          "list",
          [](View& v, const std::string& scope,
             const std::optional<std::string>& type, const std::string& prefix,
             std::vector<std::string> tags, size_t limit,
             const std::string& cursor) {
            ListFilter filter;
            filter.scope = scope;
            filter.type = ParseOptionalType(type);
            filter.key_prefix = prefix;
            filter.tags = std::move(tags);
            filter.limit = limit;
            filter.cursor = cursor;
            return Call([&] { return v.List(filter); });
          },
          py::kw_only(), py::arg("scope") = "", py::arg("type") = py::none(),
          py::arg("key_prefix") = "",
          py::arg("tags") = std::vector<std::string>{}, py::arg("limit") = 100,
          py::arg("cursor") = "",
          "One page of the objects the view sees, filtered; sorted by key.")
      .def(
          "versions",
          [](View& v, const KeyOrRef& target, const std::string& scope) {
            Target t = TargetOf(target, Lookup(0, scope));
            return Call([&] { return v.Versions(t); });
          },
          py::arg("target"), py::kw_only(), py::arg("scope") = "",
          "Every version, oldest first, tombstones included.")
      .def(
          "count_tokens",
          [](View& v, const KeyOrRef& target, uint64_t version,
             const std::string& scope) {
            Target t = TargetOf(target, Lookup(version, scope));
            return Call([&] { return v.CountTokens(t); });
          },
          py::arg("target"), py::kw_only(), py::arg("version") = 0,
          py::arg("scope") = "",
          "Exact o200k_base token count of a stored value (kept once counted).")
      .def(
          "promote",
          [](View& v, const std::string& key) {
            return Call([&] { return v.Promote(key); });
          },
          py::arg("key"), "Moves a session- or agent-scoped key one scope up.")
      .def(
          "rename",
          [](View& v, const std::string& from, const std::string& to,
             const std::string& scope) {
            return Call([&] { return v.Rename(from, to, Lookup(0, scope)); });
          },
          py::arg("from_key"), py::arg("to_key"), py::kw_only(),
          py::arg("scope") = "")
      .def(
          "sub_agent",
          [](const View& v, const std::string& agent,
             const std::string& session) {
            return Call([&] { return v.SubAgent(agent, session); });
          },
          py::arg("agent"), py::arg("session") = "", py::keep_alive<0, 1>(),
          "A view for a child agent (refs passed to it are its capabilities).")
      .def("__repr__", [](const View& v) {
        return "View(agent='" + v.agent_id() + "', session='" + v.session_id() +
               "')";
      });
}

}  // namespace

void BindStore(py::module_& m, py::class_<View>& view) {
  BindMetadata(m);
  BindStoreClass(m);
  BindValueCalls(view);
}

}  // namespace ctxkit::python
