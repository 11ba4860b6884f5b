// The watch list follows the store: two homes of one store (two machines
// on one PostgreSQL database in the "pg." variant; one SQLite home opened
// twice otherwise) see the same list, and the list file an earlier build
// kept under <home>/watch is imported once.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/two_homes.h"
#include "ctxkit/watch.h"
#include "watch/watch_list_file.h"

namespace ctxkit::testing {
namespace {

std::vector<std::string> Paths(Store& store) {
  Result<std::vector<WatchEntry>> list = ListWatches(store);
  EXPECT_TRUE(list.ok()) << list.status().ToString();
  std::vector<std::string> out;
  if (list.ok()) {
    for (const WatchEntry& e : *list) out.push_back(e.path);
  }
  return out;
}

std::string Tree(const TwoHomes& homes, const std::string& name) {
  const std::string dir = homes.dir + "/trees/" + name;
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/f.txt") << name;
  return std::filesystem::canonical(dir).string();
}

TEST(SharedWatchListTest, BothHomesSeeOneWatchList) {
  Result<TwoHomes> homes = OpenTwoHomes("ctxkit-watch-shared");
  ASSERT_TRUE(homes.ok()) << homes.status().ToString();
  const std::string one = Tree(*homes, "one");
  const std::string two = Tree(*homes, "two");
  ASSERT_TRUE(AddWatch(*homes->a, one).ok());
  ASSERT_TRUE(AddWatch(*homes->b, two).ok());
  const std::vector<std::string> both = {one, two};
  EXPECT_EQ(Paths(*homes->a), both);
  EXPECT_EQ(Paths(*homes->b), both);
  // One list: a path added from one home is watched already for the other.
  EXPECT_EQ(AddWatch(*homes->b, one).status().code(),
            StatusCode::kAlreadyExists);
  ASSERT_TRUE(RemoveWatch(*homes->b, one).ok());
  EXPECT_EQ(Paths(*homes->a), std::vector<std::string>{two});
  EXPECT_TRUE(RemoveWatch(*homes->a, one).IsNotFound());
  // No home keeps a list file of its own.
  EXPECT_FALSE(
      std::filesystem::exists(homes->a->home() + "/watch/watches.json"));
  EXPECT_FALSE(
      std::filesystem::exists(homes->b->home() + "/watch/watches.json"));
}

TEST(SharedWatchListTest, TheListFileOfAnEarlierBuildIsImportedOnce) {
  Result<TwoHomes> homes = OpenTwoHomes("ctxkit-watch-import");
  ASSERT_TRUE(homes.ok()) << homes.status().ToString();
  const std::string one = Tree(*homes, "one");
  const std::string two = Tree(*homes, "two");
  const std::string dir = homes->a->home() + "/watch";
  std::filesystem::create_directories(dir);
  ASSERT_TRUE(
      watch::SaveWatchListFile(dir, {{one, true, 11}, {two, true, 22}}).ok());
  // Home b was upgraded first and watches `two` already: kept as it is.
  if (homes->on_postgres) {
    ASSERT_TRUE(AddWatch(*homes->b, two).ok());
  }
  Result<std::vector<WatchEntry>> list = ListWatches(*homes->a);
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].path, one);
  EXPECT_EQ((*list)[0].added_unix_ns, 11);
  EXPECT_TRUE((*list)[1].directory);
  if (!homes->on_postgres) {
    EXPECT_EQ((*list)[1].added_unix_ns, 22);
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/watches.json"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/watches.json.imported"));
  EXPECT_EQ(Paths(*homes->b), (std::vector<std::string>{one, two}));
  // Once: removing an imported entry does not bring it back.
  ASSERT_TRUE(RemoveWatch(*homes->b, one).ok());
  EXPECT_EQ(Paths(*homes->a), std::vector<std::string>{two});
}

}  // namespace
}  // namespace ctxkit::testing
