// Shared libraries loaded on first use (dlopen), for dependencies that only
// some commands need: linking them would map them, and everything they
// depend on, into every ctxkit process. Used for libcurl (llm/curl_api.h)
// and libpq (postgres/pq_api.h).

#ifndef CTXKIT_CORE_DYNAMIC_LIBRARY_H_
#define CTXKIT_CORE_DYNAMIC_LIBRARY_H_

#include <dlfcn.h>

#include <cstring>
#include <string_view>

#include "ctxkit/status.h"

namespace ctxkit::core {

// dlopen(soname) for good (never closed). Unavailable, with dlerror's
// reason and `remedy` ("install Debian's libpq5 to ..."), when it cannot
// be loaded.
Result<void*> OpenLibrary(const char* soname, std::string_view remedy);

// Sets *out to function `name` of `lib`; false when `lib` lacks it.
template <typename Fn>
bool BindFunction(void* lib, const char* name, Fn* out) {
  void* sym = dlsym(lib, name);
  if (sym == nullptr) return false;
  // dlsym gives a data pointer; copying its bytes is the portable way to a
  // function pointer.
  static_assert(sizeof(sym) == sizeof(*out));
  std::memcpy(out, &sym, sizeof(sym));
  return true;
}

// The Unavailable error for a library that lacks a function BindFunction
// asked for (dlerror says which).
Status MissingFunction(const char* soname);

}  // namespace ctxkit::core

#endif  // CTXKIT_CORE_DYNAMIC_LIBRARY_H_
