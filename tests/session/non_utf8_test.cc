// Values that are not UTF-8 (Latin-1 text, stray bytes) in sessions: they
// are tracked, activated, pinned and rendered like any value, shown with
// U+FFFD for each ill-formed sequence, while their refs read the exact
// bytes; records of such renders replay byte for byte.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "core/encoding.h"
#include "ctxkit/session.h"
#include "ctxkit/store.h"
#include "ctxkit/tokenizer.h"
#include "session/log_builders.h"
#include "session/session_test_util.h"

namespace ctxkit {
namespace {

using nlohmann::json;
using testing::OpenAILog;
using testing::SessionStoreFixture;

constexpr char kFirstLine[] = "caf\xe9\n";                // Latin-1 é.
constexpr char kLaterLine[] = "ok line\ncaf\xe9 more\n";  // After line 1.
constexpr char kStray[] = "bytes \xff\xfe and \x80 end";  // Not text at all.
constexpr char kReplacement[] = "\xef\xbf\xbd";           // U+FFFD.

class NonUtf8Test : public SessionStoreFixture {
 protected:
  void SetUp() override {
    SessionStoreFixture::SetUp();
    ASSERT_TRUE(view().Set("first", kFirstLine).ok());
    ASSERT_TRUE(view().Set("later", kLaterLine).ok());
    ASSERT_TRUE(view().Set("stray", kStray).ok());
  }

  // Renders session `s` (both formats) and checks each request parses as
  // JSON, shows `shown`, holds no ill-formed UTF-8, and replays byte for
  // byte from a new instance.
  void ExpectRendersAndReplays(Session& s, const std::string& shown) {
    for (LogFormat format : {LogFormat::kOpenAI, LogFormat::kAnthropic}) {
      auto r = s.Render({.budget_tokens = 20000, .format = format});
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      EXPECT_TRUE(core::IsValidUtf8(r->request_json));
      EXPECT_FALSE(json::parse(r->request_json, nullptr, false).is_discarded());
      EXPECT_NE(r->request_json.find(shown), std::string::npos)
          << r->request_json;
      auto other = Session::Open(store(), s.id());
      ASSERT_TRUE(other.ok());
      auto replay = (*other)->Replay(r->record);
      ASSERT_TRUE(replay.ok()) << replay.status().ToString();
      EXPECT_EQ(replay->request_json, r->request_json);
    }
  }
};

TEST_F(NonUtf8Test, ALatin1FirstLineIsActivatedTrackedAndPinned) {
  auto s = NewSession("s");
  ASSERT_TRUE(s->Track("first").ok());
  ASSERT_TRUE(s->Activate("first").ok());
  ASSERT_TRUE(s->Pin("first").ok());
  auto snap = s->Snapshot();
  ASSERT_TRUE(snap.ok()) << snap.status().ToString();
  ASSERT_EQ(snap->entries.size(), 1u);
  const PoolEntry& e = snap->entries[0];
  EXPECT_EQ(e.title, std::string("caf") + kReplacement);
  // The count is the stored value's; the tokenizer reads ill-formed UTF-8
  // as U+FFFD, so it is also the count of what the render shows.
  const Tokenizer* tok = *Tokenizer::Get(kDefaultEncoding);
  EXPECT_EQ(e.tokens, tok->Count(std::string("caf") + kReplacement + "\n"));
  // The ref still reads the exact bytes.
  auto ref = ParseRef(e.ref);
  ASSERT_TRUE(ref.ok());
  EXPECT_EQ(*view().Resolve(*ref), kFirstLine);
  ExpectRendersAndReplays(*s, std::string("caf") + kReplacement + "\\n");
}

TEST_F(NonUtf8Test, Latin1AfterTheFirstLineRendersWhileActive) {
  auto s = NewSession("s");
  ASSERT_TRUE(s->Activate("later").ok());
  ASSERT_TRUE(s->Activate("stray").ok());
  auto snap = s->Snapshot();
  ASSERT_TRUE(snap.ok());
  for (const PoolEntry& e : snap->entries) {
    EXPECT_TRUE(core::IsValidUtf8(e.title)) << e.key;
  }
  ExpectRendersAndReplays(*s, std::string("caf") + kReplacement + " more");
  ExpectRendersAndReplays(*s, std::string("bytes ") + kReplacement +
                                  kReplacement + " and " + kReplacement);
  // Pinned at an older version while the latest is text: both render.
  ASSERT_TRUE(view().Set("later", "now plain text").ok());
  ASSERT_TRUE(s->Pin("later", 1).ok());
  ExpectRendersAndReplays(*s, std::string("caf") + kReplacement + " more");
  ASSERT_TRUE(s->Deactivate("later").ok());
  ASSERT_TRUE(s->Deactivate("stray").ok());
  ExpectRendersAndReplays(*s, std::string("caf") + kReplacement + " more");
}

TEST_F(NonUtf8Test, AChatOutputRewrittenWithLatin1RendersInPlace) {
  auto s = NewSession("s");
  ASSERT_TRUE(s->Ingest(OpenAILog(2).dump(), LogFormat::kOpenAI).ok());
  View sv = *store().OpenView("", "s");
  ASSERT_TRUE(sv.Set("toolcall:call_1", std::string("out ") + kFirstLine,
                     {.scope = "session"})
                  .ok());
  ExpectRendersAndReplays(*s, std::string("out caf") + kReplacement);
  ASSERT_TRUE(s->Track("toolcall:call_1").ok());
  ExpectRendersAndReplays(*s, std::string("out caf") + kReplacement);
}

}  // namespace
}  // namespace ctxkit
