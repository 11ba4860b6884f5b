#include <unistd.h>

#include <cstdlib>
#include <string>

#include "ctxkit/store.h"

namespace ctxkit {

Result<std::string> ResolveHome(std::string_view flag) {
  std::string home;
  if (!flag.empty()) {
    home = std::string(flag);
  } else if (const char* env = std::getenv("CTXKIT_HOME"); env && *env) {
    home = env;
  } else if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg) {
    home = std::string(xdg) + "/ctxkit";
  } else if (const char* user = std::getenv("HOME"); user && *user) {
    home = std::string(user) + "/.local/share/ctxkit";
  } else {
    return Status::InvalidArgument(
        "no store root: pass --home, or set CTXKIT_HOME or HOME");
  }
  if (home.find('\0') != std::string::npos) {
    return Status::InvalidArgument("store root contains a NUL byte");
  }
  // Relative roots are taken from the working directory, made absolute so
  // refs and children spawned elsewhere agree.
  if (home[0] != '/') {
    char cwd[4096];
    if (::getcwd(cwd, sizeof(cwd)) == nullptr) {
      return Status::IoError("cannot read the working directory");
    }
    home = std::string(cwd) + "/" + home;
  }
  while (home.size() > 1 && home.back() == '/') home.pop_back();
  return home;
}

std::string ResolveStoreUrl(std::string_view flag) {
  if (!flag.empty()) return std::string(flag);
  const char* env = std::getenv("CTXKIT_STORE_URL");
  return env != nullptr ? std::string(env) : std::string();
}

}  // namespace ctxkit
