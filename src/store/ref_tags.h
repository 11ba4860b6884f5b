// Capability tags on refs (ctxkit/ref.h): a truncated HMAC-SHA-256, keyed
// by the store's secret, over an object's id, scope and key. A view reads
// objects of other scopes only through refs whose tag verifies.

#ifndef CTXKIT_STORE_REF_TAGS_H_
#define CTXKIT_STORE_REF_TAGS_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "core/hmac.h"
#include "ctxkit/ref.h"

namespace ctxkit {

// Thread safety: safe from any thread.
class RefTagger {
 public:
  // `secret`: the store's RefSecret(). The MAC is keyed on first use, which
  // commands that hand out no ref (a CLI `get`) never reach.
  explicit RefTagger(std::string secret);

  // The tag every ref to the object (`id` as in Ref::id) carries.
  std::string TagFor(std::string_view id, const Scope& scope,
                     std::string_view key) const;
  // True when `ref` carries the tag of its own id, scope and key.
  bool Verify(const Ref& ref) const;

 private:
  const core::HmacSha256& Mac() const;

  const std::string secret_;
  const uint64_t serial_;  // Tells taggers apart in the per-thread memo.
  mutable std::once_flag keyed_;
  mutable std::unique_ptr<core::HmacSha256> mac_;  // Set once, by Mac().
};

}  // namespace ctxkit

#endif  // CTXKIT_STORE_REF_TAGS_H_
