// Sub-agents from Node (spawn.h): spawn, loadManifest, openChildView,
// resolveContextRef, setResult and collectResult. A manifest crosses into
// JavaScript as the object of its JSON form (docs/spawn.md) and comes back
// through ParseManifest, so the file format is the one contract.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ctxkit/ref.h"
#include "ctxkit/spawn.h"
#include "node_binding.h"
#include "store_wrap.h"
#include "text/json_parse.h"

namespace ctxkit::node {
namespace {

using json = nlohmann::json;

// The manifest at argument `i`: its JSON form, as an object or as text.
Manifest ManifestArg(const Napi::CallbackInfo& info, size_t i) {
  Result<Manifest> m = ParseManifest(JsonArg(info, i, "manifest"));
  if (!m.ok()) ThrowStatus(info.Env(), m.status());
  return std::move(*m);
}

Napi::Value ManifestValue(Napi::Env env, const Manifest& m) {
  return ToJs(env, text::ParseJsonOrDiscarded(FormatManifest(m)));
}

// The [name, ref] pairs of spawn's context.
SpawnContext ContextArg(const Napi::CallbackInfo& info, size_t i) {
  if (i >= info.Length() || !info[i].IsArray()) {
    throw Napi::TypeError::New(info.Env(),
                               "context must be an array of [name, ref] "
                               "pairs");
  }
  auto array = info[i].As<Napi::Array>();
  SpawnContext context;
  for (uint32_t n = 0; n < array.Length(); ++n) {
    Napi::Value pair = array.Get(n);
    const bool ok = pair.IsArray() && pair.As<Napi::Array>().Length() == 2 &&
                    pair.As<Napi::Array>().Get(uint32_t{0}).IsString() &&
                    pair.As<Napi::Array>().Get(uint32_t{1}).IsString();
    if (!ok) {
      throw Napi::TypeError::New(info.Env(),
                                 "context[" + std::to_string(n) +
                                     "] must be a [name, ref] pair of strings");
    }
    auto items = pair.As<Napi::Array>();
    Result<Ref> ref =
        ParseRef(items.Get(uint32_t{1}).As<Napi::String>().Utf8Value());
    if (!ref.ok()) ThrowStatus(info.Env(), ref.status());
    context.emplace_back(items.Get(uint32_t{0}).As<Napi::String>().Utf8Value(),
                         std::move(*ref));
  }
  return context;
}

// spawn(parent, prompt, context, {childAgent, childSession, manifestPath,
// resultKey}) -> {view, manifest, manifestPath}.
Napi::Value SpawnFn(const Napi::CallbackInfo& info) {
  ViewWrap* parent = ViewArg(info, 0);
  std::string prompt = StringArg(info, 1, "prompt");
  SpawnContext context = ContextArg(info, 2);
  Napi::Object o = OptionsArg(info, 3);
  SpawnOptions options{
      .child_agent_id = OptString(o, "childAgent").value_or(""),
      .child_session_id = OptString(o, "childSession").value_or(""),
      .manifest_path = OptString(o, "manifestPath").value_or(""),
      .result_key = OptString(o, "resultKey").value_or("result")};
  std::shared_ptr<Store> store = parent->store();
  std::shared_ptr<ctxkit::View> view = parent->view();
  return Async<SpawnedAgent>(
      info.Env(), info[0].As<Napi::Object>(), nullptr,
      [view, prompt = std::move(prompt), context = std::move(context),
       options = std::move(options)] {
        return Spawn(*view, prompt, context, options);
      },
      [store](Napi::Env env, SpawnedAgent& child) -> Napi::Value {
        Napi::Object out = Napi::Object::New(env);
        out.Set("view", ViewWrap::New(env, store, std::move(child.view)));
        out.Set("manifest", ManifestValue(env, child.manifest));
        out.Set("manifestPath", child.manifest_path);
        return out;
      });
}

// loadManifest(path) -> manifest.
Napi::Value LoadManifestFn(const Napi::CallbackInfo& info) {
  std::string path = StringArg(info, 0, "path");
  return Async<Manifest>(
      info.Env(), Napi::Object::New(info.Env()), nullptr,
      [path = std::move(path)] { return LoadManifest(path); },
      [](Napi::Env env, Manifest& m) { return ManifestValue(env, m); });
}

// openChildView(store, manifest) -> the child's NativeView.
Napi::Value OpenChildViewFn(const Napi::CallbackInfo& info) {
  return Sync(info.Env(), [&]() -> Napi::Value {
    std::shared_ptr<Store> store = StoreArg(info, 0);
    Manifest manifest = ManifestArg(info, 1);
    Result<ctxkit::View> view = OpenChildView(*store, manifest);
    if (!view.ok()) ThrowStatus(info.Env(), view.status());
    return ViewWrap::New(info.Env(), store, std::move(*view));
  });
}

// resolveContextRef(child, manifest, name) -> Buffer.
Napi::Value ResolveContextRefFn(const Napi::CallbackInfo& info) {
  ViewWrap* child = ViewArg(info, 0);
  Manifest manifest = ManifestArg(info, 1);
  std::string name = StringArg(info, 2, "name");
  std::shared_ptr<ctxkit::View> view = child->view();
  return Async<std::string>(
      info.Env(), info[0].As<Napi::Object>(), nullptr,
      [view, manifest = std::move(manifest), name = std::move(name)] {
        return ResolveContextRef(*view, manifest, name);
      },
      ToBuffer);
}

// setResult(child, manifest, value, {type}) -> the result's static ref.
Napi::Value SetResultFn(const Napi::CallbackInfo& info) {
  ViewWrap* child = ViewArg(info, 0);
  Manifest manifest = ManifestArg(info, 1);
  std::string value = BytesArg(info, 2, "value");
  Result<ValueType> type =
      ParseValueType(OptString(OptionsArg(info, 3), "type").value_or("result"));
  if (!type.ok()) ThrowStatus(info.Env(), type.status());
  std::shared_ptr<ctxkit::View> view = child->view();
  return Async<Ref>(
      info.Env(), info[0].As<Napi::Object>(), nullptr,
      [view, manifest = std::move(manifest), value = std::move(value),
       type = *type] { return SetResult(*view, manifest, value, type); },
      [](Napi::Env env, Ref& ref) -> Napi::Value {
        return Napi::String::New(env, FormatRef(ref));
      });
}

// collectResult(parent, manifest) -> the child's latest result's ref.
Napi::Value CollectResultFn(const Napi::CallbackInfo& info) {
  ViewWrap* parent = ViewArg(info, 0);
  Manifest manifest = ManifestArg(info, 1);
  std::shared_ptr<ctxkit::View> view = parent->view();
  return Async<Ref>(
      info.Env(), info[0].As<Napi::Object>(), nullptr,
      [view, manifest = std::move(manifest)] {
        return CollectResult(*view, manifest);
      },
      [](Napi::Env env, Ref& ref) -> Napi::Value {
        return Napi::String::New(env, FormatRef(ref));
      });
}

}  // namespace

void InitSpawn(Napi::Env env, Napi::Object exports) {
  exports.Set("spawn", Napi::Function::New(env, PromisedFn<SpawnFn>));
  exports.Set("loadManifest",
              Napi::Function::New(env, PromisedFn<LoadManifestFn>));
  exports.Set("openChildView", Napi::Function::New(env, OpenChildViewFn));
  exports.Set("resolveContextRef",
              Napi::Function::New(env, PromisedFn<ResolveContextRefFn>));
  exports.Set("setResult", Napi::Function::New(env, PromisedFn<SetResultFn>));
  exports.Set("collectResult",
              Napi::Function::New(env, PromisedFn<CollectResultFn>));
}

}  // namespace ctxkit::node
