// View.summarize and ctxkit.LlmEndpoint (the chat-completions endpoint a
// summary may use; nothing is sent anywhere unless one is given).
#include "binding.h"
#include "ctxkit/summary.h"

namespace ctxkit::python {

void BindSummary(py::module_& m, py::class_<View>& view) {
  py::class_<LlmEndpoint>(m, "LlmEndpoint", R"doc(
An OpenAI-compatible chat-completions endpoint: base_url (for example
"http://127.0.0.1:8000/v1"), model, optional api_key (sent as a bearer
token), timeouts in milliseconds.)doc")
      .def(py::init([](std::string base_url, std::string model,
                       std::string api_key, int timeout_ms,
                       int connect_timeout_ms) {
             LlmEndpoint e;
             e.base_url = std::move(base_url);
             e.model = std::move(model);
             e.api_key = std::move(api_key);
             e.timeout_ms = timeout_ms;
             e.connect_timeout_ms = connect_timeout_ms;
             return e;
           }),
           py::arg("base_url"), py::arg("model"), py::kw_only(),
           py::arg("api_key") = "",
           py::arg("timeout_ms") = LlmEndpoint{}.timeout_ms,
           py::arg("connect_timeout_ms") = LlmEndpoint{}.connect_timeout_ms)
      .def_readonly("base_url", &LlmEndpoint::base_url)
      .def_readonly("model", &LlmEndpoint::model)
      .def_readonly("timeout_ms", &LlmEndpoint::timeout_ms)
      .def_readonly("connect_timeout_ms", &LlmEndpoint::connect_timeout_ms)
      .def("__repr__", [](const LlmEndpoint& e) {  // Never the key.
        return "LlmEndpoint(base_url='" + e.base_url + "', model='" + e.model +
               "')";
      });
  py::class_<Summary>(m, "Summary", "A summary of one version of a value.")
      .def_property_readonly("text",
                             [](const Summary& s) { return Text(s.text); })
      .def_readonly("tokens", &Summary::tokens)
      .def_readonly("summarizer", &Summary::summarizer)
      .def_readonly("kind", &Summary::kind)
      .def_readonly("cached", &Summary::cached)
      .def_readonly("sampled", &Summary::sampled)
      .def_readonly("notes", &Summary::notes)
      .def_readonly("ref", &Summary::ref)
      .def_readonly("content_hash", &Summary::content_hash);
  view.def(
      "summarize",
      [](View& v, const KeyOrRef& target, size_t max_tokens,
         const std::string& summarizer, const std::string& scope,
         std::optional<LlmEndpoint> llm, bool use_cache) {
        SummarizeOptions options;
        options.max_tokens = max_tokens;
        options.summarizer = Unwrap(ParseSummarizerKind(summarizer));
        options.scope = scope;
        options.llm = std::move(llm);
        options.use_cache = use_cache;
        std::string text = KeyOrRefText(v, target, scope);
        return Call([&] { return Summarize(v, text, options); });
      },
      py::arg("target"), py::arg("max_tokens") = 500, py::kw_only(),
      py::arg("summarizer") = "auto", py::arg("scope") = "",
      py::arg("llm") = py::none(), py::arg("use_cache") = true,
      "A summary of at most max_tokens. summarizer: 'auto' (the llm endpoint\n"
      "when given, else structural), 'structural' or 'llm'. Cached by "
      "content.");
}

}  // namespace ctxkit::python
