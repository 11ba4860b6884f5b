// View.find_relevant: ranked passages for a question (BM25 over the
// store's own full-text index, fused with embeddings when an endpoint is
// given).
#include "binding.h"
#include "ctxkit/index.h"

namespace ctxkit::python {

void BindIndex(py::module_& m, py::class_<View>& view) {
  py::class_<EmbeddingsConfig>(m, "EmbeddingsConfig", R"doc(
An OpenAI-compatible embeddings endpoint for find_relevant (base_url,
model, optional api_key); without one, ranking is BM25 alone.)doc")
      .def(py::init([](std::string base_url, std::string model,
                       std::string api_key, int timeout_ms, size_t batch_size) {
             EmbeddingsConfig c;
             c.base_url = std::move(base_url);
             c.model = std::move(model);
             c.api_key = std::move(api_key);
             c.timeout_ms = timeout_ms;
             c.batch_size = batch_size;
             return c;
           }),
           py::arg("base_url"), py::arg("model"), py::kw_only(),
           py::arg("api_key") = "",
           py::arg("timeout_ms") = EmbeddingsConfig{}.timeout_ms,
           py::arg("batch_size") = EmbeddingsConfig{}.batch_size)
      .def_readonly("base_url", &EmbeddingsConfig::base_url)
      .def_readonly("model", &EmbeddingsConfig::model)
      .def("__repr__", [](const EmbeddingsConfig& c) {
        return "EmbeddingsConfig(base_url='" + c.base_url + "', model='" +
               c.model + "')";
      });
  py::class_<FindHit>(m, "FindHit",
                      "One ranked passage: a byte range of a value.")
      .def_readonly("ref", &FindHit::ref)
      .def_readonly("key", &FindHit::key)
      .def_readonly("byte_offset", &FindHit::byte_offset)
      .def_readonly("byte_length", &FindHit::byte_length)
      .def_readonly("tokens", &FindHit::tokens)
      .def_readonly("score", &FindHit::score)
      .def_readonly("method", &FindHit::method)
      .def_property_readonly("preview",
                             [](const FindHit& h) { return Text(h.preview); });
  py::class_<FindResult>(m, "FindResult", "Hits of find_relevant, best first.")
      .def_readonly("hits", &FindResult::hits)
      .def_readonly("method", &FindResult::method)
      .def_readonly("variables_covered", &FindResult::variables_covered)
      .def_readonly("notes", &FindResult::notes);
  view.def(
      "find_relevant",
      [](View& v, const std::string& query, std::optional<KeyOrRef> target,
         const std::string& scope, const std::string& prefix, size_t top_k,
         uint32_t chunk_tokens, size_t preview_bytes, bool widen,
         std::optional<EmbeddingsConfig> embeddings,
         std::optional<py::function> progress_fn) {
        ProgressArg progress(std::move(progress_fn));
        FindOptions options;
        if (target) {
          if (const Ref* ref = std::get_if<Ref>(&*target)) {
            options.ref = *ref;
          } else {
            options.key = std::get<std::string>(*target);
            options.lookup.scope = scope;  // The key is looked up there.
          }
        }
        options.scope = scope;
        options.key_prefix = prefix;
        options.top_k = top_k;
        options.chunk_tokens = chunk_tokens;
        options.preview_bytes = preview_bytes;
        options.widen = widen;
        if (embeddings) options.embeddings = std::move(*embeddings);
        options.progress = progress.options();
        FindResult found =
            Call([&] { return FindRelevant(v, query, options); });
        progress.RaiseIfFailed();
        return found;
      },
      py::arg("query"), py::arg("target") = py::none(), py::kw_only(),
      py::arg("scope") = "", py::arg("key_prefix") = "", py::arg("top_k") = 5,
      py::arg("chunk_tokens") = 256, py::arg("preview_bytes") = 240,
      py::arg("widen") = true, py::arg("embeddings") = py::none(),
      py::arg("progress") = py::none(),
      "The top_k passages most relevant to query, in one value (target: a key\n"
      "or Ref) or across every value the view sees (filtered by "
      "scope/key_prefix). widen=False matches the query's own words only\n"
      "(otherwise related words from WordNet count too, for less).\n"
      "progress: a callable taking a ctxkit.Progress, called while the index\n"
      "catches up with the store (task 'indexing', in changes).");
}

}  // namespace ctxkit::python
