// Writes return the ref of the version they wrote, and View::Pin is the one
// resolver from a key or a ref to a pinned version.

#include <set>
#include <string>
#include <thread>
#include <vector>

#include "store/test_util.h"

namespace ctxkit::testing {
namespace {

class PinTest : public StoreTest {};

TEST_F(PinTest, SetReturnsTheStaticRefOfTheVersionItWrote) {
  ASSERT_OK_AND_ASSIGN(Ref v1, view().Set("k", "one"));
  ASSERT_OK_AND_ASSIGN(Ref v2, view().Set("k", "second"));
  EXPECT_EQ(v1.version, 1u);
  EXPECT_EQ(v1.size_bytes, 3u);
  EXPECT_EQ(v2.version, 2u);
  EXPECT_EQ(v2.size_bytes, 6u);
  EXPECT_EQ(v1.id, v2.id);
  EXPECT_EQ(*view().Resolve(v1), "one");
  EXPECT_EQ(*view().Resolve(v2), "second");
  // Dynamic() follows the latest.
  ASSERT_OK(view().Set("k", "third"));
  EXPECT_EQ(*view().Resolve(v1.Dynamic()), "third");
}

TEST_F(PinTest, SetAfterRemoveAndTypeChangeNamesTheNewVersion) {
  ASSERT_OK(view().Set("k", "[1]", {.type = ValueType::kJson}));
  ASSERT_OK(view().Remove("k"));
  ASSERT_OK_AND_ASSIGN(Ref revived, view().Set("k", "plain"));
  EXPECT_EQ(revived.version, 3u);
  EXPECT_EQ(revived.type, ValueType::kText);
  EXPECT_EQ(revived.size_bytes, 5u);
}

TEST_F(PinTest, AppendReturnsTheStaticRefOfItsPrefix) {
  ASSERT_OK_AND_ASSIGN(Ref a1, view().Append("log", "ab"));
  ASSERT_OK_AND_ASSIGN(Ref a2, view().Append("log", "cde"));
  EXPECT_EQ(a1.version, 1u);
  EXPECT_EQ(a1.size_bytes, 2u);
  EXPECT_EQ(a2.version, 2u);
  EXPECT_EQ(a2.size_bytes, 5u);
  EXPECT_EQ(a2.type, ValueType::kStream);
  EXPECT_EQ(*view().Resolve(a1), "ab");
  EXPECT_EQ(*view().Resolve(a2), "abcde");
}

TEST_F(PinTest, SessionOnlyWritesReturnStaticRefsToo) {
  SetOptions o{.scope = "session", .persist = false};
  ASSERT_OK_AND_ASSIGN(Ref s1, view().Set("scratch", "x", o));
  ASSERT_OK_AND_ASSIGN(Ref s2, view().Set("scratch", "yy", o));
  EXPECT_TRUE(s1.is_session_only());
  EXPECT_EQ(s1.version, 1u);
  EXPECT_EQ(s2.version, 2u);
  EXPECT_EQ(*view().Resolve(s1), "x");
  ASSERT_OK_AND_ASSIGN(Ref a, view().Append("stream", "p", o));
  EXPECT_EQ(a.version, 1u);
  EXPECT_EQ(a.type, ValueType::kStream);
}

// The race the Set-then-Stat pattern had: every writer of one key must get
// back its own version, whoever else writes at the same time. Two store
// instances stand for two processes (their own caches and connections).
TEST_F(PinTest, ConcurrentWritersOfOneKeyEachGetTheirOwnVersion) {
  constexpr int kThreadsPerInstance = 4;
  constexpr int kSetsPerThread = 50;
  std::unique_ptr<Store> second = OpenSecond();
  std::vector<Store*> stores = {store_.get(), second.get()};
  struct Written {
    Ref ref;
    std::string value;
  };
  std::vector<std::vector<Written>> per_thread(stores.size() *
                                               kThreadsPerInstance);
  std::vector<std::thread> threads;
  for (size_t s = 0; s < stores.size(); ++s) {
    for (int t = 0; t < kThreadsPerInstance; ++t) {
      size_t slot = s * kThreadsPerInstance + t;
      threads.emplace_back([&, s, slot] {
        Result<View> v = stores[s]->OpenView("w" + std::to_string(slot), "");
        if (!v.ok()) return;
        for (int i = 0; i < kSetsPerThread; ++i) {
          std::string value =
              "writer " + std::to_string(slot) + " set " + std::to_string(i);
          Result<Ref> ref = v->Set("shared", value);
          if (ref.ok()) per_thread[slot].push_back({*ref, value});
        }
      });
    }
  }
  for (std::thread& t : threads) t.join();
  std::set<uint64_t> versions;
  size_t total = 0;
  for (const auto& writes : per_thread) {
    ASSERT_EQ(writes.size(), static_cast<size_t>(kSetsPerThread));
    for (const Written& w : writes) {
      ++total;
      EXPECT_TRUE(w.ref.is_static());
      versions.insert(w.ref.version);
      ASSERT_OK_AND_ASSIGN(std::string got, view().Resolve(w.ref));
      EXPECT_EQ(got, w.value) << FormatRef(w.ref);
      EXPECT_EQ(w.ref.size_bytes, w.value.size());
    }
  }
  EXPECT_EQ(versions.size(), total) << "a version number was handed out twice";
  EXPECT_EQ(*versions.begin(), 1u);
  EXPECT_EQ(*versions.rbegin(), total);
}

TEST_F(PinTest, PinByKeyPinsTheLatestOrTheNamedVersion) {
  ASSERT_OK(view().Set("k", "one"));
  ASSERT_OK(view().Set("k", "three"));
  ASSERT_OK_AND_ASSIGN(Ref latest, view().Pin("k"));
  EXPECT_EQ(latest.version, 2u);
  EXPECT_EQ(latest.size_bytes, 5u);
  ASSERT_OK_AND_ASSIGN(Ref first, view().Pin("k", {.version = 1}));
  EXPECT_EQ(first.version, 1u);
  EXPECT_EQ(first.size_bytes, 3u);
  EXPECT_THAT(view().Pin("k", {.version = 9}), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(view().Pin("absent"), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(view().Pin("bad\x01key"), StatusIs(StatusCode::kInvalidArgument));
  ASSERT_OK(view().Remove("k"));
  EXPECT_THAT(view().Pin("k"), StatusIs(StatusCode::kNotFound));
  // A removed object's numbered versions stay readable.
  EXPECT_OK(view().Pin("k", {.version = 1}));
}

TEST_F(PinTest, PinByRefIsACapabilityIntoAnotherAgentsScope) {
  View bob = MakeView("bob", "");
  ASSERT_OK_AND_ASSIGN(Ref v1, bob.Set("secret", "v1", {.scope = "agent"}));
  ASSERT_OK(bob.Set("secret", "v22", {.scope = "agent"}));
  // Alice cannot name bob's key, but bob's ref pins for her.
  EXPECT_THAT(view().Pin("secret", {.scope = "agent:bob"}),
              StatusIs(StatusCode::kPermissionDenied));
  ASSERT_OK_AND_ASSIGN(Ref pinned, view().Pin(v1.Dynamic()));
  EXPECT_EQ(pinned.version, 2u);
  EXPECT_EQ(pinned.size_bytes, 3u);
  EXPECT_EQ(pinned.scope, Scope::Agent("bob"));
  ASSERT_OK_AND_ASSIGN(Ref same, view().Pin(v1));
  EXPECT_EQ(same, v1);
}

TEST_F(PinTest, PinFollowsPromotionToTheObjectsCurrentScope) {
  ASSERT_OK_AND_ASSIGN(Ref draft, view().Set("draft", "d", {.scope = "agent"}));
  ASSERT_OK(view().Promote("draft"));
  ASSERT_OK_AND_ASSIGN(Ref pinned, view().Pin(draft.Dynamic()));
  EXPECT_TRUE(pinned.scope.is_global());
  EXPECT_EQ(pinned.version, draft.version);
}

TEST_F(PinTest, PinRefusesStaticRefsThatDisagreeWithTheirVersion) {
  ASSERT_OK_AND_ASSIGN(Ref ref, view().Set("k", "four"));
  Ref wrong_size = ref;
  wrong_size.size_bytes = 400;
  EXPECT_THAT(view().Pin(wrong_size), StatusIs(StatusCode::kInvalidArgument));
  Ref wrong_type = ref;
  wrong_type.type = ValueType::kJson;
  EXPECT_THAT(view().Pin(wrong_type), StatusIs(StatusCode::kInvalidArgument));
  Ref wrong_key = ref;
  wrong_key.key = "other";
  EXPECT_THAT(view().Pin(wrong_key), StatusIs(StatusCode::kNotFound));
  Ref no_version = ref;
  no_version.version = 7;
  EXPECT_THAT(view().Pin(no_version), StatusIs(StatusCode::kNotFound));
  ASSERT_OK(view().Remove("k"));
  EXPECT_THAT(view().Pin(ref.Dynamic()), StatusIs(StatusCode::kNotFound));
  EXPECT_OK(view().Pin(ref));  // History stays readable by static ref.
}

TEST_F(PinTest, ParsedTargetsPinRefsAndKeys) {
  ASSERT_OK_AND_ASSIGN(Ref ref, view().Set("notes/plan", "ship it"));
  std::string wire = FormatRef(ref.Dynamic());
  ASSERT_OK_AND_ASSIGN(Target by_wire, Target::Parse(wire));
  ASSERT_OK_AND_ASSIGN(Ref pinned_wire, view().Pin(by_wire));
  EXPECT_EQ(pinned_wire, ref);
  ASSERT_OK_AND_ASSIGN(Target by_key, Target::Parse("notes/plan"));
  ASSERT_OK_AND_ASSIGN(Ref pinned_key, view().Pin(by_key));
  EXPECT_EQ(pinned_key, ref);
  // A key that looks like a ref is still reachable as a key.
  ASSERT_OK(view().Set("ck:1:0:t:1:g:k", "odd key"));
  ASSERT_OK_AND_ASSIGN(Ref odd, view().Pin(Target("ck:1:0:t:1:g:k")));
  EXPECT_EQ(*view().Resolve(odd), "odd key");
}

TEST_F(PinTest, EveryReadTakesATarget) {
  ASSERT_OK_AND_ASSIGN(Ref v1, view().Set("doc", "one"));
  ASSERT_OK_AND_ASSIGN(Ref v2, view().Set("doc", "two!"));
  const Target by_key("doc", {.version = 1});
  const Target by_ref = v1;
  for (const Target& t : {by_key, by_ref}) {
    EXPECT_EQ(*view().Get(t), "one") << t.ToString();
    EXPECT_EQ(*view().Pin(t), v1) << t.ToString();
    EXPECT_EQ(*view().RefOf(t), v1) << t.ToString();
    EXPECT_EQ(view().Versions(t)->size(), 2u) << t.ToString();
    EXPECT_EQ(view().Stat(t)->version, 2u) << t.ToString();  // The latest.
    EXPECT_OK(view().CountTokens(t));
  }
  EXPECT_EQ(*view().Get(Target(v2.Dynamic())), "two!");
  EXPECT_EQ(*view().Get(Target("doc")), "two!");
}

TEST_F(PinTest, ARefGivenAsAKeyNamesItsKey) {
  ASSERT_OK_AND_ASSIGN(Ref ref, view().Set("notes/plan", "ship it"));
  const std::string wire = FormatRef(ref);
  // Every read by key that finds nothing gives the same hint.
  Status by_get = view().Get(wire).status();
  Status by_pin = view().Pin(Target(wire)).status();
  Status by_remove = view().Remove(wire);
  for (const Status& s : {by_get, by_pin, by_remove}) {
    EXPECT_TRUE(s.IsNotFound()) << s.ToString();
    EXPECT_NE(s.message().find("' is a ref, not a key: give it as a ref, or "
                               "give its key 'notes/plan' with scope global "
                               "and version 1"),
              std::string::npos)
        << s.ToString();
  }
}

}  // namespace
}  // namespace ctxkit::testing
