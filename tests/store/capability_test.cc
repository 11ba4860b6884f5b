// Refs as capabilities: a view reads another scope's object only through a
// ref that carries the store's tag for it (ctxkit/ref.h). Guessed ids,
// edited fields and forged tags are refused; the owner's own untagged refs
// (from earlier builds) keep working.

#include <sqlite3.h>

#include <string>
#include <vector>

#include "store/test_util.h"

namespace ctxkit::testing {
namespace {

using ::testing::HasSubstr;

class CapabilityTest : public StoreTest {
 protected:
  // A value of `scope` ("agent", "session") written by alice in s1.
  Ref Secret(const std::string& key, const std::string& scope,
             bool persist = true) {
    SetOptions o;
    o.scope = scope;
    o.persist = persist;
    Result<Ref> ref = view().Set(key, "secret of " + key, o);
    EXPECT_TRUE(ref.ok()) << ref.status().ToString();
    return ref.ok() ? *ref : Ref{};
  }
};

// Every ref-taking read a view offers, so each is checked alike.
std::vector<Status> ReadsThrough(View& v, const Ref& ref) {
  return {v.Resolve(ref).status(), v.ReadRange(ref, 0, 4).status(),
          v.Stat(ref).status(),    v.Versions(ref).status(),
          v.Pin(ref).status(),     v.CountTokens(ref).status()};
}

TEST_F(CapabilityTest, TheStoresRefReadsAcrossScopes) {
  View bob = MakeView("bob", "s2");
  for (const std::string scope : {"agent", "session"}) {
    Ref ref = Secret("k-" + scope, scope);
    ASSERT_EQ(ref.tag.size(), kRefTagChars);
    for (const Status& s : ReadsThrough(bob, ref)) EXPECT_OK(s);
    // The wire form carries the tag, so a parsed ref grants the same.
    ASSERT_OK_AND_ASSIGN(Ref parsed, ParseRef(FormatRef(ref)));
    ASSERT_OK_AND_ASSIGN(std::string value, bob.Resolve(parsed));
    EXPECT_EQ(value, "secret of k-" + scope);
    // Other versions of the same object too (the tag names the object).
    ASSERT_OK(bob.Resolve(ref.Dynamic()).status());
  }
}

TEST_F(CapabilityTest, GuessedIdsNearYourOwnReadNothing) {
  // The probe's attack: bob holds a ref of his own and walks the ids next
  // to it, keeping the fields he knows.
  std::vector<Ref> secrets = {Secret("a1", "agent"), Secret("s1", "session"),
                              Secret("t1", "session", /*persist=*/false)};
  View bob = MakeView("bob", "s2");
  SetOptions mine;
  mine.scope = "agent";
  ASSERT_OK_AND_ASSIGN(Ref own, bob.Set("mine", "bob's", mine));
  for (const Ref& secret : secrets) {
    Ref guess = secret;   // Id, key and scope as an attacker would guess.
    guess.tag = own.tag;  // A real tag, but for another object.
    for (const Status& s : ReadsThrough(bob, guess)) {
      EXPECT_THAT(s, StatusIs(StatusCode::kNotFound)) << s.ToString();
    }
    guess.tag.clear();
    for (const Status& s : ReadsThrough(bob, guess)) {
      EXPECT_THAT(s, StatusIs(StatusCode::kNotFound)) << s.ToString();
      EXPECT_THAT(s.message(), HasSubstr("capability tag"));
    }
  }
}

TEST_F(CapabilityTest, EditingAnyTaggedFieldBreaksTheTag) {
  Ref ref = Secret("notes/auth", "agent");
  View bob = MakeView("bob", "s2");
  std::vector<Ref> edited(4, ref);
  edited[0].tag[0] = edited[0].tag[0] == 'A' ? 'B' : 'A';
  edited[1].scope = Scope::Agent("bob");  // Claims bob's own scope.
  edited[2].key = "notes/other";
  edited[3].id = ref.id + "0";
  // Refs resolve from the record cache once it holds their object: reading
  // the real ref first puts it there, and the edits are still refused.
  ASSERT_OK(bob.Resolve(ref).status());
  for (const Ref& r : edited) {
    Status s = bob.Resolve(r).status();
    EXPECT_FALSE(s.ok()) << FormatRef(r);
    EXPECT_NE(bob.Resolve(r).value_or(""), "secret of notes/auth");
  }
  EXPECT_THAT(bob.Resolve(edited[0]), StatusIs(StatusCode::kNotFound));
  EXPECT_OK(bob.Resolve(ref).status());
}

// A refused guess tells nothing of what exists: a ref with the right id and
// key of an object the view may not read gets the very answer of one whose
// id names nothing, for durable and session-only values alike, naming no
// scope or owner.
TEST_F(CapabilityTest, RefusedGuessesAnswerAsIfNothingWereThere) {
  View bob = MakeView("bob", "s2");
  SetOptions mine;
  mine.scope = "agent";
  ASSERT_OK_AND_ASSIGN(Ref own, bob.Set("mine", "bob's", mine));
  for (const Ref& secret :
       {Secret("k-agent", "agent"), Secret("k-session", "session"),
        Secret("k-temp", "session", /*persist=*/false)}) {
    for (const std::string& tag : {std::string(), own.tag}) {
      Ref guess = secret;
      guess.tag = tag;
      // The same fields, but an id no object has: a counter past any
      // issued for session-only values, a far id for durable ones.
      Ref nothing = guess;
      nothing.id = secret.is_session_only()
                       ? secret.id.substr(0, secret.id.find('.') + 1) + "zzzz"
                       : "zzzzzz";
      const std::vector<Status> refused = ReadsThrough(bob, guess);
      const std::vector<Status> absent = ReadsThrough(bob, nothing);
      ASSERT_EQ(refused.size(), absent.size());
      for (size_t i = 0; i < refused.size(); ++i) {
        EXPECT_THAT(refused[i], StatusIs(StatusCode::kNotFound))
            << FormatRef(guess) << ": " << refused[i].ToString();
        EXPECT_EQ(refused[i].ToString(), absent[i].ToString())
            << FormatRef(guess);
        for (const char* owner : {"alice", "s1", "agent:", "session:"}) {
          EXPECT_THAT(refused[i].message(), ::testing::Not(HasSubstr(owner)));
        }
      }
    }
  }
}

TEST_F(CapabilityTest, OwnersReadTheirUntaggedRefs) {
  // Refs written by earlier builds carry no tag: they still resolve in a
  // view that owns the object's scope.
  for (const std::string scope : {"", "agent", "session"}) {
    Ref ref = Secret("own-" + scope, scope);
    ref.tag.clear();
    for (const Status& s : ReadsThrough(view(), ref)) EXPECT_OK(s);
  }
  Ref global = Secret("shared", "");
  global.tag.clear();
  View bob = MakeView("bob", "s2");
  EXPECT_OK(bob.Resolve(global).status());  // Global is every view's scope.
}

TEST_F(CapabilityTest, StaticRefsMustAgreeWithTheirVersion) {
  Ref ref = Secret("typed", "agent");
  Ref wrong_type = ref;
  wrong_type.type = ValueType::kJson;
  Ref wrong_size = ref;
  wrong_size.size_bytes += 1;
  for (const Ref& r : {wrong_type, wrong_size}) {
    EXPECT_THAT(view().Resolve(r), StatusIs(StatusCode::kInvalidArgument));
    EXPECT_THAT(view().ReadRange(r, 0, 1),
                StatusIs(StatusCode::kInvalidArgument));
  }
}

TEST_F(CapabilityTest, TagsHoldAcrossProcessesAndReopens) {
  Ref ref = Secret("durable", "agent");
  std::unique_ptr<Store> second = OpenSecond();
  ASSERT_OK_AND_ASSIGN(View bob, second->OpenView("bob", "s2"));
  EXPECT_OK(bob.Resolve(ref).status());
  Reopen();
  View bob_again = MakeView("bob", "s3");
  EXPECT_OK(bob_again.Resolve(ref).status());
}

TEST_F(CapabilityTest, StoresOfEarlierBuildsGetASecretOnOpen) {
  Ref ref = Secret("old", "agent");
  store_.reset();
  view_.reset();
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((home() + "/ctxkit.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "DELETE FROM meta WHERE name = 'ref_secret'",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(db);
  Reopen();
  // A new secret: the old tag no longer verifies across scopes, but the
  // owner still reads, and new refs carry new tags that do.
  View bob = MakeView("bob", "s2");
  EXPECT_THAT(bob.Resolve(ref), StatusIs(StatusCode::kNotFound));
  Ref untagged = ref;
  untagged.tag.clear();
  EXPECT_OK(view().Resolve(untagged).status());
  ASSERT_OK_AND_ASSIGN(Ref fresh, view().RefOf("old", {.scope = "agent"}));
  EXPECT_NE(fresh.tag, ref.tag);
  EXPECT_OK(bob.Resolve(fresh).status());
}

TEST_F(CapabilityTest, ListedAndStatedRefsCarryTags) {
  Ref ref = Secret("listed", "agent");
  ASSERT_OK_AND_ASSIGN(ObjectMeta meta, view().Stat("listed", {}));
  EXPECT_EQ(meta.ref_tag, ref.tag);
  EXPECT_EQ(StaticRefOf(meta), ref);
  ASSERT_OK_AND_ASSIGN(Ref by_key, view().RefOf("listed", {}));
  EXPECT_EQ(by_key.tag, ref.tag);
}

}  // namespace
}  // namespace ctxkit::testing
