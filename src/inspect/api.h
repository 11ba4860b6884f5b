// The context inspector's JSON API (docs/inspector.md): GET requests under
// /api/ answered from the store, never changing it. It knows nothing of
// HTTP: the server (src/mcp/http_server.cc) checks the request's security,
// passes the path and query parameters here and sends the answer.
//
// Thread safety: Handle may be called from many threads at once (each
// call opens its own views and sessions); Stop from any thread.

#ifndef CTXKIT_INSPECT_API_H_
#define CTXKIT_INSPECT_API_H_

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ctxkit/store.h"

namespace ctxkit::inspect {

struct ApiOptions {
  // The tool-output directory (CaptureOptions::root) whose files
  // /api/sessions/ID/tool-outputs lists; "": none is listed.
  std::string tool_output_dir;
  // How often /api/changes reads the store's change counter while it
  // waits.
  std::chrono::milliseconds change_poll{100};
};

// One answer: an HTTP status and a JSON text ({"error": {"code",
// "message"}} when the status is not 200).
struct ApiAnswer {
  int status = 200;
  std::string json;
};

using QueryParams = std::vector<std::pair<std::string, std::string>>;

class Api {
 public:
  // REQUIRES: `store` outlives the Api.
  Api(Store* store, ApiOptions options);
  ~Api();
  Api(const Api&) = delete;
  Api& operator=(const Api&) = delete;

  // Answers GET /api<path> with the decoded query parameters in order:
  // `path` is what follows "/api" ("/sessions/s1/renders/3"). A parameter
  // named twice, or one the endpoint does not take, is refused (400).
  ApiAnswer Handle(std::string_view path, const QueryParams& query);

  // Ends waiting /api/changes calls now (they answer with the counter as
  // it is); later ones answer at once. For shutting the server down.
  void Stop();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace ctxkit::inspect

#endif  // CTXKIT_INSPECT_API_H_
