// Sub-agents with refs: ctxkit.spawn writes a manifest naming the refs a
// child may read; the child opens its view from it and sets its result.
#include "binding.h"
#include "ctxkit/spawn.h"

namespace ctxkit::python {
namespace {

void BindManifest(py::module_& m) {
  py::class_<Manifest>(m, "Manifest",
                       "A spawn manifest: the prompt and named refs.")
      .def_readonly("store_home", &Manifest::store_home)
      .def_readonly("prompt", &Manifest::prompt)
      .def_readonly("parent_agent", &Manifest::parent_agent)
      .def_readonly("parent_session", &Manifest::parent_session)
      .def_readonly("child_agent", &Manifest::child_agent)
      .def_readonly("child_session", &Manifest::child_session)
      .def_readonly("result_key", &Manifest::result_key)
      .def_readonly("created_unix_ns", &Manifest::created_unix_ns)
      .def_property_readonly(
          "refs",
          [](const Manifest& mf) {
            py::dict out;
            for (const ManifestRef& r : mf.refs)
              out[py::str(r.name)] = py::cast(r.ref);
            return out;
          },
          "name -> Ref, in the manifest's order.")
      .def("to_json", &FormatManifest);
  py::class_<SpawnedAgent>(m, "SpawnedAgent",
                           "What spawn() made for the child.")
      .def_readonly("view", &SpawnedAgent::view)
      .def_readonly("manifest", &SpawnedAgent::manifest)
      .def_readonly("manifest_path", &SpawnedAgent::manifest_path);
}

}  // namespace

void BindSpawn(py::module_& m) {
  BindManifest(m);
  m.def(
      "spawn",
      [](View& parent, const std::string& prompt,
         const std::vector<std::pair<std::string, Ref>>& context,
         const std::string& child_agent, const std::string& child_session,
         const std::string& manifest_path, const std::string& result_key) {
        SpawnOptions options{.child_agent_id = child_agent,
                             .child_session_id = child_session,
                             .manifest_path = manifest_path,
                             .result_key = result_key};
        SpawnContext refs(context.begin(), context.end());
        return Call([&] { return Spawn(parent, prompt, refs, options); });
      },
      py::arg("parent"), py::arg("prompt"), py::arg("context"), py::kw_only(),
      py::arg("child_agent") = "", py::arg("child_session") = "",
      py::arg("manifest_path") = "", py::arg("result_key") = "result",
      py::keep_alive<0, 1>(),
      "Starts a sub-agent: context is a list of (name, Ref) pairs it may "
      "read;\n"
      "writes the manifest (manifest_path, else a file under the store home).");
  m.def(
      "load_manifest",
      [](const std::string& path) {
        return Call([&] { return LoadManifest(path); });
      },
      py::arg("path"));
  m.def(
      "open_child_view",
      [](Store& store, const Manifest& manifest) {
        return Call([&] { return OpenChildView(store, manifest); });
      },
      py::arg("store"), py::arg("manifest"), py::keep_alive<0, 1>(),
      "The child's view, as the manifest says.");
  m.def(
      "resolve_context_ref",
      [](View& child, const Manifest& manifest, const std::string& name) {
        std::string value =
            Call([&] { return ResolveContextRef(child, manifest, name); });
        return py::bytes(value.data(), value.size());
      },
      py::arg("child"), py::arg("manifest"), py::arg("name"),
      "The value a manifest's named ref points to (bytes).");
  m.def(
      "set_result",
      [](View& child, const Manifest& manifest, const py::object& value_arg,
         const std::string& type) {
        BytesArg value(value_arg);
        ValueType t = ParseTypeArg(type);
        return Call(
            [&] { return SetResult(child, manifest, value.view(), t); });
      },
      py::arg("child"), py::arg("manifest"), py::arg("value"), py::kw_only(),
      py::arg("type") = "result",
      "The child's result, where the parent collects it.");
  m.def(
      "collect_result",
      [](View& parent, const Manifest& manifest) {
        return Call([&] { return CollectResult(parent, manifest); });
      },
      py::arg("parent"), py::arg("manifest"),
      "The child's result (NotFoundError until it set one).");
}

}  // namespace ctxkit::python
