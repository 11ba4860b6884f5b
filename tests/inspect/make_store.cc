// inspect_fixture: builds the store the inspector's browser test loads,
// through the library (much faster than one CLI process per step):
//
//   inspect_fixture --home DIR [--turns N] [--objects M] [--fast]
//
// - session "s1": N turns (user question, assistant tool call, tool output
//   of varying size, assistant answer), ingested turn by turn and rendered
//   after each at a small budget, so outputs collapse and old turns are
//   compacted: N recorded renders;
// - "doc/readme": a global text with 3 versions that differ by a few lines
//   (one holds the word "zebralantern" for the search test);
// - "big/log": a global text of about 3 MiB (for ranged content);
// - two notes, the first linking to the second (under DIR/../notes-root);
// - M small objects "bulk/NNNNNNN" (text and JSON, some tagged).
//
// --fast: tool outputs of 2-12 lines (for the 5,000-turn scale store; the
// renders are as real, just cheaper to count).
//
// Prints one JSON line saying what it made.

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ctxkit/notes.h"
#include "ctxkit/session.h"
#include "ctxkit/store.h"
#include "inspect/tool_turn.h"

namespace {

using nlohmann::json;

[[noreturn]] void Fail(const std::string& what, const ctxkit::Status& s) {
  std::fprintf(stderr, "inspect_fixture: %s: %s\n", what.c_str(),
               s.ToString().c_str());
  std::exit(1);
}

template <typename T>
T Must(ctxkit::Result<T> r, const std::string& what) {
  if (!r.ok()) Fail(what, r.status());
  return std::move(*r);
}

void Must(const ctxkit::Status& s, const std::string& what) {
  if (!s.ok()) Fail(what, s);
}

bool g_fast = false;

// Tool output lines of turn t: mostly small, some medium, a few large, as
// real outputs vary.
int OutputLines(int t) {
  const int r = (t * 7919) % 100;
  if (g_fast) return 2 + r % 11;
  if (r < 60) return 5 + r % 25;
  if (r < 90) return 60 + (r * 13) % 190;
  return 500 + (r * 31) % 500;
}

json TurnMessages(int t) {
  std::string output;
  for (int i = 0; i < OutputLines(t); ++i) {
    output += "src/module_" + std::to_string(i % 17) +
              ".cc:" + std::to_string(i + 1) + ": match for item " +
              std::to_string(t) + "\n";
  }
  return ctxkit::testing::ToolTurn(t, output);
}

void MakeSession(ctxkit::Store& store, int turns) {
  ctxkit::SessionPolicy policy;
  policy.keep_tool_outputs = 2;
  policy.min_collapse_tokens = 500;
  policy.keep_turns = 2;
  policy.compaction_summary_tokens = 60;
  auto s = Must(ctxkit::Session::Create(store, "s1", policy), "session");
  json first = json::array(
      {{{"role", "system"}, {"content", "You are a careful coding agent."}}});
  for (json& m : TurnMessages(0)) first.push_back(std::move(m));
  Must(s->Ingest(json{{"messages", first}}.dump(), ctxkit::LogFormat::kOpenAI),
       "ingest");
  for (int t = 0; t < turns; ++t) {
    if (t > 0) {
      Must(s->IngestAppend(TurnMessages(t).dump(), ctxkit::LogFormat::kOpenAI),
           "ingest turn " + std::to_string(t));
    }
    Must(s->Render({.budget_tokens = 6000}),
         "render turn " + std::to_string(t));
  }
}

std::string ReadmeVersion(int v) {
  std::string text = "# ctxkit fixture\n\nThis object has versions.\n";
  for (int i = 1; i <= 20; ++i) {
    std::string line = "line " + std::to_string(i);
    if (v >= 2 && i == 5) line = "line five, changed in version 2";
    if (v >= 3 && i == 12) line = "line 12 mentions zebralantern";
    text += line + "\n";
  }
  if (v >= 3) text += "a line added in version 3\n";
  return text;
}

std::vector<std::string> MakeNotes(ctxkit::View& view,
                                   const std::string& root) {
  auto book = Must(ctxkit::Notebook::Open(view, {.root = root}), "notebook");
  std::string second =
      Must(book->Add({.agent = "fixture",
                      .type = ctxkit::NoteType::kDecision,
                      .tags = {"design"},
                      .slug = "storage engine choice",
                      .body = "We keep SQLite as the default engine.\n"}),
           "note 2");
  std::string first =
      Must(book->Add({.agent = "fixture",
                      .type = ctxkit::NoteType::kFinding,
                      .tags = {"perf"},
                      .links = {second},
                      .slug = "render cost",
                      .body = "Renders stay under a few milliseconds.\n"}),
           "note 1");
  Must(book->Update(first, "fixture", "Measured again"), "note update");
  return {first, second};
}

void MakeBulk(ctxkit::View& view, int count) {
  constexpr int kBatch = 2000;
  for (int at = 0; at < count; at += kBatch) {
    std::vector<std::string> keys, values;
    std::vector<ctxkit::SetItem> items;
    const int n = std::min(kBatch, count - at);
    keys.reserve(n);
    values.reserve(n);
    for (int i = 0; i < n; ++i) {
      char key[32];
      std::snprintf(key, sizeof key, "bulk/%07d", at + i);
      keys.emplace_back(key);
      const bool is_json = (at + i) % 5 == 0;
      values.push_back(is_json ? json{{"n", at + i}}.dump()
                               : "bulk value " + std::to_string(at + i));
    }
    for (int i = 0; i < n; ++i) {
      ctxkit::SetOptions o;
      if ((at + i) % 5 == 0) o.type = ctxkit::ValueType::kJson;
      if ((at + i) % 7 == 0) o.tags = {"kind:capture"};
      items.push_back({keys[i], values[i], o});
    }
    Must(view.SetMany(items), "bulk objects");
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string home;
  int turns = 40, objects = 0;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "inspect_fixture: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--home") {
      home = next();
    } else if (a == "--turns") {
      turns = std::atoi(next().c_str());
    } else if (a == "--objects") {
      objects = std::atoi(next().c_str());
    } else if (a == "--fast") {
      g_fast = true;
    } else {
      std::fprintf(stderr,
                   "usage: inspect_fixture --home DIR [--turns N] "
                   "[--objects M] [--fast]\n");
      return 2;
    }
  }
  if (home.empty() || turns < 1 || objects < 0) {
    std::fprintf(stderr, "inspect_fixture: --home is required; N >= 1\n");
    return 2;
  }
  auto store = Must(ctxkit::Store::Open({.home = home}), "open store");
  auto view = Must(store->OpenView("", ""), "view");
  for (int v = 1; v <= 3; ++v) {
    Must(view.Set("doc/readme", ReadmeVersion(v)), "doc/readme");
  }
  std::string big;
  for (int i = 0; big.size() < (3u << 20); ++i) {
    big += "log line " + std::to_string(i) + ": all is well, ünïcödé ✓\n";
  }
  Must(view.Set("big/log", big), "big/log");
  const std::string notes_root =
      (std::filesystem::path(home).parent_path() / "notes-root").string();
  std::vector<std::string> notes = MakeNotes(view, notes_root);
  MakeBulk(view, objects);
  MakeSession(*store, turns);
  json out = {
      {"session", "s1"},   {"renders", turns},     {"doc_key", "doc/readme"},
      {"doc_versions", 3}, {"big_key", "big/log"}, {"big_bytes", big.size()},
      {"notes", notes},    {"objects", objects},   {"notes_root", notes_root}};
  std::printf("%s\n", out.dump().c_str());
  return 0;
}
