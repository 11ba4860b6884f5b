// The helpers binding.h declares for every binding: argument forms (keys
// or refs, value types, buffers) and text/JSON conversions.
#include "binding.h"

namespace ctxkit::python {

Target TargetOf(const KeyOrRef& target, LookupOptions lookup) {
  if (const Ref* ref = std::get_if<Ref>(&target)) return Target(*ref);
  return Target(std::get<std::string>(target), std::move(lookup));
}

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

std::string JsonText(const py::object& value) {
  if (py::isinstance<py::str>(value) || py::isinstance<py::bytes>(value)) {
    return value.cast<std::string>();
  }
  return py::module_::import("json").attr("dumps")(value).cast<std::string>();
}

py::object ParseJson(const std::string& text) {
  return py::module_::import("json").attr("loads")(Text(text));
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

}  // namespace ctxkit::python
