#include "mcp_conformance/fixtures.h"

#include <nlohmann/json.hpp>
#include <string>

#include "core/status_macros.h"

namespace ctxkit::mcp::conformance {

namespace {

using Json = nlohmann::json;

// A 1x1 transparent PNG, the smallest real image for the binary fixtures.
constexpr char kPngBase64[] =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA"
    "60e6kgAAAABJRU5ErkJggg==";

constexpr std::string_view kTemplatePrefix = "test://template/";
constexpr std::string_view kTemplateSuffix = "/data";

Json UserText(std::string text) {
  return {{"role", "user"},
          {"content", {{"type", "text"}, {"text", std::move(text)}}}};
}

// The required string argument `name`, or InvalidArgument naming it.
Result<std::string> Arg(const Json& args, const char* name) {
  auto it = args.find(name);
  if (it == args.end() || !it->is_string()) {
    return Status::InvalidArgument(std::string("missing required argument '") +
                                   name + "'");
  }
  return it->get<std::string>();
}

std::string Text(const Json& j) { return j.dump(); }

}  // namespace

std::string Fixtures::ResourcesJson() const {
  return Text(Json::array(
      {{{"uri", "test://static-text"},
        {"name", "static-text"},
        {"description", "Conformance fixture: a static text resource"},
        {"mimeType", "text/plain"}},
       {{"uri", "test://static-binary"},
        {"name", "static-binary"},
        {"description", "Conformance fixture: a static binary resource"},
        {"mimeType", "image/png"}},
       {{"uri", "test://watched-resource"},
        {"name", "watched-resource"},
        {"description", "Conformance fixture: a subscribable resource"},
        {"mimeType", "text/plain"}}}));
}

std::string Fixtures::ResourceTemplatesJson() const {
  return Text(
      Json::array({{{"uriTemplate", "test://template/{id}/data"},
                    {"name", "template-data"},
                    {"description", "Conformance fixture: data for an id"},
                    {"mimeType", "application/json"}}}));
}

std::string Fixtures::PromptsJson() const {
  return Text(Json::array(
      {{{"name", "test_simple_prompt"},
        {"description", "Conformance fixture: a prompt without arguments"}},
       {{"name", "test_prompt_with_arguments"},
        {"description", "Conformance fixture: a prompt with arguments"},
        {"arguments", Json::array({{{"name", "arg1"},
                                    {"description", "First test argument"},
                                    {"required", true}},
                                   {{"name", "arg2"},
                                    {"description", "Second test argument"},
                                    {"required", true}}})}},
       {{"name", "test_prompt_with_embedded_resource"},
        {"description", "Conformance fixture: a prompt embedding a resource"},
        {"arguments", Json::array({{{"name", "resourceUri"},
                                    {"description", "URI of the resource"},
                                    {"required", true}}})}},
       {{"name", "test_prompt_with_image"},
        {"description", "Conformance fixture: a prompt with an image"}}}));
}

bool Fixtures::OwnsUri(std::string_view uri) const {
  return uri.starts_with("test://");
}

Result<std::string> Fixtures::ReadResource(std::string_view uri) const {
  std::string u(uri);
  if (uri == "test://static-text") {
    return Text(Json::array(
        {{{"uri", u},
          {"mimeType", "text/plain"},
          {"text", "This is the content of the static text resource."}}}));
  }
  if (uri == "test://static-binary") {
    return Text(Json::array(
        {{{"uri", u}, {"mimeType", "image/png"}, {"blob", kPngBase64}}}));
  }
  if (uri == "test://watched-resource") {
    return Text(Json::array({{{"uri", u},
                              {"mimeType", "text/plain"},
                              {"text", "Watched resource content."}}}));
  }
  if (uri.starts_with(kTemplatePrefix) && uri.ends_with(kTemplateSuffix) &&
      uri.size() > kTemplatePrefix.size() + kTemplateSuffix.size()) {
    std::string id(uri.substr(
        kTemplatePrefix.size(),
        uri.size() - kTemplatePrefix.size() - kTemplateSuffix.size()));
    Json data = {
        {"id", id}, {"templateTest", true}, {"data", "Data for ID: " + id}};
    return Text(Json::array({{{"uri", u},
                              {"mimeType", "application/json"},
                              {"text", Text(data)}}}));
  }
  return Status::NotFound("no fixture resource " + u);
}

Result<std::string> Fixtures::GetPrompt(std::string_view name,
                                        std::string_view arguments_json) const {
  Json arguments = Json::parse(arguments_json, nullptr, false);
  if (!arguments.is_object()) {
    return Status::InvalidArgument("arguments: an object is required");
  }
  if (name == "test_simple_prompt") {
    return Text(
        Json{{"messages", Json::array({UserText("This is a simple prompt for "
                                                "testing.")})}});
  }
  if (name == "test_prompt_with_arguments") {
    CTXKIT_ASSIGN_OR_RETURN(std::string a1, Arg(arguments, "arg1"));
    CTXKIT_ASSIGN_OR_RETURN(std::string a2, Arg(arguments, "arg2"));
    return Text(Json{
        {"messages", Json::array({UserText("Prompt with arguments: arg1='" +
                                           a1 + "', arg2='" + a2 + "'")})}});
  }
  if (name == "test_prompt_with_embedded_resource") {
    CTXKIT_ASSIGN_OR_RETURN(std::string uri, Arg(arguments, "resourceUri"));
    Json resource = {
        {"role", "user"},
        {"content",
         {{"type", "resource"},
          {"resource",
           {{"uri", uri},
            {"mimeType", "text/plain"},
            {"text", "Embedded resource content for testing."}}}}}};
    return Text(
        Json{{"messages", Json::array({resource, UserText("Please process the "
                                                          "embedded resource "
                                                          "above.")})}});
  }
  if (name == "test_prompt_with_image") {
    Json image = {
        {"role", "user"},
        {"content",
         {{"type", "image"}, {"data", kPngBase64}, {"mimeType", "image/png"}}}};
    return Text(Json{
        {"messages", Json::array({image, UserText("Please analyze the image "
                                                  "above.")})}});
  }
  return Status::NotFound("no fixture prompt " + std::string(name));
}

}  // namespace ctxkit::mcp::conformance
