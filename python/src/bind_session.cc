// ctxkit.Session: the context manager of one conversation. Messages are
// given as Python lists/dicts (or JSON text); a render's request comes back
// as JSON text and, parsed, as Python objects.
//
// A C++ Session is not thread-safe, so each Python Session serializes its
// calls with a mutex taken while the GIL is released.
#include <memory>
#include <mutex>

#include "binding.h"
#include "ctxkit/agent_tools.h"
#include "ctxkit/session.h"
#include "face/environment.h"

namespace ctxkit::python {
namespace {

using PySession = Serialized<Session>;

SessionPolicy MakePolicy(uint32_t keep_tool_outputs,
                         uint64_t min_collapse_tokens,
                         uint32_t min_collapse_percent,
                         uint64_t index_max_tokens, uint32_t index_max_percent,
                         uint32_t compact_trigger_percent,
                         uint32_t compact_target_percent, uint32_t keep_turns,
                         uint32_t compaction_summary_tokens,
                         bool collapse_at_ingestion,
                         uint32_t cache_ttl_seconds) {
  SessionPolicy p;
  p.keep_tool_outputs = keep_tool_outputs;
  p.min_collapse_tokens = min_collapse_tokens;
  p.min_collapse_percent = min_collapse_percent;
  p.index_max_tokens = index_max_tokens;
  p.index_max_percent = index_max_percent;
  p.compact_trigger_percent = compact_trigger_percent;
  p.compact_target_percent = compact_target_percent;
  p.keep_turns = keep_turns;
  p.compaction_summary_tokens = compaction_summary_tokens;
  p.collapse_at_ingestion = collapse_at_ingestion;
  p.cache_ttl_seconds = cache_ttl_seconds;
  return p;
}

void BindPolicy(py::module_& m) {
  const SessionPolicy d;
  py::class_<SessionPolicy>(m, "SessionPolicy", R"doc(
How a session keeps within budget (docs/sessions.md argues each default):
keep_tool_outputs newest outputs stay shown (the last tool call's always, an
excerpt when too large); relief frees at least min(min_collapse_tokens,
min_collapse_percent of the budget); the metadata index lists up to
min(index_max_tokens, index_max_percent of the budget);
a render over compact_trigger_percent of its budget collapses outputs and
compacts the oldest turns down to compact_target_percent, never within
the newest keep_turns turns; a compaction summary is at most
compaction_summary_tokens. collapse_at_ingestion: each ingestion collapses
outputs older than the newest keep_tool_outputs, whatever the budget
(seed 004's policy). cache_ttl_seconds: once the last recorded render is
older than this (the provider's cache lifetime), a render over
compact_target_percent relieves down to it; 0 never.)doc")
      .def(py::init(&MakePolicy), py::kw_only(),
           py::arg("keep_tool_outputs") = d.keep_tool_outputs,
           py::arg("min_collapse_tokens") = d.min_collapse_tokens,
           py::arg("min_collapse_percent") = d.min_collapse_percent,
           py::arg("index_max_tokens") = d.index_max_tokens,
           py::arg("index_max_percent") = d.index_max_percent,
           py::arg("compact_trigger_percent") = d.compact_trigger_percent,
           py::arg("compact_target_percent") = d.compact_target_percent,
           py::arg("keep_turns") = d.keep_turns,
           py::arg("compaction_summary_tokens") = d.compaction_summary_tokens,
           py::arg("collapse_at_ingestion") = d.collapse_at_ingestion,
           py::arg("cache_ttl_seconds") = d.cache_ttl_seconds)
      .def_readwrite("keep_tool_outputs", &SessionPolicy::keep_tool_outputs)
      .def_readwrite("min_collapse_tokens", &SessionPolicy::min_collapse_tokens)
      .def_readwrite("min_collapse_percent",
                     &SessionPolicy::min_collapse_percent)
      .def_readwrite("index_max_tokens", &SessionPolicy::index_max_tokens)
      .def_readwrite("index_max_percent", &SessionPolicy::index_max_percent)
      .def_readwrite("compact_trigger_percent",
                     &SessionPolicy::compact_trigger_percent)
      .def_readwrite("compact_target_percent",
                     &SessionPolicy::compact_target_percent)
      .def_readwrite("keep_turns", &SessionPolicy::keep_turns)
      .def_readwrite("compaction_summary_tokens",
                     &SessionPolicy::compaction_summary_tokens)
      .def_readwrite("collapse_at_ingestion",
                     &SessionPolicy::collapse_at_ingestion)
      .def_readwrite("cache_ttl_seconds", &SessionPolicy::cache_ttl_seconds);
}

void BindBreakdown(py::module_& m) {
  py::class_<RenderBreakdown>(m, "RenderBreakdown",
                              "Tokens of a render, by part.")
      .def_readonly("system", &RenderBreakdown::system)
      .def_readonly("pinned", &RenderBreakdown::pinned)
      .def_readonly("index", &RenderBreakdown::index)
      .def_readonly("compactions", &RenderBreakdown::compactions)
      .def_readonly("chat", &RenderBreakdown::chat)
      .def_readonly("active_outputs", &RenderBreakdown::active_outputs)
      .def_readonly("placeholders", &RenderBreakdown::placeholders)
      .def_property_readonly("total", &RenderBreakdown::Total);
  py::class_<CompactionInfo>(m, "CompactionInfo",
                             "Turns folded into one compaction.")
      .def_readonly("ref", &CompactionInfo::ref)
      .def_readonly("first_message", &CompactionInfo::first_message)
      .def_readonly("end_message", &CompactionInfo::end_message)
      .def_readonly("turns", &CompactionInfo::turns);
}

void BindSnapshot(py::module_& m) {
  py::class_<PoolEntry>(m, "PoolEntry", "One object the session knows of.")
      .def_readonly("id", &PoolEntry::id)
      .def_readonly("key", &PoolEntry::key)
      .def_readonly("scope", &PoolEntry::scope)
      .def_readonly("kind", &PoolEntry::kind)
      .def_readonly("title", &PoolEntry::title)
      .def_readonly("version", &PoolEntry::version)
      .def_readonly("tokens", &PoolEntry::tokens)
      .def_readonly("ref", &PoolEntry::ref)
      .def_readonly("active", &PoolEntry::active)
      .def_readonly("collapsed", &PoolEntry::collapsed)
      .def_readonly("pinned_version", &PoolEntry::pinned_version)
      .def_readonly("from_chat", &PoolEntry::from_chat)
      .def_readonly("compacted", &PoolEntry::compacted);
  py::class_<SessionSnapshot>(m, "SessionSnapshot",
                              "A session's state (Session.snapshot).")
      .def_readonly("id", &SessionSnapshot::id)
      .def_readonly("policy", &SessionSnapshot::policy)
      .def_readonly("generation", &SessionSnapshot::generation)
      .def_readonly("chat_messages", &SessionSnapshot::chat_messages)
      .def_readonly("ingest_format", &SessionSnapshot::ingest_format)
      .def_readonly("ingested_items", &SessionSnapshot::ingested_items)
      .def_readonly("entries", &SessionSnapshot::entries)
      .def_readonly("compactions", &SessionSnapshot::compactions)
      .def_readonly("renders", &SessionSnapshot::renders)
      .def_readonly("last_render_tokens", &SessionSnapshot::last_render_tokens)
      .def_readonly("last_render_budget", &SessionSnapshot::last_render_budget)
      .def_readonly("last_render_breakdown",
                    &SessionSnapshot::last_render_breakdown);
  py::class_<IngestReport>(m, "IngestReport", "What one ingestion changed.")
      .def_readonly("messages_added", &IngestReport::messages_added)
      .def_readonly("toolcalls_recorded", &IngestReport::toolcalls_recorded)
      .def_readonly("reset", &IngestReport::reset);
}

void BindRenderResult(py::module_& m) {
  py::class_<RenderDrop>(m, "RenderDrop", "Active content left out for budget.")
      .def_readonly("key", &RenderDrop::key)
      .def_readonly("version", &RenderDrop::version)
      .def_readonly("tokens", &RenderDrop::tokens)
      .def_readonly("ref", &RenderDrop::ref);
  py::class_<RenderConflict>(
      m, "RenderConflict",
      "An object both pinned and active at other versions.")
      .def_readonly("key", &RenderConflict::key)
      .def_readonly("pinned_version", &RenderConflict::pinned_version)
      .def_readonly("active_version", &RenderConflict::active_version);
  py::class_<RenderResult>(m, "RenderResult",
                           "The request the model sees, and why.")
      .def_property_readonly("format",
                             [](const RenderResult& r) {
                               return std::string(LogFormatName(r.format));
                             })
      .def_readonly("request_json", &RenderResult::request_json,
                    "The request body, byte for byte (what caches key on).")
      .def_property_readonly(
          "request",
          [](const RenderResult& r) { return ParseJson(r.request_json); },
          "request_json parsed into Python objects.")
      .def_readonly("tokens", &RenderResult::tokens)
      .def_readonly("budget_tokens", &RenderResult::budget_tokens)
      .def_readonly("dropped", &RenderResult::dropped)
      .def_readonly("conflicts", &RenderResult::conflicts)
      .def_readonly("index_listed", &RenderResult::index_listed)
      .def_readonly("index_total", &RenderResult::index_total)
      .def_readonly("breakdown", &RenderResult::breakdown)
      .def_readonly("collapsed", &RenderResult::collapsed)
      .def_readonly("compacted", &RenderResult::compacted)
      .def_readonly("compacted_messages", &RenderResult::compacted_messages)
      .def_readonly("record", &RenderResult::record,
                    "Record number; 0: not recorded.")
      .def_readonly("bytes", &RenderResult::bytes)
      .def_readonly("prefix_bytes", &RenderResult::prefix_bytes,
                    "Bytes shared with the previous recorded render's "
                    "request (what a prompt cache can reuse); None for the "
                    "first record or an unrecorded render.");
  py::class_<RenderFigures>(m, "RenderFigures",
                            "One recorded render's figures, from its record.")
      .def_readonly("record", &RenderFigures::record)
      .def_property_readonly("format",
                             [](const RenderFigures& f) {
                               return std::string(LogFormatName(f.format));
                             })
      .def_readonly("budget_tokens", &RenderFigures::budget_tokens)
      .def_readonly("tokens", &RenderFigures::tokens)
      .def_readonly("breakdown", &RenderFigures::breakdown)
      .def_readonly("bytes", &RenderFigures::bytes)
      .def_readonly("prefix_bytes", &RenderFigures::prefix_bytes);
  py::class_<RenderDiff>(m, "RenderDiff",
                         "What changed between two recorded renders.")
      .def_readonly("from_record", &RenderDiff::from)
      .def_readonly("to_record", &RenderDiff::to)
      .def_readonly("entered", &RenderDiff::entered)
      .def_readonly("left", &RenderDiff::left)
      .def_readonly("collapsed", &RenderDiff::collapsed)
      .def_readonly("compacted", &RenderDiff::compacted)
      .def_readonly("from_tokens", &RenderDiff::from_tokens)
      .def_readonly("to_tokens", &RenderDiff::to_tokens)
      .def_readonly("from_breakdown", &RenderDiff::from_breakdown)
      .def_readonly("to_breakdown", &RenderDiff::to_breakdown);
}

LogFormat Format(const std::string& name) {
  return Unwrap(ParseLogFormat(name));
}

// Session.render's `tools`: False/None, True, or a list of the harness's
// own tool definitions to follow the agent tools.
std::string RenderTools(LogFormat format, const py::object& tools) {
  if (tools.is_none() ||
      (py::isinstance<py::bool_>(tools) && !tools.cast<bool>())) {
    return "";
  }
  const std::string extra =
      py::isinstance<py::bool_>(tools) ? "" : JsonText(tools);
  return Unwrap(AgentToolsWith(ToolFormatOf(format), extra));
}

void BindSessionClass(py::module_& m) {
  py::class_<PySession>(m, "Session", R"doc(
The context manager of one conversation: ingest the chat log, render the
request the model sees within a token budget, activate/pin/deactivate
objects, replay, diff and fork recorded renders.

Session.create(store, id) / Session.open(store, id). Calls on one Session
object are serialized; several Session objects (in any processes) may work
on one session id.)doc")
      .def_static(
          "create",
          [](Store& store, const std::string& id,
             std::optional<SessionPolicy> policy) {
            SessionPolicy p = policy.value_or(SessionPolicy{});
            return std::make_unique<PySession>(
                Call([&] { return Session::Create(store, id, p); }));
          },
          py::arg("store"), py::arg("id"), py::arg("policy") = py::none(),
          py::keep_alive<0, 1>(),
          "Creates a session (AlreadyExistsError if it exists).")
      .def_static(
          "open",
          [](Store& store, const std::string& id, bool create) {
            return std::make_unique<PySession>(Call([&] {
              Result<std::unique_ptr<Session>> opened =
                  Session::Open(store, id);
              if (!create || opened.ok() || !opened.status().IsNotFound()) {
                return opened;
              }
              opened = Session::Create(store, id, SessionPolicy{});
              // Another process may have created it in between.
              if (!opened.ok() &&
                  opened.status().code() == StatusCode::kAlreadyExists) {
                return Session::Open(store, id);
              }
              return opened;
            }));
          },
          py::arg("store"), py::arg("id"), py::kw_only(),
          py::arg("create") = false, py::keep_alive<0, 1>(),
          "Opens a session (NotFoundError), or with create=True creates it\n"
          "with the default policy when there is none.")
      .def_static(
          "list",
          [](Store& store) {
            return Call([&] { return Session::List(store); });
          },
          py::arg("store"), "Ids of every session in the store.")
      .def_static(
          "remove",
          [](Store& store, const std::string& id) {
            return Call([&] { return Session::Remove(store, id); });
          },
          py::arg("store"), py::arg("id"),
          "Removes a session; returns objects removed.")
      .def_property_readonly("id",
                             [](const PySession& s) { return s.get().id(); })
      .def("snapshot",
           [](PySession& s) {
             return s.Run([](Session& x) { return x.Snapshot(); });
           })
      .def("pinned_refs",
           [](PySession& s) {
             std::vector<Ref> refs =
                 s.Run([](Session& x) { return x.PinnedRefs(); });
             return refs;
           })
      .def(
          "ingest",
          [](PySession& s, const py::object& messages,
             const std::string& format, bool append,
             std::optional<py::function> progress_fn) {
            ProgressArg progress(std::move(progress_fn));
            std::string json = JsonText(messages);
            LogFormat f = Format(format);
            IngestReport report = s.Run([&](Session& x) {
              return append ? x.IngestAppend(json, f, progress.options())
                            : x.Ingest(json, f, progress.options());
            });
            progress.RaiseIfFailed();
            return report;
          },
          py::arg("messages"), py::kw_only(), py::arg("format") = "openai",
          py::arg("append") = false, py::arg("progress") = py::none(),
          "Ingests the whole log (a list of messages, {'messages': [...]} or, "
          "for\n"
          "anthropic, {'system': ..., 'messages': [...]}), or with append=True "
          "only\n"
          "the messages after those ingested so far. format: openai or "
          "anthropic.")
      .def(
          "render",
          [](PySession& s, uint64_t budget_tokens, const std::string& format,
             bool record, std::optional<LlmEndpoint> llm,
             const py::object& tools) {
            RenderOptions options;
            options.budget_tokens = budget_tokens;
            options.format = Format(format);
            options.record = record;
            options.llm = std::move(llm);
            options.tools_json = RenderTools(options.format, tools);
            return s.Run([&](Session& x) { return x.Render(options); });
          },
          py::arg("budget_tokens"), py::kw_only(), py::arg("format") = "openai",
          py::arg("record") = true, py::arg("llm") = py::none(),
          py::arg("tools") = false,
          "The request within budget_tokens (FailedPreconditionError below "
          "the\n"
          "minimum, which the message names). Recorded unless record=False.\n"
          "llm: the LlmEndpoint that writes the summary of a compaction this\n"
          "render makes (structural without one, or when it fails).\n"
          "tools: True adds the agent tools (Session.tools) to the request as\n"
          "\"tools\"; a list adds them followed by the harness's own tool\n"
          "definitions. Their tokens count in the budget.")
      .def(
          "tools",
          [](PySession&, const std::string& format) {
            return ParseJson(AgentToolsJson(Unwrap(ParseToolFormat(format))));
          },
          py::arg("format") = "openai",
          "The agent tools (ctxkit_read, ctxkit_search, ...) as a list of\n"
          "tool definitions in format openai (Chat Completions),\n"
          "openai-responses or anthropic: send them with a request and hand\n"
          "every call to one of them to Session.call.")
      .def(
          "call",
          [](PySession& s, const py::object& tool_call,
             size_t max_result_bytes) {
            const std::string call = JsonText(tool_call);
            AgentToolOptions options{.max_result_bytes = max_result_bytes,
                                     .embeddings = env::EmbeddingsFromEnv()};
            return ParseJson(s.Run(
                [&](Session& x) { return CallAgentTool(x, call, options); }));
          },
          py::arg("tool_call"), py::kw_only(),
          py::arg("max_result_bytes") = AgentToolOptions{}.max_result_bytes,
          "Runs one agent tool call a model made (a dict or JSON text: an\n"
          "OpenAI tool call, a Responses function_call or an Anthropic\n"
          "tool_use block) and returns its result in the same format (a\n"
          "tool message, a function_call_output item or a tool_result block).\n"
          "A tool that fails returns a result saying why, for the model;\n"
          "InvalidArgumentError for a malformed call or another tool's name.")
      .def(
          "request_compaction",
          [](PySession& s, const std::string& instructions) {
            s.Run(
                [&](Session& x) { return x.RequestCompaction(instructions); });
          },
          py::arg("instructions") = "",
          "Asks the next render to fold every turn but the newest\n"
          "keep_turns into a compaction whose summary keeps what\n"
          "`instructions` say (what ctxkit_compact does).")
      .def(
          "replay",
          [](PySession& s, uint64_t n) {
            return s.Run([&](Session& x) { return x.Replay(n); });
          },
          py::arg("record"), "Recorded render number n, rebuilt byte for byte.")
      .def(
          "fork",
          [](PySession& s, uint64_t record, const std::string& new_id) {
            return std::make_unique<PySession>(s.Run([&](Session& x) {
              return Session::Fork(*x.view().store(), x.id(), record, new_id);
            }));
          },
          py::arg("record"), py::arg("new_id"), py::keep_alive<0, 1>(),
          "A new session `new_id` from recorded render `record` of this one:\n"
          "it starts from what that render showed the model (its first\n"
          "render with that budget and format is replay(record)), shares\n"
          "the outputs by ref and continues the log from there; this\n"
          "session is unchanged.")
      .def(
          "render_history",
          [](PySession& s) {
            return s.Run([](Session& x) { return x.RenderHistory(); });
          },
          "Every recorded render's figures, oldest first (no replay).")
      .def(
          "diff",
          [](PySession& s, uint64_t from, uint64_t to) {
            return s.Run([&](Session& x) { return x.Diff(from, to); });
          },
          py::arg("from_record"), py::arg("to_record"))
      .def(
          "expand",
          [](PySession& s, const std::string& compaction) {
            std::string ndjson =
                s.Run([&](Session& x) { return x.Expand(compaction); });
            py::list messages;
            size_t begin = 0;
            while (begin < ndjson.size()) {
              size_t end = ndjson.find('\n', begin);
              if (end == std::string::npos) end = ndjson.size();
              if (end > begin)
                messages.append(ParseJson(ndjson.substr(begin, end - begin)));
              begin = end + 1;
            }
            return messages;
          },
          py::arg("compaction"),
          "The exact messages a compaction (ref or key) replaced.")
      .def(
          "activate",
          [](PySession& s, const std::string& object, uint64_t version) {
            s.Run([&](Session& x) { return x.Activate(object, version); });
          },
          py::arg("object"), py::arg("version") = 0)
      .def(
          "deactivate",
          [](PySession& s, const std::string& object) {
            s.Run([&](Session& x) { return x.Deactivate(object); });
          },
          py::arg("object"))
      .def(
          "pin",
          [](PySession& s, const std::string& object, uint64_t version) {
            s.Run([&](Session& x) { return x.Pin(object, version); });
          },
          py::arg("object"), py::arg("version") = 0)
      .def(
          "unpin",
          [](PySession& s, const std::string& object) {
            s.Run([&](Session& x) { return x.Unpin(object); });
          },
          py::arg("object"))
      .def(
          "track",
          [](PySession& s, const std::vector<std::string>& objects) {
            s.Run([&](Session& x) { return x.TrackMany(objects); });
          },
          py::arg("objects"),
          "Adds objects (keys or refs) to the session's pool.")
      .def(
          "set_policy",
          [](PySession& s, const SessionPolicy& policy) {
            s.Run([&](Session& x) { return x.SetPolicy(policy); });
          },
          py::arg("policy"))
      .def("__repr__", [](const PySession& s) {
        return "Session('" + s.get().id() + "')";
      });
}

}  // namespace

void BindSession(py::module_& m) {
  BindPolicy(m);
  BindBreakdown(m);
  BindSnapshot(m);
  BindRenderResult(m);
  BindSessionClass(m);
}

}  // namespace ctxkit::python
