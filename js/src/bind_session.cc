// Session (the context manager) and the agent tools: ingest a harness log,
// render within a budget, replay, diff, expand, pools, fork, and the tools
// a model calls with their dispatcher.

#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "ctxkit/agent_tools.h"
#include "ctxkit/session.h"
#include "node_binding.h"
#include "progress_option.h"
#include "session/render_json.h"
#include "store_wrap.h"

namespace ctxkit::node {

namespace {

using nlohmann::json;

LogFormat FormatOption(const Napi::Object& o) {
  Result<LogFormat> f =
      ParseLogFormat(OptString(o, "format").value_or("openai"));
  if (!f.ok()) ThrowStatus(o.Env(), f.status());
  return *f;
}

// The Store of the NativeStore at argument `i`.
std::shared_ptr<Store> StoreArg(const Napi::CallbackInfo& info, size_t i) {
  if (i >= info.Length() || !info[i].IsObject() ||
      !info[i].As<Napi::Object>().InstanceOf(
          NativeClassOf(info.Env(), NativeClass::kStore))) {
    throw Napi::TypeError::New(info.Env(), "store must be a Store");
  }
  return StoreWrap::Unwrap(info[i].As<Napi::Object>())->store();
}

SessionPolicy PolicyArg(const Napi::Object& o) {
  SessionPolicy p;
  auto u32 = [&](const char* name, uint32_t* field) {
    if (std::optional<uint64_t> v = OptUint(o, name)) {
      if (*v > UINT32_MAX) {
        throw Napi::TypeError::New(
            o.Env(), std::string("policy.") + name + " is too large");
      }
      *field = static_cast<uint32_t>(*v);
    }
  };
  u32("keepToolOutputs", &p.keep_tool_outputs);
  p.min_collapse_tokens =
      OptUint(o, "minCollapseTokens").value_or(p.min_collapse_tokens);
  u32("minCollapsePercent", &p.min_collapse_percent);
  p.index_max_tokens =
      OptUint(o, "indexMaxTokens").value_or(p.index_max_tokens);
  u32("indexMaxPercent", &p.index_max_percent);
  u32("compactTriggerPercent", &p.compact_trigger_percent);
  u32("compactTargetPercent", &p.compact_target_percent);
  u32("keepTurns", &p.keep_turns);
  u32("compactionSummaryTokens", &p.compaction_summary_tokens);
  p.collapse_at_ingestion =
      OptBool(o, "collapseAtIngestion").value_or(p.collapse_at_ingestion);
  u32("cacheTtlSeconds", &p.cache_ttl_seconds);
  return p;
}

Napi::Value Undefined(Napi::Env env, Done&) { return env.Undefined(); }

}  // namespace

class SessionWrap : public Napi::ObjectWrap<SessionWrap> {
 public:
  static void Init(Napi::Env env, Napi::Object exports) {
    Napi::Function cls = DefineClass(
        env, "NativeSession",
        {InstanceAccessor<&SessionWrap::Id>("id"),
         InstanceMethod<&SessionWrap::P<&SessionWrap::Ingest>>("ingest"),
         InstanceMethod<&SessionWrap::P<&SessionWrap::Render>>("render"),
         InstanceMethod<&SessionWrap::P<&SessionWrap::Replay>>("replay"),
         InstanceMethod<&SessionWrap::P<&SessionWrap::Diff>>("diff"),
         InstanceMethod<&SessionWrap::P<&SessionWrap::Expand>>("expand"),
         InstanceMethod<&SessionWrap::P<&SessionWrap::Snapshot>>("snapshot"),
         InstanceMethod<&SessionWrap::P<&SessionWrap::PoolCall>>("pool"),
         InstanceMethod<&SessionWrap::P<&SessionWrap::RequestCompaction>>(
             "requestCompaction"),
         InstanceMethod<&SessionWrap::P<&SessionWrap::CallTool>>("call"),
         InstanceMethod<&SessionWrap::P<&SessionWrap::Fork>>("fork")});
    SetNativeClass(env, NativeClass::kSession, cls);
    exports.Set("NativeSession", cls);
  }

  // Method M as a Promise-returning binding (node_binding.h Promised).
  template <Napi::Value (SessionWrap::*M)(const Napi::CallbackInfo&)>
  Napi::Value P(const Napi::CallbackInfo& info) {
    return Promised(info.Env(), [&] { return (this->*M)(info); });
  }

  struct Parts {
    std::shared_ptr<Store> store;
    std::unique_ptr<Session> session;
  };

  static Napi::Value New(Napi::Env env, Parts& parts) {
    return NativeClassOf(env, NativeClass::kSession)
        .New({Napi::External<Parts>::New(env, &parts)});
  }

  explicit SessionWrap(const Napi::CallbackInfo& info)
      : Napi::ObjectWrap<SessionWrap>(info) {
    if (info.Length() != 1 || !info[0].IsExternal()) {
      throw Napi::TypeError::New(
          info.Env(), "use Session.create or Session.open to get a session");
    }
    Parts* parts = info[0].As<Napi::External<Parts>>().Data();
    store_ = std::move(parts->store);
    session_ = std::shared_ptr<Session>(std::move(parts->session));
    id_ = session_->id();
  }

 private:
  // Runs work(session) on a worker thread, one call of this session at a
  // time (Session is not thread-safe).
  template <typename T, typename Work>
  Napi::Value Call(const Napi::CallbackInfo& info, Work work,
                   typename AsyncCall<T>::Done done) {
    std::shared_ptr<Store> store = store_;
    std::shared_ptr<Session> session = session_;
    return Async<T>(
        info.Env(), info.This().As<Napi::Object>(), lock_,
        [store, session, work = std::move(work)]() { return work(*session); },
        std::move(done));
  }

  Napi::Value Id(const Napi::CallbackInfo& info) {
    return Napi::String::New(info.Env(), id_);
  }

  // ingest(log, {format, append}): a whole log, or (append) only new
  // messages.
  Napi::Value Ingest(const Napi::CallbackInfo& info) {
    std::string log = JsonArg(info, 0, "log");
    Napi::Object o = OptionsArg(info, 1);
    const LogFormat format = FormatOption(o);
    const bool append = OptBool(o, "append").value_or(false);
    ProgressOptions progress = ProgressOption(o);
    std::string id = id_;
    return Call<json>(
        info,
        [log = std::move(log), format, append, progress = std::move(progress),
         id = std::move(id)](Session& s) -> Result<json> {
          Result<IngestReport> r = append
                                       ? s.IngestAppend(log, format, progress)
                                       : s.Ingest(log, format, progress);
          if (!r.ok()) return r.status();
          return session::IngestToJson(id, *r);
        },
        JsonValue);
  }

  // render({budget, format, record, tools}): tools true adds the agent
  // tools; an array adds them followed by the harness's own.
  Napi::Value Render(const Napi::CallbackInfo& info) {
    Napi::Object o = OptionsArg(info, 0);
    RenderOptions options;
    std::optional<uint64_t> budget = OptUint(o, "budget");
    if (!budget) {
      throw Napi::TypeError::New(info.Env(),
                                 "options.budget (tokens) is required");
    }
    options.budget_tokens = *budget;
    options.format = FormatOption(o);
    options.record = OptBool(o, "record").value_or(true);
    Napi::Value tools = o.Get("tools");
    if (!tools.IsUndefined() && !(tools.IsBoolean() && !tools.ToBoolean())) {
      std::string extra;
      if (tools.IsArray()) {
        Napi::Object json = info.Env().Global().Get("JSON").As<Napi::Object>();
        extra = json.Get("stringify")
                    .As<Napi::Function>()
                    .Call(json, {tools})
                    .As<Napi::String>()
                    .Utf8Value();
      } else if (!tools.IsBoolean()) {
        throw Napi::TypeError::New(
            info.Env(), "options.tools must be true or an array of tools");
      }
      Result<std::string> with =
          AgentToolsWith(ToolFormatOf(options.format), extra);
      if (!with.ok()) ThrowStatus(info.Env(), with.status());
      options.tools_json = std::move(*with);
    }
    return RenderCall(info,
                      [options](Session& s) { return s.Render(options); });
  }

  Napi::Value Replay(const Napi::CallbackInfo& info) {
    const uint64_t n = UintArg(info, 0, "record");
    return RenderCall(info, [n](Session& s) { return s.Replay(n); });
  }

  template <typename Work>
  Napi::Value RenderCall(const Napi::CallbackInfo& info, Work work) {
    std::string id = id_;
    return Call<json>(
        info,
        [work = std::move(work),
         id = std::move(id)](Session& s) -> Result<json> {
          Result<RenderResult> r = work(s);
          if (!r.ok()) return r.status();
          json out = session::RenderToJson(id, r->format, *r);
          out["request_json"] = r->request_json;
          return out;
        },
        [](Napi::Env env, json& out) -> Napi::Value {
          Napi::Object result = ToJs(env, out).As<Napi::Object>();
          Napi::Object json = env.Global().Get("JSON").As<Napi::Object>();
          result.Set("request", json.Get("parse").As<Napi::Function>().Call(
                                    json, {result.Get("request_json")}));
          return result;
        });
  }

  Napi::Value Diff(const Napi::CallbackInfo& info) {
    const uint64_t from = UintArg(info, 0, "from"), to = UintArg(info, 1, "to");
    std::string id = id_;
    return Call<json>(
        info,
        [from, to, id = std::move(id)](Session& s) -> Result<json> {
          Result<RenderDiff> d = s.Diff(from, to);
          if (!d.ok()) return d.status();
          return session::DiffToJson(id, *d);
        },
        JsonValue);
  }

  Napi::Value Expand(const Napi::CallbackInfo& info) {
    std::string compaction = StringArg(info, 0, "compaction");
    return Call<std::string>(
        info,
        [compaction = std::move(compaction)](Session& s) {
          return s.Expand(compaction);
        },
        [](Napi::Env env, std::string& text) -> Napi::Value {
          return Napi::String::New(env, text);
        });
  }

  Napi::Value Snapshot(const Napi::CallbackInfo& info) {
    return Call<json>(
        info,
        [](Session& s) -> Result<json> {
          Result<SessionSnapshot> snap = s.Snapshot();
          if (!snap.ok()) return snap.status();
          return session::SnapshotToJson(*snap);
        },
        JsonValue);
  }

  // pool(verb, object, version): activate, deactivate, pin, unpin, track.
  Napi::Value PoolCall(const Napi::CallbackInfo& info) {
    std::string verb = StringArg(info, 0, "verb");
    std::string object = StringArg(info, 1, "object");
    const uint64_t version = info.Length() > 2 && !info[2].IsUndefined()
                                 ? UintArg(info, 2, "version")
                                 : 0;
    if (verb != "activate" && verb != "deactivate" && verb != "pin" &&
        verb != "unpin" && verb != "track") {
      throw Napi::TypeError::New(info.Env(), "unknown pool verb " + verb);
    }
    return Call<Done>(
        info,
        [verb = std::move(verb), object = std::move(object),
         version](Session& s) -> Result<Done> {
          if (verb == "activate")
            return FromStatus(s.Activate(object, version));
          if (verb == "deactivate") return FromStatus(s.Deactivate(object));
          if (verb == "pin") return FromStatus(s.Pin(object, version));
          if (verb == "unpin") return FromStatus(s.Unpin(object));
          return FromStatus(s.Track(object));
        },
        Undefined);
  }

  Napi::Value RequestCompaction(const Napi::CallbackInfo& info) {
    std::string instructions = info.Length() > 0 && !info[0].IsUndefined()
                                   ? StringArg(info, 0, "instructions")
                                   : std::string();
    return Call<Done>(
        info,
        [instructions = std::move(instructions)](Session& s) {
          return FromStatus(s.RequestCompaction(instructions));
        },
        Undefined);
  }

  // call(toolCall, {maxResultBytes}): a model's ctxkit_* tool call in any
  // of the three formats; resolves to the result item in the same format.
  Napi::Value CallTool(const Napi::CallbackInfo& info) {
    std::string call = JsonArg(info, 0, "toolCall");
    Napi::Object o = OptionsArg(info, 1);
    AgentToolOptions options;
    options.max_result_bytes =
        OptUint(o, "maxResultBytes").value_or(options.max_result_bytes);
    return Call<std::string>(
        info,
        [call = std::move(call), options](Session& s) {
          return CallAgentTool(s, call, options);
        },
        [](Napi::Env env, std::string& item) -> Napi::Value {
          Napi::Object json = env.Global().Get("JSON").As<Napi::Object>();
          return json.Get("parse").As<Napi::Function>().Call(
              json, {Napi::String::New(env, item)});
        });
  }

  // fork(record, newId): a new session from recorded render `record`.
  Napi::Value Fork(const Napi::CallbackInfo& info) {
    const uint64_t record = UintArg(info, 0, "record");
    std::string child = StringArg(info, 1, "newId");
    std::shared_ptr<Store> store = store_;
    std::string parent = id_;
    return Async<Parts>(
        info.Env(), info.This().As<Napi::Object>(), nullptr,
        [store, parent = std::move(parent), record,
         child = std::move(child)]() -> Result<Parts> {
          Result<std::unique_ptr<Session>> s =
              Session::Fork(*store, parent, record, child);
          if (!s.ok()) return s.status();
          return Parts{store, std::move(*s)};
        },
        [](Napi::Env env, Parts& parts) { return New(env, parts); });
  }

  std::shared_ptr<Store> store_;
  std::shared_ptr<Session> session_;
  std::shared_ptr<std::mutex> lock_ = std::make_shared<std::mutex>();
  std::string id_;
};

namespace {

// openSession(store, id, {create, policy}).
Napi::Value OpenSession(const Napi::CallbackInfo& info) {
  std::shared_ptr<Store> store = StoreArg(info, 0);
  std::string id = StringArg(info, 1, "id");
  Napi::Object o = OptionsArg(info, 2);
  const bool create = OptBool(o, "create").value_or(false);
  Napi::Value policy_value = o.Get("policy");
  SessionPolicy policy;
  if (!policy_value.IsUndefined()) {
    if (!policy_value.IsObject()) {
      throw Napi::TypeError::New(info.Env(),
                                 "options.policy must be an object");
    }
    policy = PolicyArg(policy_value.As<Napi::Object>());
  }
  return Async<SessionWrap::Parts>(
      info.Env(), info[0].As<Napi::Object>(), nullptr,
      [store, id = std::move(id), create,
       policy]() -> Result<SessionWrap::Parts> {
        Result<std::unique_ptr<Session>> s =
            create ? Session::Create(*store, id, policy)
                   : Session::Open(*store, id);
        if (!s.ok()) return s.status();
        return SessionWrap::Parts{store, std::move(*s)};
      },
      [](Napi::Env env, SessionWrap::Parts& parts) {
        return SessionWrap::New(env, parts);
      });
}

Napi::Value ListSessions(const Napi::CallbackInfo& info) {
  std::shared_ptr<Store> store = StoreArg(info, 0);
  return Async<std::vector<std::string>>(
      info.Env(), info[0].As<Napi::Object>(), nullptr,
      [store] { return Session::List(*store); },
      [](Napi::Env env, std::vector<std::string>& ids) {
        return ToJs(env, json(ids));
      });
}

Napi::Value RemoveSession(const Napi::CallbackInfo& info) {
  std::shared_ptr<Store> store = StoreArg(info, 0);
  std::string id = StringArg(info, 1, "id");
  return Async<uint64_t>(
      info.Env(), info[0].As<Napi::Object>(), nullptr,
      [store, id = std::move(id)] { return Session::Remove(*store, id); },
      [](Napi::Env env, uint64_t& n) -> Napi::Value {
        return Napi::Number::New(env, static_cast<double>(n));
      });
}

// agentTools(format): the tools array for a provider format (no I/O).
Napi::Value AgentTools(const Napi::CallbackInfo& info) {
  return Sync(info.Env(), [&] {
    Result<ToolFormat> format =
        ParseToolFormat(info.Length() > 0 && !info[0].IsUndefined()
                            ? StringArg(info, 0, "format")
                            : std::string("openai"));
    if (!format.ok()) ThrowStatus(info.Env(), format.status());
    return ToJs(info.Env(), json::parse(AgentToolsJson(*format)));
  });
}

Napi::Value IsAgentTool(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(),
                            IsAgentToolName(StringArg(info, 0, "name")));
}

}  // namespace

void InitSession(Napi::Env env, Napi::Object exports) {
  SessionWrap::Init(env, exports);
  exports.Set("openSession", Napi::Function::New(env, PromisedFn<OpenSession>));
  exports.Set("listSessions",
              Napi::Function::New(env, PromisedFn<ListSessions>));
  exports.Set("removeSession",
              Napi::Function::New(env, PromisedFn<RemoveSession>));
  exports.Set("agentTools", Napi::Function::New(env, AgentTools));
  exports.Set("isAgentToolName", Napi::Function::New(env, IsAgentTool));
}

}  // namespace ctxkit::node
