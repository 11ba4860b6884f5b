// Two homes of one store, for the state that must follow a store to every
// machine (spawn manifests, the watch list, the execution log). In the
// "pg." test variants: two home directories whose durable state is one
// schema of the test server, as two machines would open it. On SQLite,
// where the store is its home: that home opened twice, as two processes
// would.

#ifndef CTXKIT_TESTS_COMMON_TWO_HOMES_H_
#define CTXKIT_TESTS_COMMON_TWO_HOMES_H_

#include <filesystem>
#include <memory>
#include <string>

#include "common/pg_store.h"
#include "common/temp_store.h"
#include "ctxkit/status.h"
#include "ctxkit/store.h"

namespace ctxkit::testing {

struct TwoHomes {
  std::string dir;  // Holds both homes; removed by the destructor.
  bool on_postgres = false;
  std::unique_ptr<Store> a;
  std::unique_ptr<Store> b;

  TwoHomes() = default;
  TwoHomes(TwoHomes&&) = default;
  TwoHomes& operator=(TwoHomes&&) = default;
  ~TwoHomes() {
    a.reset();
    b.reset();
    if (!dir.empty()) std::filesystem::remove_all(dir);
  }

  // The options of home `name` ("a" or "b") of this store.
  Options OptionsOf(const std::string& name) const {
    Options o;
    o.home = dir + "/" + (on_postgres ? name : std::string("a"));
    o.durability = Durability::kProcess;
    o.store_url = PgStoreUrlFor(dir + "/a");
    return o;
  }
};

inline Result<TwoHomes> OpenTwoHomes(const std::string& prefix) {
  TwoHomes t;
  t.dir = MakeTempDir(prefix);
  if (t.dir.empty()) return Status::IoError("mkdtemp");
  t.on_postgres = !PgTestUrl().empty();
  Result<std::unique_ptr<Store>> a = Store::Open(t.OptionsOf("a"));
  if (!a.ok()) return a.status();
  t.a = std::move(*a);
  Result<std::unique_ptr<Store>> b = Store::Open(t.OptionsOf("b"));
  if (!b.ok()) return b.status();
  t.b = std::move(*b);
  return t;
}

}  // namespace ctxkit::testing

#endif  // CTXKIT_TESTS_COMMON_TWO_HOMES_H_
