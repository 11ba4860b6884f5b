// The ctxkit Node addon's entry point: registers Store, View, Session,
// Notebook, ToolOutputCapture and the functions index.js wraps (see
// node_binding.h for the contract).

#include <napi.h>

#include "node_binding.h"

namespace ctxkit::node {
namespace {

Napi::Value SetErrorClassFn(const Napi::CallbackInfo& info) {
  SetErrorClass(info);
  return info.Env().Undefined();
}

}  // namespace

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  exports.Set("setErrorClass", Napi::Function::New(env, SetErrorClassFn));
  InitStore(env, exports);
  InitSession(env, exports);
  InitNotes(env, exports);
  InitCapture(env, exports);
  InitSpawn(env, exports);
  return exports;
}

}  // namespace ctxkit::node

namespace {
Napi::Object InitCtxkit(Napi::Env env, Napi::Object exports) {
  return ctxkit::node::Init(env, exports);
}
}  // namespace

NODE_API_MODULE(ctxkit, InitCtxkit)
