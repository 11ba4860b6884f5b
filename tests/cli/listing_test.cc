// ls, stat, versions, promote, stats: text and JSON shapes, filters, paging.

#include <set>
#include <string>

#include "cli/cli_test_util.h"
#include "ctxkit/ref.h"

namespace ctxkit::cli::testing {
namespace {

std::vector<std::string> Keys(const nlohmann::json& page) {
  std::vector<std::string> keys;
  for (const auto& item : page["items"]) keys.push_back(item["key"]);
  return keys;
}

TEST_F(CliTest, LsJsonHasMetadataAndFilters) {
  Ok({"set", "a/one", "1", "--tag", "red"});
  Ok({"set", "a/two", "[2]", "--type", "json", "--tag", "red", "--tag",
      "blue"});
  Ok({"set", "b/three", "333", "--type", "memory", "--tag", "blue"});
  Ok({"--agent", "alice", "set", "a/mine", "m", "--scope", "agent"});

  nlohmann::json all = Json({"ls"});
  ASSERT_TRUE(all.contains("items"));
  ASSERT_TRUE(all.contains("next_cursor"));
  EXPECT_EQ(Keys(all), (std::vector<std::string>{"a/one", "a/two", "b/three"}));
  const nlohmann::json& one = all["items"][0];
  for (const char* field : {"id", "key", "scope", "type", "size_bytes",
                            "version", "created", "updated", "created_unix_ns",
                            "updated_unix_ns", "tags", "persistent"}) {
    EXPECT_TRUE(one.contains(field)) << field;
  }
  EXPECT_EQ(one["scope"], "global");
  EXPECT_EQ(one["type"], "text");
  EXPECT_EQ(one["size_bytes"], 1);
  EXPECT_TRUE(one["created"].get<std::string>().ends_with("Z"));

  EXPECT_EQ(Keys(Json({"ls", "--prefix", "a/"})),
            (std::vector<std::string>{"a/one", "a/two"}));
  EXPECT_EQ(Keys(Json({"ls", "--type", "json"})),
            (std::vector<std::string>{"a/two"}));
  EXPECT_EQ(Keys(Json({"ls", "--tag", "blue"})),
            (std::vector<std::string>{"a/two", "b/three"}));
  EXPECT_EQ(Keys(Json({"ls", "--tag", "blue", "--tag", "red"})),
            (std::vector<std::string>{"a/two"}));
  EXPECT_EQ(Keys(Json({"--agent", "alice", "ls", "--scope", "agent"})),
            (std::vector<std::string>{"a/mine"}));
  EXPECT_EQ(Keys(Json({"--agent", "alice", "ls", "--prefix", "a/"})).size(),
            3u);
  EXPECT_EQ(Keys(Json({"ls", "--scope", "global", "--prefix", "zzz"})).size(),
            0u);
}

TEST_F(CliTest, LsPagesWithCursor) {
  for (int i = 0; i < 5; ++i) Ok({"set", "k" + std::to_string(i), "v"});
  std::vector<std::string> seen;
  std::string cursor;
  int pages = 0;
  do {
    std::vector<std::string> args = {"ls", "--limit", "2"};
    if (!cursor.empty()) {
      args.push_back("--cursor");
      args.push_back(cursor);
    }
    nlohmann::json page = Json(args);
    EXPECT_LE(page["items"].size(), 2u);
    for (const auto& k : Keys(page)) seen.push_back(k);
    cursor = page["next_cursor"];
    ASSERT_LT(++pages, 10);
  } while (!cursor.empty());
  EXPECT_EQ(seen, (std::vector<std::string>{"k0", "k1", "k2", "k3", "k4"}));

  // Text mode tells how to continue.
  std::string text = Ok({"ls", "--limit", "2"});
  EXPECT_NE(text.find("-- more: ctxkit ls --cursor "), std::string::npos);
}

TEST_F(CliTest, LsTextIsAligned) {
  Ok({"set", "short", "x"});
  Ok({"set", "a-much-longer-key", std::string(5000, 'y')});
  std::string text = Ok({"ls"});
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    lines.push_back(text.substr(pos, nl - pos));
    pos = nl + 1;
  }
  ASSERT_EQ(lines.size(), 3u) << text;
  EXPECT_TRUE(lines[0].starts_with("KEY")) << text;
  // Every column starts at the same offset on each line.
  size_t scope_col = lines[0].find("SCOPE");
  EXPECT_EQ(lines[1].substr(scope_col, 6), "global");
  EXPECT_EQ(lines[2].substr(scope_col, 6), "global");
  EXPECT_NE(text.find("4.9 KiB"), std::string::npos) << text;
  // Empty store: no header, nothing at all.
  EXPECT_EQ(Ok({"ls", "--prefix", "nothing"}), "");
}

TEST_F(CliTest, StatAndVersionsText) {
  Ok({"set", "doc", "one"});
  Ok({"set", "doc", "two"});
  std::string stat = Ok({"stat", "doc"});
  EXPECT_NE(stat.find("scope"), std::string::npos);
  EXPECT_NE(stat.find("global"), std::string::npos);
  std::string versions = Ok({"versions", "doc"});
  EXPECT_TRUE(versions.starts_with("VER")) << versions;
  EXPECT_NE(versions.find("present"), std::string::npos);
  EXPECT_EQ(std::count(versions.begin(), versions.end(), '\n'), 3);
  nlohmann::json meta = Json({"stat", "doc"});
  EXPECT_EQ(meta["version"],
            Json({"versions", "doc"})["versions"][1]["version"]);
  EXPECT_EQ(meta["size_bytes"], 3);
}

TEST_F(CliTest, PromoteMovesAgentKeyToGlobalKeepingHistory) {
  std::string v1 =
      Ok({"--agent", "alice", "set", "plan", "draft", "--scope", "agent"});
  Ok({"--agent", "alice", "set", "plan", "final", "--scope", "agent"});
  EXPECT_EQ(Run({"get", "plan"}).exit_code, 1);  // Not global yet.

  nlohmann::json ref = Json({"--agent", "alice", "promote", "plan"});
  EXPECT_EQ(ref["scope"], "global");
  EXPECT_EQ(ref["key"], "plan");
  v1.pop_back();
  EXPECT_EQ(ref["id"], ParseRef(v1)->id);  // Same object.
  EXPECT_EQ(Ok({"get", "plan"}), "final");
  EXPECT_EQ(Ok({"--agent", "bob", "get", "plan"}), "final");
  EXPECT_EQ(Json({"versions", "plan"})["versions"].size(), 2u);
  EXPECT_EQ(Run({"promote", "plan"}).exit_code, 2);  // Needs --agent.
}

TEST_F(CliTest, StatsReportsCountsBytesAndMemoryTier) {
  Ok({"set", "a", "12345"});
  Ok({"set", "b", std::string(100 * 1024, 'z')});
  Ok({"set", "b", "again"});
  nlohmann::json st = Json({"stats"});
  for (const char* field :
       {"home", "objects", "live_objects", "versions", "content_bytes",
        "blob_files", "memory_ceiling_bytes", "memory_used_bytes",
        "cached_values", "session_objects", "session_resident_bytes",
        "session_spilled_bytes", "evictions", "spills"}) {
    EXPECT_TRUE(st.contains(field)) << field;
  }
  EXPECT_EQ(st["objects"], 2);
  EXPECT_EQ(st["live_objects"], 2);
  EXPECT_EQ(st["versions"], 3);
  EXPECT_GE(st["content_bytes"].get<uint64_t>(), 100u * 1024);
  EXPECT_EQ(st["memory_ceiling_bytes"], 256ull << 20);
  EXPECT_EQ(st["home"], home_);
  std::string text = Ok({"stats"});
  EXPECT_NE(text.find("memory tier"), std::string::npos) << text;
  EXPECT_NE(text.find("objects"), std::string::npos) << text;
}

}  // namespace
}  // namespace ctxkit::cli::testing
