#include "core/sha256.h"

#include <nettle/sha2.h>

#include <cstdint>

namespace ctxkit::core {

// Nettle (with its SHA-NI code on CPUs that have it): no library
// initialization, which OpenSSL's EVP layer spent ~1.6 ms on in every
// process that hashed anything.
struct Sha256Hasher::Ctx {
  sha256_ctx state;
};

Sha256Hasher::Sha256Hasher() : ctx_(std::make_unique<Ctx>()) {
  sha256_init(&ctx_->state);
}

Sha256Hasher::~Sha256Hasher() = default;

void Sha256Hasher::Update(std::string_view data) {
  sha256_update(&ctx_->state, data.size(),
                reinterpret_cast<const uint8_t*>(data.data()));
}

std::string Sha256Hasher::Finish() {
  std::string out(SHA256_DIGEST_SIZE, '\0');
  sha256_digest(&ctx_->state, out.size(),
                reinterpret_cast<uint8_t*>(out.data()));
  return out;
}

std::string Sha256(std::string_view data) {
  sha256_ctx state;
  sha256_init(&state);
  sha256_update(&state, data.size(),
                reinterpret_cast<const uint8_t*>(data.data()));
  std::string out(SHA256_DIGEST_SIZE, '\0');
  sha256_digest(&state, out.size(), reinterpret_cast<uint8_t*>(out.data()));
  return out;
}

}  // namespace ctxkit::core
