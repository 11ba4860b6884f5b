// The inspector's JSON API in-process (src/inspect/api.h): every endpoint
// against a store made here, its parameter checks, and that it never
// changes the store.

#include "inspect/api.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "ctxkit/notes.h"
#include "ctxkit/session.h"
#include "ctxkit/store.h"
#include "inspect/tool_turn.h"
#include "store/store_internals.h"

namespace ctxkit::inspect {
namespace {

using nlohmann::json;

json Turn(int t, int lines) {
  std::string out;
  for (int i = 0; i < lines; ++i) {
    out += "result line " + std::to_string(i) + " of turn " +
           std::to_string(t) + "\n";
  }
  return testing::ToolTurn(t, out);
}

class ApiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* base = ::getenv("TMPDIR");
    std::string pattern =
        std::string(base && *base ? base : "/tmp") + "/ctxkit-api-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    auto store = Store::Open({.home = dir_ + "/store"});
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
    api_ = std::make_unique<Api>(
        store_.get(), ApiOptions{.tool_output_dir = dir_ + "/none",
                                 .change_poll = std::chrono::milliseconds(5)});
  }

  void TearDown() override {
    api_.reset();
    store_.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }

  View GlobalView() {
    auto v = store_->OpenView("", "");
    EXPECT_TRUE(v.ok());
    return std::move(*v);
  }

  // A session of `turns` turns rendered after each at a small budget, so
  // outputs collapse and old turns are compacted.
  std::unique_ptr<Session> MakeSession(const std::string& id, int turns) {
    SessionPolicy p;
    p.keep_tool_outputs = 1;
    p.min_collapse_tokens = 0;
    p.keep_turns = 1;
    p.compaction_summary_tokens = 40;
    auto s = Session::Create(*store_, id, p);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    json log = json::array({{{"role", "system"}, {"content", "be brief"}}});
    for (json& m : Turn(0, 30)) log.push_back(std::move(m));
    EXPECT_TRUE(
        (*s)->Ingest(json{{"messages", log}}.dump(), LogFormat::kOpenAI).ok());
    for (int t = 0; t < turns; ++t) {
      if (t > 0) {
        EXPECT_TRUE((*s)->IngestAppend(Turn(t, 10 + 20 * (t % 3)).dump(),
                                       LogFormat::kOpenAI)
                        .ok());
      }
      auto r = (*s)->Render({.budget_tokens = 900});
      EXPECT_TRUE(r.ok()) << r.status().ToString();
    }
    return std::move(*s);
  }

  // GET path?query; expects `status`; returns the body as JSON.
  json Get(const std::string& path, const QueryParams& query = {},
           int status = 200) {
    ApiAnswer a = api_->Handle(path, query);
    EXPECT_EQ(a.status, status) << path << ": " << a.json;
    json j = json::parse(a.json, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << a.json;
    if (status != 200) {
      EXPECT_TRUE(j.contains("error")) << a.json;
    }
    return j;
  }

  uint64_t LatestChange() { return *StoreInternals::LatestChange(*store_); }

  std::string dir_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<Api> api_;
};

TEST_F(ApiTest, RendersListTheirFiguresAndReplayWithTheirDiff) {
  auto s = MakeSession("s1", 8);
  json list = Get("/sessions");
  ASSERT_EQ(list["sessions"].size(), 1u);
  EXPECT_EQ(list["sessions"][0]["id"], "s1");
  EXPECT_EQ(list["sessions"][0]["renders"], 8);
  json shown = Get("/sessions/s1");
  EXPECT_EQ(shown["renders"], 8);
  EXPECT_GT(shown["entries_total"].get<size_t>(), 2u);
  EXPECT_EQ(shown["entries"].size(), shown["entries_total"].get<size_t>());
  json cut = Get("/sessions/s1", {{"entries", "2"}});
  EXPECT_EQ(cut["entries"].size(), 2u);
  EXPECT_EQ(cut["entries_total"], shown["entries_total"]);

  json renders = Get("/sessions/s1/renders")["renders"];
  ASSERT_EQ(renders.size(), 8u);
  bool compacted_somewhere = false;
  for (uint64_t n = 1; n <= 8; ++n) {
    const json& fig = renders[n - 1];
    EXPECT_EQ(fig["n"], n);
    auto replay = s->Replay(n);
    ASSERT_TRUE(replay.ok());
    json one = Get("/sessions/s1/renders/" + std::to_string(n));
    // The request as the model saw it, and the same figures either way.
    EXPECT_EQ(one["request"], replay->request_json);
    EXPECT_EQ(one["tokens"], replay->tokens);
    EXPECT_EQ(fig["tokens"], replay->tokens);
    EXPECT_EQ(fig["breakdown"], one["breakdown"]);
    EXPECT_EQ(fig["bytes"], replay->request_json.size());
    EXPECT_EQ(one["bytes"], fig["bytes"]);
    EXPECT_EQ(one["prefix_bytes"], fig["prefix_bytes"]);
    uint64_t sum = 0;
    for (auto& [part, tokens] : fig["breakdown"].items()) {
      sum += tokens.get<uint64_t>();
    }
    EXPECT_EQ(sum, fig["tokens"].get<uint64_t>());
    if (n == 1) {
      EXPECT_TRUE(one["diff"].is_null());
      EXPECT_TRUE(fig["prefix_bytes"].is_null());
    } else {
      EXPECT_EQ(one["diff"]["from"], n - 1);
      EXPECT_EQ(one["diff"]["to"], n);
      auto prev = s->Replay(n - 1);
      ASSERT_TRUE(prev.ok());
      EXPECT_EQ(fig["prefix_bytes"],
                RequestPrefixBytes(prev->request_json, replay->request_json));
      compacted_somewhere |= !one["diff"]["compacted"].empty();
    }
  }
  EXPECT_TRUE(compacted_somewhere);
  json diff = Get("/sessions/s1/diff", {{"from", "1"}, {"to", "8"}});
  EXPECT_EQ(diff["from"], 1);
  EXPECT_FALSE(diff["compacted"].empty());

  // A compaction expands to the messages it replaced, as stored.
  auto snap = s->Snapshot();
  ASSERT_TRUE(snap.ok());
  ASSERT_FALSE(snap->compactions.empty());
  const CompactionInfo& c = snap->compactions[0];
  json expanded = Get("/sessions/s1/expand", {{"compaction", c.ref}});
  EXPECT_EQ(expanded["messages"].size(), c.end_message - c.first_message);
  EXPECT_EQ(expanded["messages"][0]["role"], "user");
}

TEST_F(ApiTest, SessionArgumentsAreChecked) {
  auto s = MakeSession("s1", 2);
  Get("/sessions/s1/renders/0", {}, 400);
  Get("/sessions/s1/renders/x", {}, 400);
  Get("/sessions/s1/renders/3", {}, 404);
  Get("/sessions/nobody", {}, 404);
  Get("/sessions/bad%20id", {}, 400);
  Get("/sessions/s1/diff", {{"from", "1"}}, 400);
  Get("/sessions/s1/expand", {{"compaction", "ck:nonsense"}}, 400);
  Get("/sessions/s1/renders", {{"extra", "1"}}, 400);
  EXPECT_EQ(Get("/sessions/s1/tool-outputs")["outputs"].size(), 0u);
  Get("/nothing/here", {}, 404);
}

// A session holding values that are not UTF-8 shows, renders and replays
// (U+FFFD for each ill-formed sequence); an error quoting such bytes is a
// JSON error answer, not an internal one.
TEST_F(ApiTest, ValuesAndArgumentsThatAreNotUtf8AreAnswered) {
  View v = GlobalView();
  ASSERT_TRUE(v.Set("first", "caf\xe9\n").ok());
  ASSERT_TRUE(v.Set("later", "ok line\ncaf\xe9 more\n").ok());
  auto s = Session::Create(*store_, "u", {});
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_TRUE((*s)->Activate("first").ok());
  ASSERT_TRUE((*s)->Pin("later").ok());
  auto r = (*s)->Render({.budget_tokens = 5000});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  json show = Get("/sessions/u");
  ASSERT_EQ(show["entries"].size(), 2u);
  EXPECT_EQ(show["entries"][0]["title"], "caf\xef\xbf\xbd");
  json replay = Get("/sessions/u/renders/1");
  EXPECT_EQ(replay["request"], r->request_json);
  EXPECT_NE(r->request_json.find("caf\xef\xbf\xbd more"), std::string::npos);
  // The message quotes the scope: its bad byte comes back as U+FFFD.
  json bad = Get("/objects", {{"scope", "session:caf\xe9"}}, 400);
  EXPECT_NE(bad["error"]["message"].get<std::string>().find("\xef\xbf\xbd"),
            std::string::npos)
      << bad.dump();
  Get("/object", {{"key", "caf\xe9"}}, 400);
  Get("/sessions/caf\xe9", {}, 400);
}

TEST_F(ApiTest, ObjectsPageThroughFiltersAndShowVersions) {
  View v = GlobalView();
  for (int i = 0; i < 25; ++i) {
    SetOptions o;
    const bool is_json = i % 5 == 0;
    if (is_json) o.type = ValueType::kJson;
    if (i % 2 == 0) o.tags = {"kind:capture", "even"};
    const std::string value = is_json ? "{\"i\":" + std::to_string(i) + "}"
                                      : "value " + std::to_string(i);
    char key[16];
    std::snprintf(key, sizeof key, "k/%02d", i);
    ASSERT_TRUE(v.Set(key, value, o).ok());
  }
  ASSERT_TRUE(v.Set("other", "x").ok());
  std::set<std::string> seen;
  std::string cursor;
  int pages = 0;
  do {
    QueryParams q = {{"prefix", "k/"}, {"limit", "10"}};
    if (!cursor.empty()) q.push_back({"cursor", cursor});
    json page = Get("/objects", q);
    for (const json& o : page["objects"]) {
      EXPECT_TRUE(seen.insert(o["key"].get<std::string>()).second);
    }
    cursor = page["next_cursor"];
    ++pages;
  } while (!cursor.empty());
  EXPECT_EQ(seen.size(), 25u);
  EXPECT_EQ(pages, 3);
  EXPECT_EQ(Get("/objects", {{"type", "json"}})["objects"].size(), 5u);
  EXPECT_EQ(Get("/objects", {{"kind", "capture"}})["objects"].size(), 13u);
  EXPECT_EQ(
      Get("/objects", {{"tag", "even"}, {"type", "json"}})["objects"].size(),
      3u);
  Get("/objects", {{"type", "nonsense"}}, 400);
  Get("/objects", {{"limit", "1001"}}, 400);
  Get("/objects", {{"prefix", "a"}, {"prefix", "b"}}, 400);
  Get("/objects", {{"agent", "bad agent"}}, 400);

  ASSERT_TRUE(v.Set("k/00", "{\"i\":100}", {.type = ValueType::kJson}).ok());
  json shown = Get("/object", {{"key", "k/00"}});
  EXPECT_EQ(shown["object"]["version"], 2);
  ASSERT_EQ(shown["versions"].size(), 2u);
  EXPECT_EQ(shown["versions"][0]["version"], 1);
  EXPECT_TRUE(shown["sessions"].empty());
  json by_ref = Get("/object", {{"ref", shown["object"]["ref"]}});
  EXPECT_EQ(by_ref["object"]["id"], shown["object"]["id"]);
  Get("/object", {}, 400);
  Get("/object", {{"key", "k/00"}, {"ref", "ck:x"}}, 400);
  Get("/object", {{"key", "missing"}}, 404);
}

// The object list without an agent or session view lists every scope (the
// inspector is the operator's view; its header counts them all), and a
// scope filter may then name any one.
TEST_F(ApiTest, ObjectsListEveryScopeWithoutAView) {
  ASSERT_TRUE(GlobalView().Set("g", "global").ok());
  auto agent = store_->OpenView("a1", "s1");
  ASSERT_TRUE(agent.ok());
  ASSERT_TRUE(agent->Set("a", "agent's", {.scope = "agent"}).ok());
  ASSERT_TRUE(agent->Set("s", "session's", {.scope = "session"}).ok());
  auto scopes_of = [](const json& page) {
    std::set<std::string> out;
    for (const json& o : page["objects"]) {
      out.insert(o["scope"].get<std::string>() + " " +
                 o["key"].get<std::string>());
    }
    return out;
  };
  EXPECT_EQ(scopes_of(Get("/objects")),
            (std::set<std::string>{"agent:a1 a", "global g", "session:s1 s"}));
  EXPECT_EQ(scopes_of(Get("/objects", {{"scope", "agent:a1"}})),
            (std::set<std::string>{"agent:a1 a"}));
  EXPECT_EQ(scopes_of(Get("/objects", {{"agent", "a1"}})),
            (std::set<std::string>{"agent:a1 a", "global g"}));
  EXPECT_EQ(scopes_of(Get("/objects", {{"session", "other"}})),
            (std::set<std::string>{"global g"}));
  Get("/objects", {{"scope", "nowhere:x"}}, 400);
}

TEST_F(ApiTest, TheSessionsHoldingAnObjectAreNamed) {
  ASSERT_TRUE(GlobalView().Set("spec", "the spec").ok());
  auto s = MakeSession("s1", 1);
  ASSERT_TRUE(s->Activate("spec").ok());
  json shown = Get("/object", {{"key", "spec"}});
  EXPECT_EQ(shown["sessions"], json::array({"s1"}));
}

TEST_F(ApiTest, ContentComesOneRangeAtATimeWithoutCuttingACharacter) {
  std::string text;
  while (text.size() < 300000) text += "abc \xC3\xA9t\xC3\xA9 \xE2\x9C\x93\n";
  auto ref = GlobalView().Set("big", text);
  ASSERT_TRUE(ref.ok());
  const std::string wire = FormatRef(*ref);
  std::string joined;
  uint64_t offset = 0;
  int ranges = 0;
  while (offset < text.size()) {
    json r = Get("/content", {{"ref", wire},
                              {"offset", std::to_string(offset)},
                              {"length", "1000"}});
    EXPECT_FALSE(r["binary"].get<bool>()) << offset;
    EXPECT_LE(r["length"].get<uint64_t>(), 1000u);
    EXPECT_EQ(r["total_bytes"], text.size());
    joined += r["text"].get<std::string>();
    offset += r["length"].get<uint64_t>();
    ++ranges;
  }
  EXPECT_EQ(joined, text);
  EXPECT_GT(ranges, 300);
  // A range asked for inside a character starts at the next one.
  json mid =
      Get("/content", {{"ref", wire}, {"offset", "5"}, {"length", "20"}});
  EXPECT_FALSE(mid["binary"].get<bool>());
  EXPECT_EQ(mid["offset"], 6);  // "abc \xC3\xA9": byte 5 continues 4.
  EXPECT_EQ(mid["text"].get<std::string>(),
            text.substr(6, mid["length"].get<size_t>()));
  json def = Get("/content", {{"ref", wire}});
  EXPECT_LE(def["length"].get<uint64_t>(), 65536u);
  Get("/content", {{"ref", wire}, {"length", "2000000"}}, 400);
  Get("/content", {}, 400);
  Get("/content", {{"ref", "not a ref"}}, 400);
  json past = Get("/content", {{"ref", wire}, {"offset", "99999999"}});
  EXPECT_EQ(past["length"], 0);
  // Bytes that are not UTF-8 are flagged and shown with U+FFFD.
  auto bin = GlobalView().Set("bin", std::string("\xff\xfe\x00\x01", 4));
  ASSERT_TRUE(bin.ok());
  json b = Get("/content", {{"ref", FormatRef(*bin)}});
  EXPECT_TRUE(b["binary"].get<bool>());
}

TEST_F(ApiTest, TwoVersionsDiffByLine) {
  View v = GlobalView();
  ASSERT_TRUE(v.Set("doc", "one\ntwo\nthree\nfour\n").ok());
  ASSERT_TRUE(v.Set("doc", "one\n2\nthree\nfour\nfive\n").ok());
  json d = Get("/diff", {{"key", "doc"}, {"from", "1"}, {"to", "2"}});
  ASSERT_EQ(d["hunks"].size(), 1u);
  const json& h = d["hunks"][0];
  EXPECT_EQ(h["from_line"], 1);
  EXPECT_EQ(h["from_count"], 4);
  EXPECT_EQ(h["to_count"], 5);
  std::vector<std::string> lines;
  for (const json& l : h["lines"]) {
    lines.push_back(l["op"].get<std::string>() + l["text"].get<std::string>());
  }
  EXPECT_EQ(lines, (std::vector<std::string>{" one", "-two", "+2", " three",
                                             " four", "+five"}));
  EXPECT_TRUE(
      Get("/diff", {{"key", "doc"}, {"from", "2"}, {"to", "2"}})["hunks"]
          .empty());
  Get("/diff", {{"key", "doc"}, {"from", "1"}, {"to", "9"}}, 404);
  Get("/diff", {{"key", "doc"}, {"from", "1"}}, 400);
  ASSERT_TRUE(v.Set("huge", std::string(5 << 20, 'x')).ok());
  ASSERT_TRUE(v.Set("huge", std::string(5 << 20, 'y')).ok());
  Get("/diff", {{"key", "huge"}, {"from", "1"}, {"to", "2"}}, 413);
}

TEST_F(ApiTest, SearchFindsLiteralsRegexesAndRelevantChunks) {
  View v = GlobalView();
  ASSERT_TRUE(v.Set("notes/a", "alpha\nthe zebralantern glows\nomega\n").ok());
  ASSERT_TRUE(v.Set("notes/b", "nothing here\n").ok());
  json lit = Get("/search", {{"q", "zebralantern"}});
  ASSERT_EQ(lit["matches"].size(), 1u);
  EXPECT_EQ(lit["matches"][0]["key"], "notes/a");
  EXPECT_EQ(lit["matches"][0]["line"], 2);
  json re = Get("/search", {{"q", "^no.*here$"}, {"mode", "regex"}});
  ASSERT_EQ(re["matches"].size(), 1u);
  EXPECT_EQ(re["matches"][0]["key"], "notes/b");
  json rel =
      Get("/search", {{"q", "zebralantern glows"}, {"mode", "relevant"}});
  ASSERT_FALSE(rel["hits"].empty());
  EXPECT_EQ(rel["hits"][0]["key"], "notes/a");
  Get("/search", {{"q", "(unclosed"}, {"mode", "regex"}}, 400);
  Get("/search", {{"q", "x"}, {"mode", "fuzzy"}}, 400);
  Get("/search", {}, 400);
}

TEST_F(ApiTest, NotesShowTheirHeaderChangelogAndLinks) {
  View v = GlobalView();
  auto book = Notebook::Open(v, {.root = dir_ + "/notes"});
  ASSERT_TRUE(book.ok()) << book.status().ToString();
  auto second = (*book)->Add({.agent = "a1",
                              .type = NoteType::kDecision,
                              .slug = "second",
                              .body = "The second note.\n"});
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  auto first = (*book)->Add({.agent = "a1",
                             .type = NoteType::kFinding,
                             .tags = {"perf"},
                             .links = {*second},
                             .slug = "first",
                             .body = "The first note.\n"});
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE((*book)->Update(*first, "a1", "Checked again").ok());
  json list = Get("/notes");
  ASSERT_EQ(list["notes"].size(), 2u);
  json note = Get("/note", {{"path", *first}});
  EXPECT_EQ(note["header"]["type"], "finding");
  EXPECT_EQ(note["header"]["tags"], json::array({"perf"}));
  ASSERT_EQ(note["links"].size(), 1u);
  EXPECT_EQ(note["links"][0]["path"], *second);
  EXPECT_TRUE(note["links"][0]["exists"].get<bool>());
  ASSERT_EQ(note["changelog"].size(), 1u);
  EXPECT_NE(note["changelog"][0].get<std::string>().find("Checked again"),
            std::string::npos);
  EXPECT_EQ(Get("/notes", {{"q", "second note"}})["notes"].size(), 1u);
  Get("/note", {{"path", "no/such.md"}}, 404);
}

TEST_F(ApiTest, ChangesAnswerWhenTheStoreChangesOrTheWaitEnds) {
  EXPECT_EQ(Get("/store")["change"], 0);  // Nothing changed yet.
  ASSERT_TRUE(GlobalView().Set("first", "x").ok());
  const uint64_t change = Get("/store")["change"];
  ASSERT_GT(change, 0u);
  EXPECT_EQ(change, LatestChange());
  // Nothing changes: the wait ends with the same number.
  json same =
      Get("/changes", {{"since", std::to_string(change)}, {"wait_ms", "30"}});
  EXPECT_EQ(same["change"], change);
  // A stale number answers at once.
  json stale = Get("/changes", {{"since", "0"}, {"wait_ms", "30000"}});
  EXPECT_EQ(stale["change"], change);
  std::thread writer([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_TRUE(GlobalView().Set("later", "x").ok());
  });
  const auto start = std::chrono::steady_clock::now();
  json moved = Get("/changes",
                   {{"since", std::to_string(change)}, {"wait_ms", "20000"}});
  writer.join();
  EXPECT_NE(moved["change"], change);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  Get("/changes", {{"wait_ms", "40000"}}, 400);
  // Stop ends a wait at once.
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    api_->Stop();
  });
  const uint64_t now = Get("/store")["change"];
  const auto stop_start = std::chrono::steady_clock::now();
  Get("/changes", {{"since", std::to_string(now)}, {"wait_ms", "30000"}});
  stopper.join();
  EXPECT_LT(std::chrono::steady_clock::now() - stop_start,
            std::chrono::seconds(10));
}

TEST_F(ApiTest, NothingTheApiAnswersChangesTheStore) {
  View v = GlobalView();
  ASSERT_TRUE(v.Set("doc", "one\n").ok());
  ASSERT_TRUE(v.Set("doc", "two\n").ok());
  auto s = MakeSession("s1", 3);
  auto snap = s->Snapshot();
  ASSERT_TRUE(snap.ok());
  const uint64_t before = LatestChange();
  const uint64_t versions = store_->Stats()->versions;
  const std::string ref = Get("/object", {{"key", "doc"}})["object"]["ref"];
  Get("/store");
  Get("/sessions");
  Get("/sessions/s1");
  Get("/sessions/s1/renders");
  Get("/sessions/s1/renders/3");
  Get("/sessions/s1/diff", {{"from", "1"}, {"to", "3"}});
  Get("/sessions/s1/tool-outputs");
  Get("/objects");
  Get("/content", {{"ref", ref}});
  Get("/diff", {{"key", "doc"}, {"from", "1"}, {"to", "2"}});
  Get("/search", {{"q", "two"}});
  Get("/search", {{"q", "two"}, {"mode", "relevant"}});
  Get("/notes");
  EXPECT_EQ(LatestChange(), before);
  EXPECT_EQ(store_->Stats()->versions, versions);
  auto after = Session::Open(*store_, "s1");
  ASSERT_TRUE(after.ok());
  EXPECT_EQ((*after)->Snapshot()->generation, snap->generation);
  // The tool-output directory the API was given is not created.
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/none"));
}

}  // namespace
}  // namespace ctxkit::inspect
