// Store::Usage (`ctxkit du`): stored bytes by scope, type and tier.

#include <string>

#include "store/test_util.h"

namespace ctxkit::testing {
namespace {

class UsageTest : public StoreTest {};

const UsageRow* Find(const std::vector<UsageRow>& rows, const Scope& scope,
                     ValueType type, const std::string& tier) {
  for (const UsageRow& r : rows) {
    if (r.scope == scope && r.type == type && r.tier == tier) return &r;
  }
  return nullptr;
}

TEST_F(UsageTest, GroupsByScopeTypeAndTierWithHistory) {
  const uint64_t inline_max = options_.inline_max_bytes;
  ASSERT_OK(view().Set("a", "12345"));
  ASSERT_OK(view().Set("a", "1234567"));  // History counts too.
  ASSERT_OK(view().Remove("a"));          // So does a removed object's.
  ASSERT_OK(view().Set("j", "[1,2]", {.type = ValueType::kJson}));
  const std::string big(inline_max + 1000, 'b');
  ASSERT_OK(view().Set("big", big, {.scope = "agent"}));
  ASSERT_OK(view().Set("big2", big, {.scope = "agent"}));  // Same blob.
  ASSERT_OK(view().Append("log", "abc"));
  ASSERT_OK(view().Append("log", "de"));
  ASSERT_OK(view().Set("tmp", "xyz", {.scope = "session", .persist = false}));

  ASSERT_OK_AND_ASSIGN(std::vector<UsageRow> rows, store_->Usage());
  const UsageRow* text =
      Find(rows, Scope::Global(), ValueType::kText, "inline");
  ASSERT_NE(text, nullptr);
  EXPECT_EQ(text->objects, 1u);
  EXPECT_EQ(text->versions, 2u);
  EXPECT_EQ(text->bytes, 12u);
  const UsageRow* json =
      Find(rows, Scope::Global(), ValueType::kJson, "inline");
  ASSERT_NE(json, nullptr);
  EXPECT_EQ(json->bytes, 5u);
  const UsageRow* blob =
      Find(rows, Scope::Agent("alice"), ValueType::kText, "blob");
  ASSERT_NE(blob, nullptr);
  EXPECT_EQ(blob->objects, 2u);
  EXPECT_EQ(blob->versions, 2u);
  EXPECT_EQ(blob->bytes, big.size());  // One file for both.
  const UsageRow* stream =
      Find(rows, Scope::Global(), ValueType::kStream, "inline");
  ASSERT_NE(stream, nullptr);
  EXPECT_EQ(stream->versions, 2u);
  EXPECT_EQ(stream->bytes, 5u);  // Appends are stored once, not as prefixes.
  const UsageRow* session =
      Find(rows, Scope::Session("s1"), ValueType::kText, "session");
  ASSERT_NE(session, nullptr);
  EXPECT_EQ(session->bytes, 3u);

  uint64_t durable = 0;
  for (const UsageRow& r : rows) {
    if (r.tier != "session") durable += r.bytes;
  }
  ASSERT_OK_AND_ASSIGN(StoreStats st, store_->Stats());
  EXPECT_EQ(durable, st.content_bytes);  // Nothing shared across groups here.
}

}  // namespace
}  // namespace ctxkit::testing
