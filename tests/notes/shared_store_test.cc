// The execution log follows the store: two homes of one store (two
// machines on one PostgreSQL database in the "pg." variant; one SQLite
// home opened twice otherwise) append to and read one log, and the JSONL
// file an earlier build appended to is imported exactly once.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "common/two_homes.h"
#include "ctxkit/notes.h"

namespace ctxkit::testing {
namespace {

ExecutionLogEntry Entry(const std::string& command) {
  ExecutionLogEntry e;
  e.timestamp = "2026-01-01T00:00:00Z";
  e.command = command;
  e.status = "ok";
  return e;
}

std::vector<std::string> Commands(Store& store) {
  Result<std::vector<ExecutionLogEntry>> log = ReadExecutionLog(store, 100);
  EXPECT_TRUE(log.ok()) << log.status().ToString();
  std::vector<std::string> out;
  if (log.ok()) {
    for (const ExecutionLogEntry& e : *log) out.push_back(e.command);
  }
  return out;
}

TEST(SharedExecutionLogTest, BothHomesAppendToAndReadOneLog) {
  Result<TwoHomes> homes = OpenTwoHomes("ctxkit-log-shared");
  ASSERT_TRUE(homes.ok()) << homes.status().ToString();
  ASSERT_TRUE(AppendExecutionLog(*homes->a, Entry("notes add")).ok());
  ASSERT_TRUE(AppendExecutionLog(*homes->b, Entry("tools save")).ok());
  ASSERT_TRUE(AppendExecutionLog(*homes->a, Entry("notes update")).ok());
  const std::vector<std::string> all = {"notes add", "tools save",
                                        "notes update"};
  EXPECT_EQ(Commands(*homes->a), all);
  EXPECT_EQ(Commands(*homes->b), all);
  Result<std::vector<ExecutionLogEntry>> last = ReadExecutionLog(*homes->b, 1);
  ASSERT_TRUE(last.ok());
  ASSERT_EQ(last->size(), 1u);
  EXPECT_EQ((*last)[0].command, "notes update");
  EXPECT_FALSE(std::filesystem::exists(homes->a->home() + "/logs"));
}

TEST(SharedExecutionLogTest, TheLogFileOfAnEarlierBuildIsImportedExactlyOnce) {
  Result<TwoHomes> homes = OpenTwoHomes("ctxkit-log-import");
  ASSERT_TRUE(homes.ok()) << homes.status().ToString();
  const std::string dir = homes->a->home() + "/logs";
  std::filesystem::create_directories(dir);
  const std::string file = dir + "/execution.jsonl";
  const std::string old = ExecutionLogLine(Entry("old one")) + "\n" +
                          ExecutionLogLine(Entry("old two")) + "\n" +
                          "{\"command\": \"unfinished";
  std::ofstream(file) << old;
  ASSERT_TRUE(AppendExecutionLog(*homes->b, Entry("b first")).ok());
  // Home a's first use imports its file, before its own entry.
  ASSERT_TRUE(AppendExecutionLog(*homes->a, Entry("a first")).ok());
  EXPECT_FALSE(std::filesystem::exists(file));
  EXPECT_TRUE(std::filesystem::exists(file + ".imported"));
  const std::vector<std::string> expected =
      homes->on_postgres
          ? std::vector<std::string>{"b first", "old one", "old two", "a first"}
          // One home: b's append imported the file first.
          : std::vector<std::string>{"old one", "old two", "b first",
                                     "a first"};
  EXPECT_EQ(Commands(*homes->a), expected);
  EXPECT_EQ(Commands(*homes->b), expected);
  // A crash between the import's commit and the rename leaves the file:
  // the next use imports nothing twice, and renames it.
  std::filesystem::rename(file + ".imported", file);
  EXPECT_EQ(Commands(*homes->a), expected);
  EXPECT_FALSE(std::filesystem::exists(file));
}

}  // namespace
}  // namespace ctxkit::testing
