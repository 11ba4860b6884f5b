// In-process tests of the CLI's helpers: exit-code mapping, rendering,
// scope checks and the subprocess runner.

#include <gtest/gtest.h>

#include <string>

#include "cli/cli_app.h"
#include "cli/digest.h"
#include "cli/output.h"
#include "cli/subprocess.h"

namespace ctxkit::cli {
namespace {

TEST(ExitCodeTest, EveryStatusCodeMapsToADocumentedExitCode) {
  EXPECT_EQ(ExitCodeFor(Status::Ok()), 0);
  EXPECT_EQ(ExitCodeFor(Status::NotFound("x")), 1);
  EXPECT_EQ(ExitCodeFor(Status::InvalidArgument("x")), 2);
  EXPECT_EQ(ExitCodeFor(Status::PermissionDenied("x")), 3);
  EXPECT_EQ(ExitCodeFor(Status::AlreadyExists("x")), 4);
  EXPECT_EQ(ExitCodeFor(Status::FailedPrecondition("x")), 4);
  EXPECT_EQ(ExitCodeFor(Status::Unavailable("x")), 5);
  EXPECT_EQ(ExitCodeFor(Status::IoError("x")), 6);
  EXPECT_EQ(ExitCodeFor(Status::Corruption("x")), 6);
  EXPECT_EQ(ExitCodeFor(Status::ResourceExhausted("x")), 6);
  EXPECT_EQ(ExitCodeFor(Status::Internal("x")), 7);
}

TEST(OutputTest, Numbers) {
  EXPECT_EQ(HumanBytes(0), "0 B");
  EXPECT_EQ(HumanBytes(1023), "1023 B");
  EXPECT_EQ(HumanBytes(1536), "1.5 KiB");
  EXPECT_EQ(HumanBytes(4u << 20), "4.0 MiB");
  EXPECT_EQ(GroupedNumber(0), "0");
  EXPECT_EQ(GroupedNumber(999), "999");
  EXPECT_EQ(GroupedNumber(4194304), "4,194,304");
  EXPECT_EQ(HumanTime(0), "-");
  EXPECT_EQ(HumanTime(1700000000123456789), "2023-11-14 22:13:20");
  EXPECT_EQ(Rfc3339(1700000000123456789), "2023-11-14T22:13:20.123456789Z");
}

TEST(OutputTest, TableAlignsColumns) {
  Table t({"A", "NUM"}, {1});
  t.AddRow({"long cell", "1"});
  t.AddRow({"x", "12345"});
  EXPECT_EQ(t.Render(),
            "A            NUM\n"
            "long cell      1\n"
            "x          12345\n");
}

TEST(OutputTest, RefJsonRoundTrips) {
  Ref ref;
  ref.id = "2s";
  ref.key = "notes/auth";
  ref.scope = Scope::Agent("reviewer");
  ref.size_bytes = 14729;
  ref.version = 3;
  nlohmann::json j = RefToJson(ref);
  EXPECT_EQ(j["ref"], FormatRef(ref));
  EXPECT_EQ(j["scope"], "agent:reviewer");
  EXPECT_EQ(j["static"], true);
  EXPECT_EQ(ParseRef(j["ref"].get<std::string>()).value(), ref);
}

TEST(ScopeCheckTest, ViewOwnScopesOnly) {
  GlobalOptions g;
  g.agent = "alice";
  EXPECT_TRUE(CheckScopeName("", g).ok());
  EXPECT_TRUE(CheckScopeName("global", g).ok());
  EXPECT_TRUE(CheckScopeName("agent", g).ok());
  EXPECT_TRUE(CheckScopeName("agent:alice", g).ok());
  EXPECT_TRUE(CheckScopeName("session", g).IsInvalidArgument());
  EXPECT_TRUE(CheckScopeName("agent:bob", g).IsPermissionDenied());
  EXPECT_TRUE(CheckScopeName("session:s", g).IsPermissionDenied());
  EXPECT_TRUE(CheckScopeName("planet", g).IsInvalidArgument());
  EXPECT_TRUE(ValidateTag("ok").ok());
  EXPECT_FALSE(ValidateTag("").ok());
  EXPECT_FALSE(ValidateTag(std::string(65, 't')).ok());
  EXPECT_FALSE(ValidateTag("a\tb").ok());
}

TEST(DigestTest, KnownVector) {
  EXPECT_EQ(Sha256Hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(SubprocessTest, CapturesOutputExitCodeAndEnvironment) {
  // More than a pipe buffer both ways, to prove there is no deadlock.
  std::string big(1 << 20, 'q');
  Result<ProcessResult> cat = RunProcess({"/bin/cat"}, big);
  ASSERT_TRUE(cat.ok()) << cat.status().ToString();
  EXPECT_EQ(cat->exit_code, 0);
  EXPECT_EQ(cat->out, big);

  Result<ProcessResult> sh =
      RunProcess({"/bin/sh", "-c", "echo \"$GREETING\"; echo oops >&2; exit 3"},
                 "", std::vector<std::string>{"GREETING=hi"});
  ASSERT_TRUE(sh.ok());
  EXPECT_EQ(sh->exit_code, 3);
  EXPECT_EQ(sh->out, "hi\n");
  EXPECT_EQ(sh->err, "oops\n");

  // A child that ignores its stdin must not kill us with SIGPIPE.
  Result<ProcessResult> deaf = RunProcess({"/bin/true"}, big);
  ASSERT_TRUE(deaf.ok());
  EXPECT_EQ(deaf->exit_code, 0);

  Result<ProcessResult> missing = RunProcess({"/nonexistent/binary"});
  EXPECT_FALSE(missing.ok() && missing->exit_code == 0);
}

}  // namespace
}  // namespace ctxkit::cli
