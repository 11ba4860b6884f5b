#include "core/hmac.h"

#include <nettle/base64.h>
#include <nettle/hmac.h>
#include <nettle/memops.h>
#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>

namespace ctxkit::core {

// The keyed state; each Mac() works on a copy of it (a plain struct), so
// the key schedule runs once and concurrent callers never share mutable
// state.
struct HmacSha256::Ctx {
  hmac_sha256_ctx keyed;
};

HmacSha256::HmacSha256(std::string_view key) : ctx_(std::make_unique<Ctx>()) {
  hmac_sha256_set_key(&ctx_->keyed, key.size(),
                      reinterpret_cast<const uint8_t*>(key.data()));
}

HmacSha256::~HmacSha256() = default;

std::string HmacSha256::Mac(std::string_view message) const {
  hmac_sha256_ctx ctx = ctx_->keyed;
  hmac_sha256_update(&ctx, message.size(),
                     reinterpret_cast<const uint8_t*>(message.data()));
  std::string out(SHA256_DIGEST_SIZE, '\0');
  hmac_sha256_digest(&ctx, out.size(), reinterpret_cast<uint8_t*>(out.data()));
  return out;
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && memeql_sec(a.data(), b.data(), a.size()) != 0;
}

Result<std::string> SecureRandomBytes(size_t n) {
  std::string out(n, '\0');
  size_t done = 0;
  while (done < n) {
    const ssize_t got = ::getrandom(out.data() + done, n - done, 0);
    if (got < 0) {
      if (errno == EINTR) continue;
      return Status::Internal(std::string("getrandom: ") +
                              std::strerror(errno));
    }
    done += static_cast<size_t>(got);
  }
  return out;
}

namespace {

std::string EncodeBase64(std::string_view bytes, bool url) {
  base64_encode_ctx ctx;
  if (url) {
    base64url_encode_init(&ctx);
  } else {
    base64_encode_init(&ctx);
  }
  std::string out(
      BASE64_ENCODE_LENGTH(bytes.size()) + BASE64_ENCODE_FINAL_LENGTH, '\0');
  char* dst = out.data();
  size_t n = base64_encode_update(
      &ctx, dst, bytes.size(), reinterpret_cast<const uint8_t*>(bytes.data()));
  n += base64_encode_final(&ctx, dst + n);
  out.resize(n);
  return out;
}

}  // namespace

std::string Base64(std::string_view bytes) {
  return EncodeBase64(bytes, /*url=*/false);
}

std::string Base64Url(std::string_view bytes) {
  std::string out = EncodeBase64(bytes, /*url=*/true);
  while (!out.empty() && out.back() == '=') out.pop_back();
  return out;
}

}  // namespace ctxkit::core
