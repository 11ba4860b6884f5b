#include "text/json_parse.h"

#include <string>

#include "ctxkit/target.h"

namespace ctxkit::text {

namespace {

using nlohmann::json;

// Accepts every event and keeps the parser's error, which carries the
// line and column.
class ErrorLocator final : public nlohmann::json_sax<json> {
 public:
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override { return true; }
  bool key(string_t&) override { return true; }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&,
                   const nlohmann::detail::exception& ex) override {
    error_ = ex.what();
    // "[json.exception.parse_error.101] parse error at line 1, ..." ->
    // "parse error at line 1, ...".
    if (error_.starts_with("[json.exception.")) {
      size_t end = error_.find("] ");
      if (end != std::string::npos) error_.erase(0, end + 2);
    }
    return false;
  }

  const std::string& error() const { return error_; }

 private:
  std::string error_;
};

Status TooDeep(std::string_view what) {
  return Status::InvalidArgument(std::string(what) + " is nested deeper than " +
                                 std::to_string(kMaxJsonDepth) + " levels");
}

}  // namespace

int JsonNestingDepth(std::string_view text, int limit) {
  int depth = 0;
  int max = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char ch = text[i];
    if (in_string) {
      if (ch == '\\') {
        ++i;
      } else if (ch == '"') {
        in_string = false;
      }
      continue;
    }
    if (ch == '"') {
      in_string = true;
    } else if (ch == '[' || ch == '{') {
      if (++depth > max) max = depth;
      if (max > limit) return max;
    } else if (ch == ']' || ch == '}') {
      --depth;
    }
  }
  return max;
}

size_t JsonNulByte(std::string_view text) { return text.find('\0'); }

Status CheckJson(std::string_view text, std::string_view what) {
  if (JsonNestingDepth(text, kMaxJsonDepth) > kMaxJsonDepth) {
    return TooDeep(what);
  }
  if (const size_t nul = JsonNulByte(text); nul != std::string_view::npos) {
    return Status::InvalidArgument(
        std::string(what) + " is not valid JSON: a NUL byte at byte " +
        std::to_string(nul) + " (JSON text cannot hold one)");
  }
  ErrorLocator locator;
  if (json::sax_parse(text, &locator) && locator.error().empty()) {
    return Status::Ok();
  }
  std::string reason =
      locator.error().empty() ? "parse error" : locator.error();
  return Status::InvalidArgument(std::string(what) +
                                 " is not valid JSON: " + reason);
}

nlohmann::json ParseJsonOrDiscarded(std::string_view text) {
  if (JsonNestingDepth(text, kMaxJsonDepth) > kMaxJsonDepth ||
      JsonNulByte(text) != std::string_view::npos) {
    return json(json::value_t::discarded);
  }
  return json::parse(text, nullptr, /*allow_exceptions=*/false);
}

uint64_t UintOr(const json& j, std::string_view key, uint64_t fallback) {
  if (!j.is_object()) return fallback;
  const auto it = j.find(key);
  return it != j.end() && it->is_number_unsigned() ? it->get<uint64_t>()
                                                   : fallback;
}

std::string StringOr(const json& j, std::string_view key,
                     std::string_view fallback) {
  if (!j.is_object()) return std::string(fallback);
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>()
                                          : std::string(fallback);
}

Result<json> ParseJson(std::string_view text, std::string_view what) {
  if (JsonNestingDepth(text, kMaxJsonDepth) > kMaxJsonDepth) {
    return TooDeep(what);
  }
  if (JsonNulByte(text) != std::string_view::npos) return CheckJson(text, what);
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!j.is_discarded()) return j;
  Status s = CheckJson(text, what);
  if (!s.ok()) return s;
  // The two parses disagree only on input nlohmann's DOM parser discards
  // while its SAX parser accepts; report it without a position.
  return Status::InvalidArgument(std::string(what) + " is not valid JSON");
}

void RefsInJson(const nlohmann::json& j, std::vector<Ref>* out) {
  if (j.is_string()) {
    const std::string& text = j.get_ref<const std::string&>();
    if (Target::IsRefText(text)) {
      if (Result<Ref> ref = ParseRef(text); ref.ok()) out->push_back(*ref);
    }
  } else if (j.is_structured()) {
    for (const auto& item : j) RefsInJson(item, out);
  }
}

}  // namespace ctxkit::text
