// StatusError -> ctxkit.<Code>Error (python/ctxkit/_errors.py).
#include "binding.h"

namespace ctxkit::python {

void RegisterErrors(py::module_& m) {
  (void)m;
  py::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown) std::rethrow_exception(thrown);
    } catch (const StatusError& e) {
      // ctxkit/__init__.py imports _errors before this module, so the
      // import is a lookup in sys.modules.
      py::object cls = py::module_::import("ctxkit._errors")
                           .attr("error_class")(
                               std::string(StatusCodeName(e.status().code())));
      py::object error = cls(Text(e.status().message()));
      PyErr_SetObject(cls.ptr(), error.ptr());
    }
  });
}

}  // namespace ctxkit::python
