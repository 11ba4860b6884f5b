// ResolveHome and ResolveStoreUrl (ctxkit/environment.h): the store root
// and URL every face opens by default.

#include <string>

#include "ctxkit/environment.h"
#include "ctxkit/store.h"
#include "face/environment.h"

namespace ctxkit {

Result<std::string> ResolveHome(std::string_view flag) {
  std::string home;
  if (!flag.empty()) {
    home = std::string(flag);
  } else if (std::string env = env::Get("CTXKIT_HOME"); !env.empty()) {
    home = env;
  } else if (std::string xdg = env::Get("XDG_DATA_HOME"); !xdg.empty()) {
    home = xdg + "/ctxkit";
  } else if (std::string user = env::Get("HOME"); !user.empty()) {
    home = user + "/.local/share/ctxkit";
  } else {
    return Status::InvalidArgument(
        "no store root: pass --home, or set CTXKIT_HOME or HOME");
  }
  return AbsoluteHome(home);
}

std::string ResolveStoreUrl(std::string_view flag) {
  if (!flag.empty()) return std::string(flag);
  return env::Get("CTXKIT_STORE_URL");
}

}  // namespace ctxkit
