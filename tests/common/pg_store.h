// Stores in the test PostgreSQL server: tests/pg/server.sh starts one for
// `make test` and CTest hands its URL to the "pg." test variants in
// CTXKIT_TEST_PG_URL (cmake/pg_tests.cmake). Each store gets a schema of
// its own, so tests sharing the server never see each other's objects.

#ifndef CTXKIT_TESTS_COMMON_PG_STORE_H_
#define CTXKIT_TESTS_COMMON_PG_STORE_H_

#include <stdlib.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>

#include "ctxkit/status.h"
#include "postgres/pg_conn.h"

namespace ctxkit::testing {

// The test server's URL, or "" when the tests run against SQLite.
inline std::string PgTestUrl() {
  const char* url = ::getenv("CTXKIT_TEST_PG_URL");
  return url != nullptr ? std::string(url) : std::string();
}

// `base` with its search_path set to `schema` (a libpq URI).
inline std::string PgUrlWithSchema(const std::string& base,
                                   const std::string& schema) {
  return base + (base.find('?') == std::string::npos ? "?" : "&") +
         "options=-csearch_path%3D" + schema;
}

// A URL of the test server whose store lives in schema "t_<hash of name>",
// made when missing: the same name gives the same store (another instance
// of it, as another process would open), a new name a new, empty one.
inline Result<std::string> PgStoreUrl(const std::string& name) {
  const std::string base = PgTestUrl();
  if (base.empty()) return Status::FailedPrecondition("CTXKIT_TEST_PG_URL");
  const std::string schema =
      "t_" + std::to_string(std::hash<std::string>{}(name));
  Result<std::unique_ptr<storage::PgConn>> conn =
      storage::PgConn::Connect(base, "");
  if (!conn.ok()) return conn.status();
  Status s = (*conn)->Run("CREATE SCHEMA IF NOT EXISTS " + schema);
  if (!s.ok()) {
    // Processes opening the same new store at once race on the catalog
    // (IF NOT EXISTS is not atomic): the loser finds the winner's schema.
    Result<storage::PgRows> found =
        (*conn)->Exec("SELECT 1 FROM pg_namespace WHERE nspname = $1",
                      storage::PgParams().Text(schema));
    if (!found.ok() || found->empty()) return s;
  }
  return PgUrlWithSchema(base, schema);
}

// The store URL for a store whose home is `home`: "" (SQLite) outside the
// "pg." variants, else PgStoreUrl(home). A test server that cannot be
// reached there ends the test program (every test would fail anyway).
inline std::string PgStoreUrlFor(const std::string& home) {
  if (PgTestUrl().empty()) return std::string();
  Result<std::string> url = PgStoreUrl(home);
  if (!url.ok()) {
    std::fprintf(stderr, "test PostgreSQL server: %s\n",
                 url.status().ToString().c_str());
    std::abort();
  }
  return *url;
}

}  // namespace ctxkit::testing

#endif  // CTXKIT_TESTS_COMMON_PG_STORE_H_
