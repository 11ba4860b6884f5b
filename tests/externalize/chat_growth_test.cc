// In tests/externalize/ because it peeks the stored chat by item (explore).
// The chat is stored so that ingesting turn N+1 stores only what is new:
// a harness sends the whole log after every turn, and the store must grow
// with the log, not with the square of it.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/encoding.h"
#include "core/sha256.h"
#include "ctxkit/explore.h"
#include "ctxkit/session.h"
#include "session/log_builders.h"
#include "session/session_state.h"
#include "session/session_test_util.h"
#include "storage/backend.h"
#include "store/store_backend.h"
#include "store/store_internals.h"

namespace ctxkit {
namespace {

using testing::OpenAILog;
using testing::RealisticOpenAILog;
using testing::SessionStoreFixture;

constexpr char kChat[] = "ctxkit.session/chat";

class ChatGrowthTest : public SessionStoreFixture {
 protected:
  void SetUp() override {
    SessionStoreFixture::SetUp();
    auto s = Session::Create(store(), "s1", {});
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    session_ = std::move(*s);
    auto sv = store().OpenView("", "s1");
    ASSERT_TRUE(sv.ok());
    sv_.emplace(std::move(*sv));
  }
  void TearDown() override {
    session_.reset();
    sv_.reset();
    SessionStoreFixture::TearDown();
  }

  IngestReport Ingest(const nlohmann::json& log) {
    auto r = session_->Ingest(log.dump(), LogFormat::kOpenAI);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : IngestReport();
  }
  // The chat version the session state pins, decoded.
  std::vector<session::ChatMessage> PinnedChat(uint64_t* version = nullptr) {
    auto snap = session_->Snapshot();
    EXPECT_TRUE(snap.ok());
    if (version != nullptr) *version = snap->chat_version;
    auto text =
        sv_->Get(kChat, {.scope = "session", .version = snap->chat_version});
    EXPECT_TRUE(text.ok()) << text.status().ToString();
    auto chat = session::DecodeChat(text.ok() ? *text : "");
    EXPECT_TRUE(chat.ok()) << chat.status().ToString();
    EXPECT_EQ(chat.ok() ? chat->size() : 0, snap->chat_messages);
    return chat.ok() ? *chat : std::vector<session::ChatMessage>();
  }

  std::unique_ptr<Session> session_;
  std::optional<View> sv_;
};

TEST_F(ChatGrowthTest, TurnByTurnIngestionStoresAboutTheLog) {
  constexpr int kTurns = 60;
  std::string log;
  for (int t = 1; t <= kTurns; ++t) {
    log = RealisticOpenAILog(t).dump();
    auto r = session_->Ingest(log, LogFormat::kOpenAI);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_FALSE(r->reset) << "turn " << t;
  }
  auto stats = store().Stats();
  ASSERT_TRUE(stats.ok());
  const double ratio = static_cast<double>(stats->content_bytes) /
                       static_cast<double>(log.size());
  EXPECT_LE(ratio, 1.5) << stats->content_bytes << " content bytes for a "
                        << log.size() << "-byte log";
}

// Every version stays the whole chat as of its ingestion: a static ref to
// it reads exactly those messages, and each is a prefix of the next.
TEST_F(ChatGrowthTest, EachVersionIsTheWholeChatOfItsIngestion) {
  std::vector<Ref> refs;
  std::vector<size_t> counts;
  for (int t = 1; t <= 5; ++t) {
    Ingest(OpenAILog(t));
    uint64_t version = 0;
    counts.push_back(PinnedChat(&version).size());
    auto ref = sv_->RefOf(kChat, {.scope = "session", .version = version});
    ASSERT_TRUE(ref.ok());
    EXPECT_EQ(ref->type, ValueType::kChat);
    refs.push_back(*ref);
  }
  std::string prev;
  for (size_t i = 0; i < refs.size(); ++i) {
    auto text = sv_->Resolve(refs[i]);
    ASSERT_TRUE(text.ok());
    auto chat = session::DecodeChat(*text);
    ASSERT_TRUE(chat.ok()) << chat.status().ToString();
    EXPECT_EQ(chat->size(), counts[i]);
    EXPECT_EQ(chat->size(), 4 * (i + 1));  // user, call, tool, reply.
    EXPECT_EQ(text->substr(0, prev.size()), prev) << "version " << i + 1;
    prev = *text;
  }
  // Versions after the first were appends: each one's hash is of the
  // bytes it added.
  auto versions = sv_->Versions(kChat, {.scope = "session"});
  ASSERT_TRUE(versions.ok());
  ASSERT_EQ(versions->size(), 5u);
  auto first = sv_->Resolve(refs[0]);
  auto second = sv_->Resolve(refs[1]);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ((*versions)[0].content_hash, core::ToHex(core::Sha256(*first)));
  EXPECT_EQ((*versions)[1].content_hash,
            core::ToHex(core::Sha256(second->substr(first->size()))));
  // The messages peek by item, one per line.
  PeekOptions po;
  po.unit = PeekUnit::kItems;
  po.start = 4;
  po.end = 6;
  po.count_total = true;
  auto peek = Peek(*sv_, refs.back(), po);
  ASSERT_TRUE(peek.ok()) << peek.status().ToString();
  ASSERT_EQ(peek->parts.size(), 2u);
  EXPECT_EQ(peek->total, 20u);
  EXPECT_EQ(nlohmann::json::parse(peek->parts[0])["text"],
            "Please look for thing 1");
  EXPECT_TRUE(nlohmann::json::accept(peek->text)) << peek->text;
  auto len = Len(*sv_, refs.back());
  ASSERT_TRUE(len.ok());
  EXPECT_EQ(len->items, 20u);
}

TEST_F(ChatGrowthTest, RewrittenLogWritesAWholeChatThenAppendsAgain) {
  Ingest(OpenAILog(3));
  nlohmann::json rewritten = OpenAILog(2);
  rewritten["messages"][1]["content"] = "A different first question";
  EXPECT_TRUE(Ingest(rewritten).reset);
  std::vector<session::ChatMessage> chat = PinnedChat();
  ASSERT_EQ(chat.size(), 8u);
  EXPECT_EQ(chat[0].text, "A different first question");
  rewritten["messages"].push_back({{"role", "user"}, {"content", "next"}});
  EXPECT_FALSE(Ingest(rewritten).reset);
  chat = PinnedChat();
  ASSERT_EQ(chat.size(), 9u);
  EXPECT_EQ(chat[0].text, "A different first question");
  EXPECT_EQ(chat[8].text, "next");
}

// Another writer moved the chat on: the conditional append is refused and
// the whole chat is written instead, never appended after foreign bytes.
TEST_F(ChatGrowthTest, ForeignVersionOfTheChatIsNotAppendedTo) {
  Ingest(OpenAILog(1));
  ASSERT_TRUE(sv_->Append(kChat, "{\"role\":\"user\",\"text\":\"x\"}\n",
                          {.scope = "session"})
                  .ok());
  Ingest(OpenAILog(2));
  std::vector<session::ChatMessage> chat = PinnedChat();
  ASSERT_EQ(chat.size(), 8u);
  for (const session::ChatMessage& m : chat) EXPECT_NE(m.text, "x");
}

// Sessions ingested by earlier builds have chat versions that are one JSON
// array: they are read, and the next ingestion writes the chat in lines.
TEST_F(ChatGrowthTest, ChatInTheArrayFormOfEarlierBuildsIsRead) {
  Ingest(OpenAILog(2));
  std::vector<session::ChatMessage> chat = PinnedChat();
  nlohmann::json array = nlohmann::json::array();
  const std::string lines = session::EncodeChat(chat);
  for (size_t at = 0; at < lines.size();) {
    const size_t nl = lines.find('\n', at);
    array.push_back(nlohmann::json::parse(lines.substr(at, nl - at)));
    at = nl + 1;
  }
  auto legacy = sv_->Set(kChat, array.dump(),
                         {.scope = "session", .type = ValueType::kChat});
  ASSERT_TRUE(legacy.ok());
  // Point the session state at the array version, as an earlier build left
  // it.
  storage::Backend& backend = BackendOf(store());
  auto rec = backend.LoadSession("s1");
  ASSERT_TRUE(rec.ok());
  nlohmann::json state = nlohmann::json::parse(rec->state_json);
  state["chat_version"] = legacy->version;
  state["format"] = 1;  // What those builds wrote: no later fields.
  for (const char* later : {"chat_whole_version", "compactions", "renders"}) {
    state.erase(later);
  }
  storage::SessionWrite w;
  w.id = "s1";
  w.expected_generation = rec->generation;
  w.state_json = state.dump();
  ASSERT_TRUE(backend.WriteSession(w).ok());

  session::ChatEncoding encoding = session::ChatEncoding::kLines;
  auto decoded = session::DecodeChat(array.dump(), &encoding);
  ASSERT_TRUE(decoded.ok());
  EXPECT_EQ(encoding, session::ChatEncoding::kArray);
  EXPECT_EQ(PinnedChat().size(), 8u);
  auto render = session_->Render({.budget_tokens = 100000});
  ASSERT_TRUE(render.ok()) << render.status().ToString();
  EXPECT_NE(render->request_json.find("Please look for thing 1"),
            std::string::npos);
  // Items of the array form are its elements.
  PeekOptions po;
  po.unit = PeekUnit::kItems;
  po.count_total = true;
  auto peek = Peek(*sv_, *legacy, po);
  ASSERT_TRUE(peek.ok()) << peek.status().ToString();
  EXPECT_EQ(peek->total, 8u);

  Ingest(OpenAILog(3));
  uint64_t version = 0;
  EXPECT_EQ(PinnedChat(&version).size(), 12u);
  auto text = sv_->Get(kChat, {.scope = "session", .version = version});
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(text->front(), '{');  // Lines now.
}

}  // namespace
}  // namespace ctxkit
