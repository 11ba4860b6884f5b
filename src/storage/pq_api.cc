#include "storage/pq_api.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace ctxkit::storage {
namespace {

// dlsym gives a data pointer; copying its bytes is the portable way to a
// function pointer.
template <typename Fn>
bool Bind(void* lib, const char* name, Fn* out) {
  void* sym = dlsym(lib, name);
  if (sym == nullptr) return false;
  static_assert(sizeof(sym) == sizeof(*out));
  std::memcpy(out, &sym, sizeof(sym));
  return true;
}

Result<PqApi> Load() {
  // The soname Debian's libpq5 (a dependency of libpq-dev) installs.
  void* lib = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = dlerror();
    return Status::Unavailable(
        std::string("the PostgreSQL client library libpq.so.5 cannot be "
                    "loaded (") +
        (why ? why : "unknown error") +
        "); install Debian's libpq5 to use a PostgreSQL store");
  }
  PqApi api{};
  const bool ok = Bind(lib, "PQconninfoParse", &api.conninfoParse) &&
                  Bind(lib, "PQconninfoFree", &api.conninfoFree) &&
                  Bind(lib, "PQconnectdbParams", &api.connectdbParams) &&
                  Bind(lib, "PQfinish", &api.finish) &&
                  Bind(lib, "PQreset", &api.reset) &&
                  Bind(lib, "PQstatus", &api.status) &&
                  Bind(lib, "PQerrorMessage", &api.errorMessage) &&
                  Bind(lib, "PQsetNoticeProcessor", &api.setNoticeProcessor) &&
                  Bind(lib, "PQsocket", &api.socket) &&
                  Bind(lib, "PQprepare", &api.prepare) &&
                  Bind(lib, "PQexecPrepared", &api.execPrepared) &&
                  Bind(lib, "PQexec", &api.exec) &&
                  Bind(lib, "PQresultStatus", &api.resultStatus) &&
                  Bind(lib, "PQresultErrorField", &api.resultErrorField) &&
                  Bind(lib, "PQresultErrorMessage", &api.resultErrorMessage) &&
                  Bind(lib, "PQclear", &api.clear) &&
                  Bind(lib, "PQntuples", &api.ntuples) &&
                  Bind(lib, "PQnfields", &api.nfields) &&
                  Bind(lib, "PQgetisnull", &api.getisnull) &&
                  Bind(lib, "PQgetvalue", &api.getvalue) &&
                  Bind(lib, "PQgetlength", &api.getlength) &&
                  Bind(lib, "PQcmdTuples", &api.cmdTuples) &&
                  Bind(lib, "PQconsumeInput", &api.consumeInput) &&
                  Bind(lib, "PQnotifies", &api.notifies) &&
                  Bind(lib, "PQfreemem", &api.freemem);
  if (!ok) {
    const char* why = dlerror();
    return Status::Unavailable("libpq.so.5 lacks a function ctxkit uses (" +
                               std::string(why ? why : "unknown") + ")");
  }
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
