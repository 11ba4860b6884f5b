// set, get, ref, resolve, rm, append through the real binary.

#include <string>

#include "cli/cli_test_util.h"
#include "cli/digest.h"
#include "ctxkit/ref.h"

namespace ctxkit::cli::testing {
namespace {

// Every byte value, NULs and CR/LF included, in a size that spans several
// pipe buffers.
std::string BinaryBlob(size_t size) {
  std::string data;
  data.reserve(size);
  for (size_t i = 0; i < size; ++i) {
    data.push_back(static_cast<char>((i * 131 + i / 256) & 0xff));
  }
  data.replace(0, 6, std::string("\0\0\r\n\xff\x1b", 6));
  return data;
}

TEST_F(CliTest, SetPrintsRefThatGetAndResolveRead) {
  std::string out = Ok({"set", "greeting", "hello world"});
  ASSERT_FALSE(out.empty());
  EXPECT_EQ(out.back(), '\n');
  std::string wire = Chomp(out);
  Result<Ref> ref = ParseRef(wire);
  ASSERT_TRUE(ref.ok()) << wire;
  EXPECT_EQ(ref->key, "greeting");
  EXPECT_EQ(ref->size_bytes, 11u);
  EXPECT_TRUE(ref->scope.is_global());
  // The static ref of the version this set wrote; `ref KEY` is dynamic.
  EXPECT_EQ(ref->version, 1u);

  EXPECT_EQ(Ok({"get", "greeting"}), "hello world");
  EXPECT_EQ(Ok({"resolve", wire}), "hello world");
  EXPECT_EQ(Chomp(Ok({"ref", "greeting"})), FormatRef(ref->Dynamic()));
}

TEST_F(CliTest, IfVersionIsACompareAndSet) {
  Ok({"set", "plan", "v1"});
  Ok({"set", "plan", "v2", "--if-version", "1"});
  ProcessResult stale = Run({"set", "plan", "lost", "--if-version", "1"});
  EXPECT_EQ(stale.exit_code, 4) << stale.err;
  EXPECT_NE(stale.err.find("at version 2"), std::string::npos) << stale.err;
  EXPECT_EQ(Ok({"get", "plan"}), "v2");
  ProcessResult absent = Run({"set", "new", "x", "--if-version", "1"});
  EXPECT_EQ(absent.exit_code, 4) << absent.err;
  EXPECT_EQ(Run({"get", "new"}).exit_code, 1);
}

TEST_F(CliTest, BinaryValueFromStdinIsByteExact) {
  const std::string data = BinaryBlob(300 * 1024);
  std::string wire = Chomp(Ok({"set", "bin"}, data));
  EXPECT_EQ(Ok({"get", "bin"}), data);
  EXPECT_EQ(Ok({"resolve", wire}), data);

  // "-" reads stdin too; a small value stays inline, a large one is a blob.
  Ok({"set", "small", "-"}, std::string("a\0b", 3));
  EXPECT_EQ(Ok({"get", "small"}), std::string("a\0b", 3));

  nlohmann::json versions = Json({"versions", "bin"});
  ASSERT_EQ(versions["versions"].size(), 1u);
  EXPECT_EQ(versions["versions"][0]["sha256"], Sha256Hex(data));
  EXPECT_EQ(versions["versions"][0]["size_bytes"], data.size());
}

TEST_F(CliTest, EmptyValueFromStdin) {
  Ok({"set", "empty"}, "");
  EXPECT_EQ(Ok({"get", "empty"}), "");
  EXPECT_EQ(Json({"stat", "empty"})["size_bytes"], 0);
}

TEST_F(CliTest, ValueStartingWithDashAfterDoubleDash) {
  Ok({"set", "neg", "--", "-5"});
  EXPECT_EQ(Ok({"get", "neg"}), "-5");
}

TEST_F(CliTest, SetFromFile) {
  const std::string data = BinaryBlob(5000);
  std::string file = tmp_.path() + "/input.bin";
  {
    std::FILE* f = std::fopen(file.c_str(), "wb");
    ASSERT_NE(f, nullptr);
    std::fwrite(data.data(), 1, data.size(), f);
    std::fclose(f);
  }
  Ok({"set", "fromfile", "--file", file});
  EXPECT_EQ(Ok({"get", "fromfile"}), data);
}

TEST_F(CliTest, VersionsStaticAndDynamicRefs) {
  std::string written = Chomp(Ok({"set", "doc", "one"}));
  std::string dyn = Chomp(Ok({"ref", "doc"}));
  Ok({"set", "doc", "two!"});
  Ok({"set", "doc", "three"});

  nlohmann::json v = Json({"versions", "doc"});
  EXPECT_EQ(v["key"], "doc");
  ASSERT_EQ(v["versions"].size(), 3u);
  const char* contents[] = {"one", "two!", "three"};
  uint64_t first = v["versions"][0]["version"];
  for (size_t i = 0; i < 3; ++i) {
    const nlohmann::json& e = v["versions"][i];
    EXPECT_EQ(e["version"], first + i);
    EXPECT_EQ(e["state"], "present");
    EXPECT_EQ(e["type"], "text");
    EXPECT_EQ(e["sha256"], Sha256Hex(contents[i]));
    EXPECT_EQ(e["size_bytes"], std::string(contents[i]).size());
    EXPECT_TRUE(e.contains("created"));
    EXPECT_TRUE(e.contains("producer"));
  }

  // A dynamic ref follows the latest version.
  EXPECT_EQ(Ok({"resolve", dyn}), "three");
  // A static ref keeps reading its version after later sets.
  std::string v1 =
      Chomp(Ok({"ref", "doc", "--version", std::to_string(first)}));
  Result<Ref> pinned = ParseRef(v1);
  ASSERT_TRUE(pinned.ok()) << v1;
  EXPECT_EQ(pinned->version, first);
  EXPECT_EQ(pinned->size_bytes, 3u);
  Ok({"set", "doc", "four"});
  EXPECT_EQ(Ok({"resolve", v1}), "one");
  EXPECT_EQ(Ok({"resolve", written}), "one");
  EXPECT_EQ(v1, written);
  EXPECT_EQ(Ok({"resolve", dyn}), "four");
  EXPECT_EQ(Ok({"get", "doc", "--version", std::to_string(first + 1)}), "two!");

  nlohmann::json ref = Json({"ref", "doc", "--version", std::to_string(first)});
  EXPECT_EQ(ref["ref"], v1);
  EXPECT_EQ(ref["static"], true);
  EXPECT_EQ(ref["session_only"], false);
}

TEST_F(CliTest, RemoveWritesTombstoneAndKeepsHistory) {
  Ok({"set", "gone", "soon"});
  std::string v1 = Chomp(Ok({"ref", "gone", "--version", "1"}));
  EXPECT_EQ(Ok({"rm", "gone"}), "removed gone\n");
  ProcessResult r = Run({"get", "gone"});
  EXPECT_EQ(r.exit_code, 1) << r.err;

  nlohmann::json v = Json({"versions", "gone"});
  ASSERT_EQ(v["versions"].size(), 2u);
  EXPECT_EQ(v["versions"][1]["state"], "deleted");
  EXPECT_EQ(Ok({"resolve", v1}), "soon");

  // Removing again: nothing live under the key.
  EXPECT_EQ(Run({"rm", "gone"}).exit_code, 1);
  // Set after remove revives the same object.
  std::string revived = Chomp(Ok({"set", "gone", "back"}));
  EXPECT_EQ(ParseRef(revived)->id, ParseRef(v1)->id);
  EXPECT_EQ(Ok({"get", "gone"}), "back");
  EXPECT_EQ(Json({"rm", "gone"})["removed"], true);
}

TEST_F(CliTest, AppendBuildsAStreamReadableByRange) {
  Ok({"append", "log", "alpha "});
  Ok({"append", "log"}, std::string("beta\0\n", 6));
  std::string wire = Chomp(Ok({"append", "log", "-"}, "gamma"));
  const std::string all = std::string("alpha beta\0\ngamma", 17);
  EXPECT_EQ(Ok({"get", "log"}), all);
  EXPECT_EQ(Json({"stat", "log"})["type"], "stream");
  EXPECT_EQ(ParseRef(wire)->type, ValueType::kStream);

  EXPECT_EQ(Ok({"get", "log", "--offset", "6", "--length", "4"}), "beta");
  EXPECT_EQ(Ok({"get", "log", "--offset", "12"}), "gamma");
  EXPECT_EQ(Ok({"resolve", wire, "--length", "5"}), "alpha");
  EXPECT_EQ(Ok({"get", "log", "--offset", "1000"}), "");
  EXPECT_EQ(Json({"versions", "log"})["versions"].size(), 3u);
}

TEST_F(CliTest, TypesTagsAndScopesAreRecorded) {
  nlohmann::json ref = Json({"set", "cfg", "{\"a\": [1, 2]}", "--type", "json",
                             "--tag", "x", "--tag", "y"});
  EXPECT_EQ(ref["type"], "json");
  EXPECT_EQ(ref["key"], "cfg");
  EXPECT_EQ(ref["scope"], "global");
  EXPECT_EQ(ref["version"], 1);
  EXPECT_EQ(ref["static"], true);
  EXPECT_TRUE(ref["ref"].get<std::string>().starts_with("ck:"));
  nlohmann::json stat = Json({"stat", "cfg"});
  EXPECT_EQ(stat["tags"], nlohmann::json({"x", "y"}));
  EXPECT_EQ(stat["persistent"], true);

  for (const char* type : {"text", "memory", "result"}) {
    EXPECT_EQ(
        Json({"set", std::string("t/") + type, "v", "--type", type})["type"],
        type);
  }

  nlohmann::json mine =
      Json({"--agent", "alice", "set", "note", "private", "--scope", "agent"});
  EXPECT_EQ(mine["scope"], "agent:alice");
  nlohmann::json sess =
      Json({"--session", "s1", "set", "note", "scratch", "--scope", "session"});
  EXPECT_EQ(sess["scope"], "session:s1");
  // Lookup order: session, then agent, then global.
  Ok({"set", "note", "public"});
  EXPECT_EQ(Ok({"--agent", "alice", "--session", "s1", "get", "note"}),
            "scratch");
  EXPECT_EQ(Ok({"--agent", "alice", "get", "note"}), "private");
  EXPECT_EQ(Ok({"get", "note"}), "public");
  EXPECT_EQ(Ok({"--agent", "alice", "get", "note", "--scope", "global"}),
            "public");
}

TEST_F(CliTest, RefIsPassedAcrossAgents) {
  std::string wire = Chomp(
      Ok({"--agent", "alice", "set", "secret", "s3cr3t", "--scope", "agent"}));
  // Bob cannot name it, but the ref is a capability.
  EXPECT_NE(Run({"--agent", "bob", "get", "secret"}).exit_code, 0);
  EXPECT_EQ(Ok({"--agent", "bob", "resolve", wire}), "s3cr3t");
}

TEST_F(CliTest, ExistingValueIsPreservedAcrossProcesses) {
  Ok({"set", "durable", "still here"});
  // Each Run is a new process that reopens the store.
  for (int i = 0; i < 3; ++i) EXPECT_EQ(Ok({"get", "durable"}), "still here");
}

TEST_F(CliTest, DuShowsBytesByScopeTypeAndTier) {
  Ok({"set", "a", "12345"});
  Ok({"set", "a", "1234567"});
  Ok({"--agent", "ann", "set", "notes", "abc", "--scope", "agent"});
  nlohmann::json du = Json({"du"});
  ASSERT_TRUE(du["rows"].is_array()) << du.dump();
  uint64_t global_text = 0, agent_text = 0;
  for (const auto& r : du["rows"]) {
    if (r["tier"] != "inline" || r["type"] != "text") continue;
    if (r["scope"] == "global") global_text = r["bytes"];
    if (r["scope"] == "agent:ann") agent_text = r["bytes"];
  }
  EXPECT_EQ(global_text, 12u);
  EXPECT_EQ(agent_text, 3u);
  EXPECT_EQ(du["content_bytes"], 15u);
  std::string text = Ok({"du"});
  EXPECT_NE(text.find("agent:ann"), std::string::npos) << text;
  EXPECT_NE(text.find("content stored"), std::string::npos) << text;
}

// Every read verb that takes a KEY also takes a ref, which is a capability:
// alice reads bob's agent-scoped value through the ref bob handed her.
TEST_F(CliTest, ReadVerbsTakeARefInPlaceOfAKey) {
  std::string ref = Chomp(Ok({"--agent", "bob", "set", "secret",
                              "line1\nline2\nline3\n", "--scope", "agent"}));
  auto as_alice = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"--agent", "alice"});
    return args;
  };
  EXPECT_EQ(Ok(as_alice({"get", ref})), "line1\nline2\nline3\n");
  EXPECT_EQ(Ok(as_alice({"get", ref, "--offset", "6", "--length", "5"})),
            "line2");
  EXPECT_EQ(Ok(as_alice({"peek", ref, "1:"})), "line2\nline3\n");
  EXPECT_EQ(Json(as_alice({"stat", ref}))["scope"], "agent:bob");
  EXPECT_EQ(Json(as_alice({"versions", ref}))["versions"].size(), 1u);
  EXPECT_EQ(Json(as_alice({"len", ref}))["lines"], 3);
  EXPECT_EQ(Chomp(Ok(as_alice({"ref", ref}))), ref);
  EXPECT_NE(Ok(as_alice({"search", "line2", "--key", ref})).find("line2"),
            std::string::npos);
  EXPECT_FALSE(Chomp(Ok(as_alice({"tokens", ref}))).empty());
  // By name the scope stays closed; a ref takes no --scope.
  EXPECT_EQ(Run(as_alice({"get", "secret", "--scope", "agent:bob"})).exit_code,
            3);
  EXPECT_EQ(Run(as_alice({"get", ref, "--scope", "global"})).exit_code, 2);
}

}  // namespace
}  // namespace ctxkit::cli::testing
