// ctxkit.ExternalizedContext: SPEC-25 context as variables (the helpers by
// variable name, deferred summaries, the root prompt). The REPL
// (python/ctxkit/repl.py) serves its sandboxed code through these calls.
//
// The C++ context is a value whose const calls may run concurrently; the
// Python object guards it with a reader/writer lock so add_variable and
// auto_chunk never race a helper running with the GIL released.
#include <shared_mutex>

#include "binding.h"
#include "ctxkit/externalize.h"

namespace ctxkit::python {
namespace {

// A deferred summary whose destruction (which waits for its threads) runs
// without the GIL, so dropping a pending one never freezes the interpreter.
struct PyDeferred {
  explicit PyDeferred(DeferredVariableSummary d) : deferred(std::move(d)) {}
  PyDeferred(const PyDeferred&) = delete;
  PyDeferred& operator=(const PyDeferred&) = delete;
  ~PyDeferred() {
    if (deferred.valid() && !deferred.Ready() && PyGILState_Check()) {
      py::gil_scoped_release release;
      deferred = DeferredVariableSummary();
    }
  }
  DeferredVariableSummary deferred;
};

class PyContext {
 public:
  explicit PyContext(ExternalizedContext context)
      : context_(std::move(context)) {}

  // fn(const context) under a shared lock, without the GIL; unwraps.
  template <typename Fn>
  auto Read(Fn&& fn) const {
    return Call([&] {
      std::shared_lock lock(mu_);
      return fn(context_);
    });
  }
  // fn(context) under the exclusive lock, without the GIL; unwraps.
  template <typename Fn>
  auto Write(Fn&& fn) {
    return Call([&] {
      std::unique_lock lock(mu_);
      return fn(context_);
    });
  }
  // fn(const context) under the shared lock, without the GIL (a writer
  // may hold the lock for long), returning fn's value as it is.
  template <typename Fn>
  auto Get(Fn&& fn) const {
    return WithoutGil([&] {
      std::shared_lock lock(mu_);
      return fn(context_);
    });
  }

 private:
  mutable std::shared_mutex mu_;
  ExternalizedContext context_;
};

void BindVariables(py::module_& m) {
  py::class_<VariableMember>(m, "VariableMember",
                             "One element of a collection variable.")
      .def_readonly("name", &VariableMember::name)
      .def_readonly("ref", &VariableMember::ref)
      .def_readonly("size_bytes", &VariableMember::size_bytes)
      .def_readonly("tokens", &VariableMember::tokens)
      .def_readonly("label", &VariableMember::label);
  py::class_<ContextVariable>(m, "ContextVariable",
                              "One variable of an ExternalizedContext.")
      .def_readonly("name", &ContextVariable::name)
      .def_property_readonly(
          "type",
          [](const ContextVariable& v) {
            return std::string(VariableTypeName(v.type));
          },
          "conversation, files, tool_outputs, working_memory or custom.")
      .def_readonly("custom_type", &ContextVariable::custom_type)
      .def_property_readonly(
          "shape",
          [](const ContextVariable& v) {
            return std::string(VariableShapeName(v.shape));
          },
          "list, dict or string.")
      .def_readonly("size_bytes", &ContextVariable::size_bytes)
      .def_readonly("tokens", &ContextVariable::tokens)
      .def_readonly("summary", &ContextVariable::summary)
      .def_readonly("item_count", &ContextVariable::item_count)
      .def_readonly("ref", &ContextVariable::ref)
      .def_readonly("members", &ContextVariable::members);
  py::class_<SizeWarning>(m, "SizeWarning", "A SPEC-25 size limit crossed.")
      .def_property_readonly("kind",
                             [](const SizeWarning& w) {
                               return std::string(SizeWarningKindName(w.kind));
                             })
      .def_readonly("variable", &SizeWarning::variable)
      .def_readonly("size", &SizeWarning::size)
      .def_readonly("threshold", &SizeWarning::threshold)
      .def_readonly("suggested_chunks", &SizeWarning::suggested_chunks)
      .def_readonly("message", &SizeWarning::message);
  py::class_<PeekedItem>(m, "PeekedItem", "One item of a variable's slice.")
      .def_readonly("index", &PeekedItem::index)
      .def_readonly("key", &PeekedItem::key)
      .def_readonly("ref", &PeekedItem::ref)
      .def_property_readonly("text",
                             [](const PeekedItem& i) { return Text(i.text); })
      .def_readonly("size_bytes", &PeekedItem::size_bytes)
      .def_readonly("truncated", &PeekedItem::truncated);
  py::class_<VariablePeek>(m, "VariablePeek", "A slice of a variable.")
      .def_readonly("variable", &VariablePeek::variable)
      .def_property_readonly("shape",
                             [](const VariablePeek& p) {
                               return std::string(VariableShapeName(p.shape));
                             })
      .def_readonly("start", &VariablePeek::start)
      .def_readonly("end", &VariablePeek::end)
      .def_readonly("total", &VariablePeek::total)
      .def_readonly("items", &VariablePeek::items)
      .def_property_readonly("text",
                             [](const VariablePeek& p) { return Text(p.text); })
      .def_property_readonly("unit",
                             [](const VariablePeek& p) {
                               return std::string(PeekUnitName(p.unit));
                             })
      .def_readonly("truncated", &VariablePeek::truncated);
  py::class_<VariableMatch>(m, "VariableMatch", "One match in a variable.")
      .def_readonly("index", &VariableMatch::index)
      .def_readonly("key", &VariableMatch::key)
      .def_readonly("ref", &VariableMatch::ref)
      .def_readonly("line", &VariableMatch::line)
      .def_readonly("byte_offset", &VariableMatch::byte_offset)
      .def_property_readonly(
          "preview", [](const VariableMatch& m) { return Text(m.preview); });
  py::class_<VariableSearch>(m, "VariableSearch", "Matches in a variable.")
      .def_readonly("variable", &VariableSearch::variable)
      .def_readonly("matches", &VariableSearch::matches)
      .def_readonly("truncated", &VariableSearch::truncated);
  py::class_<VariableLen>(m, "VariableLen",
                          "Sizes of a variable (from metadata).")
      .def_property_readonly("shape",
                             [](const VariableLen& l) {
                               return std::string(VariableShapeName(l.shape));
                             })
      .def_readonly("items", &VariableLen::items)
      .def_readonly("bytes", &VariableLen::bytes)
      .def_readonly("tokens", &VariableLen::tokens);
  py::class_<PyDeferred>(m, "DeferredSummary", R"doc(
A summary being computed (SPEC-25's deferred operation): ready() polls,
result() waits (without the GIL) and returns the Summary. It keeps the
store it reads alive until it is done.)doc")
      .def("ready", [](const PyDeferred& d) { return d.deferred.Ready(); })
      .def("result", [](const PyDeferred& d) {
        return Call([&] { return d.deferred.Get(); });
      });
  py::class_<RootPrompt>(m, "RootPrompt",
                         "The SPEC-25 root prompt and its exact tokens.")
      .def_readonly("text", &RootPrompt::text)
      .def_readonly("tokens", &RootPrompt::tokens);
}

SizeConfig MakeSizeConfig(uint64_t warn_bytes, uint64_t chunk_bytes,
                          uint64_t total_bytes, uint32_t chunk_tokens) {
  return SizeConfig{.warn_bytes = warn_bytes,
                    .chunk_bytes = chunk_bytes,
                    .total_bytes = total_bytes,
                    .chunk_tokens = chunk_tokens};
}

void BindContext(py::module_& m) {
  const SizeConfig sizes;
  py::class_<PyContext>(m, "ExternalizedContext", R"doc(
SPEC-25 context as variables: the query plus named variables that stay in
the store (conversation, files, tool_outputs, working_memory of a session,
and custom ones), explored with the helpers by variable name. Every helper
takes the View to read through.)doc")
      .def_static(
          "from_session",
          [](View& view, const std::string& session, std::string query) {
            return std::make_unique<PyContext>(Call([&] {
              return ExternalizedContext::FromSession(view, "", session,
                                                      std::move(query));
            }));
          },
          py::arg("view"), py::arg("session"), py::arg("query") = "",
          "The variables of a session (NotFoundError when there is none).")
      .def_static(
          "empty",
          [](std::string query) {
            return std::make_unique<PyContext>(
                Unwrap(ExternalizedContext::Empty(std::move(query))));
          },
          py::arg("query") = "", "A context with no variables yet.")
      .def(
          "add_variable",
          [](PyContext& c, View& view, const std::string& name,
             const KeyOrRef& target, const std::string& custom_type) {
            Ref ref = RefFor(view, target, {});
            c.Write([&](ExternalizedContext& x) {
              return x.AddVariable(view, name, ref, custom_type);
            });
          },
          py::arg("view"), py::arg("name"), py::arg("target"),
          py::arg("custom_type") = "",
          "Adds the value a key or Ref names (pinned) as variable `name`.")
      .def_property_readonly("query",
                             [](const PyContext& c) {
                               return c.Get([](const ExternalizedContext& x) {
                                 return x.query();
                               });
                             })
      .def_property_readonly("variables",
                             [](const PyContext& c) {
                               return c.Get([](const ExternalizedContext& x) {
                                 return x.variables();
                               });
                             })
      .def_property_readonly("total_size_bytes",
                             [](const PyContext& c) {
                               return c.Get([](const ExternalizedContext& x) {
                                 return x.total_size_bytes();
                               });
                             })
      .def("variable_summaries",
           [](const PyContext& c) {
             return c.Get([](const ExternalizedContext& x) {
               return x.VariableSummaries();
             });
           })
      .def(
          "check_size_limits",
          [](const PyContext& c, uint64_t warn_bytes, uint64_t chunk_bytes,
             uint64_t total_bytes) {
            SizeConfig config =
                MakeSizeConfig(warn_bytes, chunk_bytes, total_bytes, 0);
            return c.Get([&](const ExternalizedContext& x) {
              return x.CheckSizeLimits(config);
            });
          },
          py::kw_only(), py::arg("warn_bytes") = sizes.warn_bytes,
          py::arg("chunk_bytes") = sizes.chunk_bytes,
          py::arg("total_bytes") = sizes.total_bytes)
      .def(
          "auto_chunk",
          [](PyContext& c, View& view, uint64_t chunk_bytes,
             uint32_t chunk_tokens) {
            SizeConfig config =
                MakeSizeConfig(SizeConfig{}.warn_bytes, chunk_bytes,
                               SizeConfig{}.total_bytes, chunk_tokens);
            c.Write([&](ExternalizedContext& x) {
              return x.AutoChunk(view, config);
            });
          },
          py::arg("view"), py::kw_only(),
          py::arg("chunk_bytes") = sizes.chunk_bytes,
          py::arg("chunk_tokens") = sizes.chunk_tokens)
      .def(
          "peek",
          [](const PyContext& c, View& view, const std::string& name,
             int64_t start, std::optional<int64_t> end, const std::string& unit,
             uint64_t max_bytes) {
            VariablePeekOptions options;
            options.start = start;
            options.end = end.value_or(kPeekToEnd);
            options.unit = Unwrap(ParsePeekUnit(unit));
            options.max_bytes = max_bytes;
            return c.Read([&](const ExternalizedContext& x) {
              return x.Peek(view, name, options);
            });
          },
          py::arg("view"), py::arg("name"), py::arg("start") = 0,
          py::arg("end") = 10, py::kw_only(), py::arg("unit") = "auto",
          py::arg("max_bytes") = VariablePeekOptions{}.max_bytes)
      .def(
          "search",
          [](const PyContext& c, View& view, const std::string& name,
             const std::string& pattern, bool regex, bool case_insensitive,
             size_t max_results, size_t preview_bytes) {
            VariableSearchOptions options;
            options.regex = regex;
            options.case_insensitive = case_insensitive;
            options.max_results = max_results;
            options.preview_bytes = preview_bytes;
            return c.Read([&](const ExternalizedContext& x) {
              return x.Search(view, name, pattern, options);
            });
          },
          py::arg("view"), py::arg("name"), py::arg("pattern"), py::kw_only(),
          py::arg("regex") = false, py::arg("case_insensitive") = false,
          py::arg("max_results") = 10, py::arg("preview_bytes") = 200)
      .def(
          "summarize",
          [](const PyContext& c, View& view, const std::string& name,
             size_t max_tokens, std::optional<LlmEndpoint> llm) {
            return std::make_unique<PyDeferred>(
                c.Read([&](const ExternalizedContext& x) {
                  return x.Summarize(view, name, max_tokens, llm);
                }));
          },
          py::arg("view"), py::arg("name"), py::arg("max_tokens") = 500,
          py::kw_only(), py::arg("llm") = py::none(), py::keep_alive<0, 2>(),
          "A DeferredSummary; returns at once. It keeps `view` (and its\n"
          "store) alive until it is gone.")
      .def(
          "find_relevant",
          [](const PyContext& c, View& view, const std::string& name,
             const std::string& query, size_t top_k, uint32_t chunk_tokens,
             bool widen, std::optional<EmbeddingsConfig> embeddings) {
            VariableFindOptions options;
            options.top_k = top_k;
            options.chunk_tokens = chunk_tokens;
            options.widen = widen;
            if (embeddings) options.embeddings = std::move(*embeddings);
            return c.Read([&](const ExternalizedContext& x) {
              return x.FindRelevant(view, name, query, options);
            });
          },
          py::arg("view"), py::arg("name"), py::arg("query"), py::kw_only(),
          py::arg("top_k") = 5, py::arg("chunk_tokens") = 256,
          py::arg("widen") = true, py::arg("embeddings") = py::none())
      .def(
          "len",
          [](const PyContext& c, const std::string& name) {
            return Unwrap(c.Get(
                [&](const ExternalizedContext& x) { return x.Len(name); }));
          },
          py::arg("name"))
      .def(
          "root_prompt",
          [](const PyContext& c, const std::string& template_text) {
            RootPromptOptions options;
            options.template_text = template_text;
            return c.Read([&](const ExternalizedContext& x) {
              return BuildRootPrompt(x, options);
            });
          },
          py::arg("template") = "",
          "The root prompt: summaries and helpers, no content.");
}

}  // namespace

void BindExternalize(py::module_& m) {
  BindVariables(m);
  BindContext(m);
}

}  // namespace ctxkit::python
