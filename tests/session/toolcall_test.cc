// Toolcall objects: layout, validation, idempotence, round trip.

#include "ctxkit/toolcall.h"

#include <gtest/gtest.h>

#include <string>

#include "session/session_test_util.h"

namespace ctxkit {
namespace {

using testing::SessionStoreFixture;

class ToolCallTest : public SessionStoreFixture {
 protected:
  ToolCall Grep() {
    ToolCall c;
    c.call_id = "call_1";
    c.tool = "grep";
    c.arguments_json = R"({"q":"auth"})";
    c.status = "ok";
    c.output = "src/a.cc:1: auth\n";
    return c;
  }
  uint64_t VersionCount(const std::string& key) {
    auto v = view().Versions(key);
    EXPECT_TRUE(v.ok()) << v.status().ToString();
    return v.ok() ? v->size() : 0;
  }
};

TEST_F(ToolCallTest, StoresOutputTagsAndSidecar) {
  auto ref = RecordToolCall(view(), Grep());
  ASSERT_TRUE(ref.ok()) << ref.status().ToString();
  EXPECT_EQ(ref->key, "toolcall:call_1");
  EXPECT_EQ(ref->type, ValueType::kText);
  EXPECT_EQ(*view().Get("toolcall:call_1"), "src/a.cc:1: auth\n");
  auto meta = view().Stat("toolcall:call_1");
  ASSERT_TRUE(meta.ok());
  EXPECT_EQ(meta->tags, (std::vector<std::string>{"kind:toolcall", "status:ok",
                                                  "tool:grep"}));
  auto versions = view().Versions("toolcall:call_1");
  ASSERT_TRUE(versions.ok());
  EXPECT_EQ(versions->back().producer, "tool:grep");
  auto side = view().Stat("toolcall:call_1#meta");
  ASSERT_TRUE(side.ok());
  EXPECT_EQ(side->type, ValueType::kJson);
  // The ref names the version recorded, whatever is written after it.
  EXPECT_TRUE(ref->is_static());
  ASSERT_TRUE(view().Set("toolcall:call_1", "later writer").ok());
  EXPECT_EQ(*view().Resolve(*ref), "src/a.cc:1: auth\n");
}

TEST_F(ToolCallTest, JsonContainerOutputIsJson) {
  ToolCall c = Grep();
  c.output = R"( [{"file":"a.cc"}] )";
  ASSERT_TRUE(RecordToolCall(view(), c).ok());
  EXPECT_EQ(view().Stat("toolcall:call_1")->type, ValueType::kJson);
  c.call_id = "call_2";
  c.output = "42";  // Valid JSON, but not an object or array.
  ASSERT_TRUE(RecordToolCall(view(), c).ok());
  EXPECT_EQ(view().Stat("toolcall:call_2")->type, ValueType::kText);
}

TEST_F(ToolCallTest, IdenticalReRecordAddsNoVersion) {
  ASSERT_TRUE(RecordToolCall(view(), Grep()).ok());
  ASSERT_TRUE(RecordToolCall(view(), Grep()).ok());
  EXPECT_EQ(VersionCount("toolcall:call_1"), 1u);
  EXPECT_EQ(VersionCount("toolcall:call_1#meta"), 1u);
}

TEST_F(ToolCallTest, ChangedFieldsAddVersions) {
  ToolCall c = Grep();
  c.status = "pending";
  c.output = "";
  ASSERT_TRUE(RecordToolCall(view(), c).ok());
  c.status = "ok";
  c.output = "done";
  ASSERT_TRUE(RecordToolCall(view(), c).ok());
  EXPECT_EQ(VersionCount("toolcall:call_1"), 2u);
  EXPECT_EQ(VersionCount("toolcall:call_1#meta"), 2u);
  // Only the arguments change: the output keeps its version.
  c.arguments_json = R"({"q":"other"})";
  ASSERT_TRUE(RecordToolCall(view(), c).ok());
  EXPECT_EQ(VersionCount("toolcall:call_1"), 2u);
  EXPECT_EQ(VersionCount("toolcall:call_1#meta"), 3u);
  auto back = LoadToolCall(view(), "call_1", true);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->arguments_json, R"({"q":"other"})");
  EXPECT_EQ(back->status, "ok");
  EXPECT_EQ(back->output, "done");
}

TEST_F(ToolCallTest, LoadRoundTrips) {
  ToolCall c = Grep();
  c.producer = "harness:x";
  c.arguments_json = "";
  ASSERT_TRUE(RecordToolCall(view(), c).ok());
  auto no_output = LoadToolCall(view(), "call_1");
  ASSERT_TRUE(no_output.ok()) << no_output.status().ToString();
  EXPECT_EQ(no_output->tool, "grep");
  EXPECT_EQ(no_output->arguments_json, "");
  EXPECT_EQ(no_output->producer, "harness:x");
  EXPECT_TRUE(no_output->output.empty());
  auto with_output = LoadToolCall(view(), "call_1", true);
  ASSERT_TRUE(with_output.ok());
  EXPECT_EQ(with_output->output, c.output);
  EXPECT_TRUE(LoadToolCall(view(), "nope").status().IsNotFound());
}

TEST_F(ToolCallTest, RecordsInNamedScope) {
  auto v = store().OpenView("agent1", "s1");
  ASSERT_TRUE(v.ok());
  ASSERT_TRUE(RecordToolCall(*v, Grep(), "session").ok());
  EXPECT_EQ(v->Stat("toolcall:call_1")->scope.ToString(), "session:s1");
  auto back = LoadToolCall(*v, "call_1", true);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->output, Grep().output);
  // The global view does not see the session's call.
  EXPECT_TRUE(LoadToolCall(view(), "call_1").status().IsNotFound());
}

TEST_F(ToolCallTest, ValidatesEveryFieldAndLeavesStoreUnchanged) {
  auto bad = [&](auto mutate) {
    ToolCall c = Grep();
    mutate(c);
    Status s = RecordToolCall(view(), c).status();
    EXPECT_TRUE(s.IsInvalidArgument()) << s.ToString();
  };
  bad([](ToolCall& c) { c.call_id = ""; });
  bad([](ToolCall& c) { c.call_id = "a/b"; });
  bad([](ToolCall& c) { c.call_id = std::string(129, 'a'); });
  bad([](ToolCall& c) { c.tool = ""; });
  bad([](ToolCall& c) { c.tool = "a\nb"; });
  bad([](ToolCall& c) { c.tool = std::string(129, 't'); });
  bad([](ToolCall& c) { c.arguments_json = "{nope"; });
  bad([](ToolCall& c) { c.status = "done"; });
  bad([](ToolCall& c) { c.producer = "x\x01"; });
  EXPECT_TRUE(view().Stat("toolcall:call_1").status().IsNotFound());
  EXPECT_TRUE(view().Stat("toolcall:call_1#meta").status().IsNotFound());
}

TEST_F(ToolCallTest, LongToolNameTagIsCut) {
  ToolCall c = Grep();
  c.tool = std::string(120, 'x');
  ASSERT_TRUE(RecordToolCall(view(), c).ok());
  auto meta = view().Stat("toolcall:call_1");
  ASSERT_TRUE(meta.ok());
  bool found = false;
  for (const auto& t : meta->tags) {
    if (t.rfind("tool:", 0) == 0) {
      found = true;
      EXPECT_EQ(t.size(), 64u);
    }
  }
  EXPECT_TRUE(found);
  EXPECT_EQ(LoadToolCall(view(), "call_1")->tool, c.tool);
}

TEST_F(ToolCallTest, SidecarOutOfStepIsCorruptionThenRepaired) {
  ASSERT_TRUE(RecordToolCall(view(), Grep()).ok());
  // Someone else writes the output key: the sidecar no longer describes it.
  ASSERT_TRUE(view().Set("toolcall:call_1", "other").ok());
  EXPECT_EQ(LoadToolCall(view(), "call_1").status().code(),
            StatusCode::kCorruption);
  ASSERT_TRUE(RecordToolCall(view(), Grep()).ok());
  auto back = LoadToolCall(view(), "call_1", true);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->output, Grep().output);
}

}  // namespace
}  // namespace ctxkit
