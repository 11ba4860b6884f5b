// HMAC-SHA-256 (Nettle) under one fixed key: the MAC behind refs'
// capability tags.

#ifndef CTXKIT_CORE_HMAC_H_
#define CTXKIT_CORE_HMAC_H_

#include <memory>
#include <string>
#include <string_view>

#include "ctxkit/status.h"

namespace ctxkit::core {

// Keyed once; Mac() may then be called from any number of threads at once.
class HmacSha256 {
 public:
  // `key` may be any length (RFC 2104).
  explicit HmacSha256(std::string_view key);
  ~HmacSha256();
  HmacSha256(const HmacSha256&) = delete;
  HmacSha256& operator=(const HmacSha256&) = delete;

  // 32 raw bytes.
  std::string Mac(std::string_view message) const;

 private:
  struct Ctx;
  std::unique_ptr<Ctx> ctx_;
};

// Compares two strings in time that depends only on their lengths.
bool ConstantTimeEquals(std::string_view a, std::string_view b);

// `n` bytes from the kernel's CSPRNG (getrandom(2)); Internal if it fails.
Result<std::string> SecureRandomBytes(size_t n);

// RFC 4648 base64, padded.
std::string Base64(std::string_view bytes);
// RFC 4648 base64url without padding.
std::string Base64Url(std::string_view bytes);

}  // namespace ctxkit::core

#endif  // CTXKIT_CORE_HMAC_H_
