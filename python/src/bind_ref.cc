// ctxkit.Ref: the handle agents hold. str(ref) is the wire form the CLI and
// MCP server print (ctxkit::FormatRef); Ref(text) parses it back.
#include <pybind11/operators.h>

#include <functional>

#include "binding.h"

namespace ctxkit::python {

Ref RefFor(View& view, const KeyOrRef& target, const LookupOptions& lookup) {
  if (const Ref* ref = std::get_if<Ref>(&target)) return *ref;
  const std::string& key = std::get<std::string>(target);
  return Call([&] { return view.RefOf(key, lookup); });
}

std::string KeyOrRefText(View& view, const KeyOrRef& target,
                         const std::string& scope) {
  if (const Ref* ref = std::get_if<Ref>(&target)) return FormatRef(*ref);
  const std::string& key = std::get<std::string>(target);
  return FormatRef(Call([&] { return view.Pin(key, Lookup(0, scope)); }));
}

BytesArg::BytesArg(const py::object& value) {
  if (PyBytes_Check(value.ptr())) {
    view_ = std::string_view(PyBytes_AS_STRING(value.ptr()),
                             PyBytes_GET_SIZE(value.ptr()));
  } else if (PyUnicode_Check(value.ptr())) {
    Py_ssize_t size = 0;
    const char* data = PyUnicode_AsUTF8AndSize(value.ptr(), &size);
    if (data == nullptr) throw py::error_already_set();
    view_ = std::string_view(data, size);
  } else if (PyObject_CheckBuffer(value.ptr())) {
    py::buffer_info info = py::reinterpret_borrow<py::buffer>(value).request();
    owned_.assign(static_cast<const char*>(info.ptr),
                  static_cast<size_t>(info.size * info.itemsize));
    view_ = owned_;
  } else {
    throw py::type_error("expected str, bytes or a bytes-like object, not " +
                         std::string(Py_TYPE(value.ptr())->tp_name));
  }
}

py::str Text(std::string_view text) {
  PyObject* s = PyUnicode_DecodeUTF8(
      text.data(), static_cast<Py_ssize_t>(text.size()), "replace");
  if (s == nullptr) throw py::error_already_set();
  return py::reinterpret_steal<py::str>(s);
}

py::list TextList(const std::vector<std::string>& texts) {
  py::list out;
  for (const std::string& t : texts) out.append(Text(t));
  return out;
}

ValueType ParseTypeArg(const std::string& name) {
  return Unwrap(ParseValueType(name));
}

std::optional<ValueType> ParseOptionalType(
    const std::optional<std::string>& name) {
  if (!name) return std::nullopt;
  return ParseTypeArg(*name);
}

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
