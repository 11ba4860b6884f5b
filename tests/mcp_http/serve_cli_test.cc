// `ctxkit serve` as a process: what it refuses before listening, and how
// `ctxkit` finds the program that serves (ctxkit-serve).

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli/subprocess.h"

namespace ctxkit::cli {
namespace {

class ServeCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* base = ::getenv("TMPDIR");
    std::string pattern =
        std::string(base && *base ? base : "/tmp") + "/ctxkit-serve-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  ProcessResult Serve(std::vector<std::string> args,
                      const std::string& program = CTXKIT_BINARY) {
    std::vector<std::string> argv = {program, "--home", dir_ + "/store",
                                     "serve"};
    argv.insert(argv.end(), args.begin(), args.end());
    Result<ProcessResult> r = RunProcess(
        argv, "",
        std::vector<std::string>{"PATH=/usr/bin:/bin", "HOME=" + dir_});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : ProcessResult{};
  }

  std::string dir_;
};

TEST_F(ServeCliTest, NonLoopbackBindWithoutTokenIsRefused) {
  ProcessResult r = Serve({"--bind", "0.0.0.0", "--port", "0"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("token"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());
  // Refused before the store was created.
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/store"));
}

TEST_F(ServeCliTest, BadFlagsAreUsageErrors) {
  EXPECT_EQ(Serve({"--port", "70000"}).exit_code, 2);
  EXPECT_EQ(Serve({"--max-request-bytes", "-5"}).exit_code, 2);
  ProcessResult r = Serve({"--port", "0", "--allowed-origin", "evil"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("allowed origin"), std::string::npos) << r.err;
}

// A ctxkit installed without ctxkit-serve says what is missing and where it
// looked; one with ctxkit-serve where an install puts it (the libexec
// directory) runs it with the whole command line. Both runs ask for an
// exposed bind without a token, which ctxkit-serve refuses at once: a
// lookup that wrongly succeeded fails the first expectation instead of
// leaving a server running.
TEST_F(ServeCliTest, CtxkitRunsCtxkitServeFromTheInstallsLibexec) {
  namespace fs = std::filesystem;
  const fs::path root = fs::canonical(dir_);
  fs::create_directories(root / "bin");
  const std::string ctxkit = (root / "bin/ctxkit").string();
  fs::copy_file(CTXKIT_BINARY, ctxkit);
  const fs::path installed =
      (root / "bin" / CTXKIT_SERVE_RELATIVE / "ctxkit-serve")
          .lexically_normal();

  ProcessResult missing = Serve({"--bind", "0.0.0.0", "--port", "0"}, ctxkit);
  EXPECT_EQ(missing.exit_code, 6) << missing.err;
  EXPECT_NE(missing.err.find((root / "bin/ctxkit-serve").string()),
            std::string::npos)
      << missing.err;
  EXPECT_NE(missing.err.find(installed.string()), std::string::npos)
      << missing.err;
  EXPECT_FALSE(fs::exists(dir_ + "/store"));

  fs::create_directories(installed.parent_path());
  fs::create_symlink(fs::path(CTXKIT_BINARY).parent_path() / "ctxkit-serve",
                     installed);
  ProcessResult found = Serve({"--bind", "0.0.0.0", "--port", "0"}, ctxkit);
  EXPECT_EQ(found.exit_code, 2) << found.err;
  EXPECT_NE(found.err.find("refusing to bind 0.0.0.0"), std::string::npos)
      << found.err;
}

// The libraries the dynamic loader maps for a ctxkit process (all of them,
// not only its direct dependencies): no HTTP or TLS stack (ctxkit-serve has
// it), and where the program links its libraries statically, none of those
// either.
TEST_F(ServeCliTest, TheCtxkitProgramLoadsNoHttpStack) {
  auto loaded = [](const std::string& program) {
    Result<ProcessResult> r = RunProcess(
        {program}, "", std::vector<std::string>{"LD_TRACE_LOADED_OBJECTS=1"});
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return std::string();
    EXPECT_EQ(r->exit_code, 0) << r->err;
    EXPECT_NE(r->out.find("libc.so"), std::string::npos) << r->out;
    return r->out;
  };
  const std::string ctxkit = loaded(CTXKIT_BINARY);
  std::vector<std::string> absent = {"httplib", "libssl",  "libbrotli",
                                     "libz.so", "libcurl", "libpq"};
  if (CTXKIT_STATIC_PROGRAM) {
    for (const char* lib : {"libstdc++", "libsqlite3", "libcrypto", "libnettle",
                            "libre2", "libyaml-cpp"}) {
      absent.push_back(lib);
    }
  }
  for (const std::string& lib : absent) {
    EXPECT_EQ(ctxkit.find(lib), std::string::npos) << lib << "\n" << ctxkit;
  }
  const std::string serve = loaded(
      (std::filesystem::path(CTXKIT_BINARY).parent_path() / "ctxkit-serve")
          .string());
  EXPECT_NE(serve.find("httplib"), std::string::npos) << serve;
  EXPECT_NE(serve.find("libssl"), std::string::npos) << serve;
}

}  // namespace
}  // namespace ctxkit::cli
