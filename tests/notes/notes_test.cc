// The notes library against a real directory and store: the file format
// byte for byte, frontmatter through yaml-cpp, changelog, links and
// supersede, search, external changes, housekeeping and path safety.

#include "ctxkit/notes.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_test_util.h"
#include "cli/subprocess.h"
#include "common/files.h"
#include "common/temp_store.h"
#include "ctxkit/store.h"

namespace ctxkit {
namespace {

namespace fs = std::filesystem;
using cli::testing::TempDir;
using ::ctxkit::testing::ReadAll;
using ::ctxkit::testing::WriteAll;

class NotesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(tmp_.path().empty());
    root_ = tmp_.path() + "/context";
    auto store = testing::OpenTempStore(tmp_.path(), "home");
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(*store);
    auto view = store_->OpenView("tester", "");
    ASSERT_TRUE(view.ok());
    view_ = std::make_unique<View>(*view);
    auto book = Notebook::Open(*view_, {root_});
    ASSERT_TRUE(book.ok()) << book.status().ToString();
    book_ = std::move(*book);
  }

  std::string AddNote(const std::string& agent, NoteType type,
                      std::vector<std::string> tags, const std::string& slug,
                      const std::string& body,
                      const std::string& session = "") {
    NewNote n;
    n.agent = agent;
    n.session_id = session;
    n.type = type;
    n.tags = std::move(tags);
    n.slug = slug;
    n.body = body;
    auto rel = book_->Add(n);
    EXPECT_TRUE(rel.ok()) << rel.status().ToString();
    return rel.ok() ? *rel : "";
  }

  std::vector<std::string> Paths(const NoteQuery& q) {
    auto hits = book_->Search(q);
    EXPECT_TRUE(hits.ok()) << hits.status().ToString();
    std::vector<std::string> out;
    if (hits.ok()) {
      for (const auto& h : *hits) out.push_back(h.path);
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  std::string File(const std::string& rel) { return book_->root() + "/" + rel; }

  TempDir tmp_;
  std::string root_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<View> view_;
  std::unique_ptr<Notebook> book_;
};

TEST_F(NotesTest, FileIsByteExactAndParsesAsYaml) {
  std::string rel =
      AddNote("code-reviewer", NoteType::kFinding,
              {"security", "authentication", "sql-injection"},
              "Auth Vulnerability!", "# Auth\n\nTokens are not checked.",
              "a1b2c3d4-e5f6-7890-abcd-ef1234567890");
  // <agent>/<session>/<YYYYMMDDTHHMMSS>-<slug>.md
  ASSERT_EQ(rel.find("code-reviewer/a1b2c3d4-e5f6-7890-abcd-ef1234567890/"),
            0u);
  std::string name = rel.substr(rel.rfind('/') + 1);
  ASSERT_EQ(name.size(),
            std::string("20260221T143022-auth-vulnerability.md").size());
  EXPECT_EQ(name.substr(8, 1), "T");
  EXPECT_EQ(name.substr(15), "-auth-vulnerability.md");
  std::string c = name.substr(0, 15);
  std::string iso = c.substr(0, 4) + "-" + c.substr(4, 2) + "-" +
                    c.substr(6, 2) + "T" + c.substr(9, 2) + ":" +
                    c.substr(11, 2) + ":" + c.substr(13, 2) + "Z";
  EXPECT_EQ(ReadAll(File(rel)),
            "---\n"
            "agent: code-reviewer\n"
            "sessionId: a1b2c3d4-e5f6-7890-abcd-ef1234567890\n"
            "timestamp: " +
                iso +
                "\n"
                "type: finding\n"
                "tags: [security, authentication, sql-injection]\n"
                "---\n"
                "\n"
                "# Auth\n"
                "\n"
                "Tokens are not checked.\n");

  // A real YAML parser reads the frontmatter.
  std::string content = ReadAll(File(rel));
  size_t end = content.find("\n---\n", 4);
  YAML::Node fm = YAML::Load(content.substr(4, end - 4 + 1));
  EXPECT_EQ(fm["agent"].as<std::string>(), "code-reviewer");
  EXPECT_EQ(fm["type"].as<std::string>(), "finding");
  EXPECT_EQ(fm["timestamp"].as<std::string>(), iso);
  ASSERT_TRUE(fm["tags"].IsSequence());
  EXPECT_EQ(fm["tags"].as<std::vector<std::string>>(),
            (std::vector<std::string>{"security", "authentication",
                                      "sql-injection"}));
  EXPECT_FALSE(fm["links"]);
}

TEST_F(NotesTest, TagsThatYamlWouldMisreadAreQuoted) {
  std::string rel =
      AddNote("a", NoteType::kSummary, {"null", "yes", "2024", "-x"}, "s", "b");
  std::string content = ReadAll(File(rel));
  EXPECT_NE(content.find(R"(tags: ["null", "yes", "2024", "-x"])"),
            std::string::npos)
      << content;
  size_t end = content.find("\n---\n", 4);
  YAML::Node fm = YAML::Load(content.substr(4, end - 4 + 1));
  EXPECT_EQ(fm["tags"].as<std::vector<std::string>>(),
            (std::vector<std::string>{"null", "yes", "2024", "-x"}));
}

TEST_F(NotesTest, UpdatesAppendToTheChangelogAndKeepEverything) {
  std::string rel = AddNote("code-reviewer", NoteType::kFinding, {"security"},
                            "sev", "Severity: medium.\n");
  std::string before = ReadAll(File(rel));
  ASSERT_TRUE(book_->Update(rel, "code-fixer", "Updated severity").ok());
  std::string after = ReadAll(File(rel));
  ASSERT_TRUE(after.starts_with(before));
  std::string added = after.substr(before.size());
  ASSERT_TRUE(added.starts_with("\n## Changelog\n\n- ")) << added;
  EXPECT_TRUE(added.ends_with(" [code-fixer]: Updated severity\n")) << added;
  // "- 2026-02-21T15:10:00Z [code-fixer]: ..."
  EXPECT_EQ(added.size(), std::string("\n## Changelog\n\n- "
                                      "2026-02-21T15:10:00Z [code-fixer]: "
                                      "Updated severity\n")
                              .size());

  ASSERT_TRUE(book_->Update(rel, "summarizer", "Second change").ok());
  std::string third = ReadAll(File(rel));
  ASSERT_TRUE(third.starts_with(after));
  EXPECT_TRUE(third.substr(after.size()).starts_with("- "));
  EXPECT_TRUE(third.ends_with(" [summarizer]: Second change\n"));

  // A new body replaces the text above the changelog; the changelog stays.
  ASSERT_TRUE(
      book_
          ->Update(rel, "code-fixer", "Rewrote", std::string("Severity: high."))
          .ok());
  std::string fourth = ReadAll(File(rel));
  EXPECT_NE(fourth.find("\n---\n\nSeverity: high.\n\n## Changelog\n\n- "),
            std::string::npos)
      << fourth;
  EXPECT_NE(fourth.find("[code-fixer]: Updated severity\n"), std::string::npos);
  EXPECT_NE(fourth.find("[summarizer]: Second change\n"), std::string::npos);
  EXPECT_TRUE(fourth.ends_with("[code-fixer]: Rewrote\n"));
  // Every content is a version of the store object.
  auto versions = view_->Versions("note:" + rel, {"global", 0});
  ASSERT_TRUE(versions.ok());
  EXPECT_EQ(versions->size(), 4u);

  // Bad messages and bodies change nothing.
  EXPECT_TRUE(book_->Update(rel, "x", "two\nlines").IsInvalidArgument());
  EXPECT_TRUE(book_->Update(rel, "x", "m", std::string("## Changelog\n\n- x"))
                  .IsInvalidArgument());
  EXPECT_EQ(ReadAll(File(rel)), fourth);
}

TEST_F(NotesTest, SupersedeLinksBothWays) {
  std::string old_rel =
      AddNote("code-reviewer", NoteType::kFinding, {"a"}, "old", "Old.");
  std::string new_rel =
      AddNote("code-reviewer", NoteType::kFinding, {"a"}, "new", "New.");
  ASSERT_TRUE(book_->Supersede(old_rel, new_rel, "summarizer").ok());
  std::string n = ReadAll(File(new_rel));
  EXPECT_NE(n.find("tags: [a]\nlinks:\n  - " + old_rel + "\n---\n"),
            std::string::npos)
      << n;
  EXPECT_NE(n.find("[summarizer]: Supersedes " + old_rel + "\n"),
            std::string::npos);
  std::string o = ReadAll(File(old_rel));
  EXPECT_NE(o.find("[summarizer]: Marked as superseded, see " + new_rel + "\n"),
            std::string::npos)
      << o;
  auto shown = book_->Show(new_rel);
  ASSERT_TRUE(shown.ok());
  EXPECT_EQ(shown->header.links, std::vector<std::string>{old_rel});
  EXPECT_TRUE(shown->problems.empty());
  // Linking again is a no-op; linking to a missing note is NotFound.
  std::string again = ReadAll(File(new_rel));
  ASSERT_TRUE(book_->Link(new_rel, old_rel, "x").ok());
  EXPECT_EQ(ReadAll(File(new_rel)), again);
  EXPECT_TRUE(book_->Link(new_rel, "code-reviewer/nope.md", "x").IsNotFound());
}

TEST_F(NotesTest, SameSecondSameSlugNeverCollides) {
  std::set<std::string> paths;
  for (int i = 0; i < 5; ++i) {
    paths.insert(
        AddNote("a", NoteType::kArtifact, {}, "same", std::to_string(i)));
  }
  EXPECT_EQ(paths.size(), 5u);
  for (const std::string& p : paths) {
    EXPECT_TRUE(fs::exists(File(p))) << p;
  }
}

// Listings without text are newest first and stop at the limit, by tag,
// type and agent alike (each read through an index in that order), also
// in an index made before tag rows carried their note's timestamp.
TEST_F(NotesTest, FilteredListingsAreNewestFirstWithinTheLimit) {
  std::vector<std::string> added;  // Oldest first.
  for (int i = 0; i < 12; ++i) {
    added.push_back(AddNote(
        "lister", i % 2 ? NoteType::kFinding : NoteType::kDecision,
        {"common", i % 3 ? "x" : "y"}, "n" + std::to_string(i), "body"));
  }
  auto listed = [&](NoteQuery q, size_t limit) {
    q.limit = limit;
    auto hits = book_->Search(q);
    EXPECT_TRUE(hits.ok()) << hits.status().ToString();
    std::vector<std::string> out;
    if (hits.ok()) {
      for (const auto& h : *hits) out.push_back(h.path);
    }
    return out;
  };
  // The reference order: the unfiltered listing, newest first with ties
  // (notes of the same second) by path.
  const std::vector<std::string> order = listed(NoteQuery{}, 100);
  ASSERT_EQ(order.size(), added.size());
  // The first four notes of that order that `keep` (by index in `added`).
  auto newest = [&](auto keep) {
    std::vector<std::string> out;
    for (const std::string& path : order) {
      const auto i =
          std::find(added.begin(), added.end(), path) - added.begin();
      if (keep(static_cast<int>(i)) && out.size() < 4) out.push_back(path);
    }
    return out;
  };
  auto check = [&] {
    NoteQuery by_tag;
    by_tag.tags = {"common"};
    EXPECT_EQ(listed(by_tag, 4), newest([](int) { return true; }));
    NoteQuery two_tags;
    two_tags.tags = {"common", "y"};
    EXPECT_EQ(listed(two_tags, 4), newest([](int i) { return i % 3 == 0; }));
    NoteQuery by_type;
    by_type.type = "finding";
    EXPECT_EQ(listed(by_type, 4), newest([](int i) { return i % 2 == 1; }));
    NoteQuery tag_and_type;
    tag_and_type.tags = {"x"};
    tag_and_type.type = "decision";
    EXPECT_EQ(listed(tag_and_type, 4),
              newest([](int i) { return i % 2 == 0 && i % 3 != 0; }));
  };
  check();

  // The index as an earlier build left it: tag rows without timestamps.
  book_.reset();
  std::string db;
  for (const auto& e : fs::directory_iterator(tmp_.path() + "/home/notes")) {
    if (e.path().extension() == ".db") db = e.path();
  }
  ASSERT_FALSE(db.empty());
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw,
                         "DROP TABLE note_tags; CREATE TABLE note_tags(tag "
                         "TEXT NOT NULL, note_id INTEGER NOT NULL, PRIMARY "
                         "KEY(tag, note_id)) WITHOUT ROWID; INSERT INTO "
                         "note_tags SELECT j.value, n.id FROM notes n, "
                         "json_each(n.tags) j;",
                         nullptr, nullptr, nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(raw);
  sqlite3_close(raw);
  auto book = Notebook::Open(*view_, {root_});
  ASSERT_TRUE(book.ok()) << book.status().ToString();
  book_ = std::move(*book);
  check();
}

TEST_F(NotesTest, SearchByEveryField) {
  std::string a =
      AddNote("code-reviewer", NoteType::kFinding, {"security", "auth"}, "one",
              "The authentication token leaks.", "s1");
  std::string b = AddNote("code-reviewer", NoteType::kDecision, {"security"},
                          "two", "We rotate keys nightly.");
  std::string c = AddNote("code-fixer", NoteType::kFinding, {"perf"}, "three",
                          "Slow authentication path.", "s1");
  auto q = [](auto f) {
    NoteQuery q;
    f(q);
    return q;
  };
  using V = std::vector<std::string>;
  auto sorted = [](V v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  EXPECT_EQ(Paths(q([](NoteQuery& q) { q.agent = "code-reviewer"; })),
            sorted({a, b}));
  EXPECT_EQ(Paths(q([](NoteQuery& q) { q.type = "finding"; })), sorted({a, c}));
  EXPECT_EQ(Paths(q([](NoteQuery& q) { q.tags = {"security"}; })),
            sorted({a, b}));
  EXPECT_EQ(Paths(q([](NoteQuery& q) {
              q.tags = {"security", "auth"};
            })),
            V{a});
  EXPECT_EQ(Paths(q([](NoteQuery& q) { q.session = "s1"; })), sorted({a, c}));
  EXPECT_EQ(Paths(q([](NoteQuery& q) { q.text = "authentication"; })),
            sorted({a, c}));
  EXPECT_EQ(Paths(q([](NoteQuery& q) {
              q.text = "authentication";
              q.agent = "code-fixer";
            })),
            V{c});
  EXPECT_EQ(Paths(q([](NoteQuery& q) { q.text = "nightly keys"; })), V{b});
  EXPECT_TRUE(Paths(q([](NoteQuery& q) { q.text = "absent"; })).empty());
  NoteQuery bad;
  bad.type = "opinion";
  EXPECT_TRUE(book_->Search(bad).status().IsInvalidArgument());
  // Hits carry a ref to the indexed version in the store.
  NoteQuery one;
  one.text = "nightly";
  auto hits = book_->Search(one);
  ASSERT_TRUE(hits.ok() && hits->size() == 1);
  auto ref = ParseRef((*hits)[0].ref);
  ASSERT_TRUE(ref.ok());
  auto value = view_->Resolve(*ref);
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, ReadAll(File(b)));
}

TEST_F(NotesTest, FilteredTextSearchOverManyMatchesRanksAsUnfiltered) {
  // 1,200 notes share a word: past 1,000 matches a filtered text search
  // ranks only the matches that pass its filters
  // (NoteIndex::RankFilteredOnly). Its hits must be the unfiltered
  // ranking's, filtered: same notes, same scores, same order. Bodies of
  // different lengths give every note of an agent its own BM25 score.
  for (int i = 0; i < 1200; ++i) {
    const std::string agent = "agent-" + std::to_string(i % 4);
    const std::string dir = root_ + "/" + agent + "/session-0";
    fs::create_directories(dir);
    std::string body = "the shared marker word";
    for (int w = 0; w < i / 4; ++w) body += " filler" + std::to_string(w);
    char name[64];
    std::snprintf(name, sizeof name, "/20260101T%06d-note-%d.md", i, i);
    WriteAll(dir + name, "---\nagent: " + agent +
                             "\nsessionId: session-0\ntimestamp: "
                             "2026-01-01T00:00:00Z\ntype: " +
                             (i % 8 < 4 ? "finding" : "decision") +
                             "\ntags: [t" + std::to_string(i % 3) +
                             "]\n---\n\n" + body + "\n");
  }
  ASSERT_TRUE(book_->Scan(false).ok());
  NoteQuery all;
  all.text = "marker";
  all.limit = 10000;
  auto everything = book_->Search(all);
  ASSERT_TRUE(everything.ok()) << everything.status().ToString();
  ASSERT_EQ(everything->size(), 1200u);
  auto expect_filtered = [&](NoteQuery q, auto keep) {
    q.text = "marker";
    q.limit = 25;
    std::vector<std::pair<std::string, double>> want;
    for (const NoteHit& h : *everything) {
      if (keep(h) && want.size() < q.limit) want.emplace_back(h.path, h.score);
    }
    auto got = book_->Search(q);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    std::vector<std::pair<std::string, double>> have;
    for (const NoteHit& h : *got) {
      have.emplace_back(h.path, h.score);
      EXPECT_NE(h.snippet.find("[marker]"), std::string::npos) << h.snippet;
    }
    EXPECT_EQ(have, want);
  };
  NoteQuery by_agent;
  by_agent.agent = "agent-1";
  expect_filtered(by_agent,
                  [](const NoteHit& h) { return h.header.agent == "agent-1"; });
  NoteQuery by_agent_type_tag;
  by_agent_type_tag.agent = "agent-2";
  by_agent_type_tag.type = "decision";
  by_agent_type_tag.tags = {"t1"};
  expect_filtered(by_agent_type_tag, [](const NoteHit& h) {
    return h.header.agent == "agent-2" && h.header.type == "decision" &&
           h.header.tags == std::vector<std::string>{"t1"};
  });
  NoteQuery none;
  none.agent = "agent-9";
  expect_filtered(none, [](const NoteHit&) { return false; });
}

TEST_F(NotesTest, FilesChangedByOtherProgramsAreIndexedAgain) {
  std::string rel =
      AddNote("agent", NoteType::kFinding, {"x"}, "ext", "original words here");
  NoteQuery q;
  q.text = "replacement";
  EXPECT_TRUE(Paths(q).empty());
  // Rewritten in place (same directory mtime) by another program.
  std::string content = ReadAll(File(rel));
  std::string changed = content;
  changed.replace(changed.find("original"), 8, "replacement");
  WriteAll(File(rel), changed);
  ASSERT_TRUE(book_->Scan(true).ok());
  EXPECT_EQ(Paths(q), std::vector<std::string>{rel});
  auto versions = view_->Versions("note:" + rel, {"global", 0});
  ASSERT_TRUE(versions.ok());
  EXPECT_EQ(versions->size(), 2u);
  EXPECT_EQ(*view_->Get("note:" + rel, {"global", 0}), changed);

  // A new file dropped in by another program is found without a scan.
  fs::create_directories(root_ + "/other-agent");
  WriteAll(root_ + "/other-agent/20260101T000000-manual.md",
           "---\nagent: other-agent\nsessionId: \"\"\ntimestamp: "
           "2026-01-01T00:00:00Z\ntype: reference\ntags: [manual]\n---\n\n"
           "Handwritten zebra note.\n");
  NoteQuery z;
  z.text = "zebra";
  EXPECT_EQ(Paths(z),
            std::vector<std::string>{"other-agent/20260101T000000-manual.md"});
  NoteQuery t;
  t.tags = {"manual"};
  t.type = "reference";
  EXPECT_EQ(Paths(t).size(), 1u);

  // A deleted file disappears, its store object gets a tombstone.
  fs::remove(File(rel));
  EXPECT_TRUE(Paths(q).empty());
  EXPECT_TRUE(view_->Get("note:" + rel, {"global", 0}).status().IsNotFound());
}

TEST_F(NotesTest, HitsChangedInPlaceAreReverifiedAtSearchTime) {
  std::string rel =
      AddNote("agent", NoteType::kFinding, {"x"}, "v", "alpha bravo");
  NoteQuery q;
  q.text = "alpha";
  ASSERT_EQ(Paths(q).size(), 1u);
  std::string content = ReadAll(File(rel));
  content.replace(content.find("alpha"), 5, "gamma");
  WriteAll(File(rel), content);   // Same size, new content.
  EXPECT_TRUE(Paths(q).empty());  // Verified, re-indexed, re-queried.
  q.text = "gamma";
  EXPECT_EQ(Paths(q), std::vector<std::string>{rel});
}

TEST_F(NotesTest, GcIsDryRunUnlessApplied) {
  std::string fresh = AddNote("a", NoteType::kFinding, {}, "fresh", "new");
  fs::create_directories(root_ + "/a/old-session");
  std::string old_rel = "a/old-session/20200101T000000-old.md";
  WriteAll(File(old_rel),
           "---\nagent: a\nsessionId: old-session\ntimestamp: "
           "2020-01-01T00:00:00Z\ntype: finding\ntags: []\n---\n\nOld.\n");
  struct timespec times[2] = {{1577836800, 0}, {1577836800, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, File(old_rel).c_str(), times, 0), 0);
  ASSERT_TRUE(book_->Scan(false).ok());

  auto dry = book_->Gc(30 * 86400, false);
  ASSERT_TRUE(dry.ok()) << dry.status().ToString();
  ASSERT_EQ(dry->expired.size(), 1u);
  EXPECT_EQ(dry->expired[0].path, old_rel);
  EXPECT_EQ(dry->kept, 1u);
  EXPECT_TRUE(fs::exists(File(old_rel)));

  auto applied = book_->Gc(30 * 86400, true);
  ASSERT_TRUE(applied.ok());
  EXPECT_FALSE(fs::exists(File(old_rel)));
  EXPECT_FALSE(fs::exists(root_ + "/a/old-session"));  // Emptied: removed.
  EXPECT_TRUE(fs::exists(File(fresh)));
  EXPECT_TRUE(
      view_->Get("note:" + old_rel, {"global", 0}).status().IsNotFound());
  EXPECT_EQ(*ParseRetention("30d"), 30 * 86400);
  EXPECT_FALSE(ParseRetention("30").ok());
  EXPECT_FALSE(ParseRetention("-1d").ok());
  // Zero is a duration (store gc takes it); notes gc refuses it, saying why.
  EXPECT_EQ(*ParseRetention("0s"), 0);
  EXPECT_EQ(*ParseRetention("0d"), 0);
  EXPECT_NE(ParseRetention("101000d").status().message().find("100 years"),
            std::string_view::npos);
  auto zero = book_->Gc(0, false);
  ASSERT_TRUE(zero.status().IsInvalidArgument());
  EXPECT_NE(zero.status().message().find("would delete them all"),
            std::string_view::npos);
}

// A search's preview is the body line that matches, with the words in
// [brackets], not the frontmatter (whose slug and tags match too); a note
// that matches only in its frontmatter previews the start of its body.
TEST_F(NotesTest, SearchPreviewsTheMatchingBodyLine) {
  AddNote("auditor", NoteType::kFinding, {"security", "jwt"}, "jwt-expiry",
          "Token lifetimes in the auth service.\n\nThe JWT expiry is 15 "
          "min.\n");
  NoteQuery q;
  q.text = "jwt";
  auto hits = book_->Search(q);
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_EQ((*hits)[0].snippet, "The [JWT] expiry is 15 min.");
  q.text = "security";
  hits = book_->Search(q);
  ASSERT_TRUE(hits.ok()) << hits.status().ToString();
  ASSERT_EQ(hits->size(), 1u);
  EXPECT_EQ((*hits)[0].snippet.find("---"), std::string::npos);
  EXPECT_EQ((*hits)[0].snippet.find("agent:"), std::string::npos);
  EXPECT_TRUE((*hits)[0].snippet.starts_with("Token lifetimes"))
      << (*hits)[0].snippet;
}

TEST_F(NotesTest, NoPathEscapesTheRoot) {
  std::string outside = tmp_.path() + "/outside";
  fs::create_directories(outside);
  NewNote n;
  n.type = NoteType::kFinding;
  n.slug = "x";
  n.body = "b";
  for (std::string agent : {"../evil", "/abs", ".hidden", "a/b", "..", ""}) {
    n.agent = agent;
    EXPECT_TRUE(book_->Add(n).status().IsInvalidArgument()) << agent;
  }
  n.agent = "ok";
  for (std::string session : {"../../x", "/tmp", "..", "s/../.."}) {
    n.session_id = session;
    EXPECT_TRUE(book_->Add(n).status().IsInvalidArgument()) << session;
  }
  n.session_id = "";
  // Slugs are slugified, never used as paths.
  n.slug = "../../../outside/pwned";
  auto rel = book_->Add(n);
  ASSERT_TRUE(rel.ok());
  EXPECT_TRUE(rel->ends_with("-outside-pwned.md")) << *rel;
  EXPECT_TRUE(fs::is_empty(outside));

  for (std::string p : std::vector<std::string>{
           "../outside/x.md", "ok/../../outside/x.md", outside + "/x.md",
           "/etc/passwd", "ok/./x.md"}) {
    EXPECT_TRUE(book_->Show(p).status().IsInvalidArgument()) << p;
    EXPECT_TRUE(book_->Update(p, "a", "m").IsInvalidArgument()) << p;
  }
  // Symlinks planted under the root are never followed.
  WriteAll(outside + "/secret.md", "---\nagent: x\n---\nsecret\n");
  fs::create_symlink(outside, root_ + "/linked-agent");
  fs::create_symlink(outside + "/secret.md", root_ + "/ok/secret.md");
  EXPECT_FALSE(book_->Show("linked-agent/secret.md").ok());
  EXPECT_FALSE(book_->Show("ok/secret.md").ok());
  EXPECT_FALSE(book_->Update("ok/secret.md", "a", "m").ok());
  n.agent = "linked-agent";
  EXPECT_FALSE(book_->Add(n).ok());
  NoteQuery q;
  q.text = "secret";
  EXPECT_TRUE(Paths(q).empty());
  EXPECT_EQ(ReadAll(outside + "/secret.md"), "---\nagent: x\n---\nsecret\n");
  EXPECT_EQ(
      std::distance(fs::directory_iterator(outside), fs::directory_iterator()),
      1);
}

TEST_F(NotesTest, RgFindsNotesAsTheSpecShows) {
  AddNote("code-reviewer", NoteType::kFinding, {"security", "authentication"},
          "auth", "The authentication flow is broken.");
  AddNote("code-fixer", NoteType::kDecision, {"perf"}, "fix", "Cache it.");
  auto rg = [&](const std::string& pattern) {
    auto r = cli::RunProcess(
        {"/usr/bin/rg", "--no-heading", "-l", pattern, book_->root()});
    EXPECT_TRUE(r.ok());
    std::vector<std::string> files;
    std::istringstream in(r.ok() ? r->out : "");
    for (std::string line; std::getline(in, line);) {
      files.push_back(line.substr(book_->root().size() + 1));
    }
    std::sort(files.begin(), files.end());
    return files;
  };
  auto r1 = rg("tags:.*security");
  ASSERT_EQ(r1.size(), 1u);
  EXPECT_TRUE(r1[0].starts_with("code-reviewer/"));
  auto r2 = rg("^type: finding");
  ASSERT_EQ(r2.size(), 1u);
  EXPECT_TRUE(r2[0].starts_with("code-reviewer/"));
  EXPECT_EQ(rg("authentication").size(), 1u);
  auto r3 = rg("type: decision");
  ASSERT_EQ(r3.size(), 1u);
  EXPECT_TRUE(r3[0].starts_with("code-fixer/"));
  // The lock file and index are hidden from rg (dot file / other dir).
  EXPECT_EQ(rg(".").size(), 2u);
}

TEST(NoteNames, Rules) {
  EXPECT_EQ(*Slugify("Auth Vulnerability!"), "auth-vulnerability");
  EXPECT_EQ(*Slugify("  SQL -- injection  "), "sql-injection");
  EXPECT_FALSE(Slugify("!!!").ok());
  EXPECT_LE(Slugify(std::string(200, 'a'))->size(), 64u);
  EXPECT_TRUE(ValidateAgentName("code-reviewer").ok());
  EXPECT_FALSE(ValidateAgentName("-x").ok());
  EXPECT_FALSE(ValidateNoteTag("a,b").ok());
  EXPECT_FALSE(ValidateNoteTag("a]").ok());
  EXPECT_TRUE(ValidateNoteTag("sql-injection").ok());
  EXPECT_FALSE(ParseNoteType("opinion").ok());
  EXPECT_EQ(NoteTypeName(*ParseNoteType("summary")), "summary");
}

}  // namespace
}  // namespace ctxkit
