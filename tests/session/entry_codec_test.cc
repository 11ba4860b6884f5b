// A pool entry's stored form: what EncodeEntry writes reads back the same,
// and DecodeEntry refuses anything that is not an entry (Corruption) rather
// than guessing, while ignoring keys it does not know.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "session/session_state.h"

namespace ctxkit {
namespace {

using nlohmann::json;

PoolEntry Sample() {
  PoolEntry e;
  e.id = "obj-1";
  e.key = "notes/\"quoted\" \u00e9";
  e.scope = "global";
  e.kind = "text";
  e.title = "line one\nline two";
  e.version = 7;
  e.tokens = 18446744073709551615ull;
  e.size_bytes = 1234;
  e.ref = "ck:abc";
  e.seq = 42;
  e.locked = true;
  e.active = true;
  e.auto_active = true;
  e.collapsed = false;
  e.active_seq = 9;
  e.pinned_version = 3;
  e.from_chat = true;
  e.compacted = true;
  return e;
}

void ExpectSame(const PoolEntry& a, const PoolEntry& b) {
  EXPECT_EQ(a.id, b.id);
  EXPECT_EQ(a.key, b.key);
  EXPECT_EQ(a.scope, b.scope);
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.title, b.title);
  EXPECT_EQ(a.version, b.version);
  EXPECT_EQ(a.tokens, b.tokens);
  EXPECT_EQ(a.size_bytes, b.size_bytes);
  EXPECT_EQ(a.ref, b.ref);
  EXPECT_EQ(a.seq, b.seq);
  EXPECT_EQ(a.locked, b.locked);
  EXPECT_EQ(a.active, b.active);
  EXPECT_EQ(a.auto_active, b.auto_active);
  EXPECT_EQ(a.collapsed, b.collapsed);
  EXPECT_EQ(a.active_seq, b.active_seq);
  EXPECT_EQ(a.pinned_version, b.pinned_version);
  EXPECT_EQ(a.from_chat, b.from_chat);
  EXPECT_EQ(a.compacted, b.compacted);
}

TEST(EntryCodecTest, RoundTrips) {
  const PoolEntry e = Sample();
  auto back = session::DecodeEntry(session::EncodeEntry(e));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ExpectSame(*back, e);
}

TEST(EntryCodecTest, UnknownKeysAreIgnoredAndCompactedIsOptional) {
  json j = json::parse(session::EncodeEntry(Sample()));
  j.erase("compacted");  // Entries written before compaction existed.
  j["later_field"] = {{"nested", json::array({1, {{"deep", true}}})}};
  j["another"] = nullptr;
  auto back = session::DecodeEntry(j.dump());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_FALSE(back->compacted);
  EXPECT_EQ(back->key, Sample().key);
  // The last of duplicate keys wins, as a JSON parser keeps it.
  std::string text = j.dump();
  text.insert(1, "\"seq\":5,");
  back = session::DecodeEntry(text);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->seq, 42u);
}

TEST(EntryCodecTest, WhatIsNotAnEntryIsCorruption) {
  const json good = json::parse(session::EncodeEntry(Sample()));
  std::vector<std::string> bad = {"",
                                  "[]",
                                  "42",
                                  "\"entry\"",
                                  "null",
                                  "{",
                                  good.dump() + "x",
                                  good.dump() + good.dump(),
                                  "[" + good.dump() + "]"};
  for (const char* field : {"id", "seq", "active", "from_chat"}) {
    json missing = good;
    missing.erase(field);
    bad.push_back(missing.dump());
  }
  for (const auto& [field, value] :
       std::vector<std::pair<std::string, json>>{{"id", 5},
                                                 {"key", nullptr},
                                                 {"seq", -1},
                                                 {"seq", 1.5},
                                                 {"seq", "1"},
                                                 {"tokens", json::array()},
                                                 {"active", 1},
                                                 {"compacted", "yes"},
                                                 {"title", json::object()}}) {
    json wrong = good;
    wrong[field] = value;
    bad.push_back(wrong.dump());
  }
  for (const std::string& text : bad) {
    auto e = session::DecodeEntry(text);
    EXPECT_EQ(e.status().code(), StatusCode::kCorruption) << text;
  }
}

}  // namespace
}  // namespace ctxkit
