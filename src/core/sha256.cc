#include "core/sha256.h"

#include <openssl/evp.h>

#include <cstdlib>

namespace ctxkit::core {

struct Sha256Hasher::Ctx {
  EVP_MD_CTX* md = nullptr;
};

Sha256Hasher::Sha256Hasher() : ctx_(std::make_unique<Ctx>()) {
  ctx_->md = EVP_MD_CTX_new();
  // Allocation failure of a few bytes or a missing SHA-256 means OpenSSL is
  // unusable; nothing sensible can continue.
  if (ctx_->md == nullptr ||
      EVP_DigestInit_ex(ctx_->md, EVP_sha256(), nullptr) != 1) {
    std::abort();
  }
}

Sha256Hasher::~Sha256Hasher() { EVP_MD_CTX_free(ctx_->md); }

void Sha256Hasher::Update(std::string_view data) {
  EVP_DigestUpdate(ctx_->md, data.data(), data.size());
}

std::string Sha256Hasher::Finish() {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx_->md, out, &len);
  return std::string(reinterpret_cast<char*>(out), len);
}

std::string Sha256(std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_Digest(data.data(), data.size(), out, &len, EVP_sha256(), nullptr) !=
      1) {
    std::abort();
  }
  return std::string(reinterpret_cast<char*>(out), len);
}

}  // namespace ctxkit::core
