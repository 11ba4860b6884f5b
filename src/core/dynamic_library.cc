#include "core/dynamic_library.h"

#include <string>

namespace ctxkit::core {

Result<void*> OpenLibrary(const char* soname, std::string_view remedy) {
  void* lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (lib != nullptr) return lib;
  const char* why = dlerror();
  return Status::Unavailable(std::string(soname) + " cannot be loaded (" +
                             (why ? why : "unknown error") + "); " +
                             std::string(remedy));
}

Status MissingFunction(const char* soname) {
  const char* why = dlerror();
  return Status::Unavailable(std::string(soname) +
                             " lacks a function ctxkit uses (" +
                             (why ? why : "unknown") + ")");
}

}  // namespace ctxkit::core
