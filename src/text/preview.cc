#include "text/preview.h"

#include "text/utf8.h"

namespace ctxkit::text {

namespace {

bool IsContinuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

}  // namespace

size_t Utf8SafeCut(std::string_view bytes, size_t max) {
  if (bytes.size() <= max) return bytes.size();
  size_t n = max;
  for (int i = 0; i < 3 && n > 0 && IsContinuation(bytes[n]); ++i) --n;
  return IsContinuation(bytes[n]) ? max : n;
}

size_t Utf8CompletePrefix(std::string_view bytes) {
  const size_t n = bytes.size();
  for (size_t back = 1; back <= 4 && back <= n; ++back) {
    const unsigned char c = static_cast<unsigned char>(bytes[n - back]);
    if ((c & 0xC0) == 0x80) continue;  // A continuation byte: look further.
    size_t len = 1;
    if ((c & 0xE0) == 0xC0) {
      len = 2;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4;
    }
    return len > back ? n - back : n;
  }
  return n;
}

size_t Utf8SafeStart(std::string_view bytes, size_t pos) {
  for (int i = 0; i < 3 && pos < bytes.size() && IsContinuation(bytes[pos]);
       ++i) {
    ++pos;
  }
  return pos;
}

std::string PrintablePreview(std::string_view bytes) {
  std::string repaired;
  repaired.reserve(bytes.size());
  AppendRepairedUtf8(bytes, /*final=*/true, &repaired);
  std::string out;
  out.reserve(repaired.size());
  for (char c : repaired) {
    const unsigned char u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t') || u == 0x7f) {
      out += kReplacementUtf8;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace ctxkit::text
