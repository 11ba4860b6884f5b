// Bad input: invalid keys, JSON, tags, options and ids are rejected with
// InvalidArgument and leave the store exactly as it was.

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "store/test_util.h"

namespace ctxkit::testing {
namespace {

std::vector<std::pair<std::string, std::string>> InvalidKeys() {
  return {
      {"empty", ""},
      {"257 bytes", std::string(257, 'k')},
      {"257 bytes of UTF-8", std::string(255, 'k') + "\xc3\xa9"},
      {"NUL", std::string("a\0b", 3)},
      {"leading NUL", std::string("\0ab", 3)},
      {"newline", "a\nb"},
      {"carriage return", "a\rb"},
      {"tab", "a\tb"},
      {"escape", "a\x1b[31m"},
      {"0x01", "\x01"},
      {"0x1f", "x\x1f"},
      {"DEL", "a\x7f"},
      {"lone continuation byte", "a\x80"},
      {"0xff", "\xff"},
      {"truncated 2-byte", "a\xc3"},
      {"truncated 3-byte", "\xe2\x82"},
      {"truncated 4-byte", "\xf0\x9f\x98"},
      {"overlong slash", "\xc0\xaf"},
      {"overlong 3-byte", "\xe0\x80\xaf"},
      {"UTF-16 surrogate", "\xed\xa0\x80"},
      {"above U+10FFFF", "\xf4\x90\x80\x80"},
      {"0xf5 lead byte", "\xf5\x80\x80\x80"},
  };
}

std::vector<std::string> ValidKeys() {
  return {
      "a",
      std::string(256, 'k'),
      std::string(254, 'k') + "\xc3\xa9",          // 256 bytes, UTF-8.
      std::string(252, 'k') + "\xf0\x9f\x98\x80",  // 256 bytes, emoji.
      "with space",
      "with:colons:and=equals",
      "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e/\xc3\xa9t\xc3\xa9",
      "\xef\xbf\xbd",      // U+FFFD.
      "\xf4\x8f\xbf\xbf",  // U+10FFFF.
      " ",
      "~tilde",
      "ck:1:0:t:1:g:k",
  };
}

class ValidationTest : public StoreTest {
 protected:
  void SetUp() override {
    StoreTest::SetUp();
    // Something in every scope, a removed object and a stream, so that
    // "unchanged" has something to compare.
    ASSERT_OK(view().Set("existing", "v1"));
    ASSERT_OK(view().Set("existing", "v2"));
    SetOptions json;
    json.type = ValueType::kJson;
    ASSERT_OK(view().Set("doc.json", "{\"ok\": true}", json));
    SetOptions agent;
    agent.scope = "agent";
    ASSERT_OK(view().Set("mine", "a", agent));
    SetOptions session;
    session.scope = "session";
    ASSERT_OK(view().Set("sess", "s", session));
    SetOptions tmp;
    tmp.persist = false;
    ASSERT_OK(view().Set("tmp", "t", tmp));
    ASSERT_OK(view().Set("removed", "r"));
    ASSERT_OK(view().Remove("removed"));
    ASSERT_OK(view().Append("stream", "abc"));
  }
};

TEST_F(ValidationTest, ValidateKeyMatchesTheRules) {
  for (const auto& [name, key] : InvalidKeys()) {
    EXPECT_THAT(ValidateKey(key), StatusIs(StatusCode::kInvalidArgument))
        << name;
  }
  for (const std::string& key : ValidKeys()) {
    EXPECT_OK(ValidateKey(key)) << key;
  }
}

TEST_F(ValidationTest, InvalidKeysRejectedByEveryVerbAndStoreUnchanged) {
  const std::string before = Snapshot(view());
  ASSERT_OK_AND_ASSIGN(Ref existing, view().RefOf("existing"));
  for (const auto& [name, key] : InvalidKeys()) {
    SCOPED_TRACE(name);
    EXPECT_THAT(view().Set(key, "value"),
                StatusIs(StatusCode::kInvalidArgument));
    SetOptions tmp;
    tmp.persist = false;
    EXPECT_THAT(view().Set(key, "value", tmp),
                StatusIs(StatusCode::kInvalidArgument));
    SetOptions agent;
    agent.scope = "agent";
    EXPECT_THAT(view().Set(key, "value", agent),
                StatusIs(StatusCode::kInvalidArgument));
    EXPECT_THAT(view().Append(key, "bytes"),
                StatusIs(StatusCode::kInvalidArgument));
    EXPECT_THAT(view().Get(key), StatusIs(StatusCode::kInvalidArgument));
    EXPECT_THAT(view().RefOf(key), StatusIs(StatusCode::kInvalidArgument));
    EXPECT_THAT(view().Stat(key), StatusIs(StatusCode::kInvalidArgument));
    EXPECT_THAT(view().Remove(key), StatusIs(StatusCode::kInvalidArgument));
    EXPECT_THAT(view().Versions(key), StatusIs(StatusCode::kInvalidArgument));
    EXPECT_THAT(view().Promote(key), StatusIs(StatusCode::kInvalidArgument));
    // A ref carrying a bad key does not resolve to something else.
    Ref forged = existing;
    forged.key = key;
    EXPECT_FALSE(view().Resolve(forged).ok());
  }
  EXPECT_EQ(Snapshot(view()), before);
}

TEST_F(ValidationTest, ValidKeysAreAccepted) {
  for (const std::string& key : ValidKeys()) {
    ASSERT_OK(view().Set(key, "value of " + key)) << key;
    ASSERT_OK_AND_ASSIGN(std::string got, view().Get(key));
    EXPECT_EQ(got, "value of " + key);
    ASSERT_OK_AND_ASSIGN(Ref r, view().RefOf(key));
    EXPECT_EQ(r.key, key);
    ASSERT_OK_AND_ASSIGN(Ref parsed, ParseRef(FormatRef(r)));
    ASSERT_OK_AND_ASSIGN(got, view().Resolve(parsed));
    EXPECT_EQ(got, "value of " + key);
  }
  // Keys are exact byte strings: no case folding or normalization.
  ASSERT_OK(view().Set("Case", "upper"));
  ASSERT_OK(view().Set("case", "lower"));
  ASSERT_OK(view().Set("e\xcc\x81", "decomposed"));  // e + U+0301.
  ASSERT_OK(view().Set("\xc3\xa9", "composed"));     // U+00E9.
  ASSERT_OK_AND_ASSIGN(std::string v, view().Get("Case"));
  EXPECT_EQ(v, "upper");
  ASSERT_OK_AND_ASSIGN(v, view().Get("e\xcc\x81"));
  EXPECT_EQ(v, "decomposed");
}

TEST_F(ValidationTest, InvalidJsonRejectedAndStoreUnchanged) {
  const std::string before = Snapshot(view());
  const std::vector<std::string> bad = {
      "",
      " ",
      "{",
      "}",
      "[1,]",
      "{\"a\":1,}",
      "{'a': 1}",
      "{a: 1}",
      "nul",
      "True",
      "undefined",
      "NaN",
      "01",
      "1.",
      ".5",
      "\"unterminated",
      "\"bad escape \\x\"",
      "[1] [2]",
      "{\"a\":1} trailing",
      "// comment\n1",
      std::string("\"nul\0inside\"", 13),
      "\"\xff\"",
  };
  SetOptions json;
  json.type = ValueType::kJson;
  for (const std::string& value : bad) {
    EXPECT_THAT(view().Set("new.json", value, json),
                StatusIs(StatusCode::kInvalidArgument))
        << "accepted invalid JSON: " << value;
    // Also as a new version of an existing JSON object.
    EXPECT_THAT(view().Set("doc.json", value, json),
                StatusIs(StatusCode::kInvalidArgument))
        << value;
    SetOptions tmp = json;
    tmp.persist = false;
    EXPECT_THAT(view().Set("tmp.json", value, tmp),
                StatusIs(StatusCode::kInvalidArgument))
        << value;
  }
  EXPECT_EQ(Snapshot(view()), before);
  EXPECT_THAT(view().Get("new.json"), StatusIs(StatusCode::kNotFound));
  ASSERT_OK_AND_ASSIGN(std::string v, view().Get("doc.json"));
  EXPECT_EQ(v, "{\"ok\": true}");
}

TEST_F(ValidationTest, ValidJsonIsStoredByteExact) {
  SetOptions json;
  json.type = ValueType::kJson;
  for (std::string value : {"1", "-0.5e10", "\"s\"", "null", "true", "[]", "{}",
                            "  {\"a\" : [1, 2, {\"b\": null}]}\n",
                            "\"\\u00e9\\n\"", "\"\xc3\xa9\"", "[1,\n  2]"}) {
    ASSERT_OK(view().Set("v.json", value, json)) << value;
    ASSERT_OK_AND_ASSIGN(std::string got, view().Get("v.json"));
    EXPECT_EQ(got, value) << "JSON must not be reformatted";
  }
  ASSERT_OK_AND_ASSIGN(ObjectMeta m, view().Stat("v.json"));
  EXPECT_EQ(m.type, ValueType::kJson);
}

TEST_F(ValidationTest, NonJsonTypesAreNotValidatedAsJson) {
  for (ValueType t :
       {ValueType::kText, ValueType::kMemory, ValueType::kResult}) {
    SetOptions o;
    o.type = t;
    EXPECT_OK(
        view().Set("plain-" + std::string(ValueTypeName(t)), "{not json", o));
  }
}

TEST_F(ValidationTest, InvalidTagsRejectedAndStoreUnchanged) {
  const std::string before = Snapshot(view());
  for (std::vector<std::string> tags :
       std::vector<std::vector<std::string>>{{""},
                                             {std::string(65, 't')},
                                             {"ok", "bad\ntag"},
                                             {"\x01"},
                                             {std::string("nul\0", 4)},
                                             {"\xff"}}) {
    SetOptions o;
    o.tags = tags;
    EXPECT_THAT(view().Set("tagged", "v", o),
                StatusIs(StatusCode::kInvalidArgument));
    EXPECT_THAT(view().Set("existing", "v3", o),
                StatusIs(StatusCode::kInvalidArgument));
    ListFilter f;
    f.tags = tags;
    EXPECT_THAT(view().List(f), StatusIs(StatusCode::kInvalidArgument));
  }
  EXPECT_EQ(Snapshot(view()), before);
  SetOptions ok;
  ok.tags = {std::string(64, 't'), "with space", "\xc3\xa9"};
  EXPECT_OK(view().Set("tagged", "v", ok));
}

TEST(ValidationReopenTest, RejectedCallsLeaveStoreUnchangedAcrossReopen) {
  TempDir dir;
  Options o = OptionsFor(dir.path() + "/home");
  std::string before;
  {
    auto store = Store::Open(o);
    ASSERT_OK(store);
    auto view = (*store)->OpenView("alice", "s1");
    ASSERT_OK(view);
    SetOptions json;
    json.type = ValueType::kJson;
    ASSERT_OK(view->Set("existing", "[1]", json));
    ASSERT_OK(view->Set("existing", "[1, 2]", json));
    ASSERT_OK(view->Append("stream", "abc"));
    before = Snapshot(*view);
    EXPECT_FALSE(view->Set("existing", "{bad", json).ok());
    EXPECT_FALSE(view->Set(std::string(300, 'x'), "v").ok());
    EXPECT_FALSE(view->Append("existing", "x").ok());  // Not a stream.
    SetOptions text;
    text.type = ValueType::kText;
    EXPECT_FALSE(view->Set("stream\n", "v", text).ok());
    SetOptions bad_scope;
    bad_scope.scope = "agent:other";
    EXPECT_FALSE(view->Set("existing", "[3]", bad_scope).ok());
    SetOptions bad_tag = json;
    bad_tag.tags = {""};
    EXPECT_FALSE(view->Set("existing", "[3]", bad_tag).ok());
    EXPECT_EQ(Snapshot(*view), before);
  }
  auto store = Store::Open(o);
  ASSERT_OK(store);
  auto view = (*store)->OpenView("alice", "s1");
  ASSERT_OK(view);
  EXPECT_EQ(Snapshot(*view), before);
}

TEST(OpenTest, CreatesHomeWithParentsAndFailsOnAFile) {
  TempDir dir;
  Options o = OptionsFor(dir.path() + "/a/b/c");
  auto store = Store::Open(o);
  ASSERT_OK(store);
  EXPECT_TRUE(std::filesystem::is_directory(dir.path() + "/a/b/c"));
  EXPECT_FALSE((*store)->home().empty());
  store = Status::Internal("drop");  // Close it.

  std::string file = dir.path() + "/plain-file";
  { std::ofstream(file) << "x"; }
  auto bad = Store::Open(OptionsFor(file));
  EXPECT_THAT(bad, StatusIs(StatusCode::kIoError));
}

TEST(OpenTest, AnEmptyHomeIsRefusedNotGuessedFromTheEnvironment) {
  TempDir dir;
  ::setenv("CTXKIT_HOME", (dir.path() + "/from-env").c_str(), 1);
  auto store = Store::Open(Options{});
  ::unsetenv("CTXKIT_HOME");
  EXPECT_THAT(store, StatusIs(StatusCode::kInvalidArgument));
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/from-env"));
}

}  // namespace
}  // namespace ctxkit::testing
