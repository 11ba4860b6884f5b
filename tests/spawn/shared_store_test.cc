// Manifests follow the store: two homes of one store (two machines on one
// PostgreSQL database in the "pg." variant; one SQLite home opened twice
// otherwise) see every manifest either spawned, and gc from either keeps
// what either's manifests name. And the import of the manifest files an
// earlier build kept only under <home>/spawn.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/two_homes.h"
#include "ctxkit/spawn.h"
#include "spawn/spawn_test_util.h"
#include "store/store_internals.h"

namespace ctxkit::testing {
namespace {

// Sets `key` twice in the global scope; the static ref of version 1.
Ref TwoVersions(View& view, const std::string& key) {
  Result<Ref> first = view.Set(key, key + " one");
  EXPECT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_TRUE(view.Set(key, key + " two").ok());
  return first.ok() ? *first : Ref();
}

std::vector<std::string> Children(Store& store) {
  Result<std::vector<Manifest>> all = ListManifests(store);
  EXPECT_TRUE(all.ok()) << all.status().ToString();
  std::vector<std::string> out;
  if (all.ok()) {
    for (const Manifest& m : *all) out.push_back(m.child_agent);
  }
  return out;
}

TEST(SharedManifestsTest,
     BothHomesSeeEveryManifestAndGcFromEitherKeepsWhatTheyName) {
  Result<TwoHomes> homes = OpenTwoHomes("ctxkit-spawn-shared");
  ASSERT_TRUE(homes.ok()) << homes.status().ToString();
  Result<View> pa = homes->a->OpenView("planner", "");
  Result<View> pb = homes->b->OpenView("builder", "");
  ASSERT_TRUE(pa.ok() && pb.ok());
  const Ref doc_a = TwoVersions(*pa, "doc-a");
  const Ref doc_b = TwoVersions(*pb, "doc-b");
  const Ref plain = TwoVersions(*pa, "plain");  // Named by no manifest.
  Result<SpawnedAgent> child_a =
      Spawn(*pa, "read a", {{"doc", doc_a}}, {.child_agent_id = "child-a"});
  ASSERT_OK(child_a.status());
  Result<SpawnedAgent> child_b =
      Spawn(*pb, "read b", {{"doc", doc_b}}, {.child_agent_id = "child-b"});
  ASSERT_OK(child_b.status());

  const std::vector<std::string> both = {"child-a", "child-b"};
  EXPECT_EQ(Children(*homes->a), both);
  EXPECT_EQ(Children(*homes->b), both);
  Result<Manifest> seen = LoadManifest(*homes->a, "child-b");
  ASSERT_OK(seen.status());
  EXPECT_EQ(seen->prompt, "read b");
  ASSERT_EQ(seen->refs.size(), 1u);
  EXPECT_EQ(seen->refs[0].ref, doc_b);
  EXPECT_TRUE(LoadManifest(*homes->b, "child-none").status().IsNotFound());

  // gc from either home keeps what either home's manifests name.
  GarbageOptions gc{.retention_seconds = 0, .apply = true};
  for (Store* from : {homes->a.get(), homes->b.get()}) {
    Result<GarbageReport> report = from->CollectGarbage(gc);
    ASSERT_OK(report.status());
    for (Store* reader : {homes->a.get(), homes->b.get()}) {
      Result<View> v = reader->OpenView("", "");
      ASSERT_TRUE(v.ok());
      EXPECT_EQ(*v->Resolve(doc_a), "doc-a one");
      EXPECT_EQ(*v->Resolve(doc_b), "doc-b one");
      EXPECT_TRUE(v->Resolve(plain).status().IsNotFound());
    }
  }
}

TEST(SharedManifestsTest, ManifestFilesOfAnEarlierBuildAreImportedOnce) {
  Result<TwoHomes> homes = OpenTwoHomes("ctxkit-spawn-import");
  ASSERT_TRUE(homes.ok()) << homes.status().ToString();
  Result<View> pa = homes->a->OpenView("planner", "");
  ASSERT_TRUE(pa.ok());
  const Ref doc = TwoVersions(*pa, "doc");
  Result<SpawnedAgent> spawned =
      Spawn(*pa, "old", {{"doc", doc}}, {.child_agent_id = "old-child"});
  ASSERT_OK(spawned.status());
  // As an earlier build left it: the file alone, no record in the engine.
  storage::RecordWrite forget;
  forget.removes.push_back({"spawn", "old-child"});
  ASSERT_OK(StoreInternals::WriteRecords(*homes->a, forget));
  if (homes->on_postgres) {
    EXPECT_TRUE(Children(*homes->b).empty());
  }

  // The first read from home a imports its files: then both homes see it.
  EXPECT_EQ(Children(*homes->a), std::vector<std::string>{"old-child"});
  EXPECT_EQ(Children(*homes->b), std::vector<std::string>{"old-child"});
  Result<Manifest> imported = LoadManifest(*homes->b, "old-child");
  ASSERT_OK(imported.status());
  EXPECT_EQ(imported->refs[0].ref, doc);
  const std::string dir = homes->a->home() + "/spawn";
  EXPECT_TRUE(std::filesystem::exists(dir + "/.imported"));
  // The file stays, for a child started before the upgrade.
  EXPECT_TRUE(std::filesystem::exists(spawned->manifest_path));

  // Once: a file that appears later is not read again (Spawn writes the
  // store's record with every file it writes).
  ASSERT_OK(StoreInternals::WriteRecords(*homes->a, forget));
  EXPECT_TRUE(Children(*homes->a).empty());
}

TEST(SharedManifestsTest,
     AManifestFileThatIsNotOneStopsTheImportWritingNothing) {
  Result<TwoHomes> homes = OpenTwoHomes("ctxkit-spawn-bad");
  ASSERT_TRUE(homes.ok()) << homes.status().ToString();
  const std::string dir = homes->a->home() + "/spawn";
  std::filesystem::create_directories(dir);
  Result<View> pa = homes->a->OpenView("planner", "");
  ASSERT_TRUE(pa.ok());
  const Ref doc = TwoVersions(*pa, "doc");
  ASSERT_OK(
      Spawn(*pa, "ok", {{"doc", doc}}, {.child_agent_id = "good"}).status());
  storage::RecordWrite forget;
  forget.removes.push_back({"spawn", "good"});
  ASSERT_OK(StoreInternals::WriteRecords(*homes->a, forget));
  std::ofstream(dir + "/bad.json") << "{not json";
  EXPECT_EQ(ListManifests(*homes->a).status().code(), StatusCode::kCorruption);
  EXPECT_FALSE(std::filesystem::exists(dir + "/.imported"));
  std::filesystem::remove(dir + "/bad.json");
  EXPECT_EQ(Children(*homes->a), std::vector<std::string>{"good"});
}

}  // namespace
}  // namespace ctxkit::testing
