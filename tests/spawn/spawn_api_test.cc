// Spawn, the child's side and CollectResult through the public API.

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "ctxkit/spawn.h"
#include "spawn/spawn_test_util.h"

namespace ctxkit::testing {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST_F(SpawnTest, ManifestRecordsPinnedRefsAndIdentities) {
  Ref doc = SetGlobal("docs/guide", "guide v1");
  SetGlobal("docs/guide", "guide v2, longer");
  Result<Ref> dynamic = parent().RefOf("docs/guide");
  ASSERT_OK(dynamic.status());
  ASSERT_FALSE(dynamic->is_static());
  Result<Ref> pinned_v1 = parent().RefOf("docs/guide", {"", 1});
  ASSERT_OK(pinned_v1.status());
  Result<Ref> notes =
      parent().Set("notes", "agent-scoped notes", {.scope = "agent"});
  ASSERT_OK(notes.status());

  Result<SpawnedAgent> spawned =
      Spawn(parent(), "Summarize the guide",
            {{"latest", *dynamic}, {"first", *pinned_v1}, {"notes", *notes}});
  ASSERT_OK(spawned.status());
  const Manifest& m = spawned->manifest;
  EXPECT_EQ(spawned->manifest_path,
            std::filesystem::weakly_canonical(home_).string() + "/spawn/" +
                m.child_agent + ".json");
  EXPECT_TRUE(m.child_agent.starts_with("planner.sub-")) << m.child_agent;
  EXPECT_EQ(spawned->view.agent_id(), m.child_agent);
  EXPECT_EQ(m.parent_agent, "planner");
  EXPECT_EQ(m.parent_session, "run-1");
  EXPECT_EQ(m.child_session, "");
  EXPECT_EQ(m.prompt, "Summarize the guide");
  EXPECT_EQ(m.result_key, "result");
  EXPECT_EQ(m.store_home, std::filesystem::weakly_canonical(home_).string());
  ASSERT_EQ(m.refs.size(), 3u);
  EXPECT_EQ(m.refs[0].name, "latest");
  EXPECT_EQ(m.refs[0].ref.id, doc.id);
  EXPECT_EQ(m.refs[0].ref.version, 2u);  // Dynamic became static.
  EXPECT_EQ(m.refs[0].ref.size_bytes, std::string("guide v2, longer").size());
  EXPECT_EQ(m.refs[1].name, "first");
  EXPECT_EQ(m.refs[1].ref.version, 1u);
  EXPECT_EQ(m.refs[1].ref.size_bytes, 8u);
  EXPECT_EQ(m.refs[2].ref.scope, Scope::Agent("planner"));
  EXPECT_EQ(m.refs[2].ref.type, ValueType::kText);

  // The file says the same, and is readable without ctxkit.
  Result<Manifest> loaded = LoadManifest(spawned->manifest_path);
  ASSERT_OK(loaded.status());
  EXPECT_EQ(FormatManifest(*loaded), FormatManifest(m));
  std::string text = ReadAll(spawned->manifest_path);
  nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_EQ(j["format"], "ctxkit-spawn-manifest");
  EXPECT_EQ(j["version"], 1);
  EXPECT_EQ(j["refs"][0]["name"], "latest");
  EXPECT_EQ(j["refs"][0]["version"], 2);
  EXPECT_EQ(j["refs"][0]["type"], "text");
  EXPECT_EQ(j["refs"][0]["size"], 16);
  EXPECT_EQ(j["refs"][0]["id"], doc.id);
  EXPECT_EQ(j["refs"][2]["scope"], "agent:planner");
  // No value is ever copied into the manifest.
  EXPECT_EQ(text.find("guide v"), std::string::npos);
  EXPECT_EQ(text.find("agent-scoped notes"), std::string::npos);
}

TEST_F(SpawnTest, FiftyRefsToOneMebibyteValuesTakeUnderTenKibibytes) {
  SpawnContext context;
  uint64_t passed_bytes = 0;
  for (int i = 0; i < 50; ++i) {
    std::string value(1 << 20, static_cast<char>('a' + i % 26));
    const std::string header = "value number " + std::to_string(i) + "\n";
    value.replace(0, header.size(), header);
    const std::string key = "bench/value-" + std::to_string(i);
    SetGlobal(key, value);
    Result<Ref> ref = parent().RefOf(key);
    ASSERT_OK(ref.status());
    context.emplace_back("value_" + std::to_string(i), *ref);
    passed_bytes += value.size();
  }
  Result<SpawnedAgent> spawned =
      Spawn(parent(), "Compare the fifty values", context);
  ASSERT_OK(spawned.status());
  struct stat st;
  ASSERT_EQ(::stat(spawned->manifest_path.c_str(), &st), 0);
  EXPECT_LT(st.st_size, 10 * 1024)
      << "manifest for " << passed_bytes << " bytes of values";
  EXPECT_EQ(static_cast<size_t>(st.st_size),
            FormatManifest(spawned->manifest).size());
  ASSERT_EQ(spawned->manifest.refs.size(), 50u);
  for (const ManifestRef& entry : spawned->manifest.refs) {
    EXPECT_EQ(entry.ref.size_bytes, 1u << 20);
  }
}

TEST_F(SpawnTest, ChildReadsExactlyThePassedVersionAfterParentUpdates) {
  SetGlobal("dataset", "rows: 1 2 3");
  Result<Ref> ref = parent().RefOf("dataset");
  ASSERT_OK(ref.status());
  Result<SpawnedAgent> spawned = Spawn(parent(), "Analyze", {{"data", *ref}});
  ASSERT_OK(spawned.status());
  // The parent moves on before the child reads.
  SetGlobal("dataset", "rows: 4 5 6 7");

  // The child: another Store instance, knowing only the manifest path.
  Result<Manifest> m = LoadManifest(spawned->manifest_path);
  ASSERT_OK(m.status());
  std::unique_ptr<Store> child_store = Open(m->store_home);
  ASSERT_NE(child_store, nullptr);
  Result<View> child = OpenChildView(*child_store, *m);
  ASSERT_OK(child.status());
  EXPECT_EQ(child->agent_id(), m->child_agent);
  Result<std::string> data = ResolveContextRef(*child, *m, "data");
  ASSERT_OK(data.status());
  EXPECT_EQ(*data, "rows: 1 2 3");
  // The latest version is still there for whoever asks by key.
  Result<std::string> latest = child->Get("dataset");
  ASSERT_OK(latest.status());
  EXPECT_EQ(*latest, "rows: 4 5 6 7");

  Result<std::string> missing = ResolveContextRef(*child, *m, "nope");
  EXPECT_CODE(missing, kNotFound);
  EXPECT_NE(missing.status().message().find("data"), std::string::npos)
      << "the error lists the names the manifest has";
}

TEST_F(SpawnTest, ResultRoundTripsFromChildProcessToParent) {
  Result<SpawnedAgent> spawned = Spawn(parent(), "Answer", {});
  ASSERT_OK(spawned.status());
  const Manifest& m = spawned->manifest;

  // Nothing written yet: a clear NotFound.
  Result<Ref> none = CollectResult(parent(), m);
  EXPECT_CODE(none, kNotFound);
  EXPECT_NE(none.status().message().find("no result"), std::string::npos);

  std::unique_ptr<Store> child_store = Open(home_);
  Result<View> child = OpenChildView(*child_store, m);
  ASSERT_OK(child.status());
  Result<Ref> written = SetResult(*child, m, "42 anomalies");
  ASSERT_OK(written.status());
  EXPECT_TRUE(written->is_static());
  EXPECT_EQ(written->type, ValueType::kResult);
  EXPECT_EQ(written->scope, Scope::Agent(m.child_agent));
  EXPECT_EQ(written->key, "result");

  Result<Ref> collected = CollectResult(parent(), m);
  ASSERT_OK(collected.status());
  EXPECT_EQ(*collected, *written);
  Result<std::string> value = parent().Resolve(*collected);
  ASSERT_OK(value.status());
  EXPECT_EQ(*value, "42 anomalies");

  // A second answer supersedes the first; the first ref still reads v1.
  Result<Ref> again =
      SetResult(*child, m, R"({"anomalies": 43})", ValueType::kJson);
  ASSERT_OK(again.status());
  Result<Ref> latest = CollectResult(parent(), m);
  ASSERT_OK(latest.status());
  EXPECT_EQ(latest->version, 2u);
  EXPECT_EQ(latest->type, ValueType::kJson);
  EXPECT_EQ(*parent().Resolve(*collected), "42 anomalies");
  EXPECT_CODE(SetResult(*child, m, "{not json", ValueType::kJson),
              kInvalidArgument);
}

TEST_F(SpawnTest, AResultFromBeforeTheSpawnDoesNotCount) {
  SpawnOptions options;
  options.child_agent_id = "worker";
  Result<SpawnedAgent> first = Spawn(parent(), "one", {}, options);
  ASSERT_OK(first.status());
  ASSERT_OK(SetResult(first->view, first->manifest, "old answer").status());

  Result<SpawnedAgent> second = Spawn(parent(), "two", {}, options);
  ASSERT_OK(second.status());
  ASSERT_TRUE(second->manifest.prior_result.has_value());
  EXPECT_CODE(CollectResult(parent(), second->manifest), kNotFound);
  ASSERT_OK(SetResult(second->view, second->manifest, "new answer").status());
  Result<Ref> ref = CollectResult(parent(), second->manifest);
  ASSERT_OK(ref.status());
  EXPECT_EQ(*parent().Resolve(*ref), "new answer");

  // The same holds when the old result was removed before the respawn.
  ASSERT_OK(second->view.Remove("result", {"agent", 0}));
  Result<SpawnedAgent> third = Spawn(parent(), "three", {}, options);
  ASSERT_OK(third.status());
  EXPECT_CODE(CollectResult(parent(), third->manifest), kNotFound);
  ASSERT_OK(SetResult(third->view, third->manifest, "third").status());
  Result<Ref> third_ref = CollectResult(parent(), third->manifest);
  ASSERT_OK(third_ref.status());
  EXPECT_EQ(*parent().Resolve(*third_ref), "third");
}

TEST_F(SpawnTest, ScopesStayPrivateWhileRefsWorkAsCapabilities) {
  Result<Ref> secret =
      parent().Set("plan", "parent's private plan", {.scope = "agent"});
  ASSERT_OK(secret.status());
  Result<SpawnedAgent> spawned = Spawn(parent(), "go", {{"plan", *secret}});
  ASSERT_OK(spawned.status());
  View& child = spawned->view;
  const Manifest& m = spawned->manifest;

  // The child reads the parent's agent-scoped value only through the ref.
  EXPECT_CODE(child.Get("plan", {"agent:planner", 0}), kPermissionDenied);
  EXPECT_CODE(child.Get("plan"), kNotFound);
  Result<std::string> passed = ResolveContextRef(child, m, "plan");
  ASSERT_OK(passed.status());
  EXPECT_EQ(*passed, "parent's private plan");

  ASSERT_OK(child.Set("scratch", "child notes", {.scope = "agent"}).status());
  ASSERT_OK(SetResult(child, m, "done").status());
  const std::string child_scope = "agent:" + m.child_agent;
  Result<View> other = store_->OpenView("bystander", "");
  ASSERT_OK(other.status());
  EXPECT_CODE(other->Get("result", {child_scope, 0}), kPermissionDenied);
  EXPECT_CODE(other->Get("scratch", {child_scope, 0}), kPermissionDenied);
  EXPECT_CODE(parent().Get("scratch", {child_scope, 0}), kPermissionDenied);
  EXPECT_CODE(parent().Get("result"), kNotFound);

  // Only the parent collects; others are refused even with the manifest.
  EXPECT_CODE(CollectResult(*other, m), kPermissionDenied);
  Result<View> same_agent_other_session = store_->OpenView("planner", "run-2");
  ASSERT_OK(same_agent_other_session.status());
  EXPECT_CODE(CollectResult(*same_agent_other_session, m), kPermissionDenied);
  // ... and only the child sets the result.
  EXPECT_CODE(SetResult(parent(), m, "forged"), kPermissionDenied);
  EXPECT_CODE(SetResult(*other, m, "forged"), kPermissionDenied);
  Result<Ref> got = CollectResult(parent(), m);
  ASSERT_OK(got.status());
  EXPECT_EQ(*parent().Resolve(*got), "done");
}

TEST_F(SpawnTest, AnotherStoreIsRefused) {
  Result<SpawnedAgent> spawned = Spawn(parent(), "go", {});
  ASSERT_OK(spawned.status());
  std::unique_ptr<Store> elsewhere = Open(dir_ + "/other-store");
  ASSERT_NE(elsewhere, nullptr);
  EXPECT_CODE(OpenChildView(*elsewhere, spawned->manifest),
              kFailedPrecondition);
  Result<View> other_parent = elsewhere->OpenView("planner", "run-1");
  ASSERT_OK(other_parent.status());
  EXPECT_CODE(CollectResult(*other_parent, spawned->manifest),
              kFailedPrecondition);
  // Another spelling of the same home is the same store.
  std::filesystem::create_directory_symlink(home_, dir_ + "/alias");
  std::unique_ptr<Store> alias = Open(dir_ + "/alias");
  ASSERT_NE(alias, nullptr);
  ASSERT_OK(OpenChildView(*alias, spawned->manifest).status());
}

TEST_F(SpawnTest, ExplicitIdsAndManifestPath) {
  Ref doc = SetGlobal("doc", "text");
  SpawnOptions options;
  options.child_agent_id = "reviewer";
  options.child_session_id = "review-7";
  options.manifest_path = dir_ + "/m.json";
  options.result_key = "answers/final";
  Result<SpawnedAgent> spawned = Spawn(parent(), "", {{"doc", doc}}, options);
  ASSERT_OK(spawned.status());
  EXPECT_EQ(spawned->manifest_path, dir_ + "/m.json");
  EXPECT_EQ(spawned->view.agent_id(), "reviewer");
  EXPECT_EQ(spawned->view.session_id(), "review-7");
  EXPECT_TRUE(SpawnDirFiles().empty());
  Result<Manifest> m = LoadManifest(dir_ + "/m.json");
  ASSERT_OK(m.status());
  EXPECT_EQ(m->child_session, "review-7");
  ASSERT_OK(SetResult(spawned->view, *m, "ok").status());
  Result<Ref> ref = CollectResult(parent(), *m);
  ASSERT_OK(ref.status());
  EXPECT_EQ(ref->key, "answers/final");

  // A parent without an agent gets "sub-<hex>" children.
  Result<View> anonymous = store_->OpenView("", "");
  ASSERT_OK(anonymous.status());
  Result<SpawnedAgent> anon = Spawn(*anonymous, "", {{"doc", doc}});
  ASSERT_OK(anon.status());
  EXPECT_TRUE(anon->manifest.child_agent.starts_with("sub-"));
  EXPECT_EQ(anon->manifest.child_agent.size(), 16u);
}

// Every rejected spawn leaves the store and the manifest directory as
// they were.
TEST_F(SpawnTest, BadInputIsRejectedAndChangesNothing) {
  Ref doc = SetGlobal("doc", "some text");
  Result<Ref> gone_ref = parent().Set("gone", "bye", {});
  ASSERT_OK(gone_ref.status());
  ASSERT_OK(parent().Remove("gone"));
  Result<Ref> session_only = parent().Set("tmp", "x", {.persist = false});
  ASSERT_OK(session_only.status());
  Ref forged = doc;
  forged.version = 1;
  forged.size_bytes = 999;
  Ref unknown = doc;
  unknown.id = "zzzzzz";
  Ref future = doc;
  future.version = 7;

  Result<StoreStats> before = store_->Stats();
  ASSERT_OK(before.status());
  struct Case {
    const char* what;
    std::string prompt;
    SpawnContext context;
    SpawnOptions options;
    StatusCode want;
  };
  SpawnOptions self_child;
  self_child.child_agent_id = "planner";
  SpawnOptions bad_child;
  bad_child.child_agent_id = "no/slash";
  SpawnOptions bad_session;
  bad_session.child_session_id = "";
  bad_session.child_session_id.assign(65, 'x');
  SpawnOptions bad_key;
  bad_key.result_key = "";
  SpawnOptions no_dir;
  no_dir.manifest_path = dir_ + "/missing/dir/m.json";
  SpawnOptions is_dir;
  is_dir.manifest_path = dir_ + "/";
  std::filesystem::create_directory(dir_ + "/a-dir");
  SpawnOptions dir_target;
  dir_target.manifest_path = dir_ + "/a-dir";
  std::vector<Case> cases = {
      {"bad name", "", {{"1st", doc}}, {}, StatusCode::kInvalidArgument},
      {"dashed name", "", {{"my-doc", doc}}, {}, StatusCode::kInvalidArgument},
      {"keyword", "", {{"lambda", doc}}, {}, StatusCode::kInvalidArgument},
      {"empty name", "", {{"", doc}}, {}, StatusCode::kInvalidArgument},
      {"duplicate",
       "",
       {{"a", doc}, {"a", doc}},
       {},
       StatusCode::kInvalidArgument},
      {"bad utf-8 prompt", "\xff\xfe", {}, {}, StatusCode::kInvalidArgument},
      {"huge prompt",
       std::string(kMaxPromptBytes + 1, 'p'),
       {},
       {},
       StatusCode::kInvalidArgument},
      {"child is parent", "", {}, self_child, StatusCode::kInvalidArgument},
      {"bad child id", "", {}, bad_child, StatusCode::kInvalidArgument},
      {"bad session id", "", {}, bad_session, StatusCode::kInvalidArgument},
      {"bad result key", "", {}, bad_key, StatusCode::kInvalidArgument},
      {"removed value",
       "",
       {{"g", gone_ref->Dynamic()}},
       {},
       StatusCode::kNotFound},
      {"unknown id", "", {{"u", unknown}}, {}, StatusCode::kNotFound},
      {"no such version", "", {{"f", future}}, {}, StatusCode::kNotFound},
      {"forged size", "", {{"f", forged}}, {}, StatusCode::kInvalidArgument},
      {"session-only",
       "",
       {{"t", *session_only}},
       {},
       StatusCode::kFailedPrecondition},
      {"missing dir", "", {{"d", doc}}, no_dir, StatusCode::kNotFound},
      {"path is a dir", "", {{"d", doc}}, is_dir, StatusCode::kInvalidArgument},
      {"existing dir",
       "",
       {{"d", doc}},
       dir_target,
       StatusCode::kInvalidArgument},
  };
  for (const Case& c : cases) {
    Result<SpawnedAgent> r = Spawn(parent(), c.prompt, c.context, c.options);
    EXPECT_EQ(r.status().code(), c.want)
        << c.what << ": " << r.status().ToString();
  }
  EXPECT_TRUE(SpawnDirFiles().empty());
  Result<StoreStats> after = store_->Stats();
  ASSERT_OK(after.status());
  EXPECT_EQ(after->objects, before->objects);
  EXPECT_EQ(after->versions, before->versions);
  std::vector<std::string> top;
  for (const auto& e : std::filesystem::directory_iterator(dir_)) {
    top.push_back(e.path().filename().string());
  }
  std::sort(top.begin(), top.end());
  EXPECT_EQ(top, (std::vector<std::string>{"a-dir", "store"}));
}

TEST_F(SpawnTest, AStaticRefToARemovedObjectStillPasses) {
  Ref v1 = SetGlobal("draft", "first draft");
  Result<Ref> pinned = parent().RefOf("draft", {"", 1});
  ASSERT_OK(pinned.status());
  ASSERT_OK(parent().Remove("draft"));
  (void)v1;
  Result<SpawnedAgent> spawned = Spawn(parent(), "", {{"draft", *pinned}});
  ASSERT_OK(spawned.status());
  Result<std::string> value =
      ResolveContextRef(spawned->view, spawned->manifest, "draft");
  ASSERT_OK(value.status());
  EXPECT_EQ(*value, "first draft");
}

}  // namespace
}  // namespace ctxkit::testing
