#include <gtest/gtest.h>

#include <string>

#include "ctxkit/ref.h"

namespace ctxkit {
namespace {

TEST(ValidateKeyTest, AcceptsUtf8UpTo256Bytes) {
  EXPECT_TRUE(ValidateKey("a").ok());
  EXPECT_TRUE(ValidateKey(std::string(256, 'k')).ok());
  EXPECT_TRUE(ValidateKey("notes/2026 q3: plan.md").ok());
  EXPECT_TRUE(ValidateKey("\xe4\xb8\xad\xe6\x96\x87/\xf0\x9f\x98\x80").ok());
}

TEST(ValidateKeyTest, RejectsBadKeys) {
  EXPECT_TRUE(ValidateKey("").IsInvalidArgument());
  EXPECT_TRUE(ValidateKey(std::string(257, 'k')).IsInvalidArgument());
  EXPECT_TRUE(ValidateKey(std::string("a\0b", 3)).IsInvalidArgument());
  EXPECT_TRUE(ValidateKey("tab\there").IsInvalidArgument());
  EXPECT_TRUE(ValidateKey("line\nbreak").IsInvalidArgument());
  EXPECT_TRUE(ValidateKey("del\x7f").IsInvalidArgument());
  EXPECT_TRUE(ValidateKey("c1\xc2\x85").IsInvalidArgument());  // U+0085 NEL.
  EXPECT_TRUE(ValidateKey("bad\xff").IsInvalidArgument());
}

TEST(ScopeTest, ParsesAndPrints) {
  EXPECT_EQ(Scope::Parse("global")->ToString(), "global");
  EXPECT_EQ(Scope::Parse("agent:reviewer-1")->ToString(), "agent:reviewer-1");
  EXPECT_EQ(Scope::Parse("session:a1b2.c3_d")->kind, Scope::Kind::kSession);
  EXPECT_FALSE(Scope::Parse("agent:").ok());
  EXPECT_FALSE(Scope::Parse("agent:a/b").ok());
  EXPECT_FALSE(Scope::Parse("team:x").ok());
  EXPECT_FALSE(Scope::Parse(std::string("agent:") + std::string(65, 'a')).ok());
}

TEST(ValueTypeTest, NamesRoundTrip) {
  for (auto t : {ValueType::kText, ValueType::kJson, ValueType::kMemory,
                 ValueType::kResult, ValueType::kStream, ValueType::kToolcall,
                 ValueType::kFile, ValueType::kNote, ValueType::kChat}) {
    EXPECT_EQ(*ParseValueType(ValueTypeName(t)), t);
  }
  EXPECT_TRUE(ParseValueType("blob").status().IsInvalidArgument());
}

}  // namespace
}  // namespace ctxkit
