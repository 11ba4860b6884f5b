// libcurl, loaded the first time a command talks to an endpoint.
//
// Linking libcurl pulls ~24 shared libraries (its TLS, HTTP/2, LDAP,
// Kerberos, SSH and IDN dependencies) into every ctxkit process; loading
// them costs every CLI command milliseconds before it does anything, though
// only summaries and embeddings over HTTP use them. So the LLM clients
// reach libcurl through this table, filled by dlopen("libcurl.so.4") on
// first use; the curl headers still give the types, so calls are checked
// as before.

#ifndef CTXKIT_LLM_CURL_API_H_
#define CTXKIT_LLM_CURL_API_H_

#include <curl/curl.h>

#include "ctxkit/status.h"

namespace ctxkit::llm {

struct CurlApi {
  decltype(&curl_easy_init) easy_init;
  decltype(&curl_easy_cleanup) easy_cleanup;
  decltype(&curl_easy_setopt) easy_setopt;
  decltype(&curl_easy_perform) easy_perform;
  decltype(&curl_easy_getinfo) easy_getinfo;
  decltype(&curl_easy_strerror) easy_strerror;
  decltype(&curl_slist_append) slist_append;
  decltype(&curl_slist_free_all) slist_free_all;
};

// The loaded, globally initialized libcurl (the same table for the life of
// the process). Unavailable, naming the Debian package, when libcurl.so.4
// cannot be loaded or lacks a symbol. Thread-safe.
Result<const CurlApi*> Curl();

}  // namespace ctxkit::llm

#endif  // CTXKIT_LLM_CURL_API_H_
