// Every tool that reads by key also reads by ref: the same answer either
// way, a clear error for a bad ref, and a hint when a ref is passed as a key.

#include <string>
#include <vector>

#include "ctxkit/ref.h"
#include "mcp/mcp_test_util.h"

namespace ctxkit::mcp::testing {
namespace {

using KeyOrRefTest = McpTest;

// The structured result of a call that must succeed.
Json Structured(Client& c, const std::string& tool, const Json& args) {
  return c.Ok(tool, args)["structuredContent"];
}

// Writes two versions of "doc"; returns the static ref of the first.
std::string TwoVersions(Client& c) {
  Json r = c.Ok("set", {{"key", "doc"}, {"value", "first version\n"}});
  c.Ok("set", {{"key", "doc"}, {"value", "second version, longer\n"}});
  return r["structuredContent"]["ref"];
}

TEST_F(KeyOrRefTest, RefToolAnswersAlikeForKeyAndRef) {
  Client& c = Ready();
  std::string v1 = TwoVersions(c);
  Json by_key = Structured(c, "ref", {{"key", "doc"}});
  std::string dynamic = by_key["ref"];
  ASSERT_TRUE(ParseRef(dynamic).ok());
  EXPECT_FALSE(ParseRef(dynamic)->is_static());
  EXPECT_EQ(Structured(c, "ref", {{"ref", dynamic}}), by_key);
  EXPECT_EQ(Structured(c, "ref", {{"ref", v1}}),
            Structured(c, "ref", {{"key", "doc"}, {"version", 1}}));
  EXPECT_EQ(Client::Text(c.Ok("ref", {{"ref", v1}})), v1);
}

TEST_F(KeyOrRefTest, VersionsAnswersAlikeForKeyAndRef) {
  Client& c = Ready();
  std::string v1 = TwoVersions(c);
  Json by_key = Structured(c, "versions", {{"key", "doc"}});
  ASSERT_EQ(by_key["versions"].size(), 2u);
  EXPECT_EQ(Structured(c, "versions", {{"ref", v1}}), by_key);
  std::string dynamic = Structured(c, "ref", {{"key", "doc"}})["ref"];
  EXPECT_EQ(Structured(c, "versions", {{"ref", dynamic}}), by_key);
  EXPECT_EQ(Client::Text(c.Ok("versions", {{"ref", v1}})),
            Client::Text(c.Ok("versions", {{"key", "doc"}})));
}

// set's if_version: an agent that read version N replaces exactly N.
TEST_F(KeyOrRefTest, SetIfVersionIsACompareAndSet) {
  Client& c = Ready();
  TwoVersions(c);
  Json third = Structured(
      c, "set", {{"key", "doc"}, {"value", "third"}, {"if_version", 2}});
  EXPECT_EQ(third["version"], 3);
  std::string err =
      c.Fails("set", {{"key", "doc"}, {"value", "lost"}, {"if_version", 2}});
  EXPECT_NE(err.find("at version 3"), std::string::npos) << err;
  EXPECT_EQ(Client::Text(c.Ok("get", {{"key", "doc"}})), "third");
}

TEST_F(KeyOrRefTest, FindRelevantAnswersAlikeForKeyAndRef) {
  Client& c = Ready();
  c.Ok("set", {{"key", "auth"},
               {"value", "The token refresh runs every hour.\nOther text.\n"}});
  c.Ok("set", {{"key", "other"}, {"value", "token refresh elsewhere\n"}});
  std::string ref = Structured(c, "ref", {{"key", "auth"}})["ref"];
  Json by_key = Structured(c, "find_relevant",
                           {{"query", "token refresh"}, {"key", "auth"}});
  ASSERT_EQ(by_key["hits"].size(), 1u);
  EXPECT_EQ(by_key["hits"][0]["key"], "auth");
  EXPECT_EQ(by_key["variables_covered"], 1);
  EXPECT_EQ(Structured(c, "find_relevant",
                       {{"query", "token refresh"}, {"ref", ref}}),
            by_key);
}

TEST_F(KeyOrRefTest, RefIsACapabilityAcrossAgents) {
  Client& a = Ready("agent-a", "sess-a");
  Client& b = Ready("agent-b", "sess-b");
  std::string ref =
      a.Ok("set", {{"key", "secret"},
                   {"value", "token refresh notes\n"},
                   {"scope", "agent"}})["structuredContent"]["ref"];
  b.Fails("versions", {{"key", "secret"}});
  b.Fails("find_relevant", {{"query", "token refresh"}, {"key", "secret"}});
  EXPECT_EQ(Structured(b, "versions", {{"ref", ref}}),
            Structured(a, "versions", {{"key", "secret"}}));
  EXPECT_EQ(Structured(b, "find_relevant",
                       {{"query", "token refresh"}, {"ref", ref}}),
            Structured(a, "find_relevant",
                       {{"query", "token refresh"}, {"key", "secret"}}));
  EXPECT_EQ(Structured(b, "ref", {{"ref", ref}})["ref"], ref);
}

// Another client's values cannot be read by guessing refs: the ids are
// sequential, but only a ref carrying the store's tag for that object
// crosses into a scope the client does not own (docs/security.md). A
// refused guess answers as a ref to nothing does, so it does not tell
// which ids (or session-only counters) name another client's objects.
TEST_F(KeyOrRefTest, GuessedRefsReadNothingOfAnotherClient) {
  Client& a = Ready("agent-a", "sess-a");
  Client& b = Ready("agent-b", "sess-b");
  struct Case {
    const char* scope;
    bool persist;
  };
  std::vector<std::string> refs;
  for (Case c :
       {Case{"agent", true}, Case{"session", true}, Case{"session", false}}) {
    refs.push_back(
        a.Ok("set", {{"key", "secret"},
                     {"value", std::string("s3cret ") + c.scope},
                     {"scope", c.scope},
                     {"persist", c.persist}})["structuredContent"]["ref"]);
  }
  std::string own =
      b.Ok("set", {{"key", "mine"},
                   {"value", "bob's"},
                   {"scope", "agent"}})["structuredContent"]["ref"];
  const std::string own_tag = ParseRef(own)->tag;
  for (const std::string& wire : refs) {
    Result<Ref> ref = ParseRef(wire);
    ASSERT_TRUE(ref.ok()) << wire;
    for (const std::string& tag : {std::string(), own_tag}) {
      Ref guess = *ref;
      guess.tag = tag;
      Ref nothing = guess;  // The same fields, an id no object has.
      nothing.id = guess.is_session_only()
                       ? guess.id.substr(0, guess.id.find('.') + 1) + "zzzz"
                       : "zzzzzz";
      for (const char* tool : {"get", "peek", "versions"}) {
        std::string error = b.Fails(tool, {{"ref", FormatRef(guess)}});
        EXPECT_NE(error.find("not_found"), std::string::npos) << error;
        EXPECT_NE(error.find("capability tag"), std::string::npos) << error;
        EXPECT_EQ(error.find("s3cret"), std::string::npos) << error;
        EXPECT_EQ(error.find("agent-a"), std::string::npos) << error;
        EXPECT_EQ(error.find("mcp-"), std::string::npos) << error;
        EXPECT_EQ(error, b.Fails(tool, {{"ref", FormatRef(nothing)}}))
            << tool << " " << wire;
      }
    }
    // The ref exactly as the store gave it is the capability.
    EXPECT_EQ(Client::Text(b.Ok("get", {{"ref", wire}})).substr(0, 6),
              "s3cret");
  }
}

TEST_F(KeyOrRefTest, BadRefsGiveClearErrors) {
  Client& c = Ready();
  std::string v1 = TwoVersions(c);
  for (const char* tool : {"ref", "versions", "find_relevant"}) {
    Json args = {{"ref", "ck:nonsense"}};
    if (std::string(tool) == "find_relevant") args["query"] = "version";
    std::string error = c.Fails(tool, args);
    EXPECT_NE(error.find("invalid_argument"), std::string::npos) << error;
    EXPECT_NE(error.find("ref: not a ref"), std::string::npos) << error;
    args["ref"] = v1;
    args["scope"] = "global";
    error = c.Fails(tool, args);
    EXPECT_NE(error.find("\"scope\" applies to \"key\""), std::string::npos)
        << error;
    args.erase("scope");
    args["key"] = "doc";
    error = c.Fails(tool, args);
    EXPECT_NE(error.find("exactly one of"), std::string::npos) << error;
  }
  c.Fails("ref", {{"ref", v1}, {"version", 2}});
  c.Fails("ref", Json::object());
  c.Fails("versions", Json::object());
  // A ref to a key that is gone no longer resolves, as the key does not.
  c.Ok("remove", {{"key", "doc"}});
  std::string dynamic =
      ParseRef(v1).ok() ? FormatRef(ParseRef(v1)->Dynamic()) : "";
  EXPECT_NE(c.Fails("ref", {{"ref", dynamic}}).find("not_found"),
            std::string::npos);
}

TEST_F(KeyOrRefTest, RefPassedAsKeySaysHowToPassIt) {
  Client& c = Ready();
  std::string v1 = TwoVersions(c);
  for (const char* tool : {"get", "peek", "ref", "versions", "tokens",
                           "summarize", "find_relevant"}) {
    Json args = {{"key", v1}};
    if (std::string(tool) == "find_relevant") args["query"] = "version";
    std::string error = c.Fails(tool, args);
    EXPECT_NE(error.find("not_found"), std::string::npos) << tool << error;
    // The library's hint, the same in every face.
    EXPECT_NE(error.find("is a ref, not a key: give it as a ref, or give its "
                         "key 'doc' with scope global and version 1"),
              std::string::npos)
        << tool << ": " << error;
  }
  // A tool that takes only a key: the same hint.
  std::string removing = c.Fails("remove", {{"key", v1}});
  EXPECT_NE(removing.find("is a ref, not a key: give it as a ref, or give its "
                          "key 'doc' with scope global and version 1"),
            std::string::npos)
      << removing;
  // Not a ref: no hint.
  std::string error = c.Fails("get", {{"key", "ck:plain-key"}});
  EXPECT_EQ(error.find("is a ref"), std::string::npos) << error;
}

}  // namespace
}  // namespace ctxkit::mcp::testing
