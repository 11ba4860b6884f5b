#include "mcp/extension.h"

#include <string>

#include "mcp/resource_uri.h"
#include "mcp/resources.h"
#include "text/json_parse.h"

namespace ctxkit::mcp {

namespace {

// `text` parsed; discarded (not an exception) when it is not JSON.
Json Parse(const std::string& text) {
  return ctxkit::text::ParseJsonOrDiscarded(text);
}

bool IsArrayOfObjects(const Json& j) {
  if (!j.is_array()) return false;
  for (const Json& e : j) {
    if (!e.is_object()) return false;
  }
  return true;
}

// An extension's answer as a JSON-RPC result: InvalidArgument is the
// caller's mistake (-32602), anything else the extension's (-32603).
RpcOutcome FromExtension(const Result<std::string>& r, int not_found_code) {
  if (!r.ok()) {
    int code = kInternalError;
    if (r.status().IsInvalidArgument()) code = kInvalidParams;
    if (r.status().IsNotFound()) code = not_found_code;
    return RpcOutcome::Fail(code, r.status().message());
  }
  Json j = Parse(*r);
  if (j.is_discarded()) {
    return RpcOutcome::Fail(kInternalError, "extension returned invalid JSON");
  }
  return RpcOutcome::Ok(std::move(j));
}

}  // namespace

Status CheckExtension(const ServerExtension& extension) {
  struct List {
    const char* name;
    std::string text;
  };
  for (const List& list :
       {List{"ResourcesJson", extension.ResourcesJson()},
        List{"ResourceTemplatesJson", extension.ResourceTemplatesJson()},
        List{"PromptsJson", extension.PromptsJson()}}) {
    if (!IsArrayOfObjects(Parse(list.text))) {
      return Status::InvalidArgument(std::string("ServerExtension::") +
                                     list.name +
                                     " must return a JSON array of objects");
    }
  }
  return Status::Ok();
}

Json ExtensionResources(const ServerOptions& options) {
  if (!options.extension) return Json::array();
  return Parse(options.extension->ResourcesJson());
}

Json ExtensionResourceTemplates(const ServerOptions& options) {
  if (!options.extension) return Json::array();
  return Parse(options.extension->ResourceTemplatesJson());
}

Json ExtensionPrompts(const ServerOptions& options) {
  if (!options.extension) return Json::array();
  return Parse(options.extension->PromptsJson());
}

bool ExtensionOwnsUri(const ServerOptions& options, std::string_view uri) {
  return options.extension && !uri.starts_with(kUriPrefix) &&
         options.extension->OwnsUri(uri);
}

bool IsExtensionPrompt(const ServerOptions& options, std::string_view name) {
  for (const Json& p : ExtensionPrompts(options)) {
    auto it = p.find("name");
    if (it != p.end() && it->is_string() && *it == name) return true;
  }
  return false;
}

RpcOutcome ReadExtensionResource(const ServerOptions& options,
                                 std::string_view uri) {
  Result<std::string> contents = options.extension->ReadResource(uri);
  if (!contents.ok() && contents.status().IsNotFound()) {
    return RpcOutcome::Fail(kResourceNotFound,
                            "resource not found: " + std::string(uri));
  }
  RpcOutcome r = FromExtension(contents, kResourceNotFound);
  if (r.error) return r;
  return RpcOutcome::Ok({{"contents", std::move(r.result)}});
}

std::optional<RpcOutcome> GetExtensionPrompt(const ServerOptions& options,
                                             std::string_view name,
                                             const Json& arguments) {
  if (!IsExtensionPrompt(options, name)) return std::nullopt;
  return FromExtension(options.extension->GetPrompt(name, Serialize(arguments)),
                       kInvalidParams);
}

}  // namespace ctxkit::mcp
