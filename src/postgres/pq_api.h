// libpq, loaded the first time a store opens on PostgreSQL.
//
// Linking libpq pulls ~20 shared libraries (GSSAPI, Kerberos, LDAP, SASL,
// GnuTLS and theirs) into every ctxkit process; loading them costs every
// CLI command milliseconds before it does anything, though only stores on
// PostgreSQL use them. So the engine reaches libpq through this table,
// filled by dlopen("libpq.so.5") on first use (as llm/curl_api.h does for
// libcurl); libpq-fe.h still gives the types, so calls are checked as
// before.

#ifndef CTXKIT_POSTGRES_PQ_API_H_
#define CTXKIT_POSTGRES_PQ_API_H_

#include <libpq-fe.h>

#include "ctxkit/status.h"

namespace ctxkit::storage {

struct PqApi {
  decltype(&PQconninfoParse) conninfoParse;
  decltype(&PQconninfoFree) conninfoFree;
  decltype(&PQconnectdbParams) connectdbParams;
  decltype(&PQfinish) finish;
  decltype(&PQreset) reset;
  decltype(&PQstatus) status;
  decltype(&PQerrorMessage) errorMessage;
  decltype(&PQsetNoticeProcessor) setNoticeProcessor;
  decltype(&PQsocket) socket;
  decltype(&PQprepare) prepare;
  decltype(&PQexecPrepared) execPrepared;
  decltype(&PQexec) exec;
  decltype(&PQresultStatus) resultStatus;
  decltype(&PQresultErrorField) resultErrorField;
  decltype(&PQresultErrorMessage) resultErrorMessage;
  decltype(&PQclear) clear;
  decltype(&PQntuples) ntuples;
  decltype(&PQnfields) nfields;
  decltype(&PQgetisnull) getisnull;
  decltype(&PQgetvalue) getvalue;
  decltype(&PQgetlength) getlength;
  decltype(&PQcmdTuples) cmdTuples;
  decltype(&PQconsumeInput) consumeInput;
  decltype(&PQnotifies) notifies;
  decltype(&PQfreemem) freemem;
};

// The loaded libpq (the same table for the life of the process).
// Unavailable, naming the Debian package, when libpq.so.5 cannot be loaded
// or lacks a function. Thread-safe.
Result<const PqApi*> LoadPq();

// The table, once LoadPq() succeeded: every PgConn is made after it did,
// so code holding a connection or its results calls this. Thread-safe.
const PqApi& Pq();

}  // namespace ctxkit::storage

#endif  // CTXKIT_POSTGRES_PQ_API_H_
