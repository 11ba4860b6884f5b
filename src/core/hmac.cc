#include "core/hmac.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include <cstdlib>
#include <string>

namespace ctxkit::core {

// The keyed context; each Mac() works on a copy of it, so the key schedule
// runs once and concurrent callers never share mutable state.
struct HmacSha256::Ctx {
  EVP_MAC* mac = nullptr;
  EVP_MAC_CTX* keyed = nullptr;
};

HmacSha256::HmacSha256(std::string_view key) : ctx_(std::make_unique<Ctx>()) {
  ctx_->mac = EVP_MAC_fetch(nullptr, OSSL_MAC_NAME_HMAC, nullptr);
  if (ctx_->mac == nullptr) std::abort();
  ctx_->keyed = EVP_MAC_CTX_new(ctx_->mac);
  char digest[] = "SHA256";
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0),
      OSSL_PARAM_construct_end()};
  if (ctx_->keyed == nullptr ||
      EVP_MAC_init(ctx_->keyed,
                   reinterpret_cast<const unsigned char*>(key.data()),
                   key.size(), params) != 1) {
    std::abort();
  }
}

HmacSha256::~HmacSha256() {
  EVP_MAC_CTX_free(ctx_->keyed);
  EVP_MAC_free(ctx_->mac);
}

std::string HmacSha256::Mac(std::string_view message) const {
  EVP_MAC_CTX* ctx = EVP_MAC_CTX_dup(ctx_->keyed);
  if (ctx == nullptr) std::abort();
  unsigned char out[EVP_MAX_MD_SIZE];
  size_t len = 0;
  const bool ok =
      EVP_MAC_update(ctx,
                     reinterpret_cast<const unsigned char*>(message.data()),
                     message.size()) == 1 &&
      EVP_MAC_final(ctx, out, &len, sizeof(out)) == 1;
  EVP_MAC_CTX_free(ctx);
  if (!ok) std::abort();
  return std::string(reinterpret_cast<char*>(out), len);
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

Result<std::string> SecureRandomBytes(size_t n) {
  std::string out(n, '\0');
  if (RAND_bytes(reinterpret_cast<unsigned char*>(out.data()),
                 static_cast<int>(n)) != 1) {
    return Status::Internal("OpenSSL has no secure random bytes");
  }
  return out;
}

std::string Base64Url(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n =
      EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                      reinterpret_cast<const unsigned char*>(bytes.data()),
                      static_cast<int>(bytes.size()));
  out.resize(static_cast<size_t>(n));
  while (!out.empty() && out.back() == '=') out.pop_back();
  for (char& c : out) {
    if (c == '+') c = '-';
    if (c == '/') c = '_';
  }
  return out;
}

}  // namespace ctxkit::core
