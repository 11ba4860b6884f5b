#include "ctxkit/target.h"

#include <gtest/gtest.h>

#include <string>

namespace ctxkit {
namespace {

Ref SampleRef(uint64_t version) {
  Ref ref;
  ref.id = "2s";
  ref.key = "notes/plan";
  ref.scope = Scope::Agent("planner");
  ref.type = ValueType::kText;
  ref.size_bytes = 7;
  ref.version = version;
  return ref;
}

TEST(TargetParseTest, PlainTextIsAKeyWithItsLookup) {
  Result<Target> t = Target::Parse("notes/plan", {.scope = "agent"});
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_FALSE(t->is_ref());
  EXPECT_EQ(t->key(), "notes/plan");
  EXPECT_EQ(t->lookup().scope, "agent");
  EXPECT_FALSE(t->pins_version());
  EXPECT_EQ(t->ToString(), "notes/plan");
  Result<Target> v = Target::Parse("notes/plan", {.version = 3});
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->pins_version());
}

TEST(TargetParseTest, RefTextIsARef) {
  const Ref ref = SampleRef(3);
  Result<Target> t = Target::Parse(FormatRef(ref));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_TRUE(t->is_ref());
  EXPECT_EQ(*t->ref(), ref);
  EXPECT_EQ(t->key(), "notes/plan");  // The key the ref was taken under.
  EXPECT_TRUE(t->lookup().empty());
  EXPECT_TRUE(t->pins_version());
  EXPECT_EQ(t->ToString(), FormatRef(ref));
  Result<Target> dynamic = Target::Parse(FormatRef(ref.Dynamic()));
  ASSERT_TRUE(dynamic.ok());
  EXPECT_FALSE(dynamic->pins_version());
}

TEST(TargetParseTest, ARefTakesNoScopeOrVersion) {
  const std::string wire = FormatRef(SampleRef(3));
  EXPECT_TRUE(
      Target::Parse(wire, {.scope = "global"}).status().IsInvalidArgument());
  EXPECT_TRUE(Target::Parse(wire, {.version = 1}).status().IsInvalidArgument());
}

TEST(TargetParseTest, MalformedRefSaysItWasReadAsARef) {
  Result<Target> bad = Target::Parse("ck:nonsense");
  ASSERT_TRUE(bad.status().IsInvalidArgument());
  EXPECT_NE(bad.status().message().find(
                "'ck:nonsense' begins with ck: and is read as a ref"),
            std::string::npos)
      << bad.status().ToString();
  EXPECT_NE(bad.status().message().find("not a ref"), std::string::npos)
      << bad.status().ToString();
}

TEST(TargetParseTest, EmptyAndBadKeysFailAsKeys) {
  Result<Target> empty = Target::Parse("");
  ASSERT_TRUE(empty.status().IsInvalidArgument());
  EXPECT_TRUE(empty.status().message().starts_with("key: "))
      << empty.status().ToString();
  EXPECT_TRUE(Target::Parse(std::string("a\nb")).status().IsInvalidArgument());
  EXPECT_TRUE(
      Target::Parse(std::string(257, 'k')).status().IsInvalidArgument());
}

TEST(TargetParseTest, IsRefTextIsThePrefixParseReadsAsARef) {
  EXPECT_TRUE(Target::IsRefText("ck:"));
  EXPECT_TRUE(Target::IsRefText("ck:nonsense"));
  EXPECT_FALSE(Target::IsRefText("notes/ck:plan"));
  EXPECT_FALSE(Target::IsRefText("CK:2s:1:t:1:g:k"));
  EXPECT_FALSE(Target::IsRefText(""));
}

TEST(TargetTest, ConstructedKeyStaysAKey) {
  // A key may itself begin with "ck:"; built as a key, it is read as one.
  Target t(FormatRef(SampleRef(3)), {.scope = "global"});
  EXPECT_FALSE(t.is_ref());
  EXPECT_EQ(t.lookup().scope, "global");
  Target from_ref = SampleRef(0);
  EXPECT_TRUE(from_ref.is_ref());
}

TEST(KeyNotFoundTest, PlainKeyHasNoHint) {
  Status s = KeyNotFound("nope", "global");
  EXPECT_TRUE(s.IsNotFound());
  EXPECT_EQ(s.message(), "no key 'nope' in global");
  // Text that only looks like a ref gets no hint either.
  EXPECT_EQ(KeyNotFound("ck:plain-key", "global").message(),
            "no key 'ck:plain-key' in global");
}

TEST(KeyNotFoundTest, ARefGivenAsAKeyGetsTheOneHint) {
  const std::string wire = FormatRef(SampleRef(3));
  Status s = KeyNotFound(wire, "any visible scope");
  EXPECT_TRUE(s.IsNotFound());
  EXPECT_EQ(s.message(), "no key '" + wire + "' in any visible scope; '" +
                             wire +
                             "' is a ref, not a key: give it as a ref, or "
                             "give its key 'notes/plan' with scope "
                             "agent:planner and version 3");
  const std::string dynamic = FormatRef(SampleRef(0));
  EXPECT_TRUE(KeyNotFound(dynamic, "global")
                  .message()
                  .ends_with("with scope agent:planner"));
}

}  // namespace
}  // namespace ctxkit
