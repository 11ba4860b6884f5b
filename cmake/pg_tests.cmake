# Chosen suites run a second time against a real PostgreSQL 15 server, as
# ctest tests named pg.<Suite>.<Test>. The fixture pg_server starts a
# throwaway server (tests/pg/server.sh) before them and stops it after; the
# tests get its URL in CTXKIT_TEST_PG_URL (without it they use SQLite).
# Included from CMakeLists.txt after the <folder>_tests executables exist.

# Which tests of each suite run against PostgreSQL: a list of gtest patterns
# (Suite.Test, * and ? wildcards, the names gtest prints, not ctest's pretty
# ones); a pattern starting with '-' excludes. E.g.
#   set(ctxkit_pg_store_filter "*" "-SqliteOnlyTest.*" "-GcTest.ShrinksTheFile")
# They apply when the test lists are discovered, after each build.
# storage: the Backend contract on the PostgreSQL engine (the rest of the
# suite tests SQLite files and the memory engine); postgres: the engine's
# own tests (its schema, listener and migrations).
set(ctxkit_pg_storage_filter "*/Postgres")
set(ctxkit_pg_postgres_filter "PgEngineTest.*")
# store and session: all but the tests of SQLite's own files and formats
# (blob files and their accounting, file modes, stores of earlier builds,
# the legacy sessions file) and the CLI interop tests (the CLI's own suites
# cover it; a child `ctxkit` would need each test's store URL).
set(ctxkit_pg_store_filter "*"
    "-BlobsTest.*" "-FormatTest.*" "-CliInteropTest.*"
    "-AppendableTest.ChatWrittenWholeByAnEarlierBuildReadsButDoesNotAppend"
    "-CapabilityTest.StoresOfEarlierBuildsGetASecretOnOpen"
    "-DurabilityTest.SigkillDuringLargeBlobWritesLosesNoAcknowledgedWrite"
    "-GcTest.BlobFilesGoOnlyWithTheirLastReference"
    "-GcTest.TrashedBlobOfAnUncommittedCollectionComesBack"
    "-GcTest.RefusesWhileHoldsOfAnEarlierBuildArePending"
    "-UsageTest.GroupsByScopeTypeAndTierWithHistory"
    "-VersionsTest.StatsCountObjectsVersionsAndContent")
# (and the 500-turn long-chat run: a scale run of the session layer, whose
# storage calls are those of the other session tests; CI time).
set(ctxkit_pg_session_filter "*"
    "-SessionStorageTest.LegacySessionsFileIsImportedOnce"
    "-LongSessionTest.ALongChatRendersEveryTurnWithinBudgetLosingNothing")
# mcp: all but the damaged-blob-file test (SQLite's blob files).
set(ctxkit_pg_mcp_filter "*" "-DamagedBlobTest.*")
# mcp_http: the tests of HTTP sessions that outlive one server (resumed on
# another server of the store); the rest is the transport alone.
set(ctxkit_pg_mcp_http_filter "HttpServerTest.SessionResume*"
    "HttpServerTest.ConcurrentRequestsResumeOneSession"
    "HttpServerTest.ForgedForeignAndTerminatedIdsAreNotResumed")

# spawn, watch and notes: the state that follows the store to every
# machine (manifests, the watch list, the execution log), seen from two
# homes of one database; the rest of those suites is above the engine.
set(ctxkit_pg_spawn_filter "SharedManifestsTest.*")
set(ctxkit_pg_watch_filter "SharedWatchListTest.*")
set(ctxkit_pg_notes_filter "SharedExecutionLogTest.*")

# The suites: storage and postgres always; store, session and MCP (core
# and HTTP) not under ASan (CI time).
set(ctxkit_pg_suites storage postgres)
if(NOT CTXKIT_SANITIZE)
  list(APPEND ctxkit_pg_suites store session mcp mcp_http spawn watch notes)
endif()

# Debian's server first (HINTS: before PATH); a link to it elsewhere (e.g.
# /usr/local/bin/initdb) counts as its directory.
find_program(CTXKIT_PG_INITDB initdb HINTS /usr/lib/postgresql/15/bin)
if(NOT CTXKIT_PG_INITDB)
  message(FATAL_ERROR "The PostgreSQL tests need a PostgreSQL 15 server "
          "(initdb, pg_ctl, createdb in /usr/lib/postgresql/15/bin): run "
          "scripts/setup.sh (it installs postgresql-15).")
endif()
get_filename_component(ctxkit_pg_bin "${CTXKIT_PG_INITDB}" REALPATH)
get_filename_component(ctxkit_pg_bin "${ctxkit_pg_bin}" DIRECTORY)
foreach(tool pg_ctl createdb)
  if(NOT EXISTS "${ctxkit_pg_bin}/${tool}")
    message(FATAL_ERROR "${ctxkit_pg_bin}/${tool} is missing: run "
            "scripts/setup.sh (it installs postgresql-15).")
  endif()
endforeach()

# The server's directory, also its Unix socket's: one per build tree (release
# and asan may run at once). The socket path DIR/.s.PGSQL.5432 must fit in
# 107 bytes and DIR goes into a URL as is, so a long or odd build path gets
# a short directory in /tmp named by a hash of the build path instead.
set(ctxkit_pg_dir "${PROJECT_BINARY_DIR}/pg")
string(LENGTH "${ctxkit_pg_dir}/.s.PGSQL.5432" ctxkit_pg_len)
if(ctxkit_pg_len GREATER 100 OR NOT ctxkit_pg_dir MATCHES "^[A-Za-z0-9/._+-]+$")
  string(SHA256 ctxkit_pg_hash "${PROJECT_BINARY_DIR}")
  string(SUBSTRING "${ctxkit_pg_hash}" 0 8 ctxkit_pg_hash)
  set(ctxkit_pg_dir "/tmp/ctxkit-pg-${ctxkit_pg_hash}")
endif()
# The URL server.sh also writes to DIR/url.
set(ctxkit_pg_url "postgresql:///ctxkit?host=${ctxkit_pg_dir}&user=ctxkit")

add_test(NAME pg_server_start
         COMMAND bash ${PROJECT_SOURCE_DIR}/tests/pg/server.sh start ${ctxkit_pg_dir})
add_test(NAME pg_server_stop
         COMMAND bash ${PROJECT_SOURCE_DIR}/tests/pg/server.sh stop ${ctxkit_pg_dir})
set_tests_properties(pg_server_start PROPERTIES FIXTURES_SETUP pg_server)
set_tests_properties(pg_server_stop PROPERTIES FIXTURES_CLEANUP pg_server)
set_tests_properties(pg_server_start pg_server_stop PROPERTIES
  TIMEOUT 120 LABELS pg ENVIRONMENT "CTXKIT_PG_BIN=${ctxkit_pg_bin}")

foreach(suite ${ctxkit_pg_suites})
  if(NOT TARGET ${suite}_tests)
    message(FATAL_ERROR "cmake/pg_tests.cmake: no test executable ${suite}_tests")
  endif()
  # The list as one gtest filter: POSITIVE[:POSITIVE...][-NEGATIVE[:...]].
  set(positive)
  set(negative)
  foreach(pattern ${ctxkit_pg_${suite}_filter})
    if(pattern MATCHES "^-(.+)")
      list(APPEND negative "${CMAKE_MATCH_1}")
    else()
      list(APPEND positive "${pattern}")
    endif()
  endforeach()
  if(NOT positive)
    set(positive "*")
  endif()
  list(JOIN positive ":" filter)
  if(negative)
    list(JOIN negative ":" negative)
    string(APPEND filter "-${negative}")
  endif()
  gtest_discover_tests(${suite}_tests TEST_PREFIX "pg." TEST_FILTER "${filter}"
                       TEST_LIST ${suite}_pg_tests DISCOVERY_TIMEOUT 60
                       PROPERTIES TIMEOUT 300 LABELS pg
                                  ENVIRONMENT "CTXKIT_TEST_PG_URL=${ctxkit_pg_url}"
                                  FIXTURES_REQUIRED pg_server)
endforeach()

# Fault tests (tests/postgres/pg_fault_test.cc) restart the server in the
# middle of their writes: they run alone (RUN_SERIAL), and crash-restart it
# through tests/pg/server.sh (its directory is the URL's socket host). Not
# under ASan: they test the server's and the engine's behaviour under
# faults, which the release build shows, and would run alone for long.
if(NOT CTXKIT_SANITIZE)
  gtest_discover_tests(postgres_tests TEST_PREFIX "pg." TEST_FILTER "PgFaultTest.*"
                       TEST_LIST postgres_pg_fault_tests DISCOVERY_TIMEOUT 60
                       PROPERTIES TIMEOUT 600 LABELS pg RUN_SERIAL TRUE
                                  ENVIRONMENT "CTXKIT_TEST_PG_URL=${ctxkit_pg_url}"
                                  FIXTURES_REQUIRED pg_server)
endif()
