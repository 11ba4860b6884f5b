// ctxkit.ToolOutputCapture: tool-output capture (save a tool's output, get a
// pointer; load, list, clear, select the relevant ones for a question).
#include "binding.h"
#include "ctxkit/capture.h"
#include "os/filename.h"

namespace ctxkit::python {
namespace {

using PyToolOutputCapture = Serialized<ToolOutputCapture>;

void BindCaptureTypes(py::module_& m) {
  py::class_<ContextPointer>(m, "ContextPointer", "A saved tool output.")
      .def_readonly("filepath", &ContextPointer::filepath,
                    "The pointer: a file path, or a ck: ref.")
      .def_readonly("tool_name", &ContextPointer::tool_name)
      .def_readonly("timestamp", &ContextPointer::timestamp,
                    "Milliseconds since the epoch.")
      .def_readonly("size_bytes", &ContextPointer::size_bytes)
      .def_readonly("query_id", &ContextPointer::query_id)
      .def_readonly("in_memory", &ContextPointer::in_memory);
  py::class_<LoadedContext>(m, "LoadedContext", "A tool output read back.")
      .def_readonly("tool_name", &LoadedContext::tool_name)
      .def_property_readonly(
          "args", [](const LoadedContext& c) { return ParseJson(c.args_json); })
      .def_property_readonly(
          "result",
          [](const LoadedContext& c) { return ParseJson(c.result_json); })
      .def_readonly("args_json", &LoadedContext::args_json)
      .def_readonly("result_json", &LoadedContext::result_json)
      .def_readonly("timestamp", &LoadedContext::timestamp)
      .def_readonly("query_id", &LoadedContext::query_id)
      .def_readonly("session_id", &LoadedContext::session_id)
      .def_readonly("task_id", &LoadedContext::task_id);
  py::class_<Selection>(m, "Selection", "The outputs relevant to a question.")
      .def_readonly("selected", &Selection::selected)
      .def_readonly("loaded", &Selection::loaded)
      .def_readonly("method", &Selection::method, "'llm', 'bm25' or 'all'.")
      .def_readonly("notes", &Selection::notes);
}

}  // namespace

void BindCapture(py::module_& m) {
  BindCaptureTypes(m);
  py::class_<PyToolOutputCapture>(m, "ToolOutputCapture", R"doc(
Tool-output capture for the view's session: save(tool, args, result)
returns a pointer (a ref for small outputs, else a JSON file under the
root, default <store home>/tool-outputs as the CLI). Calls on one
ToolOutputCapture are serialized.)doc")
      .def_static(
          "open",
          [](View& view, const std::optional<std::string>& root,
             uint64_t memory_threshold_bytes) {
            CaptureOptions options{
                .root = root.value_or(
                    storage::HomeToolOutputDir(view.store()->home())),
                .memory_threshold_bytes = memory_threshold_bytes};
            return std::make_unique<PyToolOutputCapture>(
                Call([&] { return ToolOutputCapture::Open(view, options); }));
          },
          py::arg("view"), py::arg("root") = py::none(), py::kw_only(),
          py::arg("memory_threshold_bytes") =
              CaptureOptions{}.memory_threshold_bytes,
          py::keep_alive<0, 1>())
      .def_property_readonly(
          "session_id",
          [](const PyToolOutputCapture& c) { return c.get().session_id(); })
      .def_property_readonly(
          "root", [](const PyToolOutputCapture& c) { return c.get().root(); })
      .def(
          "save",
          [](PyToolOutputCapture& c, const std::string& tool_name,
             const py::object& args, const py::object& result,
             const std::string& task_id, const std::string& query_id) {
            std::string args_json = JsonText(args);
            std::string result_json = JsonText(result);
            return c.Run([&](ToolOutputCapture& x) {
              return x.SaveContext(tool_name, args_json, result_json, task_id,
                                   query_id);
            });
          },
          py::arg("tool_name"), py::arg("args"), py::arg("result"),
          py::kw_only(), py::arg("task_id") = "", py::arg("query_id") = "",
          "Saves one tool execution (args and result: Python objects or JSON\n"
          "text); returns its pointer.")
      .def(
          "load",
          [](PyToolOutputCapture& c, const std::string& pointer) {
            return c.Run(
                [&](ToolOutputCapture& x) { return x.LoadContext(pointer); });
          },
          py::arg("pointer"))
      .def(
          "list",
          [](PyToolOutputCapture& c,
             const std::optional<std::string>& session) {
            std::string id = session.value_or(c.get().session_id());
            return c.Run(
                [&](ToolOutputCapture& x) { return x.ListContexts(id); });
          },
          py::arg("session") = py::none(),
          "The saved outputs of a session (default: own).")
      .def("clear",
           [](PyToolOutputCapture& c) {
             return c.Run(
                 [](ToolOutputCapture& x) { return x.ClearContexts(); });
           })
      .def(
          "select",
          [](PyToolOutputCapture& c, const std::string& question,
             std::optional<std::vector<ContextPointer>> pointers,
             size_t max_selected, std::optional<LlmEndpoint> llm) {
            SelectOptions options;
            options.max_selected = max_selected;
            options.use_llm = llm.has_value();
            if (llm) options.llm = *llm;
            return c.Run([&](ToolOutputCapture& x) -> Result<Selection> {
              std::vector<ContextPointer> all;
              if (!pointers) {
                Result<std::vector<ContextPointer>> listed =
                    x.ListContexts(x.session_id());
                if (!listed.ok()) return listed.status();
                all = std::move(*listed);
              }
              return x.Select(question, pointers ? *pointers : all, options);
            });
          },
          py::arg("question"), py::arg("pointers") = py::none(), py::kw_only(),
          py::arg("max_selected") = 5, py::arg("llm") = py::none(),
          "The saved outputs relevant to question (BM25, or the LLM when "
          "given).");
}

}  // namespace ctxkit::python
