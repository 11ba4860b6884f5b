#include "llm/curl_api.h"

#include "core/dynamic_library.h"
#include "core/status_macros.h"

namespace ctxkit::llm {
namespace {

Result<CurlApi> Load() {
  // The soname: what Debian's libcurl4 (a dependency of the -dev package
  // the build uses) installs.
  CTXKIT_ASSIGN_OR_RETURN(
      void* lib,
      core::OpenLibrary("libcurl.so.4",
                        "install Debian's libcurl4 to use LLM or embeddings "
                        "endpoints"));
  CurlApi api{};
  decltype(&curl_global_init) global_init = nullptr;
  const bool ok =
      core::BindFunction(lib, "curl_global_init", &global_init) &&
      core::BindFunction(lib, "curl_easy_init", &api.easy_init) &&
      core::BindFunction(lib, "curl_easy_cleanup", &api.easy_cleanup) &&
      core::BindFunction(lib, "curl_easy_setopt", &api.easy_setopt) &&
      core::BindFunction(lib, "curl_easy_perform", &api.easy_perform) &&
      core::BindFunction(lib, "curl_easy_getinfo", &api.easy_getinfo) &&
      core::BindFunction(lib, "curl_easy_strerror", &api.easy_strerror) &&
      core::BindFunction(lib, "curl_slist_append", &api.slist_append) &&
      core::BindFunction(lib, "curl_slist_free_all", &api.slist_free_all);
  if (!ok) return core::MissingFunction("libcurl.so.4");
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
