#include <unistd.h>

#include <string>

#include "ctxkit/store.h"

namespace ctxkit {

Result<std::string> AbsoluteHome(std::string_view in) {
  if (in.empty()) return Status::InvalidArgument("the store root is empty");
  std::string home(in);
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

}  // namespace ctxkit
