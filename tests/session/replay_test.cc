// Render records replay byte for byte whatever the session does after them:
// new versions, pool changes, budget pressure, garbage collection, other
// instances (processes) rendering.

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ctxkit/session.h"
#include "ctxkit/store.h"
#include "session/log_builders.h"
#include "session/session_test_util.h"

namespace ctxkit {
namespace {

using nlohmann::json;
using testing::OpenAILog;
using testing::OpenAITurn;
using testing::SessionStoreFixture;

// What a render returned, to compare its replay with.
struct Rendered {
  std::string request;
};

class ReplayTest : public SessionStoreFixture {
 protected:
  // A new instance of session `id`, as another process would open it.
  std::unique_ptr<Session> Reopen(const std::string& id) {
    auto s = Session::Open(store(), id);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::move(*s) : nullptr;
  }

  // The session's render records as stored, one JSON object each, from
  // record `from` + 1 on.
  std::vector<json> Records(const std::string& id, size_t from) {
    View sv = *store().OpenView("", id);
    auto page =
        sv.List({.scope = "session", .key_prefix = "ctxkit.session/renders/"});
    EXPECT_TRUE(page.ok()) << page.status().ToString();
    std::vector<json> out;
    if (!page.ok() || page->items.empty()) return out;
    auto stream = sv.Get(page->items.front().key, {.scope = "session"});
    EXPECT_TRUE(stream.ok()) << stream.status().ToString();
    size_t at = 0;
    for (size_t n = 0; stream.ok() && at < stream->size(); ++n) {
      const size_t nl = stream->find('\n', at);
      if (n >= from) out.push_back(json::parse(stream->substr(at, nl - at)));
      at = nl + 1;
    }
    return out;
  }

  // Every record of session `id` replays, through `replayer` (an instance
  // of it), as its render returned it.
  void ExpectEveryRecordReplays(Session& replayer,
                                const std::map<uint64_t, Rendered>& renders,
                                const std::string& when) {
    for (const auto& [n, rendered] : renders) {
      auto replay = replayer.Replay(n);
      ASSERT_TRUE(replay.ok())
          << when << ": record " << n << ": " << replay.status().ToString();
      ASSERT_EQ(replay->request_json, rendered.request)
          << when << ": record " << n;
    }
  }

  // Every ref the records of session `id` after the first `*checked` are
  // read through is static; `*checked` becomes the number of records.
  void ExpectStaticRefs(const std::string& id, size_t* checked,
                        const std::string& when) {
    const std::vector<json> records = Records(id, *checked);
    for (const json& record : records) {
      ++*checked;
      for (const std::string& wire : RefsRead(record)) {
        auto ref = ParseRef(wire);
        ASSERT_TRUE(ref.ok()) << wire;
        EXPECT_TRUE(ref->is_static())
            << when << ": record " << *checked << " names " << wire;
      }
    }
  }

  // The refs a replay of record `rec` reads content through.
  static std::vector<std::string> RefsRead(const json& rec) {
    std::vector<std::string> refs;
    auto add = [&](const json& r) {
      if (r.is_string() && !r.get<std::string>().empty()) refs.push_back(r);
    };
    add(rec["system"]);
    add(rec["index"]);
    add(rec["chat"]);
    for (const json& c : rec["compactions"]) add(c);
    for (const json& p : rec["pinned"]) add(p[0]);
    for (const json& e : rec["shown"]) {
      if (e.size() > 1) add(e[1]);
    }
    for (const json& t : rec["tail"]) add(t[0]);
    return refs;
  }
};

// Issue 37: a render whose index had not changed since the last one (in
// another process) named it by a dynamic ref, so once the index changed the
// record replayed another index and failed with a false corruption.
TEST_F(ReplayTest, ARecordReplaysAfterTheIndexChanges) {
  ASSERT_NE(NewSession("s"), nullptr);
  ASSERT_TRUE(view().Set("a", "alpha").ok());
  ASSERT_TRUE(Reopen("s")->Pin("a", 1).ok());
  std::map<uint64_t, Rendered> renders;
  for (int i = 0; i < 2; ++i) {
    auto r = Reopen("s")->Render({.budget_tokens = 5000});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    renders[r->record] = {r->request_json};
  }
  ASSERT_TRUE(view().Set("a", "alpha two").ok());
  ASSERT_TRUE(Reopen("s")->Pin("a", 1).ok());  // The index line moves to v2.
  auto r = Reopen("s")->Render({.budget_tokens = 5000});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  renders[r->record] = {r->request_json};
  ASSERT_EQ(renders.size(), 3u);
  EXPECT_NE(renders[2].request, renders[3].request);
  size_t checked = 0;
  ExpectStaticRefs("s", &checked, "after the index changed");
  EXPECT_EQ(checked, 3u);
  ExpectEveryRecordReplays(*Reopen("s"), renders, "after the index changed");
}

}  // namespace
}  // namespace ctxkit
