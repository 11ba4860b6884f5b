#include "progress_option.h"

#include <memory>
#include <string>

#include "face/environment.h"
#include "node_binding.h"

namespace ctxkit::node {
namespace {

// A report copied off the worker thread (its strings live only there).
struct Report {
  std::string task;
  std::string unit;
  uint64_t done;
  uint64_t total;
  double elapsed_seconds;
  bool finished;
};

// Owns the thread-safe function; released when the last copy of the
// options (held by the call's work) is gone.
class Channel {
 public:
  explicit Channel(Napi::ThreadSafeFunction tsfn) : tsfn_(std::move(tsfn)) {}
  ~Channel() { tsfn_.Release(); }
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;

  void Send(const Progress& p) {
    auto* r =
        new Report{std::string(p.task), std::string(p.unit), p.done, p.total,
                   p.elapsed_seconds,   p.finished};
    napi_status s = tsfn_.NonBlockingCall(
        r, [](Napi::Env env, Napi::Function fn, Report* r) {
          std::unique_ptr<Report> owned(r);
          if (env == nullptr || fn.IsEmpty()) return;  // Shutting down.
          Napi::Object o = Napi::Object::New(env);
          o.Set("task", r->task);
          o.Set("unit", r->unit);
          o.Set("done", static_cast<double>(r->done));
          o.Set("total", static_cast<double>(r->total));
          o.Set("elapsedSeconds", r->elapsed_seconds);
          o.Set("finished", r->finished);
          fn.Call({o});
        });
    if (s != napi_ok) delete r;  // The environment is closing.
  }

 private:
  Napi::ThreadSafeFunction tsfn_;
};

}  // namespace

ProgressOptions ProgressOption(const Napi::Object& options) {
  ProgressOptions out;
  out.interval_ms = env::ProgressIntervalFromEnv();
  Napi::Value fn = options.Get("onProgress");
  if (fn.IsUndefined()) return out;
  if (!fn.IsFunction()) {
    throw Napi::TypeError::New(
        options.Env(),
        "options.onProgress must be a function, not " + TypeName(fn));
  }
  auto channel = std::make_shared<Channel>(Napi::ThreadSafeFunction::New(
      options.Env(), fn.As<Napi::Function>(), "ctxkit progress", 0, 1));
  out.report = [channel](const Progress& p) { channel->Send(p); };
  return out;
}

}  // namespace ctxkit::node
