// ctxkit._ctxkit: the native half of the ctxkit Python package. The public
// names are re-exported by python/ctxkit/__init__.py, which also adds the
// asyncio twins; python/ctxkit/_ctxkit.pyi types them.
#include "binding.h"

PYBIND11_MODULE(_ctxkit, m) {
  namespace python = ctxkit::python;
  m.doc() = "ctxkit: a versioned context store for LLM agents (native core).";
  python::RegisterErrors(m);
  python::BindRef(m);
  python::BindProgress(m);
  pybind11::class_<ctxkit::View> view(m, "View", R"doc(
A store seen as one agent in one session: every read and write of values.

Obtain one with Store.view(agent=..., session=...). Thread-safe; calls
release the GIL while they do I/O.)doc");
  python::BindStore(m, view);
  python::BindExplore(m, view);
  python::BindSummary(m, view);
  python::BindIndex(m, view);
  python::BindSession(m);
  python::BindExternalize(m);
  python::BindNotes(m);
  python::BindCapture(m);
  python::BindSpawn(m);
}
