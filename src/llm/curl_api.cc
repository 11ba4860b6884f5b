#include "llm/curl_api.h"

#include <dlfcn.h>

#include <cstring>
#include <string>

namespace ctxkit::llm {
namespace {

// dlsym gives a data pointer; copying its bytes is the portable way to a
// function pointer.
template <typename Fn>
bool Bind(void* lib, const char* name, Fn* out) {
  void* sym = dlsym(lib, name);
  if (sym == nullptr) return false;
  static_assert(sizeof(sym) == sizeof(*out));
  std::memcpy(out, &sym, sizeof(sym));
  return true;
}

Result<CurlApi> Load() {
  // The soname: what Debian's libcurl4 (a dependency of the -dev package
  // the build uses) installs.
  void* lib = dlopen("libcurl.so.4", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    return Status::Unavailable(
        std::string("the HTTP client library libcurl.so.4 cannot be loaded (") +
        (why ? why : "unknown error") +
        "); install Debian's libcurl4 to use LLM or embeddings endpoints");
  }
  CurlApi api{};
  decltype(&curl_global_init) global_init = nullptr;
  const bool ok = Bind(lib, "curl_global_init", &global_init) &&
                  Bind(lib, "curl_easy_init", &api.easy_init) &&
                  Bind(lib, "curl_easy_cleanup", &api.easy_cleanup) &&
                  Bind(lib, "curl_easy_setopt", &api.easy_setopt) &&
                  Bind(lib, "curl_easy_perform", &api.easy_perform) &&
                  Bind(lib, "curl_easy_getinfo", &api.easy_getinfo) &&
                  Bind(lib, "curl_easy_strerror", &api.easy_strerror) &&
                  Bind(lib, "curl_slist_append", &api.slist_append) &&
                  Bind(lib, "curl_slist_free_all", &api.slist_free_all);
  if (!ok) {
    const char* why = dlerror();
    return Status::Unavailable("libcurl.so.4 lacks a function ctxkit uses (" +
                               std::string(why ? why : "unknown") + ")");
  }
  // Once per process, before any other thread uses libcurl (the caller's
  // static initialization guarantees that). The library stays loaded.
  if (global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
    return Status::Unavailable("curl_global_init failed");
  }
  return api;
}

}  // namespace

Result<const CurlApi*> Curl() {
  static const Result<CurlApi> loaded = Load();
  if (!loaded.ok()) return loaded.status();
  return &*loaded;
}

}  // namespace ctxkit::llm
