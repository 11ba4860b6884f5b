// The C++ side of bench/python_calls.py: N durable View::Set calls of a
// 1 KiB value, then N View::Get calls of the same keys, in one process on
// an open store, timing each call. Prints one line:
//   set_p50_ns set_p99_ns get_p50_ns get_p99_ns
// The Python side makes the same calls through the extension, in the same
// run, so the two are compared on the same machine state.
//
//   setget_tool HOME N PREFIX      keys PREFIX<i>, i in [0, N)

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "ctxkit/store.h"

namespace {

using Clock = std::chrono::steady_clock;

uint64_t Percentile(std::vector<uint64_t> ns, double fraction) {
  std::sort(ns.begin(), ns.end());
  size_t i = std::min(ns.size() - 1, static_cast<size_t>(ns.size() * fraction));
  return ns[i];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: setget_tool HOME N PREFIX\n");
    return 2;
  }
  const int n = std::atoi(argv[2]);
  const std::string prefix = argv[3];
  if (n <= 0) return 2;
  auto store = ctxkit::Store::Open({.home = argv[1]});
  if (!store.ok()) {
    std::fprintf(stderr, "%s\n", store.status().ToString().c_str());
    return 1;
  }
  auto view = (*store)->OpenView("bench", "");
  if (!view.ok()) return 1;
  const std::string value(1024, 'x');
  std::vector<uint64_t> set_ns, get_ns;
  for (int i = 0; i < n; ++i) {
    auto start = Clock::now();
    auto ref = view->Set(prefix + std::to_string(i), value);
    set_ns.push_back((Clock::now() - start).count());
    if (!ref.ok()) return 1;
  }
  for (int i = 0; i < n; ++i) {
    auto start = Clock::now();
    auto got = view->Get(prefix + std::to_string(i));
    get_ns.push_back((Clock::now() - start).count());
    if (!got.ok() || got->size() != value.size()) return 1;
  }
  std::printf("%llu %llu %llu %llu\n",
              static_cast<unsigned long long>(Percentile(set_ns, 0.5)),
              static_cast<unsigned long long>(Percentile(set_ns, 0.99)),
              static_cast<unsigned long long>(Percentile(get_ns, 0.5)),
              static_cast<unsigned long long>(Percentile(get_ns, 0.99)));
  return 0;
}
