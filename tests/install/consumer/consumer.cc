// A program outside the project that uses an installed ctxkit: opens a
// store under argv[1], sets a value and prints what Get returns.
#include <cstdio>

#include "ctxkit/store.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer STORE_DIR\n");
    return 2;
  }
  ctxkit::Options options;
  options.home = argv[1];
  auto store = ctxkit::Store::Open(options);
  if (!store.ok()) {
    std::fprintf(stderr, "open: %s\n", store.status().ToString().c_str());
    return 1;
  }
  auto view = (*store)->OpenView("installer", "check");
  if (!view.ok()) {
    std::fprintf(stderr, "view: %s\n", view.status().ToString().c_str());
    return 1;
  }
  auto ref = view->Set("greeting", "hello from an installed ctxkit");
  if (!ref.ok()) {
    std::fprintf(stderr, "set: %s\n", ref.status().ToString().c_str());
    return 1;
  }
  auto value = view->Get("greeting");
  if (!value.ok()) {
    std::fprintf(stderr, "get: %s\n", value.status().ToString().c_str());
    return 1;
  }
  std::printf("%s %s\n", ctxkit::FormatRef(*ref).c_str(), value->c_str());
  return 0;
}
