// ToolOutputCapture: save a tool's output and keep a pointer; load, list,
// clear, and select the outputs relevant to a question. Opened on a view
// with a session. Results are the JSON forms of src/capture/json_forms.h,
// as the CLI's `tools` verbs (--json) and the MCP tool_output_* tools give
// them.

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "capture/json_forms.h"
#include "ctxkit/capture.h"
#include "ctxkit/target.h"
#include "node_binding.h"
#include "os/filename.h"
#include "view_object.h"

namespace ctxkit::node {

namespace {

using nlohmann::json;

// The pointers given to select: strings, or objects with a `pointer`
// (what list() returns).
std::vector<std::string> PointersArg(const Napi::CallbackInfo& info, size_t i) {
  std::vector<std::string> out;
  const char* what =
      "pointers must be an array of pointers (strings, or "
      "the objects list() returns)";
  if (!info[i].IsArray()) throw Napi::TypeError::New(info.Env(), what);
  Napi::Array a = info[i].As<Napi::Array>();
  for (uint32_t k = 0; k < a.Length(); ++k) {
    Napi::Value e = a.Get(k);
    if (e.IsObject() && !e.IsArray()) e = e.As<Napi::Object>().Get("pointer");
    if (!e.IsString()) throw Napi::TypeError::New(info.Env(), what);
    out.push_back(e.As<Napi::String>().Utf8Value());
  }
  return out;
}

// options.llm: {baseUrl, model, apiKey, timeoutMs}; absent: no LLM (the
// package reads no environment variable).
std::optional<LlmEndpoint> LlmOption(const Napi::Object& o) {
  Napi::Value v = o.Get("llm");
  if (v.IsUndefined()) return std::nullopt;
  if (!v.IsObject()) {
    throw Napi::TypeError::New(o.Env(), "options.llm must be an object");
  }
  Napi::Object llm = v.As<Napi::Object>();
  LlmEndpoint e;
  e.base_url = OptString(llm, "baseUrl").value_or("");
  e.model = OptString(llm, "model").value_or("");
  e.api_key = OptString(llm, "apiKey").value_or("");
  e.timeout_ms = static_cast<int>(std::min<uint64_t>(
      OptUint(llm, "timeoutMs").value_or(e.timeout_ms), INT32_MAX));
  return e;
}

}  // namespace

class CaptureWrap : public ViewObjectWrap<CaptureWrap, ToolOutputCapture> {
 public:
  static constexpr NativeClass kClass = NativeClass::kCapture;

  static void Init(Napi::Env env, Napi::Object exports) {
    Napi::Function cls = DefineClass(
        env, "NativeToolOutputCapture",
        {InstanceAccessor<&CaptureWrap::SessionId>("sessionId"),
         InstanceAccessor<&CaptureWrap::Root>("root"),
         InstanceMethod("save", &CaptureWrap::P<&CaptureWrap::Save>),
         InstanceMethod("load", &CaptureWrap::P<&CaptureWrap::Load>),
         InstanceMethod("list", &CaptureWrap::P<&CaptureWrap::List>),
         InstanceMethod("clear", &CaptureWrap::P<&CaptureWrap::Clear>),
         InstanceMethod("select", &CaptureWrap::P<&CaptureWrap::Select>)});
    SetNativeClass(env, kClass, cls);
    exports.Set("NativeToolOutputCapture", cls);
  }

  explicit CaptureWrap(const Napi::CallbackInfo& info)
      : ViewObjectWrap(info, "use ToolOutputCapture.open(view, options)") {}

  // openCapture(view, {root, memoryThresholdBytes}): root default
  // <store home>/tool-outputs, as Python's ToolOutputCapture.open.
  static Napi::Value Open(const Napi::CallbackInfo& info) {
    Napi::Object o = OptionsArg(info, 1);
    std::optional<std::string> root = OptString(o, "root");
    CaptureOptions defaults;
    const uint64_t threshold = OptUint(o, "memoryThresholdBytes")
                                   .value_or(defaults.memory_threshold_bytes);
    return OpenOn(info, [root, threshold](Store& store, ctxkit::View& view) {
      CaptureOptions options{
          .root = root.value_or(storage::HomeToolOutputDir(store.home())),
          .memory_threshold_bytes = threshold};
      return ToolOutputCapture::Open(view, options);
    });
  }

 private:
  Napi::Value SessionId(const Napi::CallbackInfo& info) {
    return Napi::String::New(info.Env(), object().session_id());
  }
  Napi::Value Root(const Napi::CallbackInfo& info) {
    return Napi::String::New(info.Env(), object().root());
  }

  // save(toolName, args, result, {taskId, queryId}): args and result are
  // values or JSON text.
  Napi::Value Save(const Napi::CallbackInfo& info) {
    std::string tool = StringArg(info, 0, "toolName");
    std::string args = JsonArg(info, 1, "args");
    std::string result = JsonArg(info, 2, "result");
    Napi::Object o = OptionsArg(info, 3);
    std::string task = OptString(o, "taskId").value_or("");
    std::string query = OptString(o, "queryId").value_or("");
    return Call<json>(
        info,
        [tool = std::move(tool), args = std::move(args),
         result = std::move(result), task = std::move(task),
         query = std::move(query)](ToolOutputCapture& c,
                                   ctxkit::View& view) -> Result<json> {
          Result<std::string> p =
              c.SaveContext(tool, args, result, task, query);
          if (!p.ok()) return p.status();
          return capture::SavedToJson(*p, result.size(),
                                      capture::OutputRef(view, *p));
        },
        JsonValue);
  }

  Napi::Value Load(const Napi::CallbackInfo& info) {
    std::string pointer = StringArg(info, 0, "pointer");
    return Call<json>(
        info,
        [pointer = std::move(pointer)](ToolOutputCapture& c,
                                       ctxkit::View& view) -> Result<json> {
          Result<LoadedContext> l = c.LoadContext(pointer);
          if (!l.ok()) return l.status();
          return capture::LoadedWithResultToJson(
              *l, pointer, capture::OutputRef(view, pointer));
        },
        JsonValue);
  }

  // list(sessionId): default this capture's session.
  Napi::Value List(const Napi::CallbackInfo& info) {
    std::string session = info.Length() > 0 && !info[0].IsUndefined()
                              ? StringArg(info, 0, "sessionId")
                              : object().session_id();
    return Call<json>(
        info,
        [session = std::move(session)](ToolOutputCapture& c,
                                       ctxkit::View& view) -> Result<json> {
          Result<std::vector<ContextPointer>> list = c.ListContexts(session);
          if (!list.ok()) return list.status();
          json out = json::array();
          for (const ContextPointer& p : *list) {
            out.push_back(capture::PointerToJson(
                p, capture::OutputRef(view, p.filepath)));
          }
          return out;
        },
        JsonValue);
  }

  // clear(): resolves to the number of files removed.
  Napi::Value Clear(const Napi::CallbackInfo& info) {
    return Call<uint64_t>(
        info,
        [](ToolOutputCapture& c, ctxkit::View&) { return c.ClearContexts(); },
        [](Napi::Env env, uint64_t& n) -> Napi::Value {
          return Napi::Number::New(env, static_cast<double>(n));
        });
  }

  // select(question, pointers, {maxSelected, llm}): pointers default this
  // session's outputs (list()); BM25 unless options.llm is configured.
  Napi::Value Select(const Napi::CallbackInfo& info) {
    std::string question = StringArg(info, 0, "question");
    std::optional<std::vector<std::string>> given;
    if (info.Length() > 1 && !info[1].IsUndefined() && !info[1].IsNull()) {
      given = PointersArg(info, 1);
    }
    Napi::Object o = OptionsArg(info, 2);
    SelectOptions options;
    options.max_selected =
        OptUint(o, "maxSelected").value_or(options.max_selected);
    std::optional<LlmEndpoint> llm = LlmOption(o);
    options.use_llm = llm.has_value();
    if (llm) options.llm = *llm;
    return Call<json>(
        info,
        [question = std::move(question), given = std::move(given), options](
            ToolOutputCapture& c, ctxkit::View& view) -> Result<json> {
          Result<std::vector<ContextPointer>> all =
              c.ListContexts(c.session_id());
          if (!all.ok()) return all.status();
          std::vector<ContextPointer> pointers;
          if (!given) {
            pointers = std::move(*all);
          } else {
            // A pointer this session listed keeps its tool name and
            // size; any other is selected by its content alone.
            for (const std::string& g : *given) {
              ContextPointer p{.filepath = g,
                               .in_memory = Target::IsRefText(g)};
              for (const ContextPointer& q : *all) {
                if (q.filepath == g) p = q;
              }
              pointers.push_back(std::move(p));
            }
          }
          Result<Selection> sel = c.Select(question, pointers, options);
          if (!sel.ok()) return sel.status();
          return capture::SelectionToJson(view, *sel, pointers.size());
        },
        JsonValue);
  }
};

void InitCapture(Napi::Env env, Napi::Object exports) {
  CaptureWrap::Init(env, exports);
  exports.Set("openCapture",
              Napi::Function::New(env, PromisedFn<CaptureWrap::Open>));
}

}  // namespace ctxkit::node
