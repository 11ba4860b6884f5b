// One JSON form per type (docs/json.md): the CLI's --json output and the MCP
// tools' structuredContent report the same object with the same fields and
// values. Each test writes through one face, reads the object through both
// (the real ctxkit binary on the MCP server's store home) and compares the
// form's fields.

#include <unistd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cli/subprocess.h"
#include "mcp/mcp_test_util.h"

extern char** environ;

namespace ctxkit::mcp::testing {
namespace {

class JsonFormsTest : public McpTest {
 protected:
  // `ctxkit --json ARGS` as agent-a in session sess-a on the server's store,
  // with no CTXKIT_* settings and HOME in the test directory.
  Json Cli(const std::vector<std::string>& args,
           const std::string& input = "") {
    std::vector<std::string> argv = {CTXKIT_BINARY, "--home",  store_->home(),
                                     "--agent",     "agent-a", "--session",
                                     "sess-a",      "--json"};
    // The "pg." variant's store is in PostgreSQL: the CLI opens it too.
    const std::string url = ctxkit::testing::PgStoreUrlFor(store_->home());
    if (!url.empty()) argv.insert(argv.begin() + 1, {"--store", url});
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<std::string> env;
    for (char** e = environ; *e != nullptr; ++e) {
      std::string kv = *e;
      if (kv.starts_with("CTXKIT_") || kv.starts_with("HOME=") ||
          kv.starts_with("XDG_DATA_HOME=") || kv.starts_with("SFA_")) {
        continue;
      }
      env.push_back(kv);
    }
    env.push_back("HOME=" + dir_);
    Result<cli::ProcessResult> r = cli::RunProcess(argv, input, env);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return Json();
    std::string cmd;
    for (const std::string& a : args) cmd += " " + a;
    EXPECT_EQ(r->exit_code, 0) << "ctxkit" << cmd << ": " << r->err;
    Json j = Json::parse(r->out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << "ctxkit" << cmd << ": " << r->out;
    return j;
  }

  // structuredContent of a tool call that must succeed.
  static Json Structured(Client& c, const std::string& tool, Json args) {
    return c.Ok(tool, std::move(args))["structuredContent"];
  }

  // `form` restricted to the fields of `fields` (the form both faces share,
  // without what one face adds around it).
  static Json Only(const Json& form, const std::vector<std::string>& fields) {
    Json out = Json::object();
    for (const std::string& f : fields) {
      EXPECT_TRUE(form.contains(f)) << f << " missing from " << form.dump();
      if (form.contains(f)) out[f] = form[f];
    }
    return out;
  }
};

const std::vector<std::string> kRefFields = {
    "ref",        "id",      "key",    "scope",       "type",
    "size_bytes", "version", "static", "session_only"};
const std::vector<std::string> kObjectFields = {"ref",
                                                "id",
                                                "key",
                                                "scope",
                                                "type",
                                                "size_bytes",
                                                "version",
                                                "created",
                                                "updated",
                                                "created_unix_ns",
                                                "updated_unix_ns",
                                                "tags",
                                                "persistent",
                                                "tokens"};

TEST_F(JsonFormsTest, ObjectMetadataIsTheSameOnBothFaces) {
  Client& c = Ready();
  c.Ok("set", {{"key", "doc"}, {"value", "one\ntwo\n"}, {"tags", {"t1"}}});
  // The CLI counts and keeps the tokens; the MCP list then reports them.
  Json stat = Cli({"stat", "doc"});
  Json ls = Cli({"ls"});
  Json items = Structured(c, "list", Json::object())["items"];
  ASSERT_EQ(items.size(), 1u);
  EXPECT_EQ(Only(stat, kObjectFields), Only(items[0], kObjectFields));
  ASSERT_EQ(ls["items"].size(), 1u);
  EXPECT_EQ(ls["items"][0], items[0]);
  EXPECT_EQ(items[0]["tokens"], 4);
  EXPECT_TRUE(ParseRef(items[0]["ref"].get<std::string>())->is_static());
  EXPECT_TRUE(items[0]["created"].get<std::string>().ends_with("Z"));
}

TEST_F(JsonFormsTest, RefIsTheSameOnBothFaces) {
  Client& c = Ready();
  c.Ok("set", {{"key", "doc"}, {"value", "v1"}});
  c.Ok("set", {{"key", "doc"}, {"value", "v2!"}});
  Json mcp = Structured(c, "ref", {{"key", "doc"}});
  Json cli = Cli({"ref", "doc"});
  EXPECT_EQ(Only(cli, kRefFields), Only(mcp, kRefFields));
  EXPECT_EQ(mcp["static"], false);
  Json mcp1 = Structured(c, "ref", {{"key", "doc"}, {"version", 1}});
  Json cli1 = Cli({"ref", "doc", "--version", "1"});
  EXPECT_EQ(Only(cli1, kRefFields), Only(mcp1, kRefFields));
  EXPECT_EQ(mcp1["static"], true);
  EXPECT_EQ(mcp1["size_bytes"], 2);
}

TEST_F(JsonFormsTest, VersionsAreTheSameOnBothFaces) {
  Client& c = Ready();
  c.Ok("set", {{"key", "doc"}, {"value", "v1"}});
  c.Ok("set", {{"key", "doc"}, {"value", "second"}});
  Json mcp = Structured(c, "versions", {{"key", "doc"}});
  Json cli = Cli({"versions", "doc"});
  EXPECT_EQ(cli, mcp);
  ASSERT_EQ(mcp["versions"].size(), 2u);
  const Json& v1 = mcp["versions"][0];
  EXPECT_EQ(v1["sha256"].get<std::string>().size(), 64u);
  EXPECT_FALSE(v1.contains("content_hash"));
  Result<Ref> r1 = ParseRef(v1["ref"].get<std::string>());
  ASSERT_TRUE(r1.ok());
  EXPECT_EQ(r1->version, 1u);
  EXPECT_EQ(r1->size_bytes, 2u);
  // Once removed, the tombstone has no ref, on either face.
  c.Ok("remove", {{"key", "doc"}});
  Json removed = Structured(c, "versions", {{"key", "doc"}});
  EXPECT_EQ(Cli({"versions", "doc"}), removed);
  ASSERT_EQ(removed["versions"].size(), 3u);
  EXPECT_EQ(removed["versions"][2]["state"], "deleted");
  EXPECT_TRUE(removed["versions"][2]["ref"].is_null());
}

TEST_F(JsonFormsTest, TokenCountsAreTheSameOnBothFaces) {
  Client& c = Ready();
  c.Ok("set", {{"key", "doc"}, {"value", "hello world"}});
  for (const char* enc : {"o200k_base", "cl100k_base"}) {
    Json mcp = Structured(c, "tokens", {{"key", "doc"}, {"encoding", enc}});
    Json cli = Cli({"tokens", "doc", "--encoding", enc});
    EXPECT_EQ(cli, mcp) << enc;
    EXPECT_EQ(mcp["tokens"], 2);
    EXPECT_EQ(mcp["size_bytes"], 11);
  }
}

std::string Lines(int n) {
  std::string text;
  for (int i = 0; i < n; ++i) {
    text += "line " + std::to_string(i) + (i % 7 == 0 ? " needle" : "") + "\n";
  }
  return text;
}

TEST_F(JsonFormsTest, PeekIsTheSameOnBothFaces) {
  Client& c = Ready();
  c.Ok("set", {{"key", "log"}, {"value", Lines(40)}});
  c.Ok("set", {{"key", "arr"}, {"value", "[1, 2, 3]"}, {"type", "json"}});
  Json mcp = Structured(c, "peek", {{"key", "log"}, {"start", 3}, {"end", 6}});
  Json cli = Cli({"peek", "log", "3", "6"});
  EXPECT_EQ(cli["text"], "line 3\nline 4\nline 5\n");
  cli.erase("text");
  EXPECT_EQ(cli, mcp);
  EXPECT_EQ(mcp["byte_offset"], 28);  // "line 0 needle\n" + 2 lines.
  EXPECT_FALSE(mcp.contains("byte_begin"));

  Json mcp_items = Structured(
      c, "peek", {{"key", "arr"}, {"start", 1}, {"end", 3}, {"unit", "items"}});
  Json cli_items = Cli({"peek", "arr", "1", "3", "--unit", "items"});
  EXPECT_EQ(cli_items["parts"], Json::array({"2", "3"}));
  cli_items.erase("text");
  cli_items.erase("parts");
  EXPECT_EQ(cli_items, mcp_items);
  EXPECT_EQ(mcp_items["total"], 3);
}

TEST_F(JsonFormsTest, SearchResultsAreTheSameOnBothFaces) {
  Client& c = Ready();
  c.Ok("set", {{"key", "log"}, {"value", Lines(40)}});
  c.Ok("set", {{"key", "other"}, {"value", "no match here\nneedle too\n"}});
  Json mcp = Structured(
      c, "search",
      {{"pattern", "needle"}, {"max_results", 4}, {"context_lines", 1}});
  Json cli = Cli({"search", "needle", "--max", "4", "-C", "1"});
  EXPECT_EQ(cli, mcp);
  EXPECT_EQ(mcp["matches"].size(), 4u);
  EXPECT_EQ(mcp["max_results_reached"], true);
  EXPECT_EQ(mcp["matches"][0]["before"].size(), 0u);
  EXPECT_EQ(mcp["matches"][0]["after"].size(), 1u);
}

TEST_F(JsonFormsTest, FindHitsAreTheSameOnBothFaces) {
  Client& c = Ready();
  c.Ok("set", {{"key", "a"}, {"value", "the linker failed on libfoo\n"}});
  c.Ok("set", {{"key", "b"}, {"value", "weather is sunny today\n"}});
  Json mcp = Structured(c, "find_relevant", {{"query", "linker failed"}});
  Json cli = Cli({"find", "linker failed"});
  ASSERT_FALSE(mcp["hits"].empty());
  EXPECT_EQ(cli["hits"], mcp["hits"]);
  EXPECT_EQ(cli["method"], mcp["method"]);
  EXPECT_EQ(mcp["hits"][0]["key"], "a");
  EXPECT_TRUE(mcp["hits"][0].contains("bm25_rank"));
}

TEST_F(JsonFormsTest, SummariesAreTheSameOnBothFaces) {
  Client& c = Ready();
  c.Ok("set", {{"key", "log"}, {"value", Lines(200)}});
  // The first summary fills the cache; both faces then read it.
  Cli({"summarize", "log", "--max-tokens", "60"});
  Json cli = Cli({"summarize", "log", "--max-tokens", "60"});
  Json mcp = Structured(c, "summarize", {{"key", "log"}, {"max_tokens", 60}});
  EXPECT_FALSE(cli["summary"].get<std::string>().empty());
  EXPECT_EQ(cli["max_tokens"], 60);
  cli.erase("summary");
  cli.erase("max_tokens");
  EXPECT_EQ(cli, mcp);
  EXPECT_EQ(mcp["cached"], true);
  EXPECT_EQ(mcp["sha256"].get<std::string>().size(), 64u);
}

TEST_F(JsonFormsTest, NoteHitsAreTheSameOnBothFaces) {
  Client& c = Ready();
  Json added = Structured(c, "notes_add",
                          {{"slug", "linker fix"},
                           {"body", "The linker needs -lfoo.\n"},
                           {"tags", {"build"}}});
  Json mcp = Structured(c, "notes_search", {{"text", "linker"}});
  Json cli = Cli({"notes", "--root", options_.notes_root, "search", "linker"});
  ASSERT_EQ(mcp["notes"].size(), 1u);
  ASSERT_EQ(cli.size(), 1u);
  // The same form, but MCP clients never see the server's file paths.
  EXPECT_TRUE(cli[0]["file"].get<std::string>().starts_with("/"));
  cli[0].erase("file");
  EXPECT_EQ(cli, mcp["notes"]);
  const Json& hit = mcp["notes"][0];
  EXPECT_EQ(hit["path"], added["path"]);
  EXPECT_FALSE(hit.contains("file"));
  EXPECT_FALSE(added.contains("file"));
  EXPECT_EQ(hit["ref"], added["ref"]);
  EXPECT_EQ(hit["session_id"], "sess-a");
  EXPECT_EQ(hit["tags"], Json::array({"build"}));
  EXPECT_TRUE(ParseRef(added["ref"].get<std::string>()).ok());
  // A note written by the CLI has the same written-note form.
  Json cli_added = Cli({"notes", "--root", options_.notes_root, "add", "--slug",
                        "second", "--type", "finding"},
                       "Second note.\n");
  EXPECT_EQ(Only(cli_added, {"path", "file", "key", "ref"}).size(), 4u);
  EXPECT_EQ(cli_added["key"], "note:" + cli_added["path"].get<std::string>());
  EXPECT_TRUE(ParseRef(cli_added["ref"].get<std::string>()).ok());
}

TEST_F(JsonFormsTest, ToolOutputsAreTheSameOnBothFaces) {
  Client& c = Ready();
  // A file output (over the 32 KiB memory threshold) and an in-memory one.
  std::string big(40 << 10, 'x');
  big += " compiler error in main.cc";
  Json saved_file = Structured(
      c, "tool_output_save",
      {{"tool_name", "build"}, {"args", {{"target", "all"}}}, {"result", big}});
  Json saved_mem = Structured(
      c, "tool_output_save",
      {{"tool_name", "grep"}, {"result", "main.cc:1: compiler warning"}});
  EXPECT_EQ(saved_file["in_memory"], false);
  EXPECT_EQ(saved_mem["in_memory"], true);
  EXPECT_TRUE(saved_file["ref"].is_string());
  EXPECT_EQ(saved_mem["ref"], saved_mem["pointer"]);

  // Selection: the same pointers and loaded outputs on both faces.
  Json mcp = Structured(c, "tool_output_select",
                        {{"question", "compiler error"},
                         {"max_selected", 5},
                         {"use_llm", false}});
  Json cli = Cli({"tools", "--root", options_.capture_root, "select",
                  "compiler error", "--max", "5", "--no-llm"});
  ASSERT_FALSE(mcp["selected"].empty());
  EXPECT_EQ(cli, mcp);

  // The pointers tools ls lists are the pointer forms select reports.
  Json ls = Cli({"tools", "--root", options_.capture_root, "ls"});
  ASSERT_EQ(ls.size(), 2u);
  for (const Json& sel : mcp["selected"]) {
    Json pointer = sel;
    pointer.erase("output");
    EXPECT_NE(std::find(ls.begin(), ls.end(), pointer), ls.end())
        << pointer.dump() << " not in " << ls.dump();
  }

  // Loading a pointer: the same loaded form (the CLI adds the result).
  std::string file = saved_file["pointer"];
  Json mcp_load = Structured(c, "tool_output_load", {{"pointer", file}});
  Json cli_load = Cli({"tools", "--root", options_.capture_root, "load", file});
  EXPECT_EQ(cli_load["result"], big);
  cli_load.erase("result");
  mcp_load.erase("truncated");  // MCP's own: the text was cut at the limit.
  EXPECT_EQ(cli_load, mcp_load);
  EXPECT_EQ(mcp_load["args"], Json({{"target", "all"}}));
  EXPECT_EQ(mcp_load["session_id"], "sess-a");
  EXPECT_TRUE(mcp_load["query_id"].is_null());
}

TEST_F(JsonFormsTest, RenderReportIsTheSameOnBothFaces) {
  Client& c = Ready();
  c.Ok("set", {{"key", "doc"}, {"value", Lines(30)}});
  c.Ok("session_activate", {{"object", "doc"}});
  Json mcp = Structured(c, "session_render", {{"budget_tokens", 5000}});
  Json cli = Cli({"render", "sess-a", "--budget", "5000"});
  EXPECT_TRUE(cli["request"].contains("messages"));
  cli.erase("request");
  // Each render is recorded: the MCP one first, then the CLI's.
  EXPECT_EQ(mcp["record"], 1);
  EXPECT_EQ(cli["record"], 2);
  // The second repeats the first request whole: all but its closing "]}"
  // (or all, as here, when the requests are the same).
  EXPECT_TRUE(mcp["prefix_bytes"].is_null());
  EXPECT_EQ(cli["prefix_bytes"], mcp["bytes"]);
  for (const char* differs : {"record", "prefix_bytes"}) {
    cli.erase(differs);
    mcp.erase(differs);
  }
  EXPECT_EQ(cli, mcp);
  EXPECT_EQ(mcp["format"], "openai");
  EXPECT_TRUE(mcp.contains("index_listed"));
}

}  // namespace
}  // namespace ctxkit::mcp::testing
