#include "mcp/http_inspector.h"

#include <string>
#include <utility>

#include "inspect/assets.h"
#include "mcp/http_message.h"

namespace ctxkit::mcp {
namespace {

// The page may run only its own scripts and styles, talk only to this
// server, and may not be framed (clickjacking). Chart.js sets canvas sizes
// through element styles, hence 'unsafe-inline' for styles only.
constexpr char kPagePolicy[] =
    "default-src 'self'; img-src 'self' data:; "
    "style-src 'self' 'unsafe-inline'; script-src 'self'; "
    "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; "
    "form-action 'none'";

void CommonHeaders(httplib::Response& res) {
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("Referrer-Policy", "no-referrer");
}

void NotAllowed(const httplib::Request&, httplib::Response& res) {
  CommonHeaders(res);
  res.status = 405;
  res.set_header("Allow", "GET");
  res.set_content(
      R"({"error":{"code":"invalid_argument","message":"the inspector is read-only: use GET"}})",
      kJsonContentType);
}

// The same for a request with a body, which is left unread: the
// connection closes, or the body would be taken for the next request.
void NotAllowedWithBody(const httplib::Request& req, httplib::Response& res,
                        const httplib::ContentReader&) {
  NotAllowed(req, res);
  res.set_header("Connection", "close");
}

void ServeAsset(std::string_view name, httplib::Response& res) {
  CommonHeaders(res);
  const inspect::Asset* asset = inspect::FindAsset(name);
  if (asset == nullptr) {
    res.status = 404;
    res.set_content(
        R"({"error":{"code":"not_found","message":"no such file of the inspector page"}})",
        kJsonContentType);
    return;
  }
  res.set_header("Content-Security-Policy", kPagePolicy);
  res.set_header("Cache-Control", "no-cache");
  res.set_content(std::string(asset->bytes), std::string(asset->content_type));
}

void Redirect(httplib::Response& res) {
  CommonHeaders(res);
  res.status = 302;
  res.set_header("Location", "/ui/");
}

}  // namespace

bool IsInspectorPagePath(std::string_view path) {
  return path == "/" || path == "/ui" || path.starts_with("/ui/");
}

void AddInspectorRoutes(httplib::Server& http, inspect::Api* api) {
  http.Get("/", [](const httplib::Request&, httplib::Response& res) {
    Redirect(res);
  });
  http.Get("/ui", [](const httplib::Request&, httplib::Response& res) {
    Redirect(res);
  });
  http.Get("/ui/", [](const httplib::Request&, httplib::Response& res) {
    ServeAsset("index.html", res);
  });
  http.Get(R"(/ui/([A-Za-z0-9][A-Za-z0-9._-]*))",
           [](const httplib::Request& req, httplib::Response& res) {
             ServeAsset(req.matches[1].str(), res);
           });
  http.Get(R"(/api(/.*)?)", [api](const httplib::Request& req,
                                  httplib::Response& res) {
    inspect::QueryParams query(req.params.begin(), req.params.end());
    inspect::ApiAnswer answer = api->Handle(req.matches[1].str(), query);
    CommonHeaders(res);
    res.set_header("Cache-Control", "no-store");
    res.status = answer.status;
    res.set_content(std::move(answer.json), kJsonContentType);
  });
  for (const char* pattern : {R"(/api(/.*)?)", R"(/ui(/.*)?)"}) {
    http.Post(pattern, NotAllowedWithBody);
    http.Put(pattern, NotAllowedWithBody);
    http.Patch(pattern, NotAllowedWithBody);
    http.Delete(pattern, NotAllowedWithBody);
    http.Options(pattern, NotAllowed);
  }
}

}  // namespace ctxkit::mcp
