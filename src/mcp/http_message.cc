#include "mcp/http_message.h"

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "text/json_parse.h"
#include "text/json_write.h"

namespace ctxkit::mcp {

namespace {

using json = nlohmann::json;

// Records the top-level keys that decide the message kind; ignores the rest.
class Classifier : public nlohmann::json_sax<json> {
 public:
  bool null() override { return Value(); }
  bool boolean(bool) override { return Value(); }
  bool number_integer(number_integer_t n) override {
    if (AtId()) id_ = n;
    return Value();
  }
  bool number_unsigned(number_unsigned_t n) override {
    if (AtId()) id_ = n;
    return Value();
  }
  bool number_float(number_float_t, const string_t&) override {
    return Value();
  }
  bool string(string_t& s) override {
    if (depth_ == 1 && key_ == "method") method_ = s;
    if (AtId()) id_ = s;
    return Value();
  }
  bool binary(binary_t&) override { return Value(); }
  bool start_object(std::size_t) override { return Open(true); }
  bool end_object() override { return Close(); }
  bool start_array(std::size_t) override { return Open(false); }
  bool end_array() override { return Close(); }
  bool key(string_t& k) override {
    if (depth_ == 1) {
      key_ = k;
      if (k == "method") has_method_ = true;
      if (k == "id") has_id_ = true;
    }
    return true;
  }
  bool parse_error(std::size_t position, const std::string&,
                   const nlohmann::detail::exception& e) override {
    error_ = "at byte " + std::to_string(position) + ": " + e.what();
    return false;
  }

  MessageInfo Finish(bool parsed) const {
    MessageInfo info;
    info.id = id_;
    if (too_deep_) {
      info.kind = MessageKind::kTooDeep;
    } else if (!parsed) {
      info.kind = MessageKind::kMalformed;
      info.error = error_;
    } else if (!top_is_object_) {
      info.kind = MessageKind::kNotAnObject;
    } else if (!has_method_) {
      info.kind = MessageKind::kResponse;
    } else {
      info.kind = has_id_ ? MessageKind::kRequest : MessageKind::kNotification;
      info.method = method_;
    }
    return info;
  }

 private:
  bool AtId() const { return depth_ == 1 && key_ == "id"; }
  bool Value() {
    if (depth_ == 0) top_is_object_ = false;
    return true;
  }
  bool Open(bool object) {
    if (depth_ == 0) top_is_object_ = object;
    // Too deep to build, but the scan goes on (it keeps no stack of its
    // own), so an "id" after the deep part is still found.
    if (++depth_ > kMaxJsonDepth) too_deep_ = true;
    return true;
  }
  bool Close() {
    --depth_;
    return true;
  }

  int depth_ = 0;
  bool top_is_object_ = false;
  bool has_method_ = false;
  bool has_id_ = false;
  bool too_deep_ = false;
  std::string key_;
  json id_;
  std::string method_;
  std::string error_;
};

}  // namespace

MessageInfo ClassifyMessage(std::string_view body) {
  if (const size_t nul = text::JsonNulByte(body);
      nul != std::string_view::npos) {
    MessageInfo info;
    info.kind = MessageKind::kMalformed;
    info.error = "at byte " + std::to_string(nul) + ": a NUL byte";
    return info;
  }
  Classifier c;
  bool ok = json::sax_parse(body, &c, nlohmann::detail::input_format_t::json,
                            /*strict=*/true);
  return c.Finish(ok);
}

std::string JsonRpcError(int code, std::string_view message, const json& id) {
  json j = {{"jsonrpc", "2.0"},
            {"id", id},
            {"error", {{"code", code}, {"message", std::string(message)}}}};
  return text::DumpJson(j);
}

}  // namespace ctxkit::mcp
