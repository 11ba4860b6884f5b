#include "core/encoding.h"

#include <limits>

namespace ctxkit::core {
namespace {
constexpr char kDigits36[] = "0123456789abcdefghijklmnopqrstuvwxyz";
constexpr char kHexDigits[] = "0123456789abcdef";

int Digit36(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  return -1;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

std::optional<uint64_t> ParseCanonical(std::string_view text, unsigned base) {
  if (text.empty() || text.size() > 20) return std::nullopt;
  if (text.size() > 1 && text[0] == '0') return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    int d = Digit36(c);
    if (d < 0 || static_cast<unsigned>(d) >= base) return std::nullopt;
    if (value > (std::numeric_limits<uint64_t>::max() - d) / base) {
      return std::nullopt;
    }
    value = value * base + static_cast<unsigned>(d);
  }
  return value;
}
}  // namespace

std::string ToBase36(uint64_t value) {
  char buf[16];
  int pos = sizeof(buf);
  do {
    buf[--pos] = kDigits36[value % 36];
    value /= 36;
  } while (value != 0);
  return std::string(buf + pos, sizeof(buf) - pos);
}

std::optional<uint64_t> FromBase36(std::string_view text) {
  return ParseCanonical(text, 36);
}

std::optional<uint64_t> ParseCanonicalDecimal(std::string_view text) {
  return ParseCanonical(text, 10);
}

std::string ToHex(std::string_view bytes) {
  std::string out;
  out.resize(bytes.size() * 2);
  for (size_t i = 0; i < bytes.size(); ++i) {
    auto b = static_cast<unsigned char>(bytes[i]);
    out[2 * i] = kHexDigits[b >> 4];
    out[2 * i + 1] = kHexDigits[b & 0xf];
  }
  return out;
}

std::optional<std::string> FromHex(std::string_view hex) {
  if (hex.size() % 2 != 0) return std::nullopt;
  std::string out(hex.size() / 2, '\0');
  for (size_t i = 0; i < out.size(); ++i) {
    int hi = HexValue(hex[2 * i]);
    int lo = HexValue(hex[2 * i + 1]);
    if (hi < 0 || lo < 0) return std::nullopt;
    out[i] = static_cast<char>((hi << 4) | lo);
  }
  return out;
}

bool IsValidUtf8(std::string_view bytes) {
  size_t i = 0;
  const size_t n = bytes.size();
  while (i < n) {
    auto c = static_cast<unsigned char>(bytes[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len;
    uint32_t cp;
    if ((c & 0xe0) == 0xc0) {
      len = 2;
      cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
      len = 3;
      cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
      len = 4;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + len > n) return false;
    for (size_t k = 1; k < len; ++k) {
      auto cc = static_cast<unsigned char>(bytes[i + k]);
      if ((cc & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3f);
    }
    static constexpr uint32_t kMinForLength[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMinForLength[len]) return false;       // Overlong.
    if (cp > 0x10ffff) return false;                 // Too large.
    if (cp >= 0xd800 && cp <= 0xdfff) return false;  // Surrogate.
    i += len;
  }
  return true;
}

}  // namespace ctxkit::core
