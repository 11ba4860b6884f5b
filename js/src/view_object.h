// The JavaScript classes over library objects opened on a View (Notebook,
// ToolOutputCapture): each holds the Store and the View it was opened on
// for its lifetime, and runs one call at a time on a worker thread (the
// objects are not to be used from two threads at once).
#ifndef CTXKIT_JS_VIEW_OBJECT_H_
#define CTXKIT_JS_VIEW_OBJECT_H_

#include <napi.h>

#include <memory>
#include <mutex>
#include <utility>

#include "ctxkit/store.h"
#include "node_binding.h"
#include "store_wrap.h"

namespace ctxkit::node {

// `Derived` wraps a `T` opened on a view; `Derived::kClass` names its
// class, registered by `Derived::Init`.
template <typename Derived, typename T>
class ViewObjectWrap : public Napi::ObjectWrap<Derived> {
 public:
  struct Parts {
    std::shared_ptr<Store> store;
    std::shared_ptr<ctxkit::View> view;
    std::unique_ptr<T> object;
  };

  // Opens a T on the NativeView at argument 0 on a worker thread:
  // open(view) returns Result<std::unique_ptr<T>>. Resolves to a Derived.
  template <typename Open>
  static Napi::Value OpenOn(const Napi::CallbackInfo& info, Open open) {
    ViewWrap* wrap = ViewArg(info, 0);
    std::shared_ptr<Store> store = wrap->store();
    std::shared_ptr<ctxkit::View> view = wrap->view();
    return Async<Parts>(
        info.Env(), info[0].As<Napi::Object>(), nullptr,
        [store, view, open = std::move(open)]() -> Result<Parts> {
          Result<std::unique_ptr<T>> object = open(*store, *view);
          if (!object.ok()) return object.status();
          return Parts{store, view, std::move(*object)};
        },
        [](Napi::Env env, Parts& parts) -> Napi::Value {
          return NativeClassOf(env, Derived::kClass)
              .New({Napi::External<Parts>::New(env, &parts)});
        });
  }

  explicit ViewObjectWrap(const Napi::CallbackInfo& info, const char* how)
      : Napi::ObjectWrap<Derived>(info) {
    if (info.Length() != 1 || !info[0].IsExternal()) {
      throw Napi::TypeError::New(info.Env(), how);
    }
    Parts* parts = info[0].As<Napi::External<Parts>>().Data();
    store_ = std::move(parts->store);
    view_ = std::move(parts->view);
    object_ = std::shared_ptr<T>(std::move(parts->object));
  }

 protected:
  // Method M as a Promise-returning binding (node_binding.h Promised).
  template <Napi::Value (Derived::*M)(const Napi::CallbackInfo&)>
  Napi::Value P(const Napi::CallbackInfo& info) {
    return Promised(info.Env(),
                    [&] { return (static_cast<Derived*>(this)->*M)(info); });
  }

  // Runs work(object, view) on a worker thread, one call of this object
  // at a time; done(env, value) resolves.
  template <typename R, typename Work>
  Napi::Value Call(const Napi::CallbackInfo& info, Work work,
                   typename AsyncCall<R>::Done done) {
    std::shared_ptr<Store> store = store_;
    std::shared_ptr<ctxkit::View> view = view_;
    std::shared_ptr<T> object = object_;
    return Async<R>(
        info.Env(), info.This().As<Napi::Object>(), lock_,
        [store, view, object, work = std::move(work)]() {
          return work(*object, *view);
        },
        std::move(done));
  }

  const T& object() const { return *object_; }

 private:
  std::shared_ptr<Store> store_;        // Outlives view_.
  std::shared_ptr<ctxkit::View> view_;  // Outlives object_.
  std::shared_ptr<T> object_;
  std::shared_ptr<std::mutex> lock_ = std::make_shared<std::mutex>();
};

}  // namespace ctxkit::node

#endif  // CTXKIT_JS_VIEW_OBJECT_H_
