// `ctxkit summarize` and `ctxkit tokens` through the real binary.

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_test_util.h"
#include "common/fake_chat_server.h"
#include "summary_test_util.h"

namespace ctxkit::cli::testing {
namespace {

class SummaryCliTest : public CliTest {};

TEST_F(SummaryCliTest, SummarizeTextAndJson) {
  Ok({"set", "logs/build"}, ctxkit::testing::LogText(200));
  std::string text = Ok({"summarize", "logs/build", "--max-tokens", "80"});
  EXPECT_NE(text.find("text: "), std::string::npos) << text;
  EXPECT_NE(text.find("ERROR: linker failed"), std::string::npos) << text;

  nlohmann::json j = Json({"summarize", "logs/build", "-n", "80"});
  EXPECT_EQ(j["key"], "logs/build");
  EXPECT_EQ(j["max_tokens"], 80);
  EXPECT_LE(j["tokens"].get<int>(), 80);
  EXPECT_EQ(j["summarizer"], "structural-v1");
  EXPECT_EQ(j["kind"], "text");
  EXPECT_EQ(j["cached"], true);  // The first call filled the cache.
  EXPECT_EQ(j["summary"].get<std::string>() + "\n", text);
  EXPECT_TRUE(j["ref"].get<std::string>().starts_with("ck:"));
  EXPECT_EQ(j["sha256"].get<std::string>().size(), 64u);

  // By ref, and with tiny budgets.
  std::string ref = Ok({"ref", "logs/build"});
  ref.pop_back();
  nlohmann::json by_ref = Json({"summarize", ref, "-n", "80"});
  EXPECT_EQ(by_ref["summary"], j["summary"]);
  for (const char* n : {"1", "5", "20"}) {
    nlohmann::json t = Json({"summarize", "logs/build", "-n", n});
    EXPECT_LE(t["tokens"].get<int>(), std::stoi(n));
  }
}

TEST_F(SummaryCliTest, SummarizeJsonValueAndLlmFallback) {
  Ok({"set", "cfg", "--type", "json", R"({"a":[1,2,3],"b":{"c":"d"}})"});
  std::string out = Ok({"summarize", "cfg", "--summarizer", "structural"});
  EXPECT_NE(out.find("json: object with 2 keys"), std::string::npos) << out;
  EXPECT_NE(out.find("$.b.c  string, e.g. \"d\""), std::string::npos) << out;

  // --summarizer llm against a server that fails: structural, a note on
  // stderr, exit 0.
  ctxkit::testing::FakeChatServer server(
      ctxkit::testing::FakeChatServer::Mode::kStatus500);
  RunOptions o;
  o.env = {"CTXKIT_LLM_BASE_URL=" + server.base_url(),
           "CTXKIT_LLM_MODEL=test-model", "CTXKIT_LLM_TIMEOUT_MS=2000"};
  ProcessResult r = Run({"summarize", "cfg", "--summarizer", "llm"}, o);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("json: object"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("llm failed"), std::string::npos) << r.err;
  EXPECT_EQ(server.hits(), 1u);
}

TEST_F(SummaryCliTest, SummarizeWithLlmServer) {
  Ok({"set", "notes", "meeting notes: ship on friday"});
  ctxkit::testing::FakeChatServer server(
      ctxkit::testing::FakeChatServer::Mode::kOk, "Ship date is Friday.");
  RunOptions o;
  o.env = {"CTXKIT_LLM_BASE_URL=" + server.base_url(),
           "CTXKIT_LLM_MODEL=test-model"};
  ProcessResult r = Run({"--json", "summarize", "notes"}, o);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["summary"], "Ship date is Friday.");
  EXPECT_EQ(j["summarizer"], "llm-v1:test-model");
  EXPECT_EQ(j["cached"], false);
  r = Run({"--json", "summarize", "notes"}, o);
  EXPECT_EQ(nlohmann::json::parse(r.out)["cached"], true);
  EXPECT_EQ(server.hits(), 1u);
}

TEST_F(SummaryCliTest, SummarizeErrors) {
  EXPECT_EQ(Run({"summarize", "missing"}).exit_code, 1);
  Ok({"set", "k", "v"});
  EXPECT_EQ(Run({"summarize", "k", "--summarizer", "magic"}).exit_code, 2);
  EXPECT_EQ(Run({"summarize", "k", "--max-tokens", "0"}).exit_code, 2);
  EXPECT_EQ(Run({"summarize", "k", "--max-tokens", "-3"}).exit_code, 2);
  EXPECT_EQ(Run({"summarize", "ck:nonsense"}).exit_code, 2);
  EXPECT_EQ(Run({"summarize", "k", "--scope", "agent:other"}).exit_code, 3);
}

TEST_F(SummaryCliTest, Tokens) {
  Ok({"set", "greeting", "hello world"});
  EXPECT_EQ(Ok({"tokens", "greeting"}), "2\n");
  nlohmann::json j = Json({"tokens", "greeting", "--encoding", "cl100k_base"});
  EXPECT_EQ(j["tokens"], 2);
  EXPECT_EQ(j["encoding"], "cl100k_base");
  EXPECT_EQ(j["key"], "greeting");
  // stdin and --file.
  EXPECT_EQ(Ok({"tokens", "-"}, "hello world"), "2\n");
  std::string path = tmp_.path() + "/f.txt";
  std::ofstream(path) << "hello world";
  nlohmann::json f = Json({"tokens", "--file", path});
  EXPECT_EQ(f["tokens"], 2);
  EXPECT_EQ(f["size_bytes"], 11);
  // Empty value, errors.
  Ok({"set", "empty", ""});
  EXPECT_EQ(Ok({"tokens", "empty"}), "0\n");
  EXPECT_EQ(Run({"tokens", "nope"}).exit_code, 1);
  EXPECT_EQ(Run({"tokens", "greeting", "--encoding", "p50k"}).exit_code, 2);
  EXPECT_EQ(Run({"tokens"}).exit_code, 2);
  EXPECT_EQ(Run({"tokens", "--file", tmp_.path() + "/none"}).exit_code, 1);
}

}  // namespace
}  // namespace ctxkit::cli::testing
