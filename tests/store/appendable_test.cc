// Appendable types beyond streams: Append creates and continues a chat,
// Set of a chat begins a run that appends continue, only the appended bytes
// are stored, and SetOptions::expected_version makes an append conditional.

#include <sqlite3.h>

#include <string>
#include <vector>

#include "store/test_util.h"

namespace ctxkit::testing {
namespace {

class AppendableTest : public StoreTest {};

SetOptions Chat(std::string scope = "") {
  SetOptions o;
  o.scope = std::move(scope);
  o.type = ValueType::kChat;
  return o;
}

TEST_F(AppendableTest, AppendCreatesAndContinuesAChat) {
  const std::vector<std::string> lines = {"{\"m\":1}\n", "{\"m\":2}\n",
                                          "{\"m\":3}\n"};
  std::string all;
  for (size_t i = 0; i < lines.size(); ++i) {
    // The type applies on creation; later appends keep the object's type
    // whatever the options say.
    SetOptions o = i == 0 ? Chat() : SetOptions{};
    ASSERT_OK_AND_ASSIGN(Ref r, view().Append("chat", lines[i], o));
    all += lines[i];
    EXPECT_EQ(r.type, ValueType::kChat);
    EXPECT_EQ(r.version, i + 1);
    EXPECT_EQ(r.size_bytes, all.size());
  }
  ASSERT_OK_AND_ASSIGN(std::vector<VersionMeta> vs, view().Versions("chat"));
  ASSERT_EQ(vs.size(), lines.size());
  std::string prefix;
  for (size_t i = 0; i < lines.size(); ++i) {
    prefix += lines[i];
    EXPECT_EQ(vs[i].type, ValueType::kChat);
    EXPECT_EQ(vs[i].content_hash, Sha256Hex(lines[i]));
    ASSERT_OK_AND_ASSIGN(Ref pinned, view().RefOf("chat", {.version = i + 1}));
    ASSERT_OK_AND_ASSIGN(std::string got, view().Resolve(pinned));
    EXPECT_EQ(got, prefix) << "version " << i + 1;
  }
  ASSERT_OK_AND_ASSIGN(ObjectMeta m, view().Stat("chat"));
  EXPECT_EQ(m.type, ValueType::kChat);
}

TEST_F(AppendableTest, SetOfAChatBeginsARunAndOnlyAppendsAreStored) {
  const std::string head(2000, 'h');
  ASSERT_OK(view().Set("chat", head, Chat()));
  ASSERT_OK_AND_ASSIGN(StoreStats before, store_->Stats());
  std::string all = head;
  for (int i = 0; i < 20; ++i) {
    const std::string line = "line " + std::to_string(i) + "\n";
    ASSERT_OK(view().Append("chat", line));
    all += line;
  }
  ASSERT_OK_AND_ASSIGN(StoreStats after, store_->Stats());
  // Each version is the whole prefix, yet only the appended bytes were
  // added to the store.
  EXPECT_EQ(after.content_bytes - before.content_bytes,
            all.size() - head.size());
  ASSERT_OK_AND_ASSIGN(std::string got, view().Get("chat"));
  EXPECT_EQ(got, all);
  ASSERT_OK_AND_ASSIGN(got, view().Get("chat", {.version = 1}));
  EXPECT_EQ(got, head);
  // A second Set begins a new run: the old versions keep their content.
  ASSERT_OK_AND_ASSIGN(Ref fresh, view().Set("chat", "new\n", Chat()));
  ASSERT_OK_AND_ASSIGN(Ref more, view().Append("chat", "more\n"));
  EXPECT_EQ(more.version, fresh.version + 1);
  ASSERT_OK_AND_ASSIGN(got, view().Resolve(more));
  EXPECT_EQ(got, "new\nmore\n");
  ASSERT_OK_AND_ASSIGN(got, view().Get("chat", {.version = 21}));
  EXPECT_EQ(got, all);
}

TEST_F(AppendableTest, ExpectedVersionMakesTheAppendConditional) {
  for (bool persist : {true, false}) {
    SCOPED_TRACE(persist ? "durable" : "session-only");
    const std::string key = persist ? "durable-chat" : "memory-chat";
    SetOptions o = Chat("session");
    o.persist = persist;
    ASSERT_OK_AND_ASSIGN(Ref v1, view().Set(key, "a\n", o));
    o.expected_version = v1.version;
    ASSERT_OK_AND_ASSIGN(Ref v2, view().Append(key, "b\n", o));
    EXPECT_EQ(v2.version, 2u);
    // Stale: version 2 is the latest now.
    EXPECT_THAT(view().Append(key, "c\n", o),
                StatusIs(StatusCode::kFailedPrecondition));
    ASSERT_OK_AND_ASSIGN(std::vector<VersionMeta> vs,
                         view().Versions(key, {.scope = "session"}));
    EXPECT_EQ(vs.size(), 2u);  // Unchanged.
    ASSERT_OK_AND_ASSIGN(std::string got,
                         view().Get(key, {.scope = "session"}));
    EXPECT_EQ(got, "a\nb\n");
    // A missing object is at version 0.
    SetOptions missing = Chat("session");
    missing.persist = persist;
    missing.expected_version = 1;
    EXPECT_THAT(view().Append(key + "-none", "x", missing),
                StatusIs(StatusCode::kFailedPrecondition));
  }
}

TEST_F(AppendableTest, AppendToOtherTypesIsRefused) {
  ASSERT_OK(view().Set("doc", "[1]", {.type = ValueType::kJson}));
  EXPECT_THAT(view().Append("doc", "more", Chat()),
              StatusIs(StatusCode::kFailedPrecondition));
  ASSERT_OK_AND_ASSIGN(std::string got, view().Get("doc"));
  EXPECT_EQ(got, "[1]");
}

// Chats written by earlier builds hold their content whole (no chunks):
// they read as before, and Append refuses them until a Set begins a run.
TEST_F(AppendableTest, ChatWrittenWholeByAnEarlierBuildReadsButDoesNotAppend) {
  const std::string legacy = R"([{"role":"user","text":"hi"}])";
  ASSERT_OK(view().Set("old-chat", legacy));  // Stored whole, as text.
  view_.reset();
  store_.reset();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((home() + "/ctxkit.db").c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  // What an earlier build's Set of a chat left: type chat, content whole.
  int rc = sqlite3_exec(db,
                        "UPDATE versions SET type = 8 WHERE object_id = "
                        "(SELECT id FROM objects WHERE key = 'old-chat');"
                        "UPDATE objects SET type = 8 WHERE key = 'old-chat';",
                        nullptr, nullptr, &err);
  EXPECT_EQ(rc, SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
  Reopen();
  ASSERT_OK_AND_ASSIGN(Ref ref, view().Pin("old-chat"));
  EXPECT_EQ(ref.type, ValueType::kChat);
  ASSERT_OK_AND_ASSIGN(std::string got, view().Resolve(ref));
  EXPECT_EQ(got, legacy);
  Result<Ref> appended = view().Append("old-chat", "x\n");
  EXPECT_THAT(appended, StatusIs(StatusCode::kFailedPrecondition));
  EXPECT_NE(appended.status().message().find("earlier build"),
            std::string::npos)
      << appended.status().ToString();
  ASSERT_OK(view().Set("old-chat", "a\n", Chat()));
  ASSERT_OK(view().Append("old-chat", "b\n"));
  ASSERT_OK_AND_ASSIGN(got, view().Get("old-chat"));
  EXPECT_EQ(got, "a\nb\n");
  ASSERT_OK_AND_ASSIGN(got, view().Resolve(ref));
  EXPECT_EQ(got, legacy);  // The old version is untouched.
}

}  // namespace
}  // namespace ctxkit::testing
