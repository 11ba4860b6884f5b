#include "postgres/pq_api.h"

#include <cstdio>
#include <cstdlib>

#include "core/dynamic_library.h"
#include "core/status_macros.h"

namespace ctxkit::storage {
namespace {

Result<PqApi> Load() {
  // The soname Debian's libpq5 (a dependency of libpq-dev) installs.
  CTXKIT_ASSIGN_OR_RETURN(void* lib,
                          core::OpenLibrary("libpq.so.5",
                                            "install Debian's libpq5 to use a "
                                            "PostgreSQL store"));
  PqApi api{};
  const bool ok =
      core::BindFunction(lib, "PQconninfoParse", &api.conninfoParse) &&
      core::BindFunction(lib, "PQconninfoFree", &api.conninfoFree) &&
      core::BindFunction(lib, "PQconnectdbParams", &api.connectdbParams) &&
      core::BindFunction(lib, "PQfinish", &api.finish) &&
      core::BindFunction(lib, "PQreset", &api.reset) &&
      core::BindFunction(lib, "PQstatus", &api.status) &&
      core::BindFunction(lib, "PQerrorMessage", &api.errorMessage) &&
      core::BindFunction(lib, "PQsetNoticeProcessor",
                         &api.setNoticeProcessor) &&
      core::BindFunction(lib, "PQsocket", &api.socket) &&
      core::BindFunction(lib, "PQprepare", &api.prepare) &&
      core::BindFunction(lib, "PQexecPrepared", &api.execPrepared) &&
      core::BindFunction(lib, "PQexec", &api.exec) &&
      core::BindFunction(lib, "PQresultStatus", &api.resultStatus) &&
      core::BindFunction(lib, "PQresultErrorField", &api.resultErrorField) &&
      core::BindFunction(lib, "PQresultErrorMessage",
                         &api.resultErrorMessage) &&
      core::BindFunction(lib, "PQclear", &api.clear) &&
      core::BindFunction(lib, "PQntuples", &api.ntuples) &&
      core::BindFunction(lib, "PQnfields", &api.nfields) &&
      core::BindFunction(lib, "PQgetisnull", &api.getisnull) &&
      core::BindFunction(lib, "PQgetvalue", &api.getvalue) &&
      core::BindFunction(lib, "PQgetlength", &api.getlength) &&
      core::BindFunction(lib, "PQcmdTuples", &api.cmdTuples) &&
      core::BindFunction(lib, "PQconsumeInput", &api.consumeInput) &&
      core::BindFunction(lib, "PQnotifies", &api.notifies) &&
      core::BindFunction(lib, "PQfreemem", &api.freemem);
  if (!ok) return core::MissingFunction("libpq.so.5");
  return api;  // The library stays loaded.
}

const Result<PqApi>& Loaded() {
  static const Result<PqApi> loaded = Load();
  return loaded;
}

}  // namespace

Result<const PqApi*> LoadPq() {
  const Result<PqApi>& loaded = Loaded();
  if (!loaded.ok()) return loaded.status();
  return &*loaded;
}

const PqApi& Pq() {
  const Result<PqApi>& loaded = Loaded();
  if (!loaded.ok()) {
    // Unreachable: no connection exists before LoadPq() succeeded.
    std::fprintf(stderr, "ctxkit: libpq used before it was loaded: %s\n",
                 loaded.status().ToString().c_str());
    std::abort();
  }
  return *loaded;
}

}  // namespace ctxkit::storage
