// Session entries of every kind, written as builds before the entries'
// hot and listed flags wrote them, and what a migration must make of
// them (the SQLite and PostgreSQL migration tests share these).

#ifndef CTXKIT_TESTS_STORAGE_SESSION_FLAGS_CASES_H_
#define CTXKIT_TESTS_STORAGE_SESSION_FLAGS_CASES_H_

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "storage/backend.h"

namespace ctxkit::storage::session_cases {

// Session "s1": active and from the chat (hot), plain (listed), an output
// of the chat no longer active (neither), locked (hot), pinned (both).
inline SessionWrite EntriesOfEveryKind() {
  SessionWrite w;
  w.id = "s1";
  w.state_json = "{}";
  w.put_entries = {
      {"o1", 1, R"({"id":"o1","active":true,"from_chat":true})"},
      {"o2", 2, R"({"id":"o2","active":false,"pinned_version":0})"},
      {"o3", 3, R"({"id":"o3","from_chat":true})"},
      {"o4", 4, R"({"id":"o4","locked":true})"},
      {"o5", 5, R"({"id":"o5","pinned_version":3})"}};
  return w;
}

// The flags `backend` holds for EntriesOfEveryKind() after a migration.
inline void ExpectFlagsOfEveryKind(Backend& backend) {
  auto head = backend.LoadSessionHead("s1", 10);
  ASSERT_TRUE(head.ok()) << head.status().ToString();
  std::vector<std::string> hot, listed;
  for (const SessionEntryRow& row : head->entries) {
    if (row.hot) hot.push_back(row.object_id);
    if (row.listed) listed.push_back(row.object_id);
  }
  std::sort(hot.begin(), hot.end());
  std::sort(listed.begin(), listed.end());
  EXPECT_EQ(hot, (std::vector<std::string>{"o1", "o4", "o5"}));
  EXPECT_EQ(listed, (std::vector<std::string>{"o2", "o5"}));
  auto count = backend.CountListedSessionEntries("s1");
  ASSERT_TRUE(count.ok()) << count.status().ToString();
  EXPECT_EQ(*count, 2u);
}

}  // namespace ctxkit::storage::session_cases

#endif  // CTXKIT_TESTS_STORAGE_SESSION_FLAGS_CASES_H_
