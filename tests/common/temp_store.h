// A fresh directory under $TMPDIR and a store inside it: what most test
// fixtures start from. Shared so that every fixture honours TMPDIR and opens
// its store the same way.

#ifndef CTXKIT_TESTS_COMMON_TEMP_STORE_H_
#define CTXKIT_TESTS_COMMON_TEMP_STORE_H_

#include <stdlib.h>

#include <memory>
#include <string>

#include "common/pg_store.h"
#include "ctxkit/status.h"
#include "ctxkit/store.h"

namespace ctxkit::testing {

// Creates "$TMPDIR/<prefix>-XXXXXX" (/tmp when TMPDIR is unset or empty)
// and returns its path; empty when mkdtemp fails.
inline std::string MakeTempDir(const std::string& prefix) {
  const char* base = ::getenv("TMPDIR");
  std::string path =
      std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/" +
      prefix + "-XXXXXX";
  if (::mkdtemp(path.data()) == nullptr) return "";
  return path;
}

// The options of the store at `dir`/`subdir`: its home there and, in the
// "pg." test variants (CTXKIT_TEST_PG_URL set), its durable state in a
// schema of the test server named after that home. Process durability: a
// test never needs its store to survive a machine crash, and fsyncs would
// only slow it down.
inline Options TempStoreOptions(const std::string& dir,
                                const std::string& subdir = "store") {
  Options o;
  o.home = dir + "/" + subdir;
  o.durability = Durability::kProcess;
  o.store_url = PgStoreUrlFor(o.home);
  return o;
}

// Opens the store of TempStoreOptions. Opening the same directory again is
// another instance of the same store (as another process would see it).
inline Result<std::unique_ptr<Store>> OpenTempStore(
    const std::string& dir, const std::string& subdir = "store") {
  return Store::Open(TempStoreOptions(dir, subdir));
}

}  // namespace ctxkit::testing

#endif  // CTXKIT_TESTS_COMMON_TEMP_STORE_H_
