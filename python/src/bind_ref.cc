// ctxkit.Ref: the handle agents hold. str(ref) is the wire form the CLI and
// MCP server print (ctxkit::FormatRef); Ref(text) parses it back.
#include <pybind11/operators.h>

#include <functional>

#include "binding.h"

namespace ctxkit::python {

void BindRef(py::module_& m) {
  py::class_<Ref>(m, "Ref", R"doc(
A handle to one object: its id, capability tag, version (0: the latest,
a dynamic ref), type, size, scope and key.

Ref(text) parses the wire form ("ck:..."); str(ref) gives it back. Refs
are values: equal when every field is, hashable, immutable.)doc")
      .def(py::init(
               [](const std::string& text) { return Unwrap(ParseRef(text)); }),
           py::arg("text"), "Parses a ref's wire form (InvalidArgumentError).")
      .def_readonly("id", &Ref::id)
      .def_readonly("key", &Ref::key)
      .def_property_readonly(
          "scope", [](const Ref& r) { return r.scope.ToString(); },
          "'global', 'agent:<id>' or 'session:<id>'.")
      .def_property_readonly(
          "type",
          [](const Ref& r) { return std::string(ValueTypeName(r.type)); })
      .def_readonly("size", &Ref::size_bytes, "Size in bytes of the version.")
      .def_readonly("version", &Ref::version, "0 for a dynamic ref.")
      .def_readonly("tag", &Ref::tag)
      .def_property_readonly("is_static", &Ref::is_static,
                             "True when it names one version forever.")
      .def_property_readonly("is_session_only", &Ref::is_session_only)
      .def("dynamic", &Ref::Dynamic, "The same object, following the latest.")
      .def("__str__", [](const Ref& r) { return FormatRef(r); })
      .def(py::pickle(
          [](const Ref& r) { return FormatRef(r); },
          [](const std::string& text) { return Unwrap(ParseRef(text)); }))
      .def("__repr__",
           [](const Ref& r) { return "Ref('" + FormatRef(r) + "')"; })
      .def(py::self == py::self)
      .def("__hash__",
           [](const Ref& r) { return std::hash<std::string>{}(FormatRef(r)); });
}

}  // namespace ctxkit::python
