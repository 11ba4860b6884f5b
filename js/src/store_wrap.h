// The JavaScript classes over Store and View (NativeStore, NativeView);
// index.js wraps them in Store and View.
#ifndef CTXKIT_JS_STORE_WRAP_H_
#define CTXKIT_JS_STORE_WRAP_H_

#include <napi.h>

#include <memory>

#include "ctxkit/store.h"
#include "node_binding.h"

namespace ctxkit::node {

// An open store. Made by openStore(options) (a Promise); every View and
// Session opened from it keeps the Store alive.
class StoreWrap : public Napi::ObjectWrap<StoreWrap> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);

  explicit StoreWrap(const Napi::CallbackInfo& info);
  const std::shared_ptr<Store>& store() const { return store_; }

 private:
  Napi::Value Home(const Napi::CallbackInfo& info);
  Napi::Value View(const Napi::CallbackInfo& info);
  Napi::Value Stats(const Napi::CallbackInfo& info);

  std::shared_ptr<Store> store_;
};

// A view of a store (agent and session scopes). Every call is a Promise.
class ViewWrap : public Napi::ObjectWrap<ViewWrap> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);
  static Napi::Object New(Napi::Env env, std::shared_ptr<Store> store,
                          ctxkit::View view);

  explicit ViewWrap(const Napi::CallbackInfo& info);

  // What a Notebook or ToolOutputCapture opened on this view holds for its
  // lifetime.
  const std::shared_ptr<Store>& store() const { return store_; }
  const std::shared_ptr<ctxkit::View>& view() const { return view_; }

 private:
  struct Parts {
    std::shared_ptr<Store> store;
    ctxkit::View view;
  };

  // Method M as a Promise-returning binding (node_binding.h Promised).
  template <Napi::Value (ViewWrap::*M)(const Napi::CallbackInfo&)>
  Napi::Value P(const Napi::CallbackInfo& info) {
    return Promised(info.Env(), [&] { return (this->*M)(info); });
  }

  // Runs work(view) on a worker thread; done(env, value) resolves.
  template <typename T, typename Work, typename Done>
  Napi::Value Call(const Napi::CallbackInfo& info, Work work, Done done);

  Napi::Value Set(const Napi::CallbackInfo& info);
  Napi::Value SetMany(const Napi::CallbackInfo& info);
  Napi::Value Append(const Napi::CallbackInfo& info);
  Napi::Value GetValue(const Napi::CallbackInfo& info,
                       AsyncCall<std::string>::Done done);
  Napi::Value Get(const Napi::CallbackInfo& info);
  Napi::Value GetText(const Napi::CallbackInfo& info);
  Napi::Value Resolve(const Napi::CallbackInfo& info);
  Napi::Value ReadRange(const Napi::CallbackInfo& info);
  Napi::Value RefOf(const Napi::CallbackInfo& info);
  Napi::Value Pin(const Napi::CallbackInfo& info);
  Napi::Value Stat(const Napi::CallbackInfo& info);
  Napi::Value Remove(const Napi::CallbackInfo& info);
  Napi::Value List(const Napi::CallbackInfo& info);
  Napi::Value Versions(const Napi::CallbackInfo& info);
  Napi::Value CountTokens(const Napi::CallbackInfo& info);
  Napi::Value Peek(const Napi::CallbackInfo& info);
  Napi::Value Search(const Napi::CallbackInfo& info);
  Napi::Value Len(const Napi::CallbackInfo& info);
  Napi::Value Summarize(const Napi::CallbackInfo& info);
  Napi::Value FindRelevant(const Napi::CallbackInfo& info);

  std::shared_ptr<Store> store_;  // Outlives view_.
  std::shared_ptr<ctxkit::View> view_;
};

// The Store of the NativeStore at argument `i`; TypeError otherwise.
std::shared_ptr<Store> StoreArg(const Napi::CallbackInfo& info, size_t i);
// The ViewWrap (a NativeView) at argument `i`; TypeError otherwise.
ViewWrap* ViewArg(const Napi::CallbackInfo& info, size_t i);

}  // namespace ctxkit::node

#endif  // CTXKIT_JS_STORE_WRAP_H_
