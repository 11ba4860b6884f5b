// Scopes and views: isolation between agents and sessions, lookup order,
// sub-agent views, refs as capabilities, and promotion agent -> global.

#include <string>
#include <vector>

#include "store/test_util.h"

namespace ctxkit::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

class ScopesTest : public StoreTest {
 protected:
  static SetOptions In(std::string scope) {
    SetOptions o;
    o.scope = std::move(scope);
    return o;
  }
  static LookupOptions At(std::string scope) {
    LookupOptions o;
    o.scope = std::move(scope);
    return o;
  }
  static std::vector<std::string> Keys(const std::vector<ObjectMeta>& ms) {
    std::vector<std::string> keys;
    for (const auto& m : ms) keys.push_back(m.key + "@" + m.scope.ToString());
    return keys;
  }
};

TEST_F(ScopesTest, SetPlacesValuesInTheNamedScope) {
  ASSERT_OK_AND_ASSIGN(Ref g, view().Set("k", "g"));
  EXPECT_EQ(g.scope, Scope::Global());
  ASSERT_OK_AND_ASSIGN(Ref g2, view().Set("k2", "g", In("global")));
  EXPECT_EQ(g2.scope, Scope::Global());
  ASSERT_OK_AND_ASSIGN(Ref a, view().Set("k", "a", In("agent")));
  EXPECT_EQ(a.scope, Scope::Agent("alice"));
  ASSERT_OK_AND_ASSIGN(Ref s, view().Set("k", "s", In("session")));
  EXPECT_EQ(s.scope, Scope::Session("s1"));
  ASSERT_OK_AND_ASSIGN(Ref a2, view().Set("k3", "a", In("agent:alice")));
  EXPECT_EQ(a2.scope, Scope::Agent("alice"));
  ASSERT_OK_AND_ASSIGN(Ref s2, view().Set("k3", "s", In("session:s1")));
  EXPECT_EQ(s2.scope, Scope::Session("s1"));
  // Same key in three scopes: three objects.
  EXPECT_NE(g.id, a.id);
  EXPECT_NE(a.id, s.id);
  EXPECT_NE(g.id, s.id);
}

TEST_F(ScopesTest, LookupOrderIsSessionThenAgentThenGlobal) {
  ASSERT_OK(view().Set("k", "global"));
  ASSERT_OK_AND_ASSIGN(std::string v, view().Get("k"));
  EXPECT_EQ(v, "global");
  ASSERT_OK(view().Set("k", "agent", In("agent")));
  ASSERT_OK_AND_ASSIGN(v, view().Get("k"));
  EXPECT_EQ(v, "agent");
  ASSERT_OK(view().Set("k", "session", In("session")));
  ASSERT_OK_AND_ASSIGN(v, view().Get("k"));
  EXPECT_EQ(v, "session");
  ASSERT_OK_AND_ASSIGN(Ref r, view().RefOf("k"));
  EXPECT_EQ(r.scope, Scope::Session("s1"));
  ASSERT_OK_AND_ASSIGN(ObjectMeta m, view().Stat("k"));
  EXPECT_EQ(m.scope, Scope::Session("s1"));

  // Explicit scopes reach each one.
  ASSERT_OK_AND_ASSIGN(v, view().Get("k", At("global")));
  EXPECT_EQ(v, "global");
  ASSERT_OK_AND_ASSIGN(v, view().Get("k", At("agent")));
  EXPECT_EQ(v, "agent");
  ASSERT_OK_AND_ASSIGN(v, view().Get("k", At("agent:alice")));
  EXPECT_EQ(v, "agent");
  ASSERT_OK_AND_ASSIGN(v, view().Get("k", At("session:s1")));
  EXPECT_EQ(v, "session");

  // Removing the innermost uncovers the next.
  ASSERT_OK(view().Remove("k", At("session")));
  ASSERT_OK_AND_ASSIGN(v, view().Get("k"));
  EXPECT_EQ(v, "agent");
  ASSERT_OK(view().Remove("k", At("agent")));
  ASSERT_OK_AND_ASSIGN(v, view().Get("k"));
  EXPECT_EQ(v, "global");

  // Another view of the same agent but no session sees agent + global only.
  ASSERT_OK(view().Set("k", "session again", In("session")));
  View no_session = MakeView("alice", "");
  ASSERT_OK_AND_ASSIGN(v, no_session.Get("k"));
  EXPECT_EQ(v, "global");
}

TEST_F(ScopesTest, PlainRemoveTakesTheInnermostVisibleObject) {
  ASSERT_OK(view().Set("k", "global"));
  ASSERT_OK(view().Set("k", "agent", In("agent")));
  ASSERT_OK(view().Remove("k"));
  ASSERT_OK_AND_ASSIGN(std::string v, view().Get("k"));
  EXPECT_EQ(v, "global");
}

TEST_F(ScopesTest, AgentScopeIsInvisibleToAnotherAgent) {
  View a = MakeView("A", "sa");
  View b = MakeView("B", "sb");
  ASSERT_OK_AND_ASSIGN(Ref secret,
                       a.Set("secret", "A-ONLY-VALUE", In("agent")));
  ASSERT_OK(a.Set("sess", "A-SESSION-VALUE", In("session")));
  ASSERT_OK(a.Set("pub", "public"));

  // Plain lookups: NotFound, never the value.
  EXPECT_THAT(b.Get("secret"), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(b.RefOf("secret"), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(b.Stat("secret"), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(b.Versions("secret"), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(b.Remove("secret"), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(b.Get("sess"), StatusIs(StatusCode::kNotFound));

  // Naming A's scopes: PermissionDenied.
  for (const std::string scope : {"agent:A", "session:sa"}) {
    LookupOptions lo = At(scope);
    std::string key = scope == "agent:A" ? "secret" : "sess";
    auto got = b.Get(key, lo);
    EXPECT_THAT(got, StatusIs(StatusCode::kPermissionDenied)) << scope;
    if (!got.ok()) {
      EXPECT_THAT(got.status().message(), Not(HasSubstr("VALUE")));
    }
    EXPECT_THAT(b.RefOf(key, lo), StatusIs(StatusCode::kPermissionDenied));
    EXPECT_THAT(b.Stat(key, lo), StatusIs(StatusCode::kPermissionDenied));
    EXPECT_THAT(b.Versions(key, lo), StatusIs(StatusCode::kPermissionDenied));
    EXPECT_THAT(b.Remove(key, lo), StatusIs(StatusCode::kPermissionDenied));
    EXPECT_THAT(b.Set(key, "overwrite", In(scope)),
                StatusIs(StatusCode::kPermissionDenied));
    EXPECT_THAT(b.Append(key + "-stream", "x", In(scope)),
                StatusIs(StatusCode::kPermissionDenied));
    ListFilter f;
    f.scope = scope;
    EXPECT_THAT(b.List(f), StatusIs(StatusCode::kPermissionDenied));
  }
  // Also a key that does not exist there: still PermissionDenied, so
  // existence does not leak either.
  EXPECT_THAT(b.Get("no-such-key", At("agent:A")),
              StatusIs(StatusCode::kPermissionDenied));

  // B's listing shows global only from A's writes.
  std::vector<ObjectMeta> listed = ListAll(b, {});
  EXPECT_THAT(Keys(listed), ::testing::ElementsAre("pub@global"));

  // A still has everything, unchanged.
  ASSERT_OK_AND_ASSIGN(std::string v, a.Get("secret"));
  EXPECT_EQ(v, "A-ONLY-VALUE");
  ASSERT_OK_AND_ASSIGN(v, a.Get("sess"));
  EXPECT_EQ(v, "A-SESSION-VALUE");
  ASSERT_OK_AND_ASSIGN(std::vector<VersionMeta> vs, a.Versions("secret"));
  EXPECT_EQ(vs.size(), 1u);

  // A ref is a capability: B resolves what A passes explicitly.
  std::string wire = FormatRef(secret);
  ASSERT_OK_AND_ASSIGN(Ref passed, ParseRef(wire));
  ASSERT_OK_AND_ASSIGN(std::string resolved, b.Resolve(passed));
  EXPECT_EQ(resolved, "A-ONLY-VALUE");
  ASSERT_OK_AND_ASSIGN(std::string part, b.ReadRange(passed, 2, 4));
  EXPECT_EQ(part, "ONLY");
}

TEST_F(ScopesTest, SameKeyInTwoAgentsIsTwoObjects) {
  View a = MakeView("A", "");
  View b = MakeView("B", "");
  ASSERT_OK_AND_ASSIGN(Ref ra, a.Set("notes", "a's", In("agent")));
  ASSERT_OK_AND_ASSIGN(Ref rb, b.Set("notes", "b's", In("agent")));
  EXPECT_NE(ra.id, rb.id);
  ASSERT_OK_AND_ASSIGN(std::string v, a.Get("notes"));
  EXPECT_EQ(v, "a's");
  ASSERT_OK_AND_ASSIGN(v, b.Get("notes"));
  EXPECT_EQ(v, "b's");
  ASSERT_OK_AND_ASSIGN(std::vector<VersionMeta> va, a.Versions("notes"));
  EXPECT_EQ(va.size(), 1u);
}

TEST_F(ScopesTest, ViewWithoutAgentOrSessionHasNoSuchScope) {
  View anon = MakeView("", "");
  ASSERT_OK(anon.Set("g", "v"));
  for (const std::string scope : {"agent", "session"}) {
    auto r = anon.Set("x", "v", In(scope));
    EXPECT_FALSE(r.ok()) << scope;
    EXPECT_THAT(r, Not(StatusIs(StatusCode::kInternal)));
  }
  std::vector<ObjectMeta> all = ListAll(anon, {});
  EXPECT_THAT(Keys(all), ::testing::ElementsAre("g@global"));
}

TEST_F(ScopesTest, OpenViewValidatesIds) {
  for (const std::string& bad :
       std::vector<std::string>{"has space", "a/b", "a:b", std::string(65, 'a'),
                                "tab\t", "\xc3\xa9"}) {
    EXPECT_THAT(store_->OpenView(bad, ""),
                StatusIs(StatusCode::kInvalidArgument))
        << bad;
    EXPECT_THAT(store_->OpenView("", bad),
                StatusIs(StatusCode::kInvalidArgument))
        << bad;
    EXPECT_THAT(view().SubAgent(bad), StatusIs(StatusCode::kInvalidArgument))
        << bad;
  }
  EXPECT_OK(store_->OpenView(std::string(64, 'a'), "A.b_c-9"));
  EXPECT_OK(store_->OpenView("", ""));
}

TEST_F(ScopesTest, ScopeNamesAreValidated) {
  ASSERT_OK(view().Set("k", "v"));
  std::string before = Snapshot(view());
  for (std::string bad : {"agent:", "session:", "agent:bad id", "Global",
                          "agents", "glob", "agent:a:b", "session:x/y"}) {
    EXPECT_THAT(view().Set("k", "new", In(bad)),
                StatusIs(StatusCode::kInvalidArgument))
        << bad;
    EXPECT_THAT(view().Get("k", At(bad)),
                StatusIs(StatusCode::kInvalidArgument))
        << bad;
    ListFilter f;
    f.scope = bad;
    EXPECT_THAT(view().List(f), StatusIs(StatusCode::kInvalidArgument)) << bad;
  }
  EXPECT_EQ(Snapshot(view()), before);
}

TEST_F(ScopesTest, SubAgentInheritsGlobalHasOwnScopeAndResolvesPassedRefs) {
  View parent = MakeView("planner", "run-1");
  ASSERT_OK(parent.Set("dataset", "global data"));
  ASSERT_OK_AND_ASSIGN(Ref private_ref,
                       parent.Set("draft", "parent's draft", In("agent")));
  ASSERT_OK(parent.Set("scratch", "parent's session", In("session")));

  ASSERT_OK_AND_ASSIGN(View child, parent.SubAgent("worker-1"));
  EXPECT_EQ(child.agent_id(), "worker-1");
  EXPECT_EQ(child.session_id(), "");
  EXPECT_EQ(child.store(), parent.store());

  // Inherits global.
  ASSERT_OK_AND_ASSIGN(std::string v, child.Get("dataset"));
  EXPECT_EQ(v, "global data");
  // Does not see the parent's agent or session scopes.
  EXPECT_THAT(child.Get("draft"), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(child.Get("scratch"), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(child.Get("draft", At("agent:planner")),
              StatusIs(StatusCode::kPermissionDenied));
  EXPECT_THAT(child.Get("scratch", At("session:run-1")),
              StatusIs(StatusCode::kPermissionDenied));
  for (const ObjectMeta& m : ListAll(child, {})) {
    EXPECT_TRUE(m.scope.is_global()) << DescribeMeta(m);
  }
  // Resolves a passed ref.
  ASSERT_OK_AND_ASSIGN(Ref passed, ParseRef(FormatRef(private_ref)));
  ASSERT_OK_AND_ASSIGN(v, child.Resolve(passed));
  EXPECT_EQ(v, "parent's draft");

  // Own agent scope, invisible to the parent.
  ASSERT_OK_AND_ASSIGN(Ref mine,
                       child.Set("draft", "child's draft", In("agent")));
  EXPECT_EQ(mine.scope, Scope::Agent("worker-1"));
  ASSERT_OK_AND_ASSIGN(v, child.Get("draft"));
  EXPECT_EQ(v, "child's draft");
  ASSERT_OK_AND_ASSIGN(v, parent.Get("draft"));
  EXPECT_EQ(v, "parent's draft");
  EXPECT_THAT(parent.Get("draft", At("agent:worker-1")),
              StatusIs(StatusCode::kPermissionDenied));
  // The parent can resolve what the child passes back.
  ASSERT_OK_AND_ASSIGN(v, parent.Resolve(mine));
  EXPECT_EQ(v, "child's draft");
  // Child writes to global are visible to the parent.
  ASSERT_OK(child.Set("result", "42"));
  ASSERT_OK_AND_ASSIGN(v, parent.Get("result"));
  EXPECT_EQ(v, "42");
}

TEST_F(ScopesTest, SubAgentWithOwnSession) {
  View parent = MakeView("planner", "run-1");
  ASSERT_OK(parent.Set("s", "parent session", In("session")));
  ASSERT_OK_AND_ASSIGN(View child, parent.SubAgent("w", "child-run"));
  EXPECT_EQ(child.session_id(), "child-run");
  ASSERT_OK_AND_ASSIGN(Ref r, child.Set("s", "child session", In("session")));
  EXPECT_EQ(r.scope, Scope::Session("child-run"));
  ASSERT_OK_AND_ASSIGN(std::string v, child.Get("s"));
  EXPECT_EQ(v, "child session");
  ASSERT_OK_AND_ASSIGN(v, parent.Get("s"));
  EXPECT_EQ(v, "parent session");
  // Nested sub-agents work the same way.
  ASSERT_OK_AND_ASSIGN(View grandchild, child.SubAgent("g"));
  EXPECT_THAT(grandchild.Get("s"), StatusIs(StatusCode::kNotFound));
  ASSERT_OK_AND_ASSIGN(v, grandchild.Resolve(r));
  EXPECT_EQ(v, "child session");
}

// ---------------------------------------------------------------------------
// Promotion.

TEST_F(ScopesTest, PromoteMovesAgentObjectToGlobalKeepingIdAndHistory) {
  View a = MakeView("A", "");
  View b = MakeView("B", "");
  ASSERT_OK_AND_ASSIGN(Ref first, a.Set("finding", "v1", In("agent")));
  ASSERT_OK(a.Set("finding", "v2", In("agent")));
  LookupOptions v1 = At("agent");
  v1.version = 1;
  ASSERT_OK_AND_ASSIGN(Ref pinned, a.RefOf("finding", v1));
  ASSERT_OK_AND_ASSIGN(std::vector<VersionMeta> before, a.Versions("finding"));
  EXPECT_THAT(b.Get("finding"), StatusIs(StatusCode::kNotFound));

  ASSERT_OK_AND_ASSIGN(Ref promoted, a.Promote("finding"));
  EXPECT_EQ(promoted.id, first.id);
  EXPECT_EQ(promoted.scope, Scope::Global());
  EXPECT_EQ(promoted.key, "finding");

  // Now global: B sees it by name.
  ASSERT_OK_AND_ASSIGN(std::string v, b.Get("finding"));
  EXPECT_EQ(v, "v2");
  ASSERT_OK_AND_ASSIGN(v, a.Get("finding", At("global")));
  EXPECT_EQ(v, "v2");
  // Gone from A's agent scope.
  EXPECT_THAT(a.Get("finding", At("agent")), StatusIs(StatusCode::kNotFound));
  // History kept.
  ASSERT_OK_AND_ASSIGN(std::vector<VersionMeta> after,
                       b.Versions("finding", At("global")));
  ASSERT_GE(after.size(), before.size());
  for (size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(after[i].version, before[i].version);
    EXPECT_EQ(after[i].content_hash, before[i].content_hash);
    EXPECT_EQ(after[i].state, before[i].state);
  }
  LookupOptions old = At("global");
  old.version = 1;
  ASSERT_OK_AND_ASSIGN(v, b.Get("finding", old));
  EXPECT_EQ(v, "v1");
  // A static ref taken before promotion still resolves (same id).
  ASSERT_OK_AND_ASSIGN(v, b.Resolve(pinned));
  EXPECT_EQ(v, "v1");
  // Further sets in global append to the same object.
  ASSERT_OK_AND_ASSIGN(Ref next, b.Set("finding", "v3"));
  EXPECT_EQ(next.id, first.id);
  // And it survives a restart.
  Reopen();
  View b2 = MakeView("B", "");
  ASSERT_OK_AND_ASSIGN(ObjectMeta m, b2.Stat("finding"));
  EXPECT_EQ(m.id, first.id);
  EXPECT_EQ(m.scope, Scope::Global());
}

TEST_F(ScopesTest, PromoteConflictIsAlreadyExistsAndChangesNothing) {
  View a = MakeView("A", "");
  ASSERT_OK(a.Set("k", "global value"));
  ASSERT_OK(a.Set("k", "agent value", In("agent")));
  std::string before = Snapshot(a);
  EXPECT_THAT(a.Promote("k"), StatusIs(StatusCode::kAlreadyExists));
  EXPECT_EQ(Snapshot(a), before);
  ASSERT_OK_AND_ASSIGN(std::string v, a.Get("k", At("global")));
  EXPECT_EQ(v, "global value");
  ASSERT_OK_AND_ASSIGN(v, a.Get("k", At("agent")));
  EXPECT_EQ(v, "agent value");
}

TEST_F(ScopesTest, PromoteOverARemovedGlobalKeySucceeds) {
  View a = MakeView("A", "");
  ASSERT_OK(a.Set("k", "old global"));
  ASSERT_OK(a.Remove("k", At("global")));
  ASSERT_OK_AND_ASSIGN(Ref agent_ref, a.Set("k", "agent value", In("agent")));
  // Only a *live* global object conflicts.
  ASSERT_OK_AND_ASSIGN(Ref promoted, a.Promote("k"));
  EXPECT_EQ(promoted.id, agent_ref.id);
  ASSERT_OK_AND_ASSIGN(std::string v, a.Get("k", At("global")));
  EXPECT_EQ(v, "agent value");
  // Lookups prefer the live object: history, stat and refs are the
  // promoted one's.
  ASSERT_OK_AND_ASSIGN(std::vector<VersionMeta> vs,
                       a.Versions("k", At("global")));
  ASSERT_EQ(vs.size(), 1u);
  EXPECT_EQ(vs[0].content_hash, Sha256Hex("agent value"));
  ASSERT_OK_AND_ASSIGN(ObjectMeta m, a.Stat("k", At("global")));
  EXPECT_EQ(m.id, agent_ref.id);
  ASSERT_OK_AND_ASSIGN(Ref r, a.RefOf("k"));
  EXPECT_EQ(r.id, agent_ref.id);
  // And survives a restart the same way.
  Reopen();
  View a2 = MakeView("A", "");
  ASSERT_OK_AND_ASSIGN(r, a2.RefOf("k"));
  EXPECT_EQ(r.id, agent_ref.id);
  ASSERT_OK_AND_ASSIGN(v, a2.Get("k"));
  EXPECT_EQ(v, "agent value");
}

TEST_F(ScopesTest, PromoteErrors) {
  View a = MakeView("A", "s");
  // Unknown key.
  EXPECT_THAT(a.Promote("nope"), StatusIs(StatusCode::kNotFound));
  EXPECT_THAT(a.Promote(""), StatusIs(StatusCode::kInvalidArgument));
  // A global key cannot be promoted: it is not in the agent scope.
  ASSERT_OK(a.Set("g", "global"));
  std::string before = Snapshot(a);
  auto r = a.Promote("g");
  EXPECT_THAT(r, StatusIsOneOf(std::vector<StatusCode>{
                     StatusCode::kNotFound, StatusCode::kFailedPrecondition,
                     StatusCode::kInvalidArgument}));
  EXPECT_EQ(Snapshot(a), before);
  // Session-only values: FailedPrecondition.
  SetOptions tmp = In("agent");
  tmp.persist = false;
  ASSERT_OK(a.Set("tmp", "session only", tmp));
  EXPECT_THAT(a.Promote("tmp"), StatusIs(StatusCode::kFailedPrecondition));
  ASSERT_OK_AND_ASSIGN(std::string v, a.Get("tmp"));
  EXPECT_EQ(v, "session only");
  // Removed agent key: nothing live to promote.
  ASSERT_OK(a.Set("removed", "x", In("agent")));
  ASSERT_OK(a.Remove("removed", At("agent")));
  EXPECT_THAT(a.Promote("removed"), StatusIs(StatusCode::kNotFound));
  // A view without an agent has nothing to promote from.
  View anon = MakeView("", "");
  auto r2 = anon.Promote("g");
  EXPECT_FALSE(r2.ok());
  EXPECT_THAT(r2, Not(StatusIs(StatusCode::kInternal)));
}

}  // namespace
}  // namespace ctxkit::testing
