#include "store/ref_tags.h"

#include <atomic>
#include <string>

namespace ctxkit {
namespace {
// 12 bytes of the MAC: 96 bits, kRefTagChars of base64url.
constexpr size_t kTagBytes = kRefTagChars * 3 / 4;
static_assert(kTagBytes * 4 == kRefTagChars * 3);

std::atomic<uint64_t> next_serial{1};

// The last tag this thread computed: reading a ref pins its object again
// and again (a peek pins, then reads by the pinned ref), one MAC each.
struct LastTag {
  uint64_t tagger = 0;
  std::string message;
  std::string tag;
};
thread_local LastTag last_tag;
}  // namespace

RefTagger::RefTagger(std::string secret)
    : secret_(std::move(secret)), serial_(next_serial.fetch_add(1)) {}

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
  if (last_tag.tagger == serial_ && last_tag.message == message) {
    return last_tag.tag;
  }
  std::string tag = core::Base64Url(Mac().Mac(message).substr(0, kTagBytes));
  last_tag = {serial_, std::move(message), tag};
  return tag;
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
