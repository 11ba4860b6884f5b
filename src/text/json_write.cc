#include "text/json_write.h"

#include <array>
#include <charconv>
#include <string_view>

#include "text/utf8.h"

namespace ctxkit::text {
namespace {

using Json = nlohmann::json;

// nlohmann's form of the same value: for the rare parts (floating-point
// numbers, binary values, strings that are not well-formed UTF-8) whose
// bytes only it defines.
void AppendAsNlohmann(const Json& j, std::string* out) {
  out->append(j.dump(-1, ' ', false, Json::error_handler_t::replace));
}

// Bytes that must be escaped in a JSON string: controls, '"' and '\\'.
constexpr auto kEscaped = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 0x20; ++c) t[c] = true;
  t['"'] = true;
  t['\\'] = true;
  return t;
}();

void AppendEscape(unsigned char c, std::string* out) {
  switch (c) {
    case '"':
      out->append("\\\"");
      return;
    case '\\':
      out->append("\\\\");
      return;
    case '\b':
      out->append("\\b");
      return;
    case '\f':
      out->append("\\f");
      return;
    case '\n':
      out->append("\\n");
      return;
    case '\r':
      out->append("\\r");
      return;
    case '\t':
      out->append("\\t");
      return;
    default: {
      static constexpr char kHex[] = "0123456789abcdef";
      const char u[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xf]};
      out->append(u, sizeof u);
    }
  }
}

void AppendString(const std::string& s, std::string* out) {
  if (ValidUtf8Prefix(s) != s.size()) {
    AppendAsNlohmann(Json(s), out);
    return;
  }
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  out->reserve(out->size() + n + 2);
  out->push_back('"');
  size_t run = 0;  // Start of the bytes not yet appended.
  for (size_t i = 0; i < n; ++i) {
    if (!kEscaped[p[i]]) continue;
    out->append(s, run, i - run);
    AppendEscape(p[i], out);
    run = i + 1;
  }
  out->append(s, run, n - run);
  out->push_back('"');
}

template <typename Int>
void AppendInteger(Int v, std::string* out) {
  char buf[24];
  const auto [end, err] = std::to_chars(buf, buf + sizeof buf, v);
  out->append(buf, end);
}

}  // namespace

void AppendJson(const Json& j, std::string* out) {
  switch (j.type()) {
    case Json::value_t::object: {
      out->push_back('{');
      bool first = true;
      for (auto it = j.begin(); it != j.end(); ++it) {
        if (!first) out->push_back(',');
        first = false;
        AppendString(it.key(), out);
        out->push_back(':');
        AppendJson(it.value(), out);
      }
      out->push_back('}');
      return;
    }
    case Json::value_t::array: {
      out->push_back('[');
      bool first = true;
      for (const Json& item : j) {
        if (!first) out->push_back(',');
        first = false;
        AppendJson(item, out);
      }
      out->push_back(']');
      return;
    }
    case Json::value_t::string:
      AppendString(j.get_ref<const std::string&>(), out);
      return;
    case Json::value_t::boolean:
      out->append(j.get<bool>() ? "true" : "false");
      return;
    case Json::value_t::null:
      out->append("null");
      return;
    case Json::value_t::number_integer:
      AppendInteger(j.get<int64_t>(), out);
      return;
    case Json::value_t::number_unsigned:
      AppendInteger(j.get<uint64_t>(), out);
      return;
    default:  // number_float, binary, discarded.
      AppendAsNlohmann(j, out);
      return;
  }
}

std::string DumpJson(const Json& j) {
  std::string out;
  AppendJson(j, &out);
  return out;
}

}  // namespace ctxkit::text
