#include "ctxkit/status.h"

#include <gtest/gtest.h>

#include <string>

#include "core/status_macros.h"

namespace ctxkit {
namespace {

TEST(StatusTest, OkIsCheapAndEmpty) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kOk);
  EXPECT_EQ(s.message(), "");
  EXPECT_EQ(s.ToString(), "OK");
}

TEST(StatusTest, CarriesCodeAndMessageThroughCopies) {
  Status s = Status::NotFound("no key 'x'");
  Status copy = s;
  EXPECT_TRUE(copy.IsNotFound());
  EXPECT_EQ(copy.message(), "no key 'x'");
  EXPECT_EQ(copy.ToString(), "not_found: no key 'x'");
  EXPECT_EQ(s.WithContext("get").message(), "get: no key 'x'");
  EXPECT_TRUE(Status().WithContext("x").ok());
}

TEST(ResultTest, HoldsValueOrError) {
  Result<std::string> good(std::string("v"));
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, "v");
  Result<std::string> bad(Status::InvalidArgument("bad"));
  EXPECT_FALSE(bad.ok());
  EXPECT_TRUE(bad.status().IsInvalidArgument());
  EXPECT_EQ(bad.value_or("fallback"), "fallback");
}

TEST(ResultTest, OkStatusBecomesInternalError) {
  Result<int> r{Status::Ok()};
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInternal);
}

Result<int> Half(int v) {
  if (v % 2 != 0) return Status::InvalidArgument("odd");
  return v / 2;
}

Result<int> Quarter(int v) {
  CTXKIT_ASSIGN_OR_RETURN(int half, Half(v));
  CTXKIT_ASSIGN_OR_RETURN(int quarter, Half(half));
  return quarter;
}

TEST(StatusMacrosTest, PropagateErrors) {
  EXPECT_EQ(*Quarter(8), 2);
  EXPECT_TRUE(Quarter(6).status().IsInvalidArgument());
}

}  // namespace
}  // namespace ctxkit
