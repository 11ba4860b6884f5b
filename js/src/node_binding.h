// Shared pieces of the ctxkit Node addon (ctxkit.node): errors as
// CtxkitError, asynchronous calls on a worker thread, argument readers and
// results as plain JavaScript values.
//
// Contract for every binding in js/src/:
//   - Arguments are read and validated on the JavaScript thread; a wrong
//     type throws a TypeError naming the parameter, synchronously.
//   - A call that does I/O or scanning returns a Promise: the C++ call runs
//     on a worker thread (Async below) and never touches JavaScript values;
//     its Result is turned into a JavaScript value, or a rejection with a
//     CtxkitError whose `code` is StatusCodeName, back on the JavaScript
//     thread.
//   - Results are plain objects with the field names of the CLI's --json
//     output and the MCP tools (the face layer's JSON forms), so one name
//     serves every face.
#ifndef CTXKIT_JS_NODE_BINDING_H_
#define CTXKIT_JS_NODE_BINDING_H_

#include <napi.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ctxkit/status.h"

namespace ctxkit::node {

// The CtxkitError class index.js defines, given to the addon at load
// (setErrorClass); kept per environment.
void SetErrorClass(const Napi::CallbackInfo& info);
// The classes the addon defines. Each environment (the main thread, every
// worker thread) loads the addon on its own, so they are kept per
// environment, like the error class.
enum class NativeClass { kStore, kView, kSession, kNotebook, kCapture };
void SetNativeClass(Napi::Env env, NativeClass which, Napi::Function cls);
Napi::Function NativeClassOf(Napi::Env env, NativeClass which);

// A CtxkitError for `status` (message, `code`), or a plain Error with
// `code` before setErrorClass was called.
Napi::Value StatusError(Napi::Env env, const Status& status);
// A bad argument value (a malformed ref, an unknown format) found while
// reading arguments: ThrowStatus throws it, and Promised turns it into the
// rejection of the call's Promise (Sync into a thrown CtxkitError), so a
// call fails the same way whether the library or the binding refused it.
struct StatusException {
  Status status;
};
[[noreturn]] void ThrowStatus(Napi::Env env, const Status& status);

// Runs `body` (a binding that returns a Promise); a StatusException from
// reading its arguments becomes a rejected Promise.
template <typename Body>
Napi::Value Promised(Napi::Env env, Body&& body) {
  try {
    return body();
  } catch (const StatusException& e) {
    Napi::Promise::Deferred d = Napi::Promise::Deferred::New(env);
    d.Reject(StatusError(env, e.status));
    return d.Promise();
  }
}

// Runs `body` (a synchronous binding); a StatusException becomes a thrown
// CtxkitError.
template <typename Body>
Napi::Value Sync(Napi::Env env, Body&& body) {
  try {
    return body();
  } catch (const StatusException& e) {
    throw Napi::Error(env, StatusError(env, e.status));
  }
}

// A binding function `F` that returns a Promise, as a Napi callback.
template <Napi::Value (*F)(const Napi::CallbackInfo&)>
Napi::Value PromisedFn(const Napi::CallbackInfo& info) {
  return Promised(info.Env(), [&] { return F(info); });
}

// Argument readers: `name` names the parameter in the TypeError.
std::string StringArg(const Napi::CallbackInfo& info, size_t i,
                      const char* name);
// A non-negative safe integer.
uint64_t UintArg(const Napi::CallbackInfo& info, size_t i, const char* name);
// A value: a string (its UTF-8 bytes) or a Buffer / Uint8Array (copied).
std::string BytesArg(const Napi::CallbackInfo& info, size_t i,
                     const char* name);
// BytesArg for a value that is not an argument itself (an array item);
// `name` names it in the TypeError.
std::string BytesOf(const Napi::Value& v, const std::string& name);
// JSON text: a string as it is, anything else JSON.stringify'd.
std::string JsonArg(const Napi::CallbackInfo& info, size_t i, const char* name);
// The options object at `i`: an empty object when absent or undefined.
Napi::Object OptionsArg(const Napi::CallbackInfo& info, size_t i);
// Fields of an options object; absent or undefined: nullopt.
// "undefined", "null", "string", ...: what a value is, for messages.
std::string TypeName(const Napi::Value& v);
std::optional<std::string> OptString(const Napi::Object& o, const char* name);
std::optional<uint64_t> OptUint(const Napi::Object& o, const char* name);
std::optional<int64_t> OptInt(const Napi::Object& o, const char* name);
std::optional<bool> OptBool(const Napi::Object& o, const char* name);
// An array of strings; absent or undefined: empty.
std::vector<std::string> OptStrings(const Napi::Object& o, const char* name);

// A JSON value as a JavaScript value (numbers as numbers, objects as
// plain objects).
Napi::Value ToJs(Napi::Env env, const nlohmann::json& value);
// ToJs for an AsyncCall's Done.
inline Napi::Value JsonValue(Napi::Env env, nlohmann::json& value) {
  return ToJs(env, value);
}
// Bytes as a Buffer (copied).
Napi::Value ToBuffer(Napi::Env env, const std::string& bytes);

// Settles `deferred` with `result`: done(env, value), or a rejection with
// its CtxkitError (or with what done threw).
template <typename T, typename Done>
void Settle(Napi::Env env, Napi::Promise::Deferred& deferred, Result<T>& result,
            const Done& done) {
  if (!result.ok()) {
    deferred.Reject(StatusError(env, result.status()));
    return;
  }
  try {
    deferred.Resolve(done(env, result.value()));
  } catch (const Napi::Error& e) {
    deferred.Reject(e.Value());
  }
}

// A worker-thread call. Work returns Result<T> (or Status); Done turns its
// value into the Promise's value on the JavaScript thread. `keep` stays
// referenced until the call ends (the wrapper whose C++ object the work
// uses); `lock`, when set, is held while the work runs (objects that are
// not thread-safe, such as Session).
template <typename T>
class AsyncCall : public Napi::AsyncWorker {
 public:
  using Work = std::function<Result<T>()>;
  using Done = std::function<Napi::Value(Napi::Env, T&)>;

  AsyncCall(Napi::Env env, Napi::Object keep, std::shared_ptr<std::mutex> lock,
            Work work, Done done)
      : Napi::AsyncWorker(env, "ctxkit"),
        deferred_(Napi::Promise::Deferred::New(env)),
        keep_(Napi::Persistent(keep)),
        lock_(std::move(lock)),
        work_(std::move(work)),
        done_(std::move(done)) {}

  Napi::Promise Promise() { return deferred_.Promise(); }

  void Execute() override {
    if (lock_ != nullptr) {
      std::lock_guard<std::mutex> hold(*lock_);
      result_.emplace(work_());
    } else {
      result_.emplace(work_());
    }
  }

  void OnOK() override {
    Napi::Env env = Env();
    Napi::HandleScope scope(env);
    Settle(env, deferred_, *result_, done_);
  }

 private:
  Napi::Promise::Deferred deferred_;
  Napi::ObjectReference keep_;
  std::shared_ptr<std::mutex> lock_;
  Work work_;
  Done done_;
  std::optional<Result<T>> result_;
};

// Starts an AsyncCall and returns its Promise.
template <typename T>
Napi::Promise Async(Napi::Env env, Napi::Object keep,
                    std::shared_ptr<std::mutex> lock,
                    typename AsyncCall<T>::Work work,
                    typename AsyncCall<T>::Done done) {
  auto* call = new AsyncCall<T>(env, keep, std::move(lock), std::move(work),
                                std::move(done));
  Napi::Promise promise = call->Promise();
  call->Queue();  // Deleted by node-addon-api once it completes.
  return promise;
}

// A call answered on the JavaScript thread (it never blocks: a cached
// read), as the settled Promise an Async call would have given.
template <typename T>
Napi::Promise Settled(Napi::Env env, Result<T>& result,
                      const typename AsyncCall<T>::Done& done) {
  Napi::Promise::Deferred deferred = Napi::Promise::Deferred::New(env);
  Settle(env, deferred, result, done);
  return deferred.Promise();
}

// A Status-returning call as a Result (the Promise resolves to undefined).
struct Done {};
inline Result<Done> FromStatus(const Status& status) {
  if (!status.ok()) return status;
  return Done{};
}

// Module parts (module.cc calls each).
void InitStore(Napi::Env env, Napi::Object exports);
void InitSession(Napi::Env env, Napi::Object exports);
void InitNotes(Napi::Env env, Napi::Object exports);
void InitCapture(Napi::Env env, Napi::Object exports);
void InitSpawn(Napi::Env env, Napi::Object exports);

}  // namespace ctxkit::node

#endif  // CTXKIT_JS_NODE_BINDING_H_
