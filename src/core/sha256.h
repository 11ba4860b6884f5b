// SHA-256 content hashing (Nettle), the identity of stored content.

#ifndef CTXKIT_CORE_SHA256_H_
#define CTXKIT_CORE_SHA256_H_

#include <memory>
#include <string>
#include <string_view>

namespace ctxkit::core {

// 32 raw bytes.
std::string Sha256(std::string_view data);

// Incremental hashing for content that arrives in pieces.
class Sha256Hasher {
 public:
  Sha256Hasher();
  ~Sha256Hasher();
  Sha256Hasher(const Sha256Hasher&) = delete;
  Sha256Hasher& operator=(const Sha256Hasher&) = delete;

  void Update(std::string_view data);
  // 32 raw bytes. The hasher must not be used afterwards.
  std::string Finish();

 private:
  struct Ctx;
  std::unique_ptr<Ctx> ctx_;
};

}  // namespace ctxkit::core

#endif  // CTXKIT_CORE_SHA256_H_
