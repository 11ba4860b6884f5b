// progress= callbacks (binding.h, ProgressArg) and the ctxkit.Progress they
// receive.
#include <mutex>

#include "binding.h"
#include "face/environment.h"

namespace ctxkit::python {
namespace {

// A report copied out of the library's call (its strings live only there).
struct PyProgress {
  std::string task;
  std::string unit;
  uint64_t done = 0;
  uint64_t total = 0;
  double elapsed_seconds = 0;
  bool finished = false;
};

}  // namespace

struct ProgressArg::Shared {
  py::function fn;
  // The first exception fn raised; reports stop after it. Touched only
  // with the GIL held.
  std::optional<py::error_already_set> error;
};

ProgressArg::ProgressArg(std::optional<py::function> fn) {
  options_.interval_ms = env::ProgressIntervalFromEnv();
  if (!fn || fn->is_none()) return;
  shared_ = std::make_shared<Shared>();
  shared_->fn = std::move(*fn);
  options_.report = [shared = shared_](const Progress& p) {
    py::gil_scoped_acquire gil;
    if (shared->error) return;
    try {
      shared->fn(PyProgress{std::string(p.task), std::string(p.unit), p.done,
                            p.total, p.elapsed_seconds, p.finished});
    } catch (py::error_already_set& e) {
      shared->error = std::move(e);
    }
  };
}

void ProgressArg::RaiseIfFailed() {
  if (shared_ == nullptr || !shared_->error) return;
  py::error_already_set e = std::move(*shared_->error);
  shared_->error.reset();
  throw e;
}

void BindProgress(py::module_& m) {
  py::class_<PyProgress>(m, "Progress", R"doc(
One progress report of a long call (progress= of find_relevant,
collect_garbage, Session.ingest): `task` ("indexing", "collecting", ...),
`done` of `total` `unit` (total 0: not known), `elapsed_seconds`, and
`finished` on the task's last report.)doc")
      .def_readonly("task", &PyProgress::task)
      .def_readonly("unit", &PyProgress::unit)
      .def_readonly("done", &PyProgress::done)
      .def_readonly("total", &PyProgress::total)
      .def_readonly("elapsed_seconds", &PyProgress::elapsed_seconds)
      .def_readonly("finished", &PyProgress::finished)
      .def("__repr__", [](const PyProgress& p) {
        return "Progress(task='" + p.task +
               "', done=" + std::to_string(p.done) +
               ", total=" + std::to_string(p.total) + ", unit='" + p.unit +
               "', finished=" + (p.finished ? "True" : "False") + ")";
      });
}

}  // namespace ctxkit::python
