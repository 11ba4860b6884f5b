#include "store/ref_tags.h"

#include <string>

namespace ctxkit {
namespace {
// 12 bytes of the MAC: 96 bits, kRefTagChars of base64url.
constexpr size_t kTagBytes = kRefTagChars * 3 / 4;
static_assert(kTagBytes * 4 == kRefTagChars * 3);
}  // namespace

std::string RefTagger::TagFor(std::string_view id, const Scope& scope,
                              std::string_view key) const {
  // Fields never contain '\n' (ids and scopes are [A-Za-z0-9._~=:-], keys
  // have no control characters), so the message is unambiguous. The label
  // keeps these MACs apart from any other use of the secret.
  std::string message = "ctxkit ref tag v1\n";
  message += id;
  message += '\n';
  message += scope.ToString();
  message += '\n';
  message += key;
  return core::Base64Url(Mac().Mac(message).substr(0, kTagBytes));
}

const core::HmacSha256& RefTagger::Mac() const {
  std::call_once(
      keyed_, [this] { mac_ = std::make_unique<core::HmacSha256>(secret_); });
  return *mac_;
}

bool RefTagger::Verify(const Ref& ref) const {
  if (ref.tag.size() != kRefTagChars) return false;
  return core::ConstantTimeEquals(ref.tag, TagFor(ref.id, ref.scope, ref.key));
}

}  // namespace ctxkit
