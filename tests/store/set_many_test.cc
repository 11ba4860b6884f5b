// View::SetMany: many Sets as one write, all or nothing.

#include <string>
#include <vector>

#include "store/test_util.h"

namespace ctxkit::testing {
namespace {

class SetManyTest : public StoreTest {};

TEST_F(SetManyTest, WritesEveryItemInOrder) {
  ASSERT_OK(view().Set("k0", "old"));
  std::vector<std::string> values;
  for (int i = 0; i < 50; ++i) values.push_back("value " + std::to_string(i));
  values.push_back(std::string(200000, 'b'));  // A blob file.
  std::vector<std::string> keys;
  std::vector<SetItem> items;
  for (size_t i = 0; i < values.size(); ++i)
    keys.push_back("k" + std::to_string(i));
  for (size_t i = 0; i < values.size(); ++i) {
    items.push_back({.key = keys[i], .value = values[i], .options = {}});
  }
  items[7].options.tags = {"seven"};
  items[8].options.scope = "agent";
  // The same key twice: two versions, in item order.
  SetItem again{.key = "k3", .value = "k3 again", .options = {}};
  items.push_back(again);

  ASSERT_OK_AND_ASSIGN(std::vector<Ref> refs, view().SetMany(items));
  ASSERT_EQ(refs.size(), items.size());
  EXPECT_EQ(refs[0].version, 2u) << "k0 had a version";
  EXPECT_EQ(refs[3].version, 1u);
  EXPECT_EQ(refs.back().version, 2u);
  for (size_t i = 0; i + 1 < items.size(); ++i) {
    if (i == 3) continue;
    ASSERT_OK_AND_ASSIGN(std::string got, view().Resolve(refs[i]));
    EXPECT_TRUE(got == values[i]) << keys[i];
  }
  ASSERT_OK_AND_ASSIGN(std::string k3, view().Get("k3"));
  EXPECT_EQ(k3, "k3 again");
  ASSERT_OK_AND_ASSIGN(ObjectMeta seven, view().Stat("k7"));
  EXPECT_EQ(seven.tags, std::vector<std::string>{"seven"});
  ASSERT_OK_AND_ASSIGN(ObjectMeta eight, view().Stat("k8"));
  EXPECT_EQ(eight.scope.kind, Scope::Kind::kAgent);

  // Durable: another instance reads them.
  std::unique_ptr<Store> second = OpenSecond();
  ASSERT_OK_AND_ASSIGN(View other, second->OpenView("alice", "s1"));
  ASSERT_OK_AND_ASSIGN(std::string k50, other.Get("k50"));
  EXPECT_EQ(k50.size(), 200000u);
}

TEST_F(SetManyTest, AnyFailureWritesNothing) {
  ASSERT_OK(view().Set("taken", "v1"));
  const std::string before = Snapshot(view());
  SetItem a{.key = "a", .value = "1", .options = {}};
  const std::string big_value(100000, 'x');  // SetItem holds a view of it.
  SetItem big{.key = "big", .value = big_value, .options = {}};
  SetItem moved{.key = "taken", .value = "v2", .options = {}};
  moved.options.expected_version = 7;  // It is at 1.
  EXPECT_THAT(view().SetMany(std::vector<SetItem>{a, big, moved}),
              StatusIs(StatusCode::kFailedPrecondition));
  EXPECT_EQ(Snapshot(view()), before);

  SetItem bad_key{.key = "bad\nkey", .value = "1", .options = {}};
  EXPECT_THAT(view().SetMany(std::vector<SetItem>{a, bad_key}),
              StatusIs(StatusCode::kInvalidArgument));
  SetItem bad_json{.key = "j", .value = "{", .options = {}};
  bad_json.options.type = ValueType::kJson;
  EXPECT_THAT(view().SetMany(std::vector<SetItem>{a, bad_json}),
              StatusIs(StatusCode::kInvalidArgument));
  SetItem scratch{.key = "s", .value = "1", .options = {}};
  scratch.options.persist = false;
  EXPECT_THAT(view().SetMany(std::vector<SetItem>{a, scratch}),
              StatusIs(StatusCode::kInvalidArgument));
  EXPECT_EQ(Snapshot(view()), before);

  ASSERT_OK_AND_ASSIGN(std::vector<Ref> none,
                       view().SetMany(std::vector<SetItem>{}));
  EXPECT_TRUE(none.empty());
}

}  // namespace
}  // namespace ctxkit::testing
